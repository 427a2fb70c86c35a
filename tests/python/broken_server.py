"""A deliberately badly made stdio MCP server (the official Python SDK's low-level server, so
it can misbehave): two tools share a name, one input schema does not compile, one name breaks
the naming rule, one tool has no annotations, one has invalid x-mcp-header annotations, a
read-only tool returns structuredContent its outputSchema refuses, the tool listing hands out
the same cursor forever, `resources` is declared but resources/list is refused (-32601), prompts
are listed without the capability, and an unknown tool is answered with a reserved JSON-RPC
code. Used by tests/lint.rs: `mcpdeck lint` must report every one of these."""

import anyio

from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import McpError

server = Server("broken")

READ_ONLY = types.ToolAnnotations(readOnlyHint=True)
TOOLS = [
    types.Tool(name="twin", description="first", inputSchema={"type": "object"},
               annotations=READ_ONLY),
    types.Tool(name="twin", description="second", inputSchema={"type": "object"},
               annotations=READ_ONLY),
    types.Tool(name="bad_schema", description="its schema names a type that does not exist",
               inputSchema={"type": "object", "properties": {"n": {"type": "integr"}}},
               annotations=READ_ONLY),
    types.Tool(name="bad name!", description="a space and a bang",
               inputSchema={"type": "object"}, annotations=READ_ONLY),
    types.Tool(name="unannotated", description="says nothing about its effects",
               inputSchema={"type": "object"}),
    types.Tool(name="headers", description="header annotations gone wrong",
               inputSchema={"type": "object", "properties": {
                   "region": {"type": "object", "x-mcp-header": "Region"},
                   "zone": {"type": "string", "x-mcp-header": "bad header"}}},
               annotations=READ_ONLY),
    types.Tool(name="report", description="returns a count as a string",
               inputSchema={"type": "object"},
               outputSchema={"type": "object", "properties": {"count": {"type": "integer"}},
                             "required": ["count"]},
               annotations=READ_ONLY),
]


async def list_tools(req: types.ListToolsRequest) -> types.ServerResult:
    # Every page, the first included, points at the same cursor: a client that follows it
    # never ends.
    return types.ServerResult(types.ListToolsResult(tools=TOOLS, nextCursor="again"))


async def call_tool(req: types.CallToolRequest) -> types.ServerResult:
    if req.params.name == "report":
        return types.ServerResult(types.CallToolResult(
            content=[types.TextContent(type="text", text="many")],
            structuredContent={"count": "many"}))
    if any(t.name == req.params.name for t in TOOLS):
        return types.ServerResult(types.CallToolResult(
            content=[types.TextContent(type="text", text="ok")]))
    raise McpError(types.ErrorData(code=-32500, message="no such tool"))


@server.list_prompts()
async def list_prompts() -> list[types.Prompt]:
    return [types.Prompt(name="hello", description="a prompt nobody was told about")]


server.request_handlers[types.ListToolsRequest] = list_tools
server.request_handlers[types.CallToolRequest] = call_tool


async def main() -> None:
    options = server.create_initialization_options()
    options.capabilities.tools = types.ToolsCapability()
    options.capabilities.resources = types.ResourcesCapability()
    options.capabilities.prompts = None
    async with stdio_server() as (read, write):
        await server.run(read, write, options)


anyio.run(main)
