#!/usr/bin/env python3
"""A minimal MCP server over stdio for scripts/bench-side-by-side (stdlib only).

Answers `initialize` (tools capability only), `tools/list` (three tools, one page), `ping` and
`tools/call` for `echo`; ignores notifications; exits at end of input. It exists because the
Inspector CLI sends `logging/setLevel` to any server that advertises logging, which
`mcpdeck-fixture` does without implementing it, so the Inspector cannot list the fixture.
"""

import json
import sys

TOOLS = [
    {"name": "echo", "description": "Echo the text back",
     "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}},
                     "required": ["text"]}},
    {"name": "add", "description": "Add two integers",
     "inputSchema": {"type": "object", "properties": {"a": {"type": "integer"},
                                                       "b": {"type": "integer"}}}},
    {"name": "time", "description": "Report the server time",
     "inputSchema": {"type": "object", "properties": {}}},
]


def result(message):
    method = message.get("method")
    if method == "initialize":
        return {"protocolVersion": message.get("params", {}).get("protocolVersion", "2025-11-25"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "minimal-mcp-server", "version": "0.1.0"}}
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "ping":
        return {}
    if method == "tools/call":
        text = message.get("params", {}).get("arguments", {}).get("text", "")
        return {"content": [{"type": "text", "text": str(text)}]}
    return None


def main():
    for line in sys.stdin:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if not isinstance(message, dict) or "id" not in message:
            continue
        answer = result(message)
        reply = {"jsonrpc": "2.0", "id": message["id"]}
        if answer is None:
            reply["error"] = {"code": -32601, "message": f"method not found: {message.get('method')}"}
        else:
            reply["result"] = answer
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
