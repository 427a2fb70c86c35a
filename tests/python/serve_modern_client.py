"""Drives an mcpdeck MCP server (`serve` or `workspace-server`) over stdio with the official MCP
Python SDK 2.x as a 2026-era client: `mode` is `auto` (server/discover, falling back to the
handshake) or `2026-07-28` (no handshake at all; every request stateless with per-request
`_meta`). Lists the tools and calls one; with TOOL `-` it only connects (in `auto` mode that is
one `server/discover`) and closes. Prints one JSON line with what it saw; the Rust tests
(tests/serve/serve_modern.rs) assert on it.

    serve_modern_client.py MODE TOOL ARGS_JSON -- COMMAND ARGS...
"""

import asyncio
import json
import sys

from mcp import StdioServerParameters
from mcp.client.client import Client


async def main() -> None:
    mode, tool, args = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
    command = sys.argv[sys.argv.index("--") + 1 :]
    params = StdioServerParameters(command=command[0], args=command[1:], env=None)
    seen = {}
    async with Client(params, mode=mode, cache=None) as client:
        seen["protocol_version"] = client.protocol_version
        if tool == "-":
            print(json.dumps(seen))
            return
        tools = await client.list_tools()
        seen["tools"] = [t.name for t in tools.tools]
        result = await client.call_tool(tool, args, meta={"operator": "py"})
        seen["is_error"] = result.is_error
        seen["text"] = "".join(getattr(c, "text", "") for c in result.content)
        seen["structured"] = result.structured_content
    print(json.dumps(seen))


asyncio.run(main())
