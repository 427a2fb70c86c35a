//! The tasks extension of protocol 2026-07-28 against the official MCP Python SDK 2.x, serving
//! it through the SDK's extension interface (`tests/python/tasks_server.py`): a tool answered
//! with a task is polled with `tasks/get` to its inlined result, input inside a task is asked
//! through `--elicit` and sent once in `tasks/update`, a failed task is its JSON-RPC error, the
//! task timeout sends `tasks/cancel`, and `tasks/list` is refused before anything is sent. The
//! server logs every task method it receives, so the counts are the server's. Skipped, saying
//! so, without the SDK (fails under `CI=true`).

use std::path::{Path, PathBuf};

use crate::common::Sandbox;
use serde_json::{Value, json};

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/tasks_server.py")
}

/// A sandbox with the tasks server as `py` in 2026-07-28, logging to the returned file.
fn sandbox(python: &Path) -> (Sandbox, PathBuf) {
    let sb = Sandbox::new();
    let log = sb.dir.path().join("tasks.log");
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {"py": {
            "command": python, "args": [script(), "stdio"],
            "protocolVersion": "2026-07-28",
            "env": {"TASKS_LOG": log}
        }}})
        .to_string(),
    );
    (sb, log)
}

fn call(sb: &Sandbox, args: &[&str]) -> (Value, String) {
    let out = sb.cmd().args(args).arg("--json").output().expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let v = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: no JSON ({e}): {stderr}"));
    (v, stderr)
}

fn logged(log: &Path, prefix: &str) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| l.starts_with(prefix))
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_task_is_polled_to_its_result_and_its_input_goes_in_tasks_update() {
    let Some(python) = crate::common::peers::python_sdk2() else {
        return;
    };
    let (sb, log) = sandbox(&python);
    let (v, stderr) = call(&sb, &["call", "py", "slow", "seconds=0.6", "label=one"]);
    assert_eq!(v["ok"], true, "{v:#} {stderr}");
    let text = v["result"]["text"].as_str().unwrap_or_default();
    assert!(text.contains("slow finished one"), "{v:#}");
    assert!(stderr.contains("runs as task"), "{stderr}");
    assert!(stderr.contains("completed: done"), "{stderr}");
    // 100 ms asked, raised to the 250 ms floor: a 0.6 s task takes a few polls, not six.
    let polls = logged(&log, "tasks/get").len();
    assert!((2..=4).contains(&polls), "{polls} polls: {stderr}");
    assert!(logged(&log, "tasks/cancel").is_empty());

    let (v, stderr) = call(&sb, &["--elicit", "accept-defaults", "call", "py", "ask"]);
    assert_eq!(v["ok"], true, "{v:#} {stderr}");
    let text = v["result"]["text"].as_str().unwrap_or_default();
    assert!(text.contains("hello operator from a task"), "{v:#}");
    assert!(stderr.contains("Who runs this task?"), "{stderr}");
    let updates = logged(&log, "tasks/update");
    assert_eq!(updates.len(), 1, "{updates:?}");
    assert!(updates[0].ends_with("['name-1']"), "{updates:?}");

    let (v, _) = call(&sb, &["call", "py", "plain", "text=at once"]);
    assert_eq!(v["ok"], true, "{v:#}");
    assert_eq!(
        logged(&log, "created").len(),
        2,
        "a plain call made no task"
    );
}

#[test]
fn a_failed_task_is_its_error_and_the_timeout_sends_tasks_cancel() {
    let Some(python) = crate::common::peers::python_sdk2() else {
        return;
    };
    let (sb, log) = sandbox(&python);
    let (v, _) = call(&sb, &["call", "py", "broken"]);
    assert_eq!(v["ok"], false, "{v:#}");
    assert_eq!(v["error"]["class"], "server_error", "{v:#}");
    let message = v["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("the job broke"), "{v:#}");

    let (v, _) = call(&sb, &["--task-timeout", "1200", "call", "py", "hang"]);
    assert_eq!(v["error"]["class"], "timeout", "{v:#}");
    let message = v["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("tasks/cancel was sent"), "{v:#}");
    assert_eq!(logged(&log, "tasks/cancel").len(), 1);

    let (v, _) = call(&sb, &["tasks", "py"]);
    assert_eq!(v["error"]["class"], "not_supported", "{v:#}");
    let message = v["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("no tasks/list"), "{v:#}");
}

#[test]
fn a_task_without_its_times_is_followed_and_lint_follows_a_task_to_its_result() {
    let Some(python) = crate::common::peers::python_sdk2() else {
        return;
    };
    let (sb, log) = sandbox(&python);
    // The handle and every tasks/get answer leave out createdAt, lastUpdatedAt and ttlMs.
    let (v, stderr) = call(&sb, &["call", "py", "bare"]);
    assert_eq!(v["ok"], true, "{v:#} {stderr}");
    let text = v["result"]["text"].as_str().unwrap_or_default();
    assert!(text.contains("bare finished"), "{v:#}");
    assert!(!logged(&log, "tasks/get").is_empty(), "it was polled");

    // `lint --call` calls the one read-only tool, which runs as a task: its result, reached by
    // polling, breaks the tool's output schema, and that is what the lint reports.
    let (v, stderr) = call(&sb, &["lint", "py", "--call"]);
    let findings = v["result"]["findings"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let about_report: Vec<&Value> = findings
        .iter()
        .filter(|f| f["subject"] == "tool report")
        .collect();
    assert_eq!(about_report.len(), 1, "{v:#} {stderr}");
    assert_eq!(about_report[0]["rule"], "output-schema", "{v:#}");
    assert_eq!(logged(&log, "created report").len(), 1);
    let polls_of_report = logged(&log, "tasks/get").len();
    assert!(polls_of_report >= 2, "{polls_of_report}: the lint polled");
    assert!(logged(&log, "tasks/cancel").is_empty());
}
