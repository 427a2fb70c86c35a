//! Runs `tests/console_tmux_auth.sh` (sign in and out from the console against the fixture's
//! authorization server) when `tmux` is installed; skips
//! otherwise (`common::peers`: fails under `CI=true`).

use std::process::Command;

#[test]
fn console_signs_in_and_out_in_tmux() {
    if !crate::common::peers::tmux() {
        return;
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/console_tmux_auth.sh");
    let out = Command::new("bash")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_mcpdeck"))
        .arg(crate::common::fixture())
        .output()
        .expect("run the script");
    assert!(
        out.status.success(),
        "console_tmux_auth.sh failed\nstdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
