"""Drives `mcpdeck workspace-server` with the official MCP Python SDK over stdio.

Usage: workspace_client.py MCPDECK_BINARY WORKSPACE_DIR
Lists the tools, calls each once, prints one JSON summary line on stdout and exits 0 when the
server behaved as documented (README, workspace tools); any failure raises (non-zero exit).
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def field(obj, snake: str, camel: str):
    """An attribute under its 2.x (snake_case) or 1.x (camelCase) name."""
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel)


async def main(binary: str, root: str) -> None:
    params = StdioServerParameters(
        command=binary,
        args=["workspace-server", "--workspace", "docs", root, "--observability", "off"],
    )
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            assert field(init, "server_info", "serverInfo").name == "mcpdeck-workspace", init
            tools = await session.list_tools()
            names = [t.name for t in tools.tools]
            assert names == ["workspace_find", "workspace_query", "workspace_check", "workspace_capsule"], names
            calls = {
                "workspace_find": {"workspace": "docs", "question": "configuration precedence"},
                "workspace_query": {"workspace": "docs", "text": "precedence", "explain": True},
                "workspace_check": {"workspace": "docs", "strict": True},
                "workspace_capsule": {"workspace": "docs", "question": "configuration precedence"},
            }
            statuses = {}
            for name, args in calls.items():
                result = await session.call_tool(name, args)
                envelope = field(result, "structured_content", "structuredContent")
                assert envelope["schema"] == "mcpdeck.workspace-result/v1", envelope
                assert json.loads(result.content[0].text) == envelope
                statuses[name] = envelope["status"]
            bad = await session.call_tool("workspace_find", {"workspace": "docs", "question": "x", "nope": 1})
            assert field(bad, "is_error", "isError")
            assert field(bad, "structured_content", "structuredContent")["reason"] == "invalid_arguments"
            print(json.dumps({"tools": names, "statuses": statuses}))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
