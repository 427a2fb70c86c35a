//! Runs `tests/console_tmux.sh` against the built binary when `tmux` is installed; skips otherwise
//! (`common::peers`: fails under `CI=true`).

use std::process::Command;

#[test]
fn console_in_tmux() {
    if !crate::common::peers::tmux() {
        return;
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/console_tmux.sh");
    let out = Command::new("bash")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_mcpdeck"))
        .output()
        .expect("run the script");
    assert!(
        out.status.success(),
        "console_tmux.sh failed\nstdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs `tests/console_tmux_resource.sh` (a 204-line resource of the pinned reference server
/// reaches its last line with End) when tmux, node and the server are installed; skips
/// otherwise.
#[test]
fn console_reaches_a_long_resource_end_in_tmux() {
    if !crate::common::peers::tmux() {
        return;
    }
    let Some(server) = crate::common::peers::everything() else {
        return;
    };
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/console_tmux_resource.sh"
    );
    let out = Command::new("bash")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_mcpdeck"))
        .arg(&server)
        .output()
        .expect("run the script");
    assert!(
        out.status.success(),
        "console_tmux_resource.sh failed\nstdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs `tests/console_tmux_asks.sh` (an elicitation and a sampling request of the pinned
/// reference server answered in the console) when tmux, node and the server are installed;
/// skips otherwise.
#[test]
fn console_answers_an_elicitation_and_a_sampling_request_in_tmux() {
    if !crate::common::peers::tmux() {
        return;
    }
    let Some(server) = crate::common::peers::everything() else {
        return;
    };
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/console_tmux_asks.sh");
    let out = Command::new("bash")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_mcpdeck"))
        .arg(&server)
        .output()
        .expect("run the script");
    assert!(
        out.status.success(),
        "console_tmux_asks.sh failed\nstdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Runs `tests/console_tmux_live.sh` (files written while the console runs: a new project file's
/// server appears untrusted within 2 s, a user file's new server appears, an edited trusted file
/// turns `changed`, F5 reloads) when tmux is installed; skips otherwise.
#[test]
fn console_notices_its_configuration_change_in_tmux() {
    if !crate::common::peers::tmux() {
        return;
    }
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/console_tmux_live.sh");
    let out = Command::new("bash")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_mcpdeck"))
        .output()
        .expect("run the script");
    assert!(
        out.status.success(),
        "console_tmux_live.sh failed\nstdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
