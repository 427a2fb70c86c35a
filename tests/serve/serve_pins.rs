//! Pins and the scan wired into serve's approvals, through the real binaries: a standing glob
//! allow rule covers a server's tools until one of them drifts from its pins (the fixture's
//! rug-pull server changes `deploy` between runs, and each listing is a new mcpdeck process);
//! then that tool alone needs an approval, which shows the diff, and accepting the change
//! (`mcpdeck pins SERVER --accept`) gives the rule back. In audit mode the drifted tool runs,
//! and serve logs it and flags it to the attached consoles. An approval for a poisoned tool
//! shows what the scan finds in it.

use crate::common;

use std::process::Stdio;

use super::serve_kit::{WAIT, call, serve, serve_logged, text, the_socket};
use common::{Sandbox, fixture};
use mcpdeck::mcp::control::{ControlClient, ToConsole};
use mcpdeck::mcp::policy::{ApprovalRequest, Decision};
use serde_json::json;
use tokio::io::AsyncBufReadExt as _;

/// The fixture's drift server `case` as `name`, counting its runs, and a policy allowing every
/// tool call on it.
fn sandbox(name: &str, case: &str) -> Sandbox {
    let sb = Sandbox::new();
    let env = json!({"FIXTURE_RUN_FILE": sb.dir.path().join("runs")});
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {name: {"command": fixture(), "args": ["drift", "--case", case], "env": env}}})
            .to_string(),
    );
    sb.write(
        "config/mcpdeck/policy.json",
        &json!({"mode": "enforce", "allow": [format!("{name}:tools.call *")]}).to_string(),
    );
    sb
}

/// The next approval (or, with `flagged`, audit flag) the console hears.
async fn next_request(console: &mut ControlClient, flagged: bool) -> ApprovalRequest {
    loop {
        match tokio::time::timeout(WAIT, console.next())
            .await
            .expect("in time")
        {
            Ok(Some(ToConsole::Approval { request })) if !flagged => return request,
            Ok(Some(ToConsole::Flagged { request })) if flagged => return request,
            Ok(Some(_)) => {}
            other => panic!("nothing came: {other:?}"),
        }
    }
}

#[tokio::test]
async fn a_drifted_tool_leaves_its_allow_rule_until_the_change_is_accepted() {
    let sb = sandbox("rug", "rug-pull");
    // The first mcpdeck process lists the server: its baseline pins.
    assert!(
        sb.stdout(&["tools", "rug"])
            .contains("Deploys the app to staging.")
    );
    // A new process: `deploy` changed since, `status` did not.
    let agent = serve(&sb, &[]).await;
    let socket = the_socket(&sb).await;
    let (mut console, _) = ControlClient::attach(&socket).await.expect("attach");
    let args = json!({"env": "staging"});
    let status = call(&agent, "rug", "status", args.clone()).await;
    assert_ne!(
        status.is_error,
        Some(true),
        "the rule still covers `status`: {}",
        text(&status)
    );
    let deploy = {
        let pending = call(&agent, "rug", "deploy", args.clone());
        tokio::pin!(pending);
        let request = tokio::select! {
            r = &mut pending => panic!("ran without an approval: {}", text(&r)),
            request = next_request(&mut console, false) => request,
        };
        assert_eq!(request.operation, "tools.call deploy");
        assert!(request.tool_changed);
        assert!(
            request.drift[0]
                .starts_with("changed since its pins: text, schema-widened, destructive-now"),
            "{:?}",
            request.drift
        );
        assert!(
            request
                .drift
                .contains(&"- /description: Deploys the app to staging.".to_owned()),
            "the approval shows the diff: {:?}",
            request.drift
        );
        console
            .decide(request.ticket, Decision::Deny)
            .await
            .expect("decide");
        pending.await
    };
    assert_eq!(deploy.is_error, Some(true), "denied: {}", text(&deploy));
    drop(agent);
    // Accepting the change gives the rule back, in the next session.
    let accepted = sb.stdout(&["pins", "rug", "--accept"]);
    assert!(accepted.contains("accepted"), "{accepted}");
    let agent = serve(&sb, &[]).await;
    let deploy = call(&agent, "rug", "deploy", args).await;
    assert_ne!(
        deploy.is_error,
        Some(true),
        "covered again: {}",
        text(&deploy)
    );
}

