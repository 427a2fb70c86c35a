#!/usr/bin/env python3
"""Serve's added latency for scripts/bench-side-by-side (stdlib only): the same client calls the
same tool on the same kind of server, straight and through `mcpdeck serve`, and the difference of
the median round trips is what serve adds to each proxied call.

Two sessions are opened side by side: the server given after `--` (spawned directly) and the
`mcpdeck serve` command given as a JSON array in `--via` (whose configuration must hold the same
server under `--server`). Each gets `initialize` and `notifications/initialized` as
newline-delimited JSON-RPC over stdio. Then, in `--rounds` rounds, `--calls` sequential calls on
each session (the order of the two swapped every other round, so drift falls on both alike):
`tools/call TOOL ARGS` straight, and `tools/call mcp {"server", "tool", "args"}` through serve.
Each call is timed from writing the request to reading its response. Warm-up calls (one round)
are not counted. Exits 1 if any response is an error or `isError`.

Prints one line per side (median, 10th and 90th percentile in ms) and the added latency: the
difference of the medians, and the median over rounds of each round's difference.

Usage: serve-latency.py [--rounds R] [--calls N] [--server NAME] [--tool TOOL] [--args JSON]
                        --via JSON-ARRAY -- COMMAND [ARG...]
"""

import json
import statistics
import subprocess
import sys
import time


class Session:
    def __init__(self, argv):
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL)
        self.next_id = 1

    def request(self, method, params):
        request_id = self.next_id
        self.next_id += 1
        line = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method,
                           "params": params}).encode() + b"\n"
        start = time.perf_counter()
        self.proc.stdin.write(line)
        self.proc.stdin.flush()
        for raw in self.proc.stdout:
            try:
                message = json.loads(raw)
            except ValueError:
                continue
            if isinstance(message, dict) and message.get("id") == request_id \
                    and "method" not in message:
                elapsed = (time.perf_counter() - start) * 1000
                if "error" in message:
                    raise SystemExit(f"serve-latency: error response: {message['error']}")
                return elapsed, message["result"]
        raise SystemExit("serve-latency: the server closed its stdout")

    def open(self):
        self.request("initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                    "clientInfo": {"name": "serve-latency", "version": "0.1.0"}})
        self.proc.stdin.write(b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
        self.proc.stdin.flush()

    def close(self):
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def timed_calls(session, calls, name, arguments):
    samples = []
    for _ in range(calls):
        ms, result = session.request("tools/call", {"name": name, "arguments": arguments})
        if result.get("isError"):
            raise SystemExit(f"serve-latency: {name} failed: {json.dumps(result)[:400]}")
        samples.append(ms)
    return samples


def percentile(samples, q):
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def parse(argv):
    opts = {"rounds": 20, "calls": 50, "server": "fixture", "tool": "echo",
            "args": {"text": "hello"}, "via": None}
    while argv and argv[0] != "--":
        key, value, argv = argv[0].lstrip("-"), argv[1], argv[2:]
        if key in ("rounds", "calls"):
            opts[key] = int(value)
        elif key in ("args", "via"):
            opts[key] = json.loads(value)
        elif key in ("server", "tool"):
            opts[key] = value
        else:
            raise SystemExit(f"serve-latency: unknown argument --{key}")
    if not argv[1:] or not opts["via"]:
        raise SystemExit(__doc__.strip())
    return opts, argv[1:]


def main() -> int:
    opts, server = parse(sys.argv[1:])
    direct, via = Session(server), Session(opts["via"])
    direct.open()
    via.open()
    proxied = {"server": opts["server"], "tool": opts["tool"], "args": opts["args"]}
    sides = {"direct": (direct, opts["tool"], opts["args"]), "serve": (via, "mcp", proxied)}
    samples = {"direct": [], "serve": []}
    differences = []
    for round_no in range(opts["rounds"] + 1):
        order = ["direct", "serve"] if round_no % 2 else ["serve", "direct"]
        medians = {}
        for side in order:
            session, name, arguments = sides[side]
            got = timed_calls(session, opts["calls"], name, arguments)
            medians[side] = statistics.median(got)
            if round_no > 0:
                samples[side].extend(got)
        if round_no > 0:
            differences.append(medians["serve"] - medians["direct"])
    direct.close()
    via.close()
    n = opts["rounds"] * opts["calls"]
    print(f"serve's added latency: {opts['rounds']} interleaved rounds of {opts['calls']} "
          f"sequential `{opts['tool']}` calls on each side ({n} per side, one warm-up round)")
    for side in ("direct", "serve"):
        got = samples[side]
        print(f"  {side:<7} median {statistics.median(got):.3f} ms, p10 "
              f"{percentile(got, 0.1):.3f} ms, p90 {percentile(got, 0.9):.3f} ms")
    added = statistics.median(samples["serve"]) - statistics.median(samples["direct"])
    print(f"  added per proxied call: {added:.3f} ms (difference of medians); median of the "
          f"rounds' differences {statistics.median(differences):.3f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
