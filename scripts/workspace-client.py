#!/usr/bin/env python3
"""A minimal MCP client for timing `mcpdeck workspace-server` (stdlib only), used by the
workspace rows of scripts/bench-side-by-side.

Usage: workspace-client.py [--calls N] [--vary] [--report] -- COMMAND [ARG...]

Spawns COMMAND (a workspace server whose workspace is bound as `ws`), sends `initialize` and
`notifications/initialized` as newline-delimited JSON-RPC, then N `workspace_find` calls (default
1), each waited for, and closes the server's stdin. The first call always asks the same question;
the later ones ask it again, or with `--vary` cycle through QUESTIONS (different words of the
tree scripts/workspace-tree.py writes, common and rare, so no answer is the last one repeated). Exits 1 unless every
answer's status is `known`. Without `--report` it prints one line per answer as the answer
arrives, flushed (`call N: STATUS, MS ms`), so a first byte on its stdout is the first answer
(scripts/side_by_side.py times that). With `--report` it prints only one JSON line: each call's milliseconds
(from sending the request to reading the answer), and the server's peak RSS (`VmHWM`), CPU
seconds, time spent waiting for a processor (`/proc/PID/schedstat`) and time blocked on disk
reads (delay accounting, `/proc/PID/stat` field 42; 0 when the kernel does not keep it), all read
just before stdin is closed.
"""

import json
import os
import subprocess
import sys
import time

QUESTION = "configuration for component 42"

# Later questions for `--vary`: each names words of the notes workspace-tree.py writes, some in
# every note ("component", "settings"), some in one ("topic 4711").
QUESTIONS = [
    "what are the defaults of module 17",
    "history of changes number 5123",
    "which note describes topic 4711",
    "settings for component 3",
    "where does the configuration live",
    "details of note 99999",
    "next note after topic 12",
    "module 80 settings and defaults",
]


def proc_figures(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                out["peak_rss_mib"] = round(int(line.split()[1]) / 1024, 1)
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    # Fields after the command name start at field 3 (state).
    out["cpu_s"] = round((int(fields[11]) + int(fields[12])) / tick, 2)
    out["blkio_wait_s"] = round(int(fields[39]) / tick, 2)
    try:
        with open(f"/proc/{pid}/schedstat") as f:
            run_ns, wait_ns, _ = (int(v) for v in f.read().split())
        out["runqueue_wait_s"] = round(wait_ns / 1e9, 2)
    except (OSError, ValueError):
        pass
    return out


def main() -> int:
    argv = sys.argv[1:]
    calls, report, vary = 1, False, False
    while argv and argv[0] != "--":
        if argv[0] == "--calls":
            calls, argv = int(argv[1]), argv[2:]
        elif argv[0] == "--vary":
            vary, argv = True, argv[1:]
        elif argv[0] == "--report":
            report, argv = True, argv[1:]
        else:
            print(__doc__.strip(), file=sys.stderr)
            return 2
    argv = argv[1:]
    if not argv:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    server = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL)

    def send(message):
        server.stdin.write((json.dumps(message) + "\n").encode())
        server.stdin.flush()

    def answer(want):
        while True:
            line = server.stdout.readline()
            if not line:
                raise SystemExit("the server closed stdout")
            message = json.loads(line)
            if message.get("id") == want:
                return message

    send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
          "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                     "clientInfo": {"name": "workspace-client", "version": "1"}}})
    answer(0)
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    times, ok = [], True
    for i in range(1, calls + 1):
        question = QUESTIONS[(i - 2) % len(QUESTIONS)] if vary and i > 1 else QUESTION
        start = time.perf_counter()
        send({"jsonrpc": "2.0", "id": i, "method": "tools/call",
              "params": {"name": "workspace_find",
                         "arguments": {"workspace": "ws", "question": question}}})
        result = answer(i).get("result", {})
        times.append(round((time.perf_counter() - start) * 1000, 2))
        status = result.get("structuredContent", {}).get("status")
        ok &= status == "known"
        if not report:
            print(f"call {i}: {status}, {times[-1]} ms", flush=True)
    figures = proc_figures(server.pid)
    server.stdin.close()
    server.wait()
    if report:
        print(json.dumps({"calls_ms": times, **figures}))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
