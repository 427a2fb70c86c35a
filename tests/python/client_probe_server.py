"""A stdio MCP server (official Python SDK) whose tools send requests to the client: roots,
sampling and elicitation, form and URL (one URL request completed by the server itself). Each
tool returns what the client answered, or "refused <code>: <message>" when the client refused.
Used by tests/interop/interop_client.rs and tests/console/console_client.rs."""

import json

import anyio

from mcp import types
from mcp.server.fastmcp import Context, FastMCP
from mcp.shared.exceptions import McpError

server = FastMCP("client-probe")


def refused(e: McpError) -> str:
    return f"refused {e.error.code}: {e.error.message}"


@server.tool()
async def ask_roots(ctx: Context) -> str:
    try:
        result = await ctx.session.list_roots()
    except McpError as e:
        return refused(e)
    return json.dumps([str(r.uri) for r in result.roots])


@server.tool()
async def ask_sampling(prompt: str, ctx: Context) -> str:
    try:
        result = await ctx.session.create_message(
            messages=[
                types.SamplingMessage(
                    role="user", content=types.TextContent(type="text", text=prompt)
                )
            ],
            max_tokens=50,
            system_prompt="answer briefly",
        )
    except McpError as e:
        return refused(e)
    return json.dumps(
        {"model": result.model, "text": result.content.text, "stop": result.stopReason}
    )


@server.tool()
async def ask_form(ctx: Context) -> str:
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "title": "Name", "default": "Ada"},
            "count": {"type": "integer", "minimum": 1, "default": 3},
            "color": {
                "type": "string",
                "oneOf": [
                    {"const": "r", "title": "Red"},
                    {"const": "g", "title": "Green"},
                ],
                "default": "g",
            },
            "tags": {
                "type": "array",
                "items": {"type": "string", "enum": ["a", "b"]},
                "default": ["b"],
            },
            "note": {"type": "string"},
        },
        "required": ["name", "count", "color"],
    }
    try:
        result = await ctx.session.elicit_form("Fill in, please", schema)
    except McpError as e:
        return refused(e)
    return json.dumps({"action": result.action, "content": result.content})


@server.tool()
async def ask_url(ctx: Context) -> str:
    try:
        result = await ctx.session.elicit_url(
            "Sign in, please", "https://example.com/signin?x=1", "el-1"
        )
    except McpError as e:
        return refused(e)
    return json.dumps({"action": result.action})


@server.tool()
async def visit_url(ctx: Context) -> str:
    """A URL elicitation whose out-of-band part finishes at once: while the request waits,
    the server sends notifications/elicitation/complete for it, as it would once a person
    finished in the browser."""
    answer: dict = {}

    async def ask() -> None:
        try:
            result = await ctx.session.elicit_url(
                "Finish in the browser, please", "https://example.com/done", "el-2"
            )
            answer["action"] = result.action
        except McpError as e:
            answer["action"] = refused(e)

    async with anyio.create_task_group() as tg:
        tg.start_soon(ask)
        await ctx.session.send_elicit_complete("el-2")
    return json.dumps(answer)


@server.tool()
async def log_and_progress(ctx: Context) -> str:
    await ctx.warning("probe log line")
    await ctx.report_progress(1, 2, "half way")
    await ctx.report_progress(2, 2, "done")
    return "logged"


if __name__ == "__main__":
    server.run()