/// Audit mode asks nobody: the drifted tool runs, serve's log says it ran though it changed,
/// and the attached console is shown the question enforce mode would have put. The unchanged
/// tool is not flagged.
#[tokio::test]
async fn audit_mode_runs_a_drifted_tool_and_logs_and_flags_it() {
    let sb = sandbox("rug", "rug-pull");
    assert!(
        sb.stdout(&["tools", "rug"])
            .contains("Deploys the app to staging.")
    );
    let (agent, log) = serve_logged(&sb, &["--policy", "audit"], Stdio::piped()).await;
    let mut log = tokio::io::BufReader::new(log.expect("stderr piped")).lines();
    let socket = the_socket(&sb).await;
    let (mut console, _) = ControlClient::attach(&socket).await.expect("attach");
    let args = json!({"env": "production", "force": true});
    let status = call(&agent, "rug", "status", json!({})).await;
    assert_ne!(status.is_error, Some(true), "{}", text(&status));
    let deploy = call(&agent, "rug", "deploy", args).await;
    assert_ne!(
        deploy.is_error,
        Some(true),
        "audit mode runs it: {}",
        text(&deploy)
    );
    let flag = next_request(&mut console, true).await;
    assert_eq!(flag.operation, "tools.call deploy", "only the drifted tool");
    assert!(flag.tool_changed);
    assert!(
        flag.drift[0].starts_with("changed since its pins: text"),
        "{:?}",
        flag.drift
    );
    assert!(
        flag.arguments
            .as_deref()
            .is_some_and(|a| a.contains("production")),
        "{:?}",
        flag.arguments
    );
    let logged = tokio::time::timeout(WAIT, async {
        while let Ok(Some(line)) = log.next_line().await {
            if line.contains("audit:") {
                return line;
            }
        }
        panic!("serve's log ended without the audit line");
    })
    .await
    .expect("in time");
    assert!(
        logged.starts_with(
            "mcpdeck serve: audit: `tools.call deploy` on `rug` ran though the tool changed since its pins (changed since its pins: text"
        ),
        "{logged}"
    );
}

/// An approval for a poisoned tool carries what the scan finds in its definition (rule,
/// field, line and column, sanitised excerpt); a clean tool's carries nothing.
#[tokio::test]
async fn an_approval_shows_what_the_scan_finds_in_the_tool() {
    let sb = Sandbox::new();
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {"notes": {"command": fixture(), "args": ["drift", "--case", "poisoned"]}}})
            .to_string(),
    );
    let agent = serve(&sb, &["--policy", "enforce"]).await;
    let socket = the_socket(&sb).await;
    let (mut console, _) = ControlClient::attach(&socket).await.expect("attach");
    let mut asked = Vec::new();
    for tool in ["add", "status"] {
        let pending = call(&agent, "notes", tool, json!({"a": 1, "b": 2}));
        tokio::pin!(pending);
        let request = tokio::select! {
            r = &mut pending => panic!("ran without an approval: {}", text(&r)),
            request = next_request(&mut console, false) => request,
        };
        console
            .decide(request.ticket, Decision::AllowOnce)
            .await
            .expect("decide");
        let result = pending.await;
        assert_ne!(result.is_error, Some(true), "{}", text(&result));
        asked.push(request);
    }
    let findings = &asked[0].findings;
    assert!(
        findings
            .iter()
            .any(|f| f.starts_with("[read-secrets] /description:2:")),
        "{findings:?}"
    );
    assert!(
        findings
            .iter()
            .any(|f| f.starts_with("[conceal-from-user] /description:2:")),
        "{findings:?}"
    );
    assert!(asked[1].findings.is_empty(), "{:?}", asked[1].findings);
}
