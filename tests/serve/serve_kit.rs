//! What the serve tests that drive the real binary share: an agent host without elicitation
//! (approvals must come from a console or watcher), `mcpdeck serve` started for a sandbox with
//! its runtime directory (where the control socket appears), a call through its `mcp` tool, and
//! the wait for the control socket.

use crate::common;

use std::path::PathBuf;
use std::process::Stdio;
use std::time::Duration;

use common::Sandbox;
use mcpdeck::mcp::control::list_sockets;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation,
    ProtocolVersion,
};
use rmcp::service::{RoleClient, RunningService};
use rmcp::transport::{ConfigureCommandExt as _, TokioChildProcess};
use rmcp::{ClientHandler, ServiceExt as _};

/// How long any one expected thing may take before the test gives up.
pub const WAIT: Duration = Duration::from_secs(30);

/// An agent host without elicitation: approvals must come from a console or watcher.
pub struct Host;

impl ClientHandler for Host {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("serve-test-host", "0"),
        )
        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }
}

/// The agent host's session with serve.
pub type Agent = RunningService<RoleClient, Host>;

/// Where the sandbox's serve sessions publish their control sockets (`XDG_RUNTIME_DIR`).
pub fn runtime_dir(sb: &Sandbox) -> PathBuf {
    sb.dir.path().join("run")
}

/// `mcpdeck [--cwd project] serve ARGS` for the sandbox, with an agent attached over stdio;
/// serve's stderr (its log) is discarded.
pub async fn serve(sb: &Sandbox, args: &[&str]) -> Agent {
    serve_logged(sb, args, Stdio::null()).await.0
}

/// [`serve`], with serve's stderr (its log) going to `stderr`; piped, it is returned.
pub async fn serve_logged(
    sb: &Sandbox,
    args: &[&str],
    stderr: Stdio,
) -> (Agent, Option<tokio::process::ChildStderr>) {
    std::fs::create_dir_all(runtime_dir(sb)).expect("runtime dir");
    let cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcpdeck")).configure(|c| {
        c.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", sb.dir.path())
            .env("XDG_CONFIG_HOME", &sb.home)
            .env("XDG_RUNTIME_DIR", runtime_dir(sb))
            .args(["--cwd", sb.project.to_str().expect("utf-8")])
            .arg("serve")
            .args(args);
    });
    let (transport, log) = TokioChildProcess::builder(cmd)
        .stderr(stderr)
        .spawn()
        .expect("serve starts");
    let agent = tokio::time::timeout(WAIT, Host.serve(transport))
        .await
        .expect("in time")
        .expect("initialised");
    (agent, log)
}

/// The agent calls `tool` on `server` with `args` through serve's `mcp` tool.
pub async fn call(
    agent: &Agent,
    server: &str,
    tool: &str,
    args: serde_json::Value,
) -> CallToolResult {
    let args = serde_json::json!({"server": server, "tool": tool, "args": args});
    let params =
        CallToolRequestParams::new("mcp").with_arguments(args.as_object().expect("object").clone());
    tokio::time::timeout(WAIT, agent.call_tool(params))
        .await
        .expect("in time")
        .expect("answered")
}

/// A result's text.
pub fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

/// The control socket of the sandbox's (one) serve session, once it is there (woken by inotify).
pub async fn the_socket(sb: &Sandbox) -> PathBuf {
    let dir = runtime_dir(sb).join("mcpdeck");
    assert!(
        common::fs_wait::until_changed(sb.dir.path(), WAIT, || !list_sockets(&dir).is_empty())
            .await,
        "no serve socket"
    );
    list_sockets(&dir).remove(0)
}
