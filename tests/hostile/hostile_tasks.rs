//! Hostile tasks: `tasks/list` listings get the bounds of a tool catalog (entries, pages,
//! repeated cursors; `limit`, exit 7, the bound named), and a task that never finishes is
//! followed only until its deadline (`taskTimeoutMs`, `--task-timeout`, or its own `ttl`),
//! then cancelled (`timeout`, exit 6).

use crate::common;

use common::{Sandbox, fixture};
use serde_json::{Value, json};

fn with_case(sb: &Sandbox, case: &str, extra: &Value) -> std::path::PathBuf {
    let events = sb.dir.path().join("events");
    let mut def = json!({
        "command": fixture(),
        "args": ["raw", "--case", case],
        "env": {"FIXTURE_EVENTS": events.to_str().expect("utf8")},
    });
    if let Some(extra) = extra.as_object() {
        for (k, v) in extra {
            def[k] = v.clone();
        }
    }
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {"s": def}}).to_string(),
    );
    events
}

fn run(sb: &Sandbox, args: &[&str]) -> (i32, Value, String) {
    let out = sb.cmd().args(args).output().expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let v = serde_json::from_str(&stdout).unwrap_or(Value::Null);
    let text = stdout + &String::from_utf8_lossy(&out.stderr);
    (out.status.code().unwrap_or(-1), v, text)
}

#[test]
fn task_listings_are_bounded_like_tool_catalogs() {
    for (case, bound) in [
        ("tasks-flood", "10000 tasks"),
        ("tasks-endless", "100 pages"),
        ("tasks-repeat", "repeated cursor"),
    ] {
        let sb = Sandbox::new();
        with_case(&sb, case, &json!({}));
        let (code, v, text) = run(&sb, &["tasks", "s", "--json"]);
        assert_eq!(code, 7, "{case}: {text}");
        assert_eq!(v["error"]["class"], "limit", "{case}: {text}");
        assert_eq!(v["error"]["bound"], bound, "{case}: {text}");
        assert!(
            text.len() < 4096,
            "{case}: a refusal, not a listing: {} bytes",
            text.len()
        );
        let (code, _, text) = run(&sb, &["tasks", "s"]);
        assert_eq!(code, 7, "{case}: {text}");
        assert!(text.contains("tasks listing stopped"), "{case}: {text}");
    }
}

#[test]
fn a_task_that_never_finishes_stops_at_its_deadline_and_is_cancelled() {
    // `--task-timeout`, the definition's `taskTimeoutMs`, and the task's own 1-second `ttl`.
    for (case, extra, flags, said) in [
        (
            "task-forever",
            json!({}),
            &["--task-timeout", "1200"][..],
            "1200 ms",
        ),
        (
            "task-forever",
            json!({"taskTimeoutMs": 900}),
            &[][..],
            "900 ms",
        ),
        ("task-ttl", json!({}), &[][..], "ttl"),
    ] {
        let sb = Sandbox::new();
        let events = with_case(&sb, case, &extra);
        let started = std::time::Instant::now();
        let mut args = vec!["call", "s", "echo", "text=hi", "--task", "--json"];
        args.extend_from_slice(flags);
        let (code, v, text) = run(&sb, &args);
        assert_eq!(code, 6, "{case} {flags:?}: {text}");
        assert_eq!(v["error"]["class"], "timeout", "{text}");
        let message = v["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(said), "{said}: {message}");
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "stopped at the deadline, not the 30-minute cap"
        );
        let seen = std::fs::read_to_string(&events).unwrap_or_default();
        assert!(
            seen.contains("tasks/cancel"),
            "the task was cancelled: {seen:?}"
        );
    }
}
