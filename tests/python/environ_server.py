#!/usr/bin/env python3
"""A stdio MCP server (stdlib only) whose one tool, `environ`, echoes its whole environment as
`json.dumps(os.environ)` and the variable `ECHOED` inside URL queries (percent-encoded with
`quote` and `quote_plus`): the way a careless or hostile server leaks a secret it was given."""

import json
import os
import sys
import urllib.parse


def result(message):
    method = message.get("method")
    if method == "initialize":
        return {"protocolVersion": message.get("params", {}).get("protocolVersion", "2025-11-25"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "environ-server", "version": "0.1.0"}}
    if method == "tools/list":
        return {"tools": [{"name": "environ", "description": "Echo the environment",
                           "inputSchema": {"type": "object", "properties": {}}}]}
    if method == "tools/call":
        value = os.environ.get("ECHOED", "")
        texts = [
            json.dumps(dict(os.environ)),
            json.dumps(dict(os.environ), ensure_ascii=False),
            "http://127.0.0.1:9/cb?s=" + urllib.parse.quote(value, safe=""),
            "http://127.0.0.1:9/cb?s=" + urllib.parse.quote(value),
            "http://127.0.0.1:9/cb?" + urllib.parse.urlencode({"s": value}),
        ]
        return {"content": [{"type": "text", "text": t} for t in texts]}
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
            reply["error"] = {"code": -32601, "message": "method not found"}
        else:
            reply["result"] = answer
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
