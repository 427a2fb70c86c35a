#!/usr/bin/env bash
# End-to-end: drive the real mcpdeck console in tmux at 80x24 (then 120x40) against the pinned
# reference server: a tool's elicitation is answered in the console's form (a name typed,
# accepted) and a sampling request is answered by the operator (a reply typed, sent with C-s);
# each answer comes back inside the tool's result. Waits poll for what is on screen; the key
# guard after a request appears is waited out by watching its notice go, never by a delay.
# Usage: tests/console_tmux_asks.sh path/to/mcpdeck path/to/server-everything/dist/index.js
set -euo pipefail

BIN=$(realpath "$1")
SERVER=$(realpath "$2")
WORK=$(mktemp -d)
SOCK="mcpdeck-asks-$$"
T="tmux -L $SOCK"
cleanup() { $T kill-server 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
mkdir -p "$WORK/cfg/mcpdeck" "$WORK/proj" "$WORK/run"
printf '{"mcpServers": {"everything": {"command": "node", "args": ["%s", "stdio"]}}}\n' \
    "$SERVER" > "$WORK/cfg/mcpdeck/mcp.json"

# shellcheck source=tests/tmux_screen.sh
. "$(dirname "$0")/tmux_screen.sh"

# call TOOL: searches the tool list for TOOL and opens its call form.
call() {
    $T send-keys -t e2e /
    wait_for "/ "
    $T send-keys -t e2e -l "$1"
    # The whole query's matches (the cursor still in the query); Enter opens the first's detail.
    wait_for "/ $1▏  "
    $T send-keys -t e2e Enter
    wait_for "Input"
    $T send-keys -t e2e c
    wait_for "call $1 on everything"
}

$T -f /dev/null new-session -d -s e2e -x 80 -y 24 \
    "cd '$WORK/proj' && env -u MCPDECK_CONFIG XDG_CONFIG_HOME='$WORK/cfg' XDG_RUNTIME_DIR='$WORK/run' TERM=xterm-256color '$BIN'; exec sleep 600"
$T set-option -t e2e remain-on-exit on >/dev/null

wait_for "everything"
$T send-keys -t e2e Enter
wait_for "Tools(19)" 60

# Elicitation: the form opens in front of the running call; the name is required.
call trigger-elicitation-request
$T send-keys -t e2e Enter
wait_for "Server asks for input"
wait_gone "(keys are ignored for a moment)"
$T send-keys -t e2e -l "Ada Lovelace"
wait_for "Ada Lovelace"
$T send-keys -t e2e Enter
wait_gone "Server asks for input"
wait_for "✓ tools.call trigger-elicitation-request"
wait_for "Ada Lovelace"
$T send-keys -t e2e Escape
wait_gone "✓ tools.call"

# Sampling, at a larger size: the operator writes the reply and sends it.
$T resize-window -t e2e -x 120 -y 40
call trigger-sampling-request
$T send-keys -t e2e -l "hi"
$T send-keys -t e2e Enter
wait_for "Server asks for a completion (you answer)"
wait_gone "(keys are ignored for a moment)"
$T send-keys -t e2e -l "Hello from the operator"
wait_for "Hello from the operator"
$T send-keys -t e2e C-s
wait_gone "Server asks for a completion"
wait_for "✓ tools.call trigger-sampling-request"
wait_for "Hello from the operator"
wait_for "mcpdeck-operator"
$T send-keys -t e2e q
echo "console asks e2e: ok"
