//! Runs `tests/console_tmux_auth.sh` (sign in and out from the console against the fixture's
//! authorization server) when `tmux` is installed; skips loudly otherwise.

use std::process::Command;

#[test]
fn console_signs_in_and_out_in_tmux() {
    let has_tmux = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_tmux {
        eprintln!("SKIPPED: tmux is not installed; the console sign-in test did not run");
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
