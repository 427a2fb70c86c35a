#!/usr/bin/env bash
# End-to-end: a protocol 2026-07-28 server's tool list refreshes in the console on its own, at
# 80x24 and 120x40. The fixture's `listen-grow` case declares tool list changes; the console
# listens for them (`subscriptions/listen`) when it connects. Calling the tool `grow` makes the
# fixture add the tool `sprout` and send `notifications/tools/list_changed` on that listen; the
# Tools tab then shows sprout without a key pressed to reload. Waits poll the screen with a
# bound; nothing relies on a fixed delay.
# Usage: tests/console_tmux_lists.sh path/to/mcpdeck path/to/fixture
set -euo pipefail

BIN=$(realpath "$1")
FIXTURE=$(realpath "$2")
WORK=$(mktemp -d)
SOCK="mcpdeck-lists-$$"
T="tmux -L $SOCK"
cleanup() {
    for s in 80x24 120x40; do tmux -L "$SOCK-$s" kill-server 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$WORK/cfg/mcpdeck" "$WORK/proj" "$WORK/run" "$WORK/state"

# shellcheck source=tests/tmux_screen.sh
. "$(dirname "$0")/tmux_screen.sh"

printf '{"mcpServers": {"grower": {"command": "%s", "args": ["raw", "--case", "listen-grow"], "protocolVersion": "2026-07-28"}}}\n' \
    "$FIXTURE" > "$WORK/cfg/mcpdeck/mcp.json"

for SIZE in 80x24 120x40; do
    T="tmux -L $SOCK-$SIZE"
    start_console "$SIZE"
    open_server grower
    wait_for "Tools(2)"
    wait_for "grow"
    if $T capture-pane -p -t e2e | grep -qF "Grown on demand"; then fail "sprout before grow was called"; fi
    $T send-keys -t e2e /
    wait_for "/ "
    $T send-keys -t e2e -l grow
    wait_for "1 match(es)"
    $T send-keys -t e2e Enter
    wait_for "Adds the tool sprout"
    $T send-keys -t e2e c
    wait_for "call grow on grower"
    $T send-keys -t e2e Enter
    wait_for "grew the tool sprout"
    $T send-keys -t e2e Escape
    # The list changed on the server's word: the tab lists sprout, its count says 3.
    wait_for "Tools(3)"
    # Esc clears the search: the whole list, sprout in it.
    $T send-keys -t e2e Escape
    wait_gone "1 match(es)"
    wait_for "Grown on demand"
    wait_for "sprout"
    $T send-keys -t e2e q
    $T kill-server 2>/dev/null || true
done
echo "ok: the Tools tab refreshes when a 2026 server says its list changed (80x24, 120x40)"
