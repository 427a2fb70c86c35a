#!/usr/bin/env python3
"""Captures the catalogs (tools, prompts, resource templates, instructions, serverInfo) of real
MCP servers as JSON, for the scan corpus's benign part (tests/scan_corpus/benign/).

    .venv/bin/python scripts/capture-catalogs.py OUT.json -- COMMAND [ARGS...]

Uses the pinned MCP Python SDK's client over stdio; prints nothing but errors.
"""
import asyncio
import json
import sys

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client


async def capture(command, args):
    params = StdioServerParameters(command=command, args=args)
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            caps = init.capabilities
            out = {
                "serverInfo": init.serverInfo.model_dump(mode="json", exclude_none=True),
                "instructions": init.instructions,
                "tools": [],
                "prompts": [],
                "resourceTemplates": [],
            }
            if caps.tools is not None:
                tools = await session.list_tools()
                out["tools"] = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools.tools]
            if caps.prompts is not None:
                prompts = await session.list_prompts()
                out["prompts"] = [p.model_dump(mode="json", by_alias=True, exclude_none=True) for p in prompts.prompts]
            if caps.resources is not None:
                try:
                    templates = await session.list_resource_templates()
                    out["resourceTemplates"] = [
                        t.model_dump(mode="json", by_alias=True, exclude_none=True)
                        for t in templates.resourceTemplates
                    ]
                except Exception:  # a server without templates answers an error
                    pass
            return out


def main():
    target = sys.argv[1]
    rest = sys.argv[sys.argv.index("--") + 1:]
    out = asyncio.run(capture(rest[0], rest[1:]))
    with open(target, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=2, ensure_ascii=False, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
