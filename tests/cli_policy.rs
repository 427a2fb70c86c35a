//! Policy from the command line: a broken policy file stops serve and the operations (never a
//! silent fallback to audit); enforce mode asks on the controlling terminal (driven through
//! `script`, which gives the child a real pty) and fails closed without one.

mod common;

use common::{Sandbox, fixture};
use serde_json::json;

fn servers(sb: &Sandbox, counter: &std::path::Path) {
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {"fx": {"command": fixture(), "args": ["stdio"], "env": {"FIXTURE_COUNTER": counter}}}}).to_string(),
    );
}

fn calls(counter: &std::path::Path) -> usize {
    std::fs::read_to_string(counter).map_or(0, |s| s.lines().count())
}

#[test]
fn a_broken_policy_file_stops_everything_that_would_apply_it() {
    let sb = Sandbox::new();
    let counter = sb.dir.path().join("counter");
    servers(&sb, &counter);
    sb.write(
        "config/mcpdeck/policy.json",
        r#"{"mode": "enforce", "allow": ["no-colon"]}"#,
    );
    sb.cmd()
        .arg("serve")
        .write_stdin("")
        .assert()
        .code(1)
        .stderr(predicates::str::contains(
            "refusing to serve in an unknown policy state",
        ));
    sb.cmd()
        .args(["call", "fx", "echo", "text=x"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("policy file"));
    assert_eq!(calls(&counter), 0);
}

#[test]
fn enforce_without_a_terminal_fails_closed() {
    let sb = Sandbox::new();
    let counter = sb.dir.path().join("counter");
    servers(&sb, &counter);
    sb.write("config/mcpdeck/policy.json", r#"{"mode": "enforce"}"#);
    let out = sb
        .cmd()
        .args(["call", "fx", "echo", "text=x", "--json"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["error"]["class"], "approval_required");
    assert_eq!(calls(&counter), 0);
}

/// Runs `mcpdeck ARGS` under `script` so it has a controlling terminal, typing `answer`.
fn on_a_terminal(sb: &Sandbox, args: &str, answer: &str) -> (Option<i32>, String) {
    let command = format!(
        "{} --cwd {} {args}",
        env!("CARGO_BIN_EXE_mcpdeck"),
        sb.project.display()
    );
    let out = std::process::Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .env("XDG_CONFIG_HOME", &sb.home)
        .env("HOME", sb.dir.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut child| {
            use std::io::Write as _;
            child
                .stdin
                .take()
                .expect("stdin")
                .write_all(answer.as_bytes())?;
            child.wait_with_output()
        })
        .expect("script runs");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn enforce_asks_on_the_terminal() {
    if std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("SKIPPED: `script` (util-linux) is needed to give the CLI a terminal");
        return;
    }
    let sb = Sandbox::new();
    let counter = sb.dir.path().join("counter");
    servers(&sb, &counter);
    sb.write(
        "config/mcpdeck/policy.json",
        r#"{"mode": "enforce", "allow": ["fx:tools.list"]}"#,
    );
    let (code, screen) = on_a_terminal(&sb, "call fx echo text=approved", "y\n");
    assert_eq!(code, Some(0), "{screen}");
    assert!(
        screen.contains("approve `tools.call echo` on `fx`"),
        "{screen}"
    );
    // The person asked sees the arguments and the tool's own (server-claimed) effects.
    assert!(screen.contains("\"text\": \"approved\""), "{screen}");
    assert!(screen.contains("read, network (server-claimed"), "{screen}");
    assert_eq!(calls(&counter), 1);
    let (code, screen) = on_a_terminal(&sb, "call fx echo text=nope", "n\n");
    assert_eq!(code, Some(2), "{screen}");
    assert_eq!(calls(&counter), 1, "a denial sends nothing");
}
