#!/usr/bin/env python3
"""Measurement core of scripts/bench-side-by-side (run that instead; it prepares everything).

Input: a JSON file of cases, each {"server": label, "client": label, "argv": [...]}, plus the
pattern that identifies the server process in each case's tree. For every case:

- wall time: `hyperfine -N` (no shell) when it is on PATH, else `time.perf_counter` around
  `subprocess.run`; median over the runs, after warm-up runs;
- memory: separate runs (so sampling never slows the timed ones) that poll the process tree
  every 2 ms and keep each process's kernel high-water mark (`VmHWM`). "client RSS" is the sum
  of those peaks over every process in the tree except the server (and its descendants);
  "tree RSS" includes the server. Peaks are per process, so summing them is an upper bound
  for processes that did not peak at the same moment.

- time to first byte and time to exit: separate runs, interleaved over a server's cases (the
  order reversed every other round, so drift falls on every client alike), each timed from
  just before the spawn to the first byte on the client's stdout and to the client's exit
  (after its stdout reached end of file); medians. A client that prints its answer only once
  its server has exited shows the two close together; one that prints as soon as it has the
  answer shows the first byte well before the exit.

Prints one table per server with ratios against mcpdeck. A server one of whose timed runs exits
non-zero is left out of the tables and named after them; the exit status is then 1.
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

POLL_SECONDS = 0.002
# Where every command runs: the folder holding the pinned Inspector, so `npx` finds it there
# instead of reaching for the registry. Every other path in the cases is absolute.
CWD = None


def children(pid):
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as f:
            return [int(c) for c in f.read().split()]
    except OSError:
        return []


def status_hwm_kib(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return [a.decode(errors="replace") for a in f.read().split(b"\0") if a]
    except OSError:
        return []


def is_server(argv):
    """The server of every case: the fixture binary, `mcpdeck workspace-server`, python running
    minimal-mcp-server.py or large-mcp-server.py, or node running server-everything."""
    if not argv:
        return False
    if os.path.basename(argv[0]) == "mcpdeck-fixture":
        return True
    if len(argv) > 1 and argv[1] == "workspace-server":
        return True
    if os.path.basename(argv[0]).startswith("python") and any(
        a.endswith(("minimal-mcp-server.py", "large-mcp-server.py")) for a in argv[1:3]
    ):
        return True
    return (
        os.path.basename(argv[0]) == "node"
        and len(argv) > 1
        and argv[1].endswith("server-everything/dist/index.js")
    )


def sample_run(argv, env):
    """Runs argv once; returns (client KiB, tree KiB) from per-process VmHWM peaks."""
    root = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                            cwd=CWD)
    peaks, parents, servers = {}, {}, set()
    while root.poll() is None:
        stack = [root.pid]
        while stack:
            pid = stack.pop()
            hwm = status_hwm_kib(pid)
            if hwm is not None:
                peaks[pid] = max(peaks.get(pid, 0), hwm)
            if pid not in servers and is_server(cmdline(pid)):
                servers.add(pid)
            for child in children(pid):
                parents[child] = pid
                stack.append(child)
        time.sleep(POLL_SECONDS)

    def under_server(pid):
        while pid is not None:
            if pid in servers:
                return True
            pid = parents.get(pid)
        return False

    client = sum(kib for pid, kib in peaks.items() if not under_server(pid))
    return client, sum(peaks.values())


def time_with_hyperfine(cases, runs, warmup, env):
    out = tempfile.NamedTemporaryFile(suffix=".json", delete=False)
    out.close()
    cmd = ["hyperfine", "-N", "--style", "basic", "--warmup", str(warmup), "--runs", str(runs),
           "--export-json", out.name]
    for case in cases:
        cmd += ["-n", f"{case['server']}/{case['client']}", " ".join(case["argv"])]
    subprocess.run(cmd, check=True, env=env, stdout=sys.stderr, cwd=CWD)
    with open(out.name) as f:
        results = json.load(f)["results"]
    os.unlink(out.name)
    return [r["median"] * 1000 for r in results]


def time_with_python(cases, runs, warmup, env):
    medians = []
    for case in cases:
        samples = []
        for i in range(warmup + runs):
            start = time.perf_counter()
            subprocess.run(case["argv"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           env=env, check=True, cwd=CWD)
            if i >= warmup:
                samples.append((time.perf_counter() - start) * 1000)
        medians.append(statistics.median(samples))
    return medians


def first_byte_and_exit(argv, env):
    """Runs argv once; returns (ms to the first byte on stdout or None, ms to exit)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
                            cwd=CWD)
    first = None
    while True:
        chunk = proc.stdout.read1(65536)
        if not chunk:
            break
        if first is None:
            first = (time.perf_counter() - start) * 1000
    proc.stdout.close()
    proc.wait()
    return first, (time.perf_counter() - start) * 1000


