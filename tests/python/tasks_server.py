"""An MCP server on the official Python SDK 2.x that serves the tasks extension
(`io.modelcontextprotocol/tasks`) of protocol 2026-07-28 through the SDK's extension interface:
its task tools answer `tools/call` with `resultType: "task"` to a client that declared the
extension (and refuse with -32021 one that did not), and it serves `tasks/get`,
`tasks/update` and `tasks/cancel`. Every task method it receives is appended, one line each, to
the file named by `TASKS_LOG` (when set), so a test can count polls and see that cancel was a
`tasks/cancel`. Used by tests/interop/tasks_python.rs.

Tools: `plain` (never a task), `slow` (a task that works for `seconds` seconds, polled at
`poll_ms`), `ask` (a task that needs the operator's name through `input_required`), `hang`
(a task that never ends unless cancelled), `broken` (a task that fails with a JSON-RPC error),
`bare` (a task whose handle and `tasks/get` answers leave out `createdAt`, `lastUpdatedAt` and
`ttlMs`), `report` (marked read-only, with an output schema; a task whose result's
`structuredContent` does not match it, for `lint --call`).

    tasks_server.py stdio
"""

import asyncio
import datetime
import os
import sys
import uuid
from typing import Any

from mcp_types import RequestParams

from mcp.server.context import ServerRequestContext
from mcp.server.extension import Extension, MethodBinding
from mcp.server.mcpserver import MCPServer
from mcp_types import ToolAnnotations
from pydantic import BaseModel

TASKS = "io.modelcontextprotocol/tasks"


