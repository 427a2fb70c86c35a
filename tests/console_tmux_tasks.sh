#!/usr/bin/env bash
# End-to-end: the Tasks view of a protocol 2026-07-28 session, at 80x24 and 120x40. The
# fixture's `task-modern` case answers every tool call with a task of the tasks extension that
# stays `working` until `tasks/cancel` names it. A call of `echo` runs as task m-1; `T` opens the
# Tasks view, which says the protocol has no tasks/list or tasks/result and lists m-1 as last
# polled; `x` sends tasks/cancel (the fixture records it), the next poll says `cancelled` and the
# row shows it; the call ends cancelled. Waits poll the screen with a bound; nothing relies on a
# fixed delay.
# Usage: tests/console_tmux_tasks.sh path/to/mcpdeck path/to/fixture
set -euo pipefail

BIN=$(realpath "$1")
FIXTURE=$(realpath "$2")
WORK=$(mktemp -d)
SOCK="mcpdeck-tasks-$$"
T="tmux -L $SOCK"
cleanup() {
    for s in 80x24 120x40; do tmux -L "$SOCK-$s" kill-server 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$WORK/cfg/mcpdeck" "$WORK/proj" "$WORK/run" "$WORK/state"

# shellcheck source=tests/tmux_screen.sh
. "$(dirname "$0")/tmux_screen.sh"

for SIZE in 80x24 120x40; do
    EVENTS="$WORK/events-$SIZE"
    printf '{"mcpServers": {"tasks": {"command": "%s", "args": ["raw", "--case", "task-modern"], "protocolVersion": "2026-07-28", "env": {"FIXTURE_EVENTS": "%s"}}}}\n' \
        "$FIXTURE" "$EVENTS" > "$WORK/cfg/mcpdeck/mcp.json"
    T="tmux -L $SOCK-$SIZE"
    start_console "$SIZE"
    open_server tasks
    wait_for "echo"
    $T send-keys -t e2e Enter
    wait_for "call"
    $T send-keys -t e2e c
    wait_for "call echo on tasks"
    $T send-keys -t e2e Enter
    # Running as a task: the running call's line names it.
    wait_for "task m-1"
    $T send-keys -t e2e T
    wait_for "Tasks of tasks"
    wait_joined "Protocol2026-07-28hasnotasks/listortasks/result"
    wait_for "m-1"
    wait_for "working"
    # Created in full; updated the same day, so its time only; the message as last polled.
    wait_for "2026-12-03T10:00:00Z  10:00:05Z"
    wait_for "still working"
    $T send-keys -t e2e x
    wait_for "cancelled"
    grep -qx "tasks/cancel m-1" "$EVENTS" || fail "the fixture did not get tasks/cancel m-1"
    $T send-keys -t e2e Escape
    wait_gone "Tasks of tasks"
    wait_for "cancelled"
    $T send-keys -t e2e q
    $T kill-server 2>/dev/null || true
done
echo "ok: the Tasks view lists a 2026 session's task and cancels it with tasks/cancel (80x24, 120x40)"
