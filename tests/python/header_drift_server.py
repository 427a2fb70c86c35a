"""A 2026-07-28 Streamable HTTP server on the official Python SDK 2.x whose tool gains an
`x-mcp-header` annotation after the client first listed it: the first `tools/list` answers the
tool without the annotation, later ones with it, and the SDK checks every `tools/call` against
the current schema (rejecting a call without the `Mcp-Param-Region` header with HTTP 400 /
-32020). With `stale`, every listing leaves the annotation out, so a re-list never helps.
Each listing appends a line to LOG. Used by tests/interop/modern_python.rs.

    header_drift_server.py LOG [stale]   (a listening TCP socket as standard input)
"""

import copy
import sys
from typing import Annotated

from pydantic import Field

from mcp.server.mcpserver import MCPServer

LOG = sys.argv[1]
STALE = "stale" in sys.argv[2:]


class DriftingServer(MCPServer):
    listings = 0

    async def list_tools(self):
        tools = await super().list_tools()
        DriftingServer.listings += 1
        with open(LOG, "a", encoding="utf-8") as log:
            log.write("tools/list\n")
        if STALE or DriftingServer.listings == 1:
            for tool in tools:
                schema = copy.deepcopy(tool.input_schema)
                for prop in schema.get("properties", {}).values():
                    prop.pop("x-mcp-header", None)
                tool.input_schema = schema
        return tools


server = DriftingServer("header-drift")


@server.tool()
def query(region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})]) -> str:
    """Answer from a region."""
    return f"answered from {region}"


if __name__ == "__main__":
    # The test binds and listens on a loopback port and hands the listening socket over as
    # standard input, so connections made before uvicorn starts wait in the listen backlog.
    import uvicorn

    app = server.streamable_http_app(stateless_http=True)
    uvicorn.Server(uvicorn.Config(app, fd=0, log_level="warning")).run()