def log(line: str) -> None:
    path = os.environ.get("TASKS_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as f:
            f.write(line + "\n")


def now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat().replace("+00:00", "Z")


class TaskParams(RequestParams):
    taskId: str


class UpdateParams(RequestParams):
    taskId: str
    inputResponses: dict[str, Any] = {}


class Tasks(Extension):
    identifier = TASKS

    def __init__(self) -> None:
        self.tasks: dict[str, dict[str, Any]] = {}
        self.work: dict[str, asyncio.Task[None]] = {}
        self.answers: dict[str, asyncio.Future[Any]] = {}
        self.bare: set[str] = set()

    def methods(self):
        return (
            MethodBinding("tasks/get", TaskParams, self.get),
            MethodBinding("tasks/update", UpdateParams, self.update),
            MethodBinding("tasks/cancel", TaskParams, self.cancel),
        )

    def declared(self, ctx: ServerRequestContext[Any, Any]) -> bool:
        caps = ctx.session.client_capabilities
        return bool(caps and caps.extensions and TASKS in caps.extensions)

    async def intercept_tool_call(self, params, ctx, call_next):
        name = params.name
        if name not in ("slow", "ask", "hang", "broken", "bare", "report"):
            return await call_next(ctx)
        if not self.declared(ctx):
            from mcp.server.mcpserver.server import require_client_extension

            require_client_extension(ctx, TASKS)
        args = params.arguments or {}
        task_id = str(uuid.uuid4())
        task = {
            "taskId": task_id,
            "status": "working",
            "statusMessage": f"{name} started",
            "createdAt": now(),
            "lastUpdatedAt": now(),
            "ttlMs": 600_000,
            "pollIntervalMs": int(args.get("poll_ms", 100)),
        }
        self.tasks[task_id] = task
        self.work[task_id] = asyncio.create_task(self.run(task_id, name, args))
        log(f"created {name} {task_id}")
        if name == "bare":
            self.bare.add(task_id)
        return {"resultType": "task", **self.shown(task_id)}

    def shown(self, task_id: str) -> dict[str, Any]:
        task = dict(self.tasks[task_id])
        if task_id in self.bare:
            for key in ("createdAt", "lastUpdatedAt", "ttlMs"):
                task.pop(key, None)
        return task

    def set(self, task_id: str, **fields: Any) -> None:
        task = self.tasks[task_id]
        task.update(fields)
        task["lastUpdatedAt"] = now()

    async def run(self, task_id: str, name: str, args: dict[str, Any]) -> None:
        try:
            if name == "slow":
                await asyncio.sleep(float(args.get("seconds", 0.5)))
                self.set(task_id, status="completed", statusMessage="done",
                         result={"content": [{"type": "text", "text": f"slow finished {args.get('label', '')}"}]})
            elif name == "ask":
                answer = asyncio.get_running_loop().create_future()
                self.answers[task_id] = answer
                self.set(task_id, status="input_required", statusMessage="waiting for a name",
                         inputRequests={"name-1": {"method": "elicitation/create", "params": {
                             "mode": "form", "message": "Who runs this task?",
                             "requestedSchema": {"type": "object",
                                                 "properties": {"name": {"type": "string", "default": "operator"}},
                                                 "required": ["name"]}}}})
                got = await answer
                self.tasks[task_id].pop("inputRequests", None)
                if got.get("action") == "accept":
                    text = f"hello {got.get('content', {}).get('name', '?')} from a task"
                else:
                    text = f"the operator chose {got.get('action')}"
                self.set(task_id, status="completed", statusMessage="answered",
                         result={"content": [{"type": "text", "text": text}]})
            elif name == "hang":
                await asyncio.sleep(3600)
            elif name == "bare":
                await asyncio.sleep(0.2)
                self.set(task_id, status="completed", statusMessage="done",
                         result={"content": [{"type": "text", "text": "bare finished"}]})
            elif name == "report":
                await asyncio.sleep(0.2)
                self.set(task_id, status="completed", statusMessage="reported",
                         result={"content": [{"type": "text", "text": "many"}],
                                 "structuredContent": {"count": "many"}})
            elif name == "broken":
                await asyncio.sleep(0.1)
                self.set(task_id, status="failed", statusMessage="it broke",
                         error={"code": -32603, "message": "the job broke"})
        except asyncio.CancelledError:
            self.set(task_id, status="cancelled", statusMessage="cancelled on request")

    async def get(self, ctx, params: TaskParams):
        log(f"tasks/get {params.taskId}")
        task = self.tasks.get(params.taskId)
        if task is None:
            from mcp.shared.exceptions import MCPError

            raise MCPError(code=-32602, message="Failed to retrieve task: Task not found")
        return {"resultType": "complete", **self.shown(params.taskId)}

    async def update(self, ctx, params: UpdateParams):
        log(f"tasks/update {params.taskId} {sorted(params.inputResponses)}")
        answer = self.answers.get(params.taskId)
        if answer is not None and not answer.done() and "name-1" in params.inputResponses:
            answer.set_result(params.inputResponses["name-1"])
        return {"resultType": "complete"}

    async def cancel(self, ctx, params: TaskParams):
        log(f"tasks/cancel {params.taskId}")
        work = self.work.get(params.taskId)
        if work is not None and not work.done():
            work.cancel()
        return {"resultType": "complete"}


server = MCPServer("tasks-probe", extensions=[Tasks()])


@server.tool()
def plain(text: str = "plain") -> str:
    """Answer at once (never a task)."""
    return text


@server.tool()
def slow(seconds: float = 0.5, poll_ms: int = 100, label: str = "") -> str:
    """Work for a while as a task."""
    return "not a task"


@server.tool()
def ask() -> str:
    """Ask the operator's name inside a task."""
    return "not a task"


@server.tool()
def hang(poll_ms: int = 100) -> str:
    """A task that never ends unless cancelled."""
    return "not a task"


@server.tool()
def broken() -> str:
    """A task that fails with a JSON-RPC error."""
    return "not a task"


@server.tool()
def bare() -> str:
    """A task that leaves out its times."""
    return "not a task"


class Report(BaseModel):
    count: int


@server.tool(annotations=ToolAnnotations(readOnlyHint=True))
def report() -> Report:
    """Count something, as a task (its result breaks its own output schema)."""
    return Report(count=0)


if __name__ == "__main__":
    server.run("stdio")
