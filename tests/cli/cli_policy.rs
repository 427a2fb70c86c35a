//! Policy from the command line: a broken policy file stops serve and the operations (never a
//! silent fallback to audit); enforce mode asks on the controlling terminal (driven through
//! `script`, which gives the child a real pty) and fails closed without one.

use crate::common;

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

fn has_script() -> bool {
    let ok = std::process::Command::new("script")
        .arg("--version")
        .output()
        .is_ok();
    if !ok {
        eprintln!("SKIPPED: `script` (util-linux) is needed to give the CLI a terminal");
    }
    ok
}

/// The backups of the policy file (under `$HOME/.local/state`, as the sandbox sets no
/// `XDG_STATE_HOME`).
fn policy_backups(sb: &Sandbox) -> Vec<String> {
    let dir = sb.dir.path().join(".local/state/mcpdeck/backups");
    std::fs::read_dir(dir).map_or_else(
        |_| Vec::new(),
        |entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("policy.json"))
                .collect()
        },
    )
}

#[test]
fn always_on_the_terminal_adds_an_allow_rule_that_later_runs_keep() {
    if !has_script() {
        return;
    }
    let sb = Sandbox::new();
    let counter = sb.dir.path().join("counter");
    servers(&sb, &counter);
    let policy = sb.write("config/mcpdeck/policy.json", r#"{"mode": "enforce"}"#);
    // Declining the second confirmation denies and writes nothing.
    let (code, screen) = on_a_terminal(&sb, "call fx echo text=one", "a\nn\n");
    assert_eq!(code, Some(2), "{screen}");
    assert!(screen.contains("[a] always"), "{screen}");
    assert!(screen.contains("not added; denied"), "{screen}");
    assert_eq!(calls(&counter), 0);
    assert!(policy_backups(&sb).is_empty());
    let (code, screen) = on_a_terminal(&sb, "call fx echo text=two", "a\ny\n");
    assert_eq!(code, Some(0), "{screen}");
    assert!(screen.contains("add `fx:tools.call echo`"), "{screen}");
    assert_eq!(calls(&counter), 1);
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&policy).expect("policy")).expect("json");
    assert_eq!(
        written,
        json!({"mode": "enforce", "allow": ["fx:tools.call echo"]})
    );
    assert_eq!(
        policy_backups(&sb).len(),
        1,
        "the previous file is backed up"
    );
    // A later run is allowed by the rule: nothing is asked (an empty answer would deny).
    let (code, screen) = on_a_terminal(&sb, "call fx echo text=three", "");
    assert_eq!(code, Some(0), "{screen}");
    assert!(!screen.contains("approve `"), "{screen}");
    assert_eq!(calls(&counter), 2);
}

#[test]
fn policy_lists_adds_and_removes_rules() {
    let sb = Sandbox::new();
    let listed = sb.json(&["policy", "--json"]);
    assert_eq!(listed["result"]["exists"], false);
    assert_eq!(listed["result"]["mode"], "audit");
    assert_eq!(listed["result"]["rules"], json!([]));

    let added = sb.json(&["policy", "allow", "github:tools.call search_*", "--json"]);
    assert_eq!(added["result"]["outcome"], "added");
    let again = sb.json(&["policy", "allow", "github:tools.call search_*", "--json"]);
    assert_eq!(again["result"]["outcome"], "already_present");
    let path = sb.home.join("mcpdeck/policy.json");
    let mut file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("written")).expect("json");
    assert_eq!(
        file,
        json!({"mode": "audit", "allow": ["github:tools.call search_*"]})
    );
    file["deny"] = json!(["*:tools.call delete_*"]);
    file["mode"] = json!("enforce");
    std::fs::write(&path, file.to_string()).expect("edit");

    let listed = sb.json(&["policy", "--json"]);
    assert_eq!(listed["result"]["mode"], "enforce");
    assert_eq!(
        listed["result"]["rules"],
        json!([
            {"kind": "allow", "rule": "github:tools.call search_*"},
            {"kind": "deny", "rule": "*:tools.call delete_*"}
        ])
    );
    sb.cmd()
        .arg("policy")
        .assert()
        .code(0)
        .stdout(predicates::str::contains("mode         enforce"))
        .stdout(predicates::str::contains("deny   *:tools.call delete_*"));

    let before = policy_backups(&sb).len();
    let removed = sb.json(&["policy", "remove", "*:tools.call delete_*", "--json"]);
    assert_eq!(removed["result"]["outcome"], "removed");
    assert_eq!(policy_backups(&sb).len(), before + 1);
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("kept")).expect("json");
    assert_eq!(file["deny"], json!([]));
    assert_eq!(file["mode"], "enforce", "the mode is kept");

    let missing = sb
        .cmd()
        .args(["policy", "remove", "nope:x", "--json"])
        .output()
        .expect("runs");
    assert_eq!(missing.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&missing.stdout).expect("json");
    assert_eq!(v["error"]["class"], "no_such_rule");
    let bad = sb
        .cmd()
        .args(["policy", "allow", "no-colon"])
        .output()
        .expect("runs");
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("server:operation-glob"));
}

#[test]
fn a_broken_policy_file_is_never_edited() {
    let sb = Sandbox::new();
    let path = sb.write("config/mcpdeck/policy.json", r#"{"mode": "sometimes"}"#);
    sb.cmd().arg("policy").assert().code(1);
    sb.cmd()
        .args(["policy", "allow", "a:b"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("policy file"));
    assert_eq!(
        std::fs::read_to_string(path).expect("kept"),
        r#"{"mode": "sometimes"}"#
    );
}
