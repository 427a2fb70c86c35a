#!/usr/bin/env bash
# End-to-end: whole results, at 80x24. The fixture (run with `--big-resources`) lists a 1 MB
# and a 160 KB text resource. Reading the 1 MB one shows its preview; End opens the whole text
# from its spill at its true last line, and `J` its raw JSON, whose end `End` reaches. `y` on
# the 160 KB one copies all of it: through OSC 52
# here (no system clipboard), which tmux keeps as a paste buffer (`set-clipboard on`).
# Waits poll the screen with a bound; nothing relies on a fixed delay.
# Usage: tests/console_tmux_whole.sh path/to/mcpdeck path/to/fixture
set -euo pipefail

BIN=$(realpath "$1")
FIXTURE=$(realpath "$2")
WORK=$(mktemp -d)
SOCK="mcpdeck-whole-$$"
T="tmux -L $SOCK"
cleanup() { $T kill-server 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
mkdir -p "$WORK/cfg/mcpdeck" "$WORK/proj" "$WORK/run" "$WORK/state"

# shellcheck source=tests/tmux_screen.sh
. "$(dirname "$0")/tmux_screen.sh"

printf '{"mcpServers": {"fixture": {"command": "%s", "args": ["stdio", "--big-resources"]}}}\n' \
    "$FIXTURE" > "$WORK/cfg/mcpdeck/mcp.json"
$T -f /dev/null new-session -d -s e2e -x 80 -y 24 \
    "cd '$WORK/proj' && env -u MCPDECK_CONFIG -u DISPLAY -u WAYLAND_DISPLAY XDG_CONFIG_HOME='$WORK/cfg' XDG_RUNTIME_DIR='$WORK/run' XDG_STATE_HOME='$WORK/state' TERM=xterm-256color '$BIN'; exec sleep 600"
$T set-option -g set-clipboard on >/dev/null


open_server fixture

# The Resources tab filtered to the two big ones; Enter reads the first, the 1 MB one.
$T send-keys -t e2e l
wait_for "big-1mb"
$T send-keys -t e2e /
$T send-keys -t e2e -l "big-"
wait_for "2 shown"
$T send-keys -t e2e Enter
wait_for "resources.read"
# The 1 MB resource: End reaches its true last line, past the preview and any window.
wait_for "big-1mb line 000001"
$T capture-pane -p -t e2e | grep -qF "the last line of big-1mb" && fail "the last line shows before End"
$T send-keys -t e2e End
wait_for "the last line of big-1mb"
wait_for "of 53001"
# A search in the whole text lands on the matching line.
$T send-keys -t e2e /
$T send-keys -t e2e -l "line 026500"
$T send-keys -t e2e Enter
wait_for "match at line 26500"
$T send-keys -t e2e Escape
wait_gone "of 53001"
# J: the answer as the server sent it. A 1 MB frame is a raw spill, opened in the pager at its
# first line (the frame's start); End reaches the frame's end, where the resource's last line
# is (the frame is one line of 1 MB, read in 16 KiB lines and wrapped, hence `wait_joined`).
$T send-keys -t e2e J
wait_for '{"jsonrpc":"2.0"'
$T send-keys -t e2e End
wait_joined 'thelastlineofbig-1mb'
$T send-keys -t e2e Escape
wait_for "big-1mb line 000001"

# The 160 KB resource (the second in the list): y copies all of it.
$T send-keys -t e2e Escape
wait_for "2 shown"
$T send-keys -t e2e Down
$T send-keys -t e2e Enter
wait_for "resources.read"
wait_for "big-160kb line 000001"
$T send-keys -t e2e y
wait_for "via OSC 52"
BUF="$WORK/buffer.txt"
deadline=$((SECONDS + 20))
until $T show-buffer > "$BUF" 2>/dev/null && grep -qF "the last line of big-160kb" "$BUF"; do
    ((SECONDS < deadline)) || fail "the tmux buffer never held the whole text"
    sleep 0.1
done
lines=$(grep -c '^big-160kb line [0-9]\{6\}$' "$BUF")
[[ $lines == 7500 ]] || fail "the buffer holds $lines of the 7500 lines"
grep -qxF "big-160kb line 003750" "$BUF" || fail "a middle line is missing"
$T send-keys -t e2e q
echo "console tmux whole results e2e: ok"
