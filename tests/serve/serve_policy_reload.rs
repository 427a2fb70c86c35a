//! `mcpdeck serve` reads the user's policy file again when it changes: a deny rule written while
//! serve runs is enforced on the next call, and a file that no longer parses leaves that rule in
//! force. Waits are for serve's own log line, never sleeps.

use crate::common;

use std::process::Stdio;

use common::Sandbox;
use serde_json::json;
use tokio::io::AsyncBufReadExt as _;

use super::serve_kit::{WAIT, call, serve_logged, text};

/// Reads serve's log until a line contains `what`; fails after [`WAIT`].
async fn logged<R: tokio::io::AsyncBufRead + Unpin>(
    log: &mut tokio::io::Lines<R>,
    what: &str,
) -> String {
    let wait = async {
        while let Some(line) = log.next_line().await.expect("read the log") {
            if line.contains(what) {
                return line;
            }
        }
        panic!("serve's log ended before `{what}`");
    };
    tokio::time::timeout(WAIT, wait)
        .await
        .unwrap_or_else(|_| panic!("no `{what}` in serve's log"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rule_written_while_serve_runs_is_enforced() {
    let sb = Sandbox::new();
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {"demo": {"command": env!("CARGO_BIN_EXE_mcpdeck"), "args": ["demo-server"]}}})
            .to_string(),
    );
    let policy = sb.write(
        "config/mcpdeck/policy.json",
        &json!({"mode": "audit"}).to_string(),
    );
    let (agent, log) = serve_logged(&sb, &[], Stdio::piped()).await;
    let mut log = tokio::io::BufReader::new(log.expect("stderr piped")).lines();
    let echo = call(&agent, "demo", "echo", json!({"text": "hi"})).await;
    assert_ne!(echo.is_error, Some(true), "{}", text(&echo));

    let deny = json!({"mode": "audit", "deny": ["demo:tools.call echo"]});
    std::fs::write(&policy, deny.to_string()).expect("write");
    let line = logged(&mut log, "read again").await;
    assert!(line.contains("audit mode, 1 rule"), "{line}");
    let refused = call(&agent, "demo", "echo", json!({"text": "hi"})).await;
    assert_eq!(refused.is_error, Some(true), "{}", text(&refused));
    assert!(
        text(&refused).contains("refused by policy rule `demo:tools.call echo`"),
        "{}",
        text(&refused)
    );

    std::fs::write(&policy, r#"{"mode": "aud"#).expect("write");
    logged(&mut log, "the policy in force stays").await;
    let still = call(&agent, "demo", "echo", json!({"text": "hi"})).await;
    assert_eq!(still.is_error, Some(true), "the last good rule holds");
    agent.cancel().await.expect("stop");
}
