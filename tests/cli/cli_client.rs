//! The operator's client commands through the real binary: `complete`, `read --template`,
//! `watch` and `tasks`, against server-everything (pinned npm package, over stdio and
//! Streamable HTTP) and the fixture server (subscriptions). The server-everything tests are
//! skipped, saying so, without node.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::path::{Path, PathBuf};

use common::everything_http::EverythingHttp;
use common::{Sandbox, fixture};
use serde_json::{Value, json};

fn everything() -> Option<PathBuf> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/interop/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    let node = std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if script.exists() && node {
        Some(script)
    } else {
        eprintln!("SKIPPED: run scripts/install-interop (needs node) for these tests");
        None
    }
}

fn with_servers(sb: &Sandbox, servers: &Value) {
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": servers}).to_string(),
    );
}

/// Runs the CLI with `--json` and stdin closed: exit code, stdout lines, stderr.
fn run_lines(sb: &Sandbox, args: &[&str]) -> (i32, Vec<Value>, String) {
    let out = sb
        .cmd()
        .args(args)
        .arg("--json")
        .write_stdin("")
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let lines = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{args:?}: {e}: {l}")))
        .collect();
    (out.status.code().unwrap_or(-1), lines, stderr)
}

fn run(sb: &Sandbox, args: &[&str]) -> (i32, Value, String) {
    let (code, mut lines, stderr) = run_lines(sb, args);
    assert_eq!(lines.len(), 1, "{args:?}: {lines:?} {stderr}");
    (code, lines.remove(0), stderr)
}

fn values(v: &Value) -> Vec<&str> {
    v["result"]["values"]
        .as_array()
        .unwrap_or_else(|| panic!("no values: {v}"))
        .iter()
        .filter_map(Value::as_str)
        .collect()
}

#[test]
fn completion_uses_the_context_of_earlier_arguments() {
    let Some(script) = everything() else {
        return;
    };
    let sb = Sandbox::new();
    with_servers(
        &sb,
        &json!({"everything": {"command": "node", "args": [script, "stdio"]}}),
    );
    let (code, v, _) = run(
        &sb,
        &[
            "complete",
            "everything",
            "--prompt",
            "completable-prompt",
            "department=S",
        ],
    );
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["operation"], "completion.complete");
    assert_eq!(values(&v), ["Sales", "Support"]);
    // The second argument's suggestions depend on the first, sent as context.
    let (_, v, _) = run(
        &sb,
        &[
            "complete",
            "everything",
            "--prompt",
            "completable-prompt",
            "name=",
            "department=Sales",
        ],
    );
    assert_eq!(values(&v), ["David", "Eve", "Frank"]);
    let (_, v, _) = run(
        &sb,
        &[
            "complete",
            "everything",
            "--prompt",
            "completable-prompt",
            "name=",
        ],
    );
    assert!(values(&v).is_empty(), "{v}");
    // A template variable, by the template's name.
    let (code, v, _) = run(
        &sb,
        &[
            "complete",
            "everything",
            "--template",
            "Dynamic Text Resource",
            "resourceId=7",
        ],
    );
    assert_eq!(code, 0, "{v}");
    assert_eq!(values(&v), ["7"]);
    let text = sb
        .cmd()
        .args([
            "complete",
            "everything",
            "--template",
            "Dynamic Text Resource",
        ])
        .arg("resourceId=7")
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.starts_with("1 suggestion for resourceId"), "{text}");
    let (code, v, _) = run(&sb, &["complete", "everything", "name=x"]);
    assert_eq!(code, 1, "{v}");
    assert!(v["error"]["message"].as_str().unwrap().contains("--prompt"));
}

#[test]
fn templates_are_listed_with_variables_and_read_with_values() {
    let Some(script) = everything() else {
        return;
    };
    let sb = Sandbox::new();
    with_servers(
        &sb,
        &json!({"everything": {"command": "node", "args": [script, "stdio"]}}),
    );
    let (code, v, _) = run(&sb, &["templates", "everything"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["operation"], "resources.templates");
    let templates = v["result"]["templates"].as_array().unwrap();
    let text = templates
        .iter()
        .find(|t| t["name"] == "Dynamic Text Resource")
        .unwrap_or_else(|| panic!("{templates:?}"));
    assert_eq!(
        text["uriTemplate"],
        "demo://resource/dynamic/text/{resourceId}"
    );
    assert_eq!(text["variables"], json!(["resourceId"]));
    for template in [
        "Dynamic Text Resource",
        "demo://resource/dynamic/text/{resourceId}",
    ] {
        let (code, v, _) = run(
            &sb,
            &["read", "everything", "--template", template, "resourceId=3"],
        );
        assert_eq!(code, 0, "{v}");
        let body = v["result"]["text"].as_str().unwrap();
        assert!(
            body.contains("Resource 3: This is a plaintext resource"),
            "{v}"
        );
        assert_eq!(v["result"]["reference"], "demo://resource/dynamic/text/3");
    }
    // A misspelt variable is refused before anything is read.
    let (code, v, _) = run(
        &sb,
        &[
            "read",
            "everything",
            "--template",
            "Dynamic Text Resource",
            "resourceID=3",
        ],
    );
    assert_eq!(code, 1, "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("no variable `resourceID`"),
        "{v}"
    );
    let (code, v, _) = run(
        &sb,
        &["read", "everything", "--template", "nope", "resourceId=3"],
    );
    assert_eq!(code, 1, "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Dynamic Text Resource"),
        "the known templates are named: {v}"
    );
}

