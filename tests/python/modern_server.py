"""An MCP server on the official Python SDK 2.x, which speaks 2026-07-28 and the older protocol
alike: a tool, a tool that logs while it runs, a tool that
says a resource changed, a tool that asks for input (answered as an input-required round on 2026-07-28,
as a server-initiated elicitation before), a resource, a prompt with completion. Used by
tests/modern_python.rs (SDK pinned by scripts/install-python-sdk into .venv-sdk2/).

    modern_server.py stdio
    modern_server.py http [stateless] [json]   (a listening TCP socket as standard input)
"""

import sys
from typing import Annotated

from pydantic import BaseModel

from mcp.server.mcpserver import Context, Elicit, MCPServer, Resolve

server = MCPServer("modern-probe")


class Greeting(BaseModel):
    name: str = "operator"


def ask_name() -> Elicit[Greeting]:
    return Elicit("Who should be greeted?", Greeting)


@server.tool()
def echo(text: str) -> str:
    """Echo the text back."""
    return text


@server.tool()
async def chatty(ctx: Context) -> str:
    """Log one line at info and one at debug while it runs."""
    await ctx.info("chatty says info")
    await ctx.debug("chatty says debug")
    return "said"


@server.tool()
async def touch(ctx: Context) -> str:
    """Say that note://readme changed (to the streams of `subscriptions/listen`)."""
    await ctx.notify_resource_updated("note://readme")
    return "touched"


@server.tool()
def greet(who: Annotated[Greeting, Resolve(ask_name)]) -> str:
    """Greet whoever the client names when asked."""
    return f"hello {who.name}"


@server.resource("note://readme")
def readme() -> str:
    """A short note."""
    return "modern readme"


@server.prompt()
def review(topic: str) -> str:
    """Ask for a review of a topic."""
    return f"please review {topic}"


@server.completion()
async def complete(ref, argument, context):
    from mcp.types import Completion

    if argument.name == "topic":
        return Completion(values=[v for v in ["rust", "ruby"] if v.startswith(argument.value)])
    return None


if __name__ == "__main__":
    if sys.argv[1] == "stdio":
        server.run("stdio")
    else:
        # The test binds and listens on a loopback port and hands the listening socket over as
        # standard input, so connections made before uvicorn starts wait in the listen backlog.
        import uvicorn

        app = server.streamable_http_app(
            stateless_http="stateless" in sys.argv[2:],
            json_response="json" in sys.argv[2:],
        )
        uvicorn.Server(uvicorn.Config(app, fd=0, log_level="warning")).run()
