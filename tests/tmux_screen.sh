# Shared by the console's tmux scripts (sourced, not run): `fail` and `wait_for` read the screen
# of the tmux session `e2e` on the server "$T" names. Waits poll the screen, never a fixed delay.

# fail MESSAGE: prints the message and the screen, then exits 1.
fail() {
    echo "FAIL: $*" >&2
    echo "--- screen ---" >&2
    $T capture-pane -p -t e2e >&2 || true
    exit 1
}

# wait_for TEXT [SECONDS]: until TEXT is on screen.
wait_for() {
    local deadline=$((SECONDS + ${2:-20}))
    while ((SECONDS < deadline)); do
        if $T capture-pane -p -t e2e | grep -qF -- "$1"; then return 0; fi
        sleep 0.1
    done
    fail "did not see '$1'"
}

# wait_gone TEXT [SECONDS]: until TEXT is no longer on screen (a key was handled).
wait_gone() {
    local deadline=$((SECONDS + ${2:-20}))
    while ((SECONDS < deadline)); do
        if ! $T capture-pane -p -t e2e | grep -qF -- "$1"; then return 0; fi
        sleep 0.1
    done
    fail "still saw '$1'"
}

# wait_joined TEXT [SECONDS]: until TEXT is on screen with spaces, line ends and box edges
# removed (TEXT written without spaces), for a line the view wraps across screen rows.
wait_joined() {
    local deadline=$((SECONDS + ${2:-20}))
    while ((SECONDS < deadline)); do
        if $T capture-pane -p -t e2e | tr -d ' \n│' | grep -qF -- "$1"; then return 0; fi
        sleep 0.1
    done
    fail "did not see '$1' (joined)"
}

# open_server NAME: selects the server NAME (Down until the main pane is titled with it, polling
# the screen between keys) and connects it (Enter), until its tabs show.
open_server() {
    wait_for "$1"
    for _ in 1 2 3 4 5 6; do
        if $T capture-pane -p -t e2e | grep -qF "┌ $1 ·"; then break; fi
        $T send-keys -t e2e Down
        sleep 0.1
    done
    wait_for "┌ $1 ·"
    $T send-keys -t e2e Enter
    wait_for "Tools("
}

# start_console WxH: runs $BIN in a new tmux session `e2e` of that size on $T, in $WORK/proj,
# with its configuration, runtime and state homes under $WORK (the caller made cfg, proj, run
# and state there) and no MCPDECK_CONFIG from the environment.
start_console() {
    $T -f /dev/null new-session -d -s e2e -x "${1%x*}" -y "${1#*x}" \
        "cd '$WORK/proj' && env -u MCPDECK_CONFIG XDG_CONFIG_HOME='$WORK/cfg' XDG_RUNTIME_DIR='$WORK/run' XDG_STATE_HOME='$WORK/state' TERM=xterm-256color '$BIN'; exec sleep 600"
}
