#!/usr/bin/env python3
"""The Python SDK client for scripts/bench-side-by-side: what a one-shot list or call costs
through the official MCP Python SDK (the `mcp` package; run it with the interpreter of `.venv`,
which scripts/install-python-sdk prepares).

Spawns the server given after `--` with the SDK's `stdio_client`, initializes a
`ClientSession`, then lists every tool (the SDK's `list_tools`, following `nextCursor`) and
prints their number, or with `--call TOOL` calls TOOL with the JSON object of `--args` (default
`{}`) and prints the result's text blocks. Leaving the SDK's context managers closes the
server's stdin and waits for it as the SDK does. It exists only to be timed.

Usage: sdk-mcp-client.py [--call TOOL] [--args JSON] -- COMMAND [ARG...]
"""

import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


def field(obj, snake: str, camel: str):
    """An attribute under its 2.x (snake_case) or 1.x (camelCase) name."""
    return getattr(obj, snake) if hasattr(obj, snake) else getattr(obj, camel)


async def run(argv: list[str], call: str | None, args: dict) -> None:
    params = StdioServerParameters(command=argv[0], args=argv[1:])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            if call is not None:
                result = await session.call_tool(call, args)
                for block in result.content:
                    if getattr(block, "type", None) == "text":
                        sys.stdout.write(block.text)
                sys.stdout.flush()
                return
            count, cursor = 0, None
            while True:
                page = await session.list_tools(cursor=cursor) if cursor else await session.list_tools()
                count += len(page.tools)
                cursor = field(page, "next_cursor", "nextCursor")
                if not cursor:
                    break
            print(count, flush=True)


def main() -> int:
    argv = sys.argv[1:]
    call, args = None, {}
    while argv and argv[0] in ("--call", "--args"):
        if len(argv) < 2:
            break
        if argv[0] == "--call":
            call = argv[1]
        else:
            args = json.loads(argv[1])
        argv = argv[2:]
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    asyncio.run(run(argv, call, args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
