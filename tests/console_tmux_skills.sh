#!/usr/bin/env bash
# End-to-end: the Skills tab, at 80x24 and 120x40. The fixture (run with `--skills`) declares
# the skills extension and lists one skill, `greeting`. The tab bar then shows Skills after
# Prompts; the tab lists the skill; Enter reads its SKILL.md, verified, into the result view.
# Waits poll the screen with a bound; nothing relies on a fixed delay.
# Usage: tests/console_tmux_skills.sh path/to/mcpdeck path/to/fixture
set -euo pipefail

BIN=$(realpath "$1")
FIXTURE=$(realpath "$2")
WORK=$(mktemp -d)
SOCK="mcpdeck-skills-$$"
T="tmux -L $SOCK"
cleanup() {
    for s in 80x24 120x40; do tmux -L "$SOCK-$s" kill-server 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT
mkdir -p "$WORK/cfg/mcpdeck" "$WORK/proj" "$WORK/run" "$WORK/state"

# shellcheck source=tests/tmux_screen.sh
. "$(dirname "$0")/tmux_screen.sh"

printf '{"mcpServers": {"fixture": {"command": "%s", "args": ["stdio", "--skills"]}}}\n' \
    "$FIXTURE" > "$WORK/cfg/mcpdeck/mcp.json"

for SIZE in 80x24 120x40; do
    T="tmux -L $SOCK-$SIZE"
    start_console "$SIZE"
    open_server fixture
    # Connected: the server declared the extension, so the tab bar names Skills after Prompts.
    wait_for "  Skills  Log"
    # Tools → Resources → Prompts → Skills.
    $T send-keys -t e2e l l l
    wait_for "greeting"
    wait_for "How to greet someone by name"
    wait_for "read skill"
    $T send-keys -t e2e Enter
    wait_for "SKILL.md · verified: size, SHA-256, front matter"
    wait_for "Say hello, then the name."
    $T send-keys -t e2e Escape
    wait_for "read skill"
    $T send-keys -t e2e q
    $T kill-server 2>/dev/null || true
done
echo "ok: the Skills tab lists the fixture's skill and reads its SKILL.md verified (80x24, 120x40)"
