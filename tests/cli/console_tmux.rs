//! Runs `tests/console_tmux.sh` against the built binary when `tmux` is installed; skips loudly
//! otherwise.

use std::process::Command;

#[test]
fn console_in_tmux() {
    let has_tmux = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !has_tmux {
        eprintln!("SKIPPED: tmux is not installed; the console end-to-end test did not run");
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
/// reaches its last line with End) when tmux, node and the server are installed; skips loudly
/// otherwise.
#[test]
fn console_reaches_a_long_resource_end_in_tmux() {
    let has = |cmd: &str, arg: &str| {
        Command::new(cmd)
            .arg(arg)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let server = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/interop/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    if !has("tmux", "-V") || !has("node", "--version") || !server.exists() {
        eprintln!(
            "SKIPPED: tmux, node or server-everything (scripts/install-interop) is missing; \
             the long-resource tmux test did not run"
        );
        return;
    }
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
/// skips loudly otherwise.
#[test]
fn console_answers_an_elicitation_and_a_sampling_request_in_tmux() {
    let has = |cmd: &str, arg: &str| {
        Command::new(cmd)
            .arg(arg)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let server = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/interop/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    if !has("tmux", "-V") || !has("node", "--version") || !server.exists() {
        eprintln!(
            "SKIPPED: tmux, node or server-everything (scripts/install-interop) is missing; \
             the elicitation and sampling tmux test did not run"
        );
        return;
    }
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
