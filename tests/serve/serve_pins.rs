//! Pins wired into serve's approvals, through the real binaries: a standing glob allow rule
//! covers a server's tools until one of them drifts from its pins (the fixture's rug-pull
//! server changes `deploy` between runs, and each listing is a new mcpdeck process); then that
//! tool alone needs an approval, which shows the diff, and accepting the change
//! (`mcpdeck pins SERVER --accept`) gives the rule back.

use crate::common;

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use common::{Sandbox, fixture};
use mcpdeck::mcp::control::{ControlClient, ToConsole, list_sockets};
use mcpdeck::mcp::policy::Decision;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation,
    ProtocolVersion,
};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::{ConfigureCommandExt as _, TokioChildProcess};
use rmcp::{ClientHandler, ServiceExt as _};
use serde_json::json;

const WAIT: Duration = Duration::from_secs(30);

struct Host;

impl ClientHandler for Host {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("serve-pins-test", "0"),
        )
        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }
}

type Agent = RunningService<RoleClient, Host>;

fn runtime_dir(sb: &Sandbox) -> PathBuf {
    sb.dir.path().join("run")
}

/// `rug` (changes `deploy` after its first run) and a policy allowing every tool call on it.
fn sandbox() -> Sandbox {
    let sb = Sandbox::new();
    let env = json!({"FIXTURE_RUN_FILE": sb.dir.path().join("runs")});
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {"rug": {"command": fixture(), "args": ["drift", "--case", "rug-pull"], "env": env}}})
            .to_string(),
    );
    sb.write(
        "config/mcpdeck/policy.json",
        r#"{"mode": "enforce", "allow": ["rug:tools.call *"]}"#,
    );
    std::fs::create_dir_all(runtime_dir(&sb)).expect("runtime dir");
    sb
}

async fn serve(sb: &Sandbox) -> Agent {
    let cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcpdeck")).configure(|c| {
        c.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", sb.dir.path())
            .env("XDG_CONFIG_HOME", &sb.home)
            .env("XDG_RUNTIME_DIR", runtime_dir(sb))
            .args(["--cwd", sb.project.to_str().expect("utf-8")])
            .arg("serve");
    });
    let (transport, _stderr) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::null())
        .spawn()
        .expect("serve starts");
    tokio::time::timeout(WAIT, Host.serve(transport))
        .await
        .expect("in time")
        .expect("initialised")
}

async fn call(agent: &Agent, tool: &str) -> CallToolResult {
    let args = json!({"server": "rug", "tool": tool, "args": {"env": "staging"}});
    let params =
        CallToolRequestParams::new("mcp").with_arguments(args.as_object().expect("obj").clone());
    tokio::time::timeout(WAIT, agent.call_tool(params))
        .await
        .expect("in time")
        .expect("answered")
}

fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

/// The serve session's control socket, once it appears (woken by inotify, bounded).
async fn the_socket(sb: &Sandbox) -> PathBuf {
    let dir = runtime_dir(sb).join("mcpdeck");
    assert!(
        common::fs_wait::until_changed(sb.dir.path(), WAIT, || !list_sockets(&dir).is_empty())
            .await,
        "no serve socket"
    );
    list_sockets(&dir).remove(0)
}

#[tokio::test]
async fn a_drifted_tool_leaves_its_allow_rule_until_the_change_is_accepted() {
    let sb = sandbox();
    // The first mcpdeck process lists the server: its baseline pins.
    assert!(
        sb.stdout(&["tools", "rug"])
            .contains("Deploys the app to staging.")
    );
    // A new process: `deploy` changed since, `status` did not.
    let agent = serve(&sb).await;
    let socket = the_socket(&sb).await;
    let (mut console, _) = ControlClient::attach(&socket).await.expect("attach");
    let status = call(&agent, "status").await;
    assert_ne!(
        status.is_error,
        Some(true),
        "the rule still covers `status`: {}",
        text(&status)
    );
    let deploy = {
        let pending = call(&agent, "deploy");
        tokio::pin!(pending);
        let request = loop {
            tokio::select! {
                r = &mut pending => panic!("ran without an approval: {}", text(&r)),
                m = console.next() => match m {
                    Ok(Some(ToConsole::Approval { request })) => break request,
                    Ok(Some(_)) => {}
                    other => panic!("no approval: {other:?}"),
                },
            }
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
    let agent = serve(&sb).await;
    let deploy = call(&agent, "deploy").await;
    assert_ne!(
        deploy.is_error,
        Some(true),
        "covered again: {}",
        text(&deploy)
    );
}