#[test]
fn tasks_are_listed_and_unknown_ids_are_the_servers_error() {
    let Some(script) = everything() else {
        return;
    };
    let sb = Sandbox::new();
    with_servers(
        &sb,
        &json!({"everything": {"command": "node", "args": [script, "stdio"]}}),
    );
    // Each command is a new session: the list is empty but answered.
    let (code, v, _) = run(&sb, &["tasks", "everything"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["operation"], "tasks.list");
    assert_eq!(v["result"]["tasks"], json!([]));
    // In words, an empty list ends its sentence instead of announcing a list that never comes.
    let out = sb
        .cmd()
        .args(["tasks", "everything"])
        .write_stdin("")
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("0 tasks on everything.\n"), "{text}");
    for action in ["--get", "--cancel", "--result"] {
        let (code, v, _) = run(&sb, &["tasks", "everything", action, "no-such-task"]);
        assert_eq!(code, 5, "{action}: {v}");
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap()
                .contains("not found"),
            "{action}: {v}"
        );
    }
}

#[test]
fn watch_prints_each_update_then_unsubscribes() {
    let sb = Sandbox::new();
    let marker = sb.home.join("unsubscribed");
    with_servers(
        &sb,
        &json!({"fx": {"command": fixture(), "args": ["stdio"],
                        "env": {"MCPDECK_FIXTURE_UNSUBSCRIBED": marker}}}),
    );
    let (code, lines, stderr) = run_lines(&sb, &["watch", "fx", "mem://doc/1", "--count", "2"]);
    assert_eq!(code, 0, "{lines:?} {stderr}");
    assert_eq!(lines.len(), 3, "two updates and the envelope: {lines:?}");
    for (i, update) in lines[..2].iter().enumerate() {
        assert_eq!(update["update"], i + 1);
        assert!(
            update["read"]["result"]["text"]
                .as_str()
                .unwrap()
                .contains("content of mem://doc/1"),
            "{update}"
        );
    }
    let last = &lines[2];
    assert_eq!(last["result"]["updates"], 2);
    assert_eq!(last["result"]["subscribed"], false);
    assert!(stderr.contains("subscribed to mem://doc/1"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&marker).unwrap(), "mem://doc/1");
    // Without --json the summary counts in words.
    let out = sb
        .cmd()
        .args(["watch", "fx", "mem://doc/1", "--count", "1"])
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("1 update of mem://doc/1; unsubscribed"),
        "{text}"
    );
    // The fixture offers no completions: refused before anything is sent.
    let (code, v, _) = run(&sb, &["complete", "fx", "--prompt", "greet", "name=a"]);
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["error"]["class"], "not_supported");
    // A resource the server refuses to watch.
    let (code, v, _) = run(&sb, &["watch", "fx", "mem://other", "--count", "1"]);
    assert_ne!(code, 0, "{v}");
}

#[test]
fn over_streamable_http_all_tools_are_offered_and_tasks_run() {
    let Some(script) = everything() else {
        return;
    };
    let server = EverythingHttp::start(&script);
    let port = server.port;
    let sb = Sandbox::new();
    with_servers(
        &sb,
        &json!({"evh": {"url": format!("http://127.0.0.1:{port}/mcp")}}),
    );
    // The tasks capability is declared over HTTP too, so the task tools are listed.
    let (code, v, _) = run(&sb, &["tools", "evh"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["result"]["count"], 19, "{v}");
    let (code, v, stderr) = run(
        &sb,
        &["call", "evh", "simulate-research-query", "topic=rust"],
    );
    assert_eq!(code, 0, "{v} {stderr}");
    assert!(
        v["result"]["text"]
            .as_str()
            .unwrap()
            .contains("Research Report: rust"),
        "{v}"
    );
    assert!(stderr.contains("completed"), "{stderr}");
    let (code, v, _) = run(
        &sb,
        &[
            "complete",
            "evh",
            "--prompt",
            "completable-prompt",
            "department=Eng",
        ],
    );
    assert_eq!(code, 0, "{v}");
    assert_eq!(values(&v), ["Engineering"]);
    drop(server);
}
