#!/usr/bin/env bash
# End-to-end: drive the real mcpdeck console in tmux at 80x24 with no configuration at all.
# Opens on the packaged demo server, lists its tools, searches and calls `echo`, asks the
# workspace side panel a question about the project, opens help, quits with q, and checks the terminal was restored (alternate screen left, mouse off, cooked
# mode back). Waits poll for what is on screen; nothing relies on a fixed delay.
# Usage: tests/console_tmux.sh [path/to/mcpdeck]
set -euo pipefail

BIN=${1:-${MCPDECK_BIN:-target/debug/mcpdeck}}
BIN=$(realpath "$BIN")
WORK=$(mktemp -d)
SOCK="mcpdeck-e2e-$$"
T="tmux -L $SOCK"
cleanup() { $T kill-server 2>/dev/null || true; rm -rf "$WORK"; }
trap cleanup EXIT
mkdir -p "$WORK/cfg" "$WORK/proj" "$WORK/run"
printf '# Project\n\n## Precedence\n\nProject files override user files.\n' > "$WORK/proj/README.md"

# shellcheck source=tests/tmux_screen.sh
. "$(dirname "$0")/tmux_screen.sh"

$T -f /dev/null new-session -d -s e2e -x 80 -y 24 \
    "cd '$WORK/proj' && env -u MCPDECK_CONFIG XDG_CONFIG_HOME='$WORK/cfg' XDG_RUNTIME_DIR='$WORK/run' TERM=xterm-256color '$BIN'; echo \"EXIT=\$?\" > '$WORK/exit'; stty -a > '$WORK/stty'; exec sleep 600"
$T set-option -t e2e remain-on-exit on >/dev/null

wait_for "Servers"
wait_for "demo"
wait_for "Trust:"
$T send-keys -t e2e Enter
wait_for "echo"
wait_for "Tools(5)"
$T send-keys -t e2e /
wait_for "/ "
$T send-keys -t e2e -l echo
# The whole query's matches (the cursor still in the query).
wait_for "/ echo▏  1 match(es)"
$T send-keys -t e2e Enter
# Enter opens the highlighted match's detail, as in every list's filter.
wait_for "text* : string"
$T send-keys -t e2e c
wait_for "call echo on demo"
$T send-keys -t e2e -l "hi from tmux"
$T send-keys -t e2e Enter
wait_for "✓ tools.call echo"
wait_for "hi from tmux"
$T send-keys -t e2e m
wait_for "model-visible text"
$T send-keys -t e2e Escape
wait_for "Enter tool detail"
# The workspace side panel: w opens it on workspace_find; the answer names the README passage.
$T send-keys -t e2e w
wait_for "[find]"
wait_for "question*"
$T send-keys -t e2e -l "which files override"
$T send-keys -t e2e Enter
wait_for "README.md:3-5"
$T send-keys -t e2e Escape
# Esc and the next key sent at once read as Alt-key: wait until Esc left the panel's form.
wait_gone "run workspace tool"
$T send-keys -t e2e w
$T send-keys -t e2e '?'
wait_for "Keys"
# At 80x24 the help runs past the screen: its tools section is one page down.
$T send-keys -t e2e PageDown
wait_for "search tools"
$T send-keys -t e2e Escape
# Esc and q sent together can read as Alt-q: wait until the help has closed.
wait_for "Enter tool detail"
$T send-keys -t e2e q

deadline=$((SECONDS + 20))
while [[ ! -s "$WORK/stty" ]] && ((SECONDS < deadline)); do sleep 0.1; done
[[ -s "$WORK/stty" ]] || fail "the console did not exit"
grep -qx "EXIT=0" "$WORK/exit" || fail "exit status: $(cat "$WORK/exit")"
[[ "$($T display -p -t e2e '#{alternate_on}')" == 0 ]] || fail "still on the alternate screen"
[[ "$($T display -p -t e2e '#{mouse_any_flag}')" == 0 ]] || fail "mouse capture left on"
grep -qw -- "-icanon" "$WORK/stty" && fail "terminal left in raw mode"
grep -qw "icanon" "$WORK/stty" || fail "no icanon in stty output"
grep -qw "echo" "$WORK/stty" || fail "echo not restored"
echo "console tmux e2e: ok"
