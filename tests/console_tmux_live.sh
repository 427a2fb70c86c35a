#!/usr/bin/env bash
# End-to-end: the console notices its configuration change while it runs, at 80x24. A new
# `.mcp.json` written beside it shows its server, untrusted, within 2 s; a server added to the
# user's file appears; a trusted project file edited turns `changed`; F5 reloads on demand.
# Waits poll the screen with a bound; nothing relies on a fixed delay.
# Usage: tests/console_tmux_live.sh [path/to/mcpdeck]
set -euo pipefail

BIN=${1:-${MCPDECK_BIN:-target/debug/mcpdeck}}
BIN=$(realpath "$BIN")
WORK=$(mktemp -d)
SOCK="mcpdeck-live-$$"
T="tmux -L $SOCK"
cleanup() { $T kill-server 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
mkdir -p "$WORK/cfg/mcpdeck" "$WORK/proj" "$WORK/run" "$WORK/state"

# shellcheck source=tests/tmux_screen.sh
. "$(dirname "$0")/tmux_screen.sh"

# servers FILE NAME...: writes FILE defining each NAME as the demo server (atomically, as an
# editor saving by rename does).
servers() {
    local file=$1 body="" sep=""
    shift
    for name in "$@"; do
        body+="$sep\"$name\": {\"command\": \"$BIN\", \"args\": [\"demo-server\"]}"
        sep=", "
    done
    printf '{"mcpServers": {%s}}\n' "$body" > "$file.tmp"
    mv "$file.tmp" "$file"
}

servers "$WORK/cfg/mcpdeck/mcp.json" alpha
$T -f /dev/null new-session -d -s e2e -x 80 -y 24 \
    "cd '$WORK/proj' && env -u MCPDECK_CONFIG XDG_CONFIG_HOME='$WORK/cfg' XDG_RUNTIME_DIR='$WORK/run' XDG_STATE_HOME='$WORK/state' TERM=xterm-256color '$BIN'; exec sleep 600"
$T set-option -t e2e remain-on-exit on >/dev/null

wait_for "alpha"
wait_for "Trust: no project"
# A project file written while the console runs: its server appears, untrusted, within 2 s.
servers "$WORK/proj/.mcp.json" api
wait_for "api" 2
wait_for "Trust: untrusted" 2
wait_for "server \`api\` added" 2
# A server added to the user's file appears.
servers "$WORK/cfg/mcpdeck/mcp.json" alpha beta
wait_for "beta" 2
# Trust the project (t, T, a typed y), then edit its file: trust turns `changed`.
$T send-keys -t e2e t
wait_for "Project trust"
$T send-keys -t e2e T
$T send-keys -t e2e y
wait_for "project trusted"
$T send-keys -t e2e Escape
wait_gone_trust() {
    local deadline=$((SECONDS + 20))
    while ((SECONDS < deadline)); do
        if ! $T capture-pane -p -t e2e | grep -qF -- "Project trust"; then return 0; fi
        sleep 0.1
    done
    fail "the trust view is still open"
}
wait_gone_trust
servers "$WORK/proj/.mcp.json" api api2
wait_for "Trust: changed" 2
# The reload key: nothing changed since.
$T send-keys -t e2e F5
wait_for "nothing changed"
$T send-keys -t e2e q
