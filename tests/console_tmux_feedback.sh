#!/usr/bin/env bash
# End-to-end: what a person sees while waiting and typing, at 80x24 and 120x40.
# 1. The CLI's spinner: `mcpdeck call fx slow` (the fixture's tool reporting progress for 8
#    steps of 200 ms) on a terminal draws a progress line on stderr with the server's reports
#    ("fx: 3/8 step 3") and erases it before the result; with stdout piped (`| cat`, stderr still
#    the terminal) nothing of it is written. Everything written to the pane is logged with
#    `tmux pipe-pane`, so an erased line still counts as drawn.
# 2. The console's tool search over a 10,000-tool catalog (`scripts/large-mcp-server.py --tools
#    9999`: `big` and tool_00000…tool_09998): "tool_001" names 100 tools, of which the list shows
#    20, so the search line says "20 of 100 matches"; one more key ("5": tool_00150…tool_00159)
#    says "10 match(es)", Backspace brings the 100 back. Each key is sent to a console that is
#    otherwise idle, so its effect reaching the screen shows the console draws on input without
#    waiting for another event.
# Waits poll the screen or the log with a bound; nothing relies on a fixed delay.
# Usage: tests/console_tmux_feedback.sh path/to/mcpdeck path/to/fixture
set -euo pipefail

BIN=$(realpath "$1")
FIXTURE=$(realpath "$2")
ROOT=$(cd "$(dirname "$0")/.." && pwd)
WORK=$(mktemp -d)
SOCK="mcpdeck-feedback-$$"
T="tmux -L $SOCK"
cleanup() {
    for s in cli-tty cli-pipe 80x24 120x40; do tmux -L "$SOCK-$s" kill-server 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$WORK/cfg/mcpdeck" "$WORK/proj" "$WORK/run" "$WORK/state"

# shellcheck source=tests/tmux_screen.sh
. "$(dirname "$0")/tmux_screen.sh"

printf '{"mcpServers": {"fx": {"command": "%s", "args": ["stdio"]}, "catalog": {"command": "python3", "args": ["-S", "%s/scripts/large-mcp-server.py", "--mib", "0", "--tools", "9999"]}}}\n' \
    "$FIXTURE" "$ROOT" > "$WORK/cfg/mcpdeck/mcp.json"

# wait_log FILE TEXT: until TEXT is in FILE (the pane's log).
wait_log() {
    local deadline=$((SECONDS + 30))
    while ((SECONDS < deadline)); do
        if grep -aqF -- "$2" "$1" 2>/dev/null; then return 0; fi
        sleep 0.1
    done
    fail "did not see '$2' in the pane's log"
}

# cli_run NAME PIPE: runs the slow call in a shell pane of its own (`| cat` after it when PIPE
# is 1), logging the pane, until the marker after it; the log is $WORK/NAME.log.
cli_run() {
    T="tmux -L $SOCK-$1"
    $T -f /dev/null new-session -d -s e2e -x 100 -y 24 "cd '$WORK/proj' && env -u MCPDECK_CONFIG -u MCPDECK_NO_PROGRESS XDG_CONFIG_HOME='$WORK/cfg' XDG_RUNTIME_DIR='$WORK/run' XDG_STATE_HOME='$WORK/state' TERM=xterm-256color bash --norc --noprofile"
    $T pipe-pane -t e2e "cat >> '$WORK/$1.log'"
    local tail=""
    [ "$2" = 1 ] && tail=" | cat"
    # The marker is printed as END-2 and typed as END-\$((1+1)), so the typed line never matches.
    $T send-keys -t e2e -l "'$BIN' call fx slow '{\"steps\": 8, \"delay_ms\": 200}'$tail; echo END-\$((1+1))"
    $T send-keys -t e2e Enter
    wait_for "END-2" 30
    wait_log "$WORK/$1.log" "END-2"
}

cli_run cli-tty 0
grep -aqF "fx: " "$WORK/cli-tty.log" && grep -aqF "/8 step" "$WORK/cli-tty.log" \
    || fail "no progress line with the server's reports on a terminal"
$T capture-pane -p -t e2e | grep -qF "done 8 steps" || fail "no result on a terminal"
if $T capture-pane -p -t e2e | grep -qF "/8 step"; then fail "the progress line was left on screen"; fi
$T kill-server 2>/dev/null || true

cli_run cli-pipe 1
$T capture-pane -p -t e2e | grep -qF "done 8 steps" || fail "no result through a pipe"
if grep -aqF "/8 step" "$WORK/cli-pipe.log" || grep -aqF "waiting for the server" "$WORK/cli-pipe.log"; then
    fail "a progress line was drawn with stdout piped"
fi
$T kill-server 2>/dev/null || true

for SIZE in 80x24 120x40; do
    T="tmux -L $SOCK-$SIZE"
    start_console "$SIZE"
    open_server catalog
    wait_for "Tools(10000)" 60
    $T send-keys -t e2e /
    wait_for "/ "
    $T send-keys -t e2e -l tool_001
    wait_for "20 of 100 matches"
    wait_for "tool_00100"
    $T send-keys -t e2e -l 5
    wait_for "10 match(es)"
    wait_for "tool_00159"
    wait_gone "tool_00100"
    $T send-keys -t e2e BSpace
    wait_for "20 of 100 matches"
    wait_for "tool_00100"
    $T send-keys -t e2e Escape
    wait_gone "20 of 100 matches"
    $T send-keys -t e2e q
    $T kill-server 2>/dev/null || true
done
echo "ok: the CLI's spinner on a terminal only; the search line's counts over 10,000 tools (80x24, 120x40)"
