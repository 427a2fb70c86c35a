#!/usr/bin/env bash
# End-to-end: the console's text viewer reaches the last line of a long resource. Runs the real
# console in tmux at 80x24 and again at 200x50 over the pinned reference server
# (server-everything, installed by scripts/install-interop): Resources → `/` filter
# `structure` → Enter reads `structure.md` (204 lines) → End shows its last line. Waits poll
# for what is on screen; nothing relies on a fixed delay.
# Usage: tests/console_tmux_resource.sh path/to/mcpdeck path/to/server-everything/dist/index.js
set -euo pipefail

BIN=$(realpath "$1")
EVERYTHING=$(realpath "$2")
WORK=$(mktemp -d)
SOCK="mcpdeck-e2e-res-$$"
T="tmux -L $SOCK"
# Each size gets its own tmux server: starting a session while the previous server is still
# shutting down fails ("server exited unexpectedly").
cleanup() {
    for s in 80x24 200x50; do tmux -L "$SOCK-$s" kill-server 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$WORK/cfg/mcpdeck" "$WORK/proj" "$WORK/run"
printf '{"mcpServers": {"everything": {"command": "node", "args": ["%s", "stdio"]}}}\n' \
    "$EVERYTHING" > "$WORK/cfg/mcpdeck/mcp.json"
LAST="reuses the transport for subsequent requests"

# shellcheck source=tests/tmux_screen.sh
. "$(dirname "$0")/tmux_screen.sh"

for SIZE in 80x24 200x50; do
    T="tmux -L $SOCK-$SIZE"
    $T -f /dev/null new-session -d -s e2e -x "${SIZE%x*}" -y "${SIZE#*x}" \
        "cd '$WORK/proj' && env -u MCPDECK_CONFIG XDG_CONFIG_HOME='$WORK/cfg' XDG_RUNTIME_DIR='$WORK/run' TERM=xterm-256color '$BIN'; exec sleep 600"
    wait_for "Servers"
    # Select the `everything` row (the main pane's title names the selected server), connect.
    open_server everything
    $T send-keys -t e2e l
    wait_for "structure.md"
    $T send-keys -t e2e /
    $T send-keys -t e2e -l structure
    wait_for "1 shown"
    $T send-keys -t e2e Enter
    wait_for "resources.read"
    wait_for "of 204"
    $T capture-pane -p -t e2e | grep -qF "$LAST" && fail "the last line shows before End"
    $T send-keys -t e2e End
    wait_for "$LAST"
    wait_for "of 204"
    $T capture-pane -p -t e2e | grep -qF "untrusted-mcp-data" && fail "the agents' wrapper shows"
    $T send-keys -t e2e q
done
echo "console tmux resource e2e: ok"
