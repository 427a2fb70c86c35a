#!/usr/bin/env bash
# End-to-end: sign in from the real mcpdeck console in tmux at 80x24 against the fixture's
# authorization server and the MCP server behind it (both on 127.0.0.1). Connecting first is
# refused for authorization and the header says the server waits for sign-in (not "failed");
# L signs in ($BROWSER is the fixture's redirect follower), the console reconnects with the
# stored tokens and the Auth line says signed in; O signs out. Waits poll the screen; nothing
# relies on a fixed delay.
# Usage: tests/console_tmux_auth.sh path/to/mcpdeck path/to/mcpdeck-fixture
set -euo pipefail

BIN=$(realpath "$1")
FIXTURE=$(realpath "$2")
WORK=$(mktemp -d)
SOCK="mcpdeck-auth-$$"
T="tmux -L $SOCK"
FIX_PID=
cleanup() {
    $T kill-server 2>/dev/null || true
    if [ -n "$FIX_PID" ]; then kill "$FIX_PID" 2>/dev/null || true; fi
    rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$WORK/cfg/mcpdeck" "$WORK/proj" "$WORK/run" "$WORK/home"

# shellcheck source=tests/tmux_screen.sh
. "$(dirname "$0")/tmux_screen.sh"

# The fixture prints its port on its first line.
coproc FIX { exec "$FIXTURE" oauth; }
FIX_PID=$FIX_PID
read -r PORT <&"${FIX[0]}"
printf '{"mcpServers": {"web": {"url": "http://127.0.0.1:%s/mcp"}}}\n' "$PORT" > "$WORK/cfg/mcpdeck/mcp.json"

$T -f /dev/null new-session -d -s e2e -x 80 -y 24 \
    "cd '$WORK/proj' && env -u MCPDECK_CONFIG HOME='$WORK/home' XDG_CONFIG_HOME='$WORK/cfg' XDG_STATE_HOME='$WORK/state' XDG_RUNTIME_DIR='$WORK/run' MCPDECK_CREDENTIAL_STORE=file BROWSER='$FIXTURE browse' TERM=xterm-256color '$BIN'; exec sleep 600"

wait_for "Auth: not signed in"
# Select `web` (after the packaged demo and workspace servers, by name order) and connect.
for _ in 1 2 3; do
    title=$($T capture-pane -p -t e2e | grep -oE "┌ [a-z-]+ ·" | head -n 1)
    if [ "$title" = "┌ web ·" ]; then break; fi
    $T send-keys -t e2e Down
    # The main pane's title names the selection: wait until the key has moved it.
    wait_gone "$title"
done
$T capture-pane -p -t e2e | grep -qF "web · " || fail "web is not selected"
$T send-keys -t e2e r
wait_for "web · sign-in needed"
$T send-keys -t e2e L
wait_for "web · connected · http · Auth: signed in" 30
[ -f "$WORK/state/mcpdeck/credentials.json" ] || fail "no credentials stored"
$T send-keys -t e2e O
# Signing out drops the live connection: the server waits for sign-in again.
wait_for "web · sign-in needed · http · Auth: not signed in"
$T send-keys -t e2e q
echo "ok"
