#!/usr/bin/env python3
"""The console's peak memory at a large tool catalog, by a command (stdlib and tmux only).

Usage: console-memory.py [--bin MCPDECK] [--tools N] [--runs N] [--wrap 'CMD ARGS'] [--timeout S]

Starts `scripts/large-mcp-server.py --mib 0 --tools N` (default 9,999 and its `big`: 10,000 tools)
as the only server of a temporary configuration, lists it once with `mcpdeck tools` so the pin
store holds it (as a later session finds it), then runs the console in its own tmux server at
100x30, presses Enter on the server and waits until the Tools tab shows every tool and the tab bar
its token sum (the cost and the poisoning scan are asked for once the list is in). It then waits
until the process's `VmHWM` in `/proc/PID/status` has not grown for 2 s, prints it, presses `q`
and waits for the console to exit. One line per run, then the median.

`--wrap` runs the console under another command (for example `valgrind --tool=massif
--massif-out-file=/tmp/console.massif`); its figures are then the wrapper's, so read the
wrapper's own output, not this script's `VmHWM`. Never touches the default tmux server.
"""

import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def status_kib(pid, field):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


class Screen:
    def __init__(self, socket):
        self.tmux = ["tmux", "-L", socket, "-f", "/dev/null"]

    def run(self, *args, check=True):
        return subprocess.run(self.tmux + list(args), check=check, capture_output=True, text=True)

    def text(self):
        return self.run("capture-pane", "-p", "-t", "mem", check=False).stdout

    def wait_for(self, needle, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if needle in self.text():
                return
            time.sleep(0.05)
        sys.exit(f"console-memory: did not see {needle!r} within {timeout} s; screen:\n"
                 f"{self.text()}")


def one_run(args, work, env, index):
    socket = f"console-memory-{os.getpid()}-{index}"
    screen = Screen(socket)
    command = shlex.split(args.wrap or "") + [
        args.bin, "--cwd", f"{work}/proj", "--config", f"{work}/mcp.json"]
    envs = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    shell = f"cd {shlex.quote(work)}/proj && exec env -u MCPDECK_CONFIG {envs} " \
            + " ".join(shlex.quote(c) for c in command)
    screen.run("new-session", "-d", "-s", "mem", "-x", "100", "-y", "30", shell)
    try:
        pid = int(screen.run("display-message", "-p", "-t", "mem", "#{pane_pid}").stdout)
        screen.wait_for("tools-10k", args.timeout)
        screen.run("send-keys", "-t", "mem", "Enter")
        screen.wait_for(f"Tools({args.tools + 1})", args.timeout)
        screen.wait_for(" tok", args.timeout)
        hwm, since = status_kib(pid, "VmHWM"), time.monotonic()
        while time.monotonic() - since < 2.0:
            time.sleep(0.1)
            now = status_kib(pid, "VmHWM")
            if now is not None and now != hwm:
                hwm, since = now, time.monotonic()
        rss = status_kib(pid, "VmRSS")
        screen.run("send-keys", "-t", "mem", "q")
        deadline = time.monotonic() + args.timeout
        while os.path.exists(f"/proc/{pid}") and time.monotonic() < deadline:
            time.sleep(0.05)
        return hwm, rss
    finally:
        screen.run("kill-server", check=False)
        # The server's socket file outlives it.
        try:
            os.remove(f"/tmp/tmux-{os.getuid()}/{socket}")
        except OSError:
            pass


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bin", default=f"{ROOT}/target/release/mcpdeck")
    p.add_argument("--tools", type=int, default=9999)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--wrap", default="")
    p.add_argument("--timeout", type=float, default=60.0)
    args = p.parse_args()
    args.bin = os.path.abspath(args.bin)
    with tempfile.TemporaryDirectory(prefix="console-memory-") as work:
        for d in ("proj", "cfg", "state", "run"):
            os.makedirs(f"{work}/{d}")
        os.chmod(f"{work}/run", 0o700)
        server = {"command": sys.executable,
                  "args": ["-S", f"{ROOT}/scripts/large-mcp-server.py", "--mib", "0",
                           "--tools", str(args.tools)]}
        with open(f"{work}/mcp.json", "w") as f:
            json.dump({"mcpServers": {"tools-10k": server}}, f)
        env = {"XDG_CONFIG_HOME": f"{work}/cfg", "XDG_STATE_HOME": f"{work}/state",
               "XDG_RUNTIME_DIR": f"{work}/run", "TERM": "xterm-256color"}
        subprocess.run([args.bin, "--cwd", f"{work}/proj", "--config", f"{work}/mcp.json",
                        "tools", "tools-10k"], check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL,
                       env={**os.environ, **env})
        peaks = []
        for i in range(args.runs):
            hwm, rss = one_run(args, work, env, i)
            peaks.append(hwm / 1024)
            print(f"run {i + 1}: VmHWM {hwm / 1024:.1f} MiB, VmRSS {rss / 1024:.1f} MiB "
                  f"(at {args.tools + 1} tools)", flush=True)
        print(f"median VmHWM {statistics.median(peaks):.1f} MiB over {len(peaks)} runs")


if __name__ == "__main__":
    main()
