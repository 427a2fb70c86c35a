#!/usr/bin/env python3
"""How long real stdio servers take to exit once their input ends, and once sent SIGTERM.

The measurement behind mcpdeck's stdio shutdown sequence (close stdin, wait, SIGTERM the
group, wait, SIGKILL): for each server, with and without the client declaring `roots`, it
runs the handshake and a `tools/list` (answering a `roots/list` request with no roots), closes
the server's stdin and times the exit, waiting at most --eof-wait seconds; a server still
running then gets SIGTERM on its process group and the time to its exit is measured too
(SIGKILL after 3 s). Prints median and maximum of each.

Usage: benches/side-by-side/exit_after_eof.py [--runs N] [--eof-wait S]
Run from the repository; uses the npm servers in tests/interop/node_modules and the Python
SDK in .venv (both installed by the test set-up). Needs only python3 and node.
"""

import json
import os
import signal
import statistics
import subprocess
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
NPM = os.path.join(ROOT, "tests", "interop", "node_modules", "@modelcontextprotocol")
PY_SDK_SERVER = (
    "from mcp.server.fastmcp import FastMCP\n"
    "app = FastMCP('exit-probe')\n"
    "@app.tool()\n"
    "def echo(text: str) -> str:\n"
    "    return text\n"
    "app.run()\n"
)


def servers():
    venv_python = os.path.join(ROOT, ".venv", "bin", "python")
    found = {
        "server-everything": ["node", os.path.join(NPM, "server-everything", "dist", "index.js"),
                              "stdio"],
        "server-filesystem": ["node", os.path.join(NPM, "server-filesystem", "dist", "index.js"),
                              ROOT],
        "minimal-py": [sys.executable, "-S", os.path.join(ROOT, "scripts",
                                                          "minimal-mcp-server.py")],
    }
    if os.path.exists(venv_python):
        found["python-sdk"] = [venv_python, "-c", PY_SDK_SERVER]
    return found


def send(proc, message):
    proc.stdin.write((json.dumps(message) + "\n").encode())
    proc.stdin.flush()


def answer_for(proc, want_id):
    """Reads until the response to want_id; answers roots/list requests on the way."""
    while True:
        line = proc.stdout.readline()
        if not line:
            raise RuntimeError("the server closed its stdout")
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if message.get("method") == "roots/list" and "id" in message:
            send(proc, {"jsonrpc": "2.0", "id": message["id"], "result": {"roots": []}})
        elif message.get("id") == want_id and "method" not in message:
            return message


def wait_exit(proc, limit):
    start = time.perf_counter()
    try:
        proc.wait(timeout=limit)
    except subprocess.TimeoutExpired:
        return None
    return time.perf_counter() - start


def one_run(argv, roots, eof_wait):
    """Returns (seconds from EOF to exit or None, seconds from SIGTERM to exit or None)."""
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, start_new_session=True, cwd=ROOT)
    capabilities = {"roots": {"listChanged": True}} if roots else {}
    send(proc, {"jsonrpc": "2.0", "id": 1, "method": "initialize",
                "params": {"protocolVersion": "2025-06-18", "capabilities": capabilities,
                           "clientInfo": {"name": "exit-probe", "version": "0"}}})
    answer_for(proc, 1)
    send(proc, {"jsonrpc": "2.0", "method": "notifications/initialized"})
    send(proc, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    answer_for(proc, 2)
    proc.stdin.close()
    after_eof = wait_exit(proc, eof_wait)
    after_term = None
    if after_eof is None:
        os.killpg(proc.pid, signal.SIGTERM)
        after_term = wait_exit(proc, 3)
        if after_term is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.stdout.close()
    return after_eof, after_term


def summary(values, runs):
    if not values:
        return "—"
    ms = [v * 1000 for v in values]
    text = f"{statistics.median(ms):.0f} / {max(ms):.0f} ms"
    return text if len(values) == runs else f"{text} ({len(values)} of {runs} runs)"


def main():
    runs, eof_wait = 5, 5.0
    args = sys.argv[1:]
    while args:
        if args[0] == "--runs":
            runs, args = int(args[1]), args[2:]
        elif args[0] == "--eof-wait":
            eof_wait, args = float(args[1]), args[2:]
        else:
            sys.exit(f"exit_after_eof: unknown argument {args[0]}")
    print(f"{runs} runs each; EOF wait {eof_wait:.1f} s; median / max")
    header = f"{'server':<18} {'roots':<6} {'EOF -> exit':<26} {'SIGTERM -> exit':<26}"
    print(header)
    print("-" * len(header))
    for name, argv in servers().items():
        for roots in (False, True):
            results = [one_run(argv, roots, eof_wait) for _ in range(runs)]
            eof = [r[0] for r in results if r[0] is not None]
            term = [r[1] for r in results if r[1] is not None]
            print(f"{name:<18} {'yes' if roots else 'no':<6} {summary(eof, runs):<26} "
                  f"{summary(term, runs):<26}")


if __name__ == "__main__":
    main()
