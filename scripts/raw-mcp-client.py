#!/usr/bin/env python3
"""The floor for scripts/bench-side-by-side: the least an MCP client can do to list tools.

Spawns the server given after `--`, sends `initialize`, `notifications/initialized` and
`tools/list` (following `nextCursor`) as newline-delimited JSON-RPC over stdio, closes the
server's stdin, waits for it to exit, and prints the number of tools. With `--call TOOL` it
sends `tools/call` for TOOL with the JSON object of `--args` (default `{}`) instead of listing,
and prints the result's text blocks. No dependencies, no validation beyond matching response ids: it exists only to be timed.

Usage: raw-mcp-client.py [--call TOOL] [--args JSON] -- COMMAND [ARG...]
"""

import json
import subprocess
import sys


def main() -> int:
    argv = sys.argv[1:]
    call, args = None, {}
    while len(argv) > 1 and argv[0] in ("--call", "--args"):
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
    server = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
    )

    def send(message: dict) -> None:
        server.stdin.write(json.dumps(message).encode() + b"\n")
        server.stdin.flush()

    def response(request_id: int) -> dict:
        # Skip notifications, server requests and stray lines until our response arrives.
        for line in server.stdout:
            try:
                message = json.loads(line)
            except ValueError:
                continue
            if isinstance(message, dict) and message.get("id") == request_id:
                if "error" in message:
                    raise SystemExit(f"raw-mcp-client: error response: {message['error']}")
                return message["result"]
        raise SystemExit("raw-mcp-client: the server closed its stdout")

    send({
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "raw-mcp-client", "version": "0.1.0"},
        },
    })
    response(1)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    if call is not None:
        send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
              "params": {"name": call, "arguments": args}})
        result = response(2)
        for block in result.get("content", []):
            if block.get("type") == "text":
                sys.stdout.write(block["text"])
        sys.stdout.flush()
    tools, cursor, request_id = [], None, 2
    while call is None:
        params = {"cursor": cursor} if cursor else {}
        send({"jsonrpc": "2.0", "id": request_id, "method": "tools/list", "params": params})
        page = response(request_id)
        tools.extend(page.get("tools", []))
        cursor = page.get("nextCursor")
        if not cursor:
            break
        request_id += 1
    server.stdin.close()
    try:
        server.wait(timeout=5)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
    if call is None:
        print(len(tools))
    return 0


if __name__ == "__main__":
    sys.exit(main())
