#!/usr/bin/env python3
"""An MCP server with a large result or a large catalog (stdlib only), for the large rows of
scripts/bench-side-by-side and for measuring a client's peak memory. Its tool `big` returns one
large text block.

Usage: large-mcp-server.py [--mib N] [--escaped] [--tools N] [--http PORT]

- `--mib N`: the text's size in MiB (default 15).
- `--escaped`: the text is lines of 79 `x` and a newline, so every line carries a JSON escape
  (`\\n`) and a decoder cannot borrow the string from the frame; without it the text is one run
  of `x`, which needs no escape at all.
- `--tools N`: list N more tools of about 215 bytes each (a name, a one-line description, two
  typed properties, one required), in pages of 1,000.
- `--http PORT`: serve Streamable HTTP on 127.0.0.1:PORT (stateless) instead of stdio. The port
  is printed on stdout once it listens (0: any free port). Every answer is a plain JSON body,
  except under a path ending in `/sse` (`http://127.0.0.1:PORT/sse`), where every answer is an
  SSE stream (`text/event-stream`) of one `message` event whose one `data:` line holds it.

Answers `initialize`, `tools/list`, `ping` and `tools/call`; anything else is "method not found"
(so a 2026 `server/discover` probe falls back to `initialize`); ignores notifications; on stdio it
exits at end of input.
"""

import json
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

TOOL = {"name": "big", "description": "Return one large text block",
        "inputSchema": {"type": "object", "properties": {}}}
PAGE = 1000


def catalog(count):
    tools = [TOOL]
    for i in range(count):
        tools.append({
            "name": f"tool_{i:05}",
            "description": f"Does operation {i} on the widget catalog; see the docs.",
            "inputSchema": {"type": "object",
                            "properties": {"id": {"type": "string", "description": "the widget"},
                                           "count": {"type": "integer"}},
                            "required": ["id"]}})
    return tools


def big_text(mib, escaped):
    size = mib * 1024 * 1024
    if not escaped:
        return "x" * size
    line = "x" * 79 + "\n"
    return (line * (size // len(line) + 1))[:size]


def result(message, text, tools):
    method = message.get("method")
    if method == "initialize":
        return {"protocolVersion": message.get("params", {}).get("protocolVersion", "2025-11-25"),
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "large-result-server", "version": "0.1.0"}}
    if method == "tools/list":
        start = int((message.get("params") or {}).get("cursor") or 0)
        page = {"tools": tools[start:start + PAGE]}
        if start + PAGE < len(tools):
            page["nextCursor"] = str(start + PAGE)
        return page
    if method == "ping":
        return {}
    if method == "tools/call":
        return {"content": [{"type": "text", "text": text}]}
    return None


def answer(message, text, tools):
    """The JSON-RPC answer line to `message`, or None for a notification."""
    if not isinstance(message, dict) or "id" not in message:
        return None
    got = result(message, text, tools)
    reply = {"jsonrpc": "2.0", "id": message["id"]}
    if got is None:
        reply["error"] = {"code": -32601, "message": f"method not found: {message.get('method')}"}
    else:
        reply["result"] = got
    return json.dumps(reply, separators=(",", ":")).encode()


def serve_stdio(text, tools):
    for line in sys.stdin.buffer:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        reply = answer(message, text, tools)
        if reply is not None:
            sys.stdout.buffer.write(reply + b"\n")
            sys.stdout.buffer.flush()


def serve_http(port, text, tools):
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            try:
                reply = answer(json.loads(body), text, tools)
            except ValueError:
                reply = None
            if reply is None:
                self.send_response(202)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if self.path.rstrip("/").endswith("/sse"):
                reply = b"event: message\ndata: " + reply + b"\n\n"
                kind = "text/event-stream"
            else:
                kind = "application/json"
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(reply)))
            self.end_headers()
            self.wfile.write(reply)

        def do_GET(self):
            self.send_response(405)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_DELETE = do_GET

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


def main():
    args = sys.argv[1:]
    mib, escaped, port, count = 15, False, None, 0
    while args:
        arg = args.pop(0)
        if arg == "--mib":
            mib = int(args.pop(0))
        elif arg == "--escaped":
            escaped = True
        elif arg == "--tools":
            count = int(args.pop(0))
        elif arg == "--http":
            port = int(args.pop(0))
        else:
            print(__doc__.strip(), file=sys.stderr)
            return 2
    text, tools = big_text(mib, escaped), catalog(count)
    if port is None:
        serve_stdio(text, tools)
    else:
        serve_http(port, text, tools)
    return 0


if __name__ == "__main__":
    sys.exit(main())