def time_first_byte(cases, runs, warmup, env):
    """Interleaved runs of every case; returns [(median first byte ms, median exit ms)]."""
    samples = [([], []) for _ in cases]
    for i in range(warmup + runs):
        order = list(range(len(cases)))
        if i % 2:
            order.reverse()
        for k in order:
            first, done = first_byte_and_exit(cases[k]["argv"], env)
            if i >= warmup:
                if first is not None:
                    samples[k][0].append(first)
                samples[k][1].append(done)
    return [(statistics.median(f) if f else float("nan"), statistics.median(d))
            for f, d in samples]


def print_first_byte(rows, runs, everything_runs):
    print()
    print(f"time to first byte and to exit: medians of {runs} interleaved runs per client "
          f"({everything_runs} for the slow servers)")
    header = f"{'server':<11} {'client':<10} {'first byte ms':>13} {'exit ms':>9}  vs mcpdeck"
    print(header)
    print("-" * len(header))
    base = {r[0]: r for r in rows if r[1] == "mcpdeck"}
    for server, client, first, done in rows:
        note = ""
        b = base.get(server)
        if b and client != "mcpdeck":
            note = f"first byte {first / b[2]:.2f}x, exit {done / b[3]:.2f}x"
        print(f"{server:<11} {client:<10} {first:>13.1f} {done:>9.1f}  {note}")


def main():
    global CWD
    spec = json.load(open(sys.argv[1]))
    CWD = spec.get("cwd")
    runs, warmup, mem_runs = spec["runs"], spec["warmup"], spec["mem_runs"]
    env = dict(os.environ, **spec.get("env", {}))
    rows, first_rows = [], []
    everything_runs = spec.get("everything_runs", runs)
    # The servers timed with fewer runs: server-everything and the large results.
    slow = set(spec.get("slow", ["everything"]))
    failed = []
    for server, cases in spec["servers"].items():
        n = everything_runs if server in slow else runs
        try:
            firsts = time_first_byte(cases, n, warmup, env)
            timer = time_with_hyperfine if shutil.which("hyperfine") else time_with_python
            walls = timer(cases, n, warmup, env)
        except subprocess.CalledProcessError as e:
            # One failed run drops this server's rows, not the whole table.
            failed.append(f"{server}: a run exited {e.returncode}: {' '.join(e.cmd)}")
            continue
        for case, (first, done) in zip(cases, firsts):
            first_rows.append((server, case["client"], first, done))
        for case, wall in zip(cases, walls):
            mem = [sample_run(case["argv"], env) for _ in range(mem_runs)]
            client = statistics.median(m[0] for m in mem) / 1024
            tree = statistics.median(m[1] for m in mem) / 1024
            rows.append((server, case["client"], wall, client, tree))
    print()
    print(f"timer: {'hyperfine -N' if shutil.which('hyperfine') else 'python perf_counter'}; "
          f"{runs} timed runs ({everything_runs} for {', '.join(sorted(slow))}) after "
          f"{warmup} warm-up; memory: median of {mem_runs} sampled runs")
    header = f"{'server':<11} {'client':<10} {'median wall ms':>14} {'client RSS MiB':>14} " \
             f"{'tree RSS MiB':>12}  vs mcpdeck"
    print(header)
    print("-" * len(header))
    base = {r[0]: r for r in rows if r[1] == "mcpdeck"}
    for server, client, wall, rss, tree in rows:
        note = ""
        b = base.get(server)
        if b and client != "mcpdeck":
            if server == "ws-100k" and client == "grep -r":
                note = f"mcpdeck's first answer {b[2] / wall:.2f}x grep -r"
            elif server == "ws-100k" and client == "mcpdeck-21":
                note = (f"each later answer {(wall - b[2]) / 20:.1f} ms; server RSS "
                        f"{tree - rss:.1f} MiB")
            elif client == "floor" and server == "tools-10k":
                note = (f"mcpdeck - floor = {b[2] - wall:+.1f} ms, "
                        f"{(b[2] - wall) * 1000 / 10_000:+.2f} us per tool")
            elif client == "floor":
                note = f"mcpdeck - floor = {b[2] - wall:+.1f} ms"
            else:
                note = f"{wall / b[2]:.1f}x wall, {rss / b[3]:.1f}x client RSS"
        print(f"{server:<11} {client:<10} {wall:>14.1f} {rss:>14.1f} {tree:>12.1f}  {note}")
    print_first_byte(first_rows, runs, everything_runs)
    for line in failed:
        print(f"left out (a run failed), {line}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
