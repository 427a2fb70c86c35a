"""Drives `mcpdeck serve` with the official MCP Python SDK: lists the one `mcp` tool and calls
it for status, a tool listing and a tool call. Prints one JSON line with what it saw; the Rust
test (tests/serve/serve_python.rs) asserts on it."""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def main() -> None:
    binary, cwd, config = sys.argv[1], sys.argv[2], sys.argv[3]
    params = StdioServerParameters(
        command=binary, args=["--cwd", cwd, "--config", config, "serve"], env=None
    )
    seen = {}
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            seen["server"] = init.serverInfo.name
            tools = await session.list_tools()
            seen["tools"] = [t.name for t in tools.tools]
            seen["closed"] = tools.tools[0].inputSchema.get("additionalProperties")
            status = await session.call_tool("mcp", {})
            seen["status"] = status.content[0].text
            listing = await session.call_tool("mcp", {"server": "fx"})
            seen["listing"] = listing.content[0].text
            echo = await session.call_tool(
                "mcp", {"server": "fx", "tool": "echo", "args": {"text": "from python"}}
            )
            seen["echo"] = echo.content[0].text
            seen["echo_structured"] = echo.structuredContent
            bad = await session.call_tool("mcp", {"server": "fx", "bogus": 1})
            seen["bad_is_error"] = bad.isError
    print(json.dumps(seen))


asyncio.run(main())
