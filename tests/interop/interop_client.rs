//! The client side of MCP against real servers: server-everything (pinned npm package, over
//! stdio and Streamable HTTP) and a Python SDK server whose tools ask the client for roots,
//! sampling and elicitation. Checks what the CLI declares and answers (`--root`, `--elicit`,
//! `--sampling-reply`, tasks, read by URI) and that `mcpdeck serve` refuses such requests from
//! downstream servers with -32601. Skipped, saying so, without node or the Python virtualenv.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::io::BufRead as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use common::Sandbox;
use rmcp::model::{CallToolRequestParams, ProgressNotificationParam};
use rmcp::service::{NotificationContext, RoleClient};
use rmcp::transport::{ConfigureCommandExt as _, TokioChildProcess};
use rmcp::{ClientHandler, ServiceExt as _};
use serde_json::{Value, json};

use common::peers::everything;

fn python() -> Option<(PathBuf, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = common::peers::python_sdk()?;
    Some((python, root.join("tests/python/client_probe_server.py")))
}

/// Runs the CLI with `--json` (stdin closed, so no terminal), returning exit code, the JSON
/// document and stderr.
fn run(sb: &Sandbox, args: &[&str]) -> (i32, Value, String) {
    let out = sb
        .cmd()
        .args(args)
        .arg("--json")
        .write_stdin("")
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let v =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {stderr}"));
    (out.status.code().unwrap_or(-1), v, stderr)
}

fn text(v: &Value) -> &str {
    v["result"]["text"].as_str().unwrap_or_default()
}

/// The tool's own JSON answer: the first line of the result text (`FastMCP` also adds the
/// structured copy after it).
fn first_json(v: &Value) -> Value {
    let line = text(v).lines().next().unwrap_or_default();
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {v}"))
}

fn stdio_everything(sb: &Sandbox, script: &Path) {
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {"everything": {"command": "node", "args": [script, "stdio"]}}})
            .to_string(),
    );
}

#[test]
fn every_server_everything_tool_is_offered_and_roots_are_the_project() {
    let Some(script) = everything() else {
        return;
    };
    let sb = Sandbox::new();
    stdio_everything(&sb, &script);
    let (code, v, _) = run(&sb, &["tools", "everything"]);
    assert_eq!(code, 0, "{v}");
    let names: Vec<&str> = v["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names.len(), 19, "{names:?}");
    for declared in [
        "get-roots-list",
        "trigger-sampling-request",
        "trigger-elicitation-request",
        "trigger-url-elicitation",
        "trigger-sampling-request-async",
        "trigger-elicitation-request-async",
        "simulate-research-query",
    ] {
        assert!(names.contains(&declared), "{declared} missing: {names:?}");
    }
    let (code, v, stderr) = run(&sb, &["call", "everything", "get-roots-list"]);
    assert_eq!(code, 0, "{v}");
    let project = url::Url::from_directory_path(&sb.project)
        .unwrap()
        .to_string();
    assert!(
        text(&v).contains(project.trim_end_matches('/')),
        "{project} not in {v}"
    );
    assert!(stderr.contains("asked for its roots"), "{stderr}");
}

#[test]
fn a_task_only_tool_runs_as_a_task_and_reports_its_stages() {
    let Some(script) = everything() else {
        return;
    };
    let sb = Sandbox::new();
    stdio_everything(&sb, &script);
    let (code, v, stderr) = run(
        &sb,
        &[
            "call",
            "everything",
            "simulate-research-query",
            "topic=rust",
        ],
    );
    assert_eq!(code, 0, "{v} {stderr}");
    assert!(text(&v).contains("Research Report: rust"), "{v}");
    assert!(stderr.contains("running it as one"), "{stderr}");
    assert!(stderr.contains("working: Gathering sources"), "{stderr}");
    assert!(stderr.contains("completed"), "{stderr}");
    // Input needed inside a task arrives on tasks/result and is answered like any other.
    let (code, v, stderr) = run(
        &sb,
        &[
            "call",
            "everything",
            "simulate-research-query",
            "topic=python",
            "ambiguous=true",
            "--elicit",
            "decline",
        ],
    );
    assert_eq!(code, 0, "{v} {stderr}");
    assert!(text(&v).contains("User declined"), "{v}");
    assert!(stderr.contains("input_required"), "{stderr}");
}

#[test]
fn sampling_elicitation_and_read_by_uri_over_stdio() {
    let Some(script) = everything() else {
        return;
    };
    let sb = Sandbox::new();
    stdio_everything(&sb, &script);
    let (code, v, stderr) = run(
        &sb,
        &[
            "call",
            "everything",
            "trigger-sampling-request",
            "prompt=hi",
            "--sampling-reply",
            "an operator's answer",
        ],
    );
    assert_eq!(code, 0, "{v}");
    assert!(text(&v).contains("an operator's answer"), "{v}");
    assert!(text(&v).contains("mcpdeck-operator"), "{v}");
    assert!(stderr.contains("asked for a completion"), "{stderr}");
    // Without a terminal and without the flag, sampling is rejected.
    let (_, v, stderr) = run(
        &sb,
        &[
            "call",
            "everything",
            "trigger-sampling-request",
            "prompt=hi",
        ],
    );
    assert!(stderr.contains("rejected"), "{v} {stderr}");
    let (code, v, _) = run(
        &sb,
        &[
            "call",
            "everything",
            "trigger-sampling-request-async",
            "prompt=hi",
            "--sampling-reply",
            "async answer",
        ],
    );
    assert_eq!(code, 0, "{v}");
    assert!(text(&v).contains("async answer"), "{v}");
    // Sent as a task, answered as one: the server polled tasks/get and fetched tasks/result.
    assert!(text(&v).contains("[COMPLETED] Async sampling"), "{v}");
    assert!(text(&v).contains("Task created: mcpdeck-"), "{v}");
    let (code, v, stderr) = run(
        &sb,
        &["call", "everything", "trigger-elicitation-request-async"],
    );
    assert_eq!(code, 0, "{v}");
    assert!(text(&v).contains("[DECLINED]"), "{v}");
    assert!(!text(&v).contains("[SYNC]"), "{v}");
    assert!(stderr.contains("answered: decline"), "{stderr}");
    let (code, v, _) = run(
        &sb,
        &["read", "everything", "demo://resource/dynamic/text/1"],
    );
    assert_eq!(code, 0, "{v}");
    assert!(text(&v).contains("Resource 1"), "{v}");
}

struct NodeServer(std::process::Child);

impl Drop for NodeServer {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn roots_and_sampling_over_streamable_http() {
    let Some(script) = everything() else {
        return;
    };
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let preload = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/loopback.cjs");
    let mut child = std::process::Command::new("node")
        .arg("--require")
        .arg(preload)
        .arg(&script)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let stderr = child.stderr.take().unwrap();
    let server = NodeServer(child);
    let mut lines = std::io::BufReader::new(stderr).lines();
    let ready = lines
        .by_ref()
        .take(20)
        .map_while(Result::ok)
        .any(|l| l.contains("listening on port"));
    assert!(ready, "server-everything did not start");
    std::thread::spawn(move || lines.for_each(drop));
    let sb = Sandbox::new();
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {"web": {"url": format!("http://127.0.0.1:{port}/mcp")}}})
            .to_string(),
    );
    let (code, v, _) = run(
        &sb,
        &["call", "web", "get-roots-list", "--root", "/srv/data"],
    );
    assert_eq!(code, 0, "{v}");
    assert!(text(&v).contains("file:///srv/data"), "{v}");
    let (code, v, _) = run(
        &sb,
        &[
            "call",
            "web",
            "trigger-sampling-request",
            "prompt=hi",
            "--sampling-reply",
            "over http",
        ],
    );
    assert_eq!(code, 0, "{v}");
    assert!(text(&v).contains("over http"), "{v}");
    // A server request sent as a task (2025-11-25), over HTTP: answered as a task, which the
    // server polls with tasks/get and fetches with tasks/result, each a POST of its own.
    let (code, v, _) = run(
        &sb,
        &[
            "call",
            "web",
            "trigger-sampling-request-async",
            "prompt=hi",
            "--sampling-reply",
            "async over http",
        ],
    );
    assert_eq!(code, 0, "{v}");
    assert!(text(&v).contains("async over http"), "{v}");
    assert!(text(&v).contains("[COMPLETED] Async sampling"), "{v}");
    assert!(text(&v).contains("Task created: mcpdeck-"), "{v}");
    let (code, v, stderr) = run(&sb, &["call", "web", "trigger-elicitation-request-async"]);
    assert_eq!(code, 0, "{v}");
    assert!(text(&v).contains("[DECLINED]"), "{v}");
    assert!(!text(&v).contains("[SYNC]"), "{v}");
    assert!(stderr.contains("answered: decline"), "{stderr}");
    let (code, v, _) = run(
        &sb,
        &["call", "web", "simulate-research-query", "topic=http"],
    );
    assert_eq!(code, 0, "{v}");
    assert!(text(&v).contains("Research Report: http"), "{v}");
    drop(server);
}

fn probe_config(sb: &Sandbox) -> bool {
    let Some((python, script)) = python() else {
        return false;
    };
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {"probe": {"command": python, "args": [script]}}}).to_string(),
    );
    true
}

#[test]
fn python_sdk_server_gets_roots_defaults_and_replies() {
    let sb = Sandbox::new();
    if !probe_config(&sb) {
        return;
    }
    let (code, v, _) = run(
        &sb,
        &[
            "call",
            "probe",
            "ask_roots",
            "--root",
            "/srv",
            "--root",
            "/opt/x y",
        ],
    );
    assert_eq!(code, 0, "{v}");
    assert_eq!(first_json(&v), json!(["file:///srv", "file:///opt/x%20y"]));
    let (_, v, stderr) = run(
        &sb,
        &["call", "probe", "ask_form", "--elicit", "accept-defaults"],
    );
    assert_eq!(
        first_json(&v),
        json!({"action": "accept", "content": {"name": "Ada", "count": 3, "color": "g", "tags": ["b"]}})
    );
    assert!(stderr.contains("answered: accept"), "{stderr}");
    let (_, v, _) = run(&sb, &["call", "probe", "ask_form"]);
    assert_eq!(
        first_json(&v),
        json!({"action": "decline", "content": null}),
        "no terminal, no flag: decline"
    );
    let (_, v, _) = run(
        &sb,
        &["call", "probe", "ask_url", "--elicit", "accept-defaults"],
    );
    assert_eq!(first_json(&v), json!({"action": "decline"}));
    let (_, v, _) = run(
        &sb,
        &[
            "call",
            "probe",
            "ask_sampling",
            "prompt=hi",
            "--sampling-reply",
            "yo",
        ],
    );
    assert_eq!(
        first_json(&v),
        json!({"model": "mcpdeck-operator", "text": "yo", "stop": "endTurn"})
    );
    let (_, v, _) = run(&sb, &["call", "probe", "ask_sampling", "prompt=hi"]);
    assert!(text(&v).starts_with("refused -1"), "{v}");
}

#[tokio::test]
async fn serve_refuses_roots_sampling_and_elicitation_from_downstream() {
    let sb = Sandbox::new();
    if !probe_config(&sb) {
        return;
    }
    let runtime_dir = sb.dir.path().join("run");
    std::fs::create_dir_all(&runtime_dir).unwrap();
    let cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcpdeck")).configure(|c| {
        c.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", sb.dir.path())
            .env("XDG_CONFIG_HOME", &sb.home)
            .env("XDG_RUNTIME_DIR", &runtime_dir)
            .args(["--cwd", sb.project.to_str().unwrap(), "serve"]);
    });
    let (transport, _) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut host = tokio::time::timeout(Duration::from_secs(30), ().serve(transport))
        .await
        .unwrap()
        .unwrap();
    for (tool, args) in [
        ("ask_roots", json!({})),
        ("ask_sampling", json!({"prompt": "hi"})),
        ("ask_form", json!({})),
    ] {
        let params = CallToolRequestParams::new("mcp").with_arguments(
            json!({"server": "probe", "tool": tool, "args": args})
                .as_object()
                .unwrap()
                .clone(),
        );
        let result = tokio::time::timeout(Duration::from_secs(60), host.call_tool(params))
            .await
            .unwrap()
            .unwrap();
        let shown: String = result
            .content
            .iter()
            .filter_map(|c| c.as_text().map(|t| t.text.clone()))
            .collect();
        assert!(shown.contains("refused -32601"), "{tool}: {shown}");
    }
    let _ = host.close().await;
}

#[test]
fn ping_shows_the_round_trip_and_log_level_prints_server_logs() {
    let sb = Sandbox::new();
    if !probe_config(&sb) {
        return;
    }
    let (code, v, _) = run(&sb, &["ping", "probe"]);
    assert_eq!(code, 0, "{v}");
    assert!(v["result"]["rttMs"].as_f64().is_some(), "{v}");
    let (code, v, stderr) = run(
        &sb,
        &["call", "probe", "log_and_progress", "--log-level", "debug"],
    );
    assert_eq!(code, 0, "{v}");
    assert!(
        stderr.contains("[warning]") && stderr.contains("probe log line"),
        "{stderr}"
    );
    let (_, _, stderr) = run(&sb, &["call", "probe", "log_and_progress"]);
    assert!(
        !stderr.contains("probe log line"),
        "no --log-level, no log lines: {stderr}"
    );
    let out = sb
        .cmd()
        .args(["call", "probe", "log_and_progress", "--log-level", "loud"])
        .output()
        .unwrap();
    assert!(!out.status.success());
}

/// A host that reports the progress notifications it receives.
struct ProgressHost(tokio::sync::mpsc::UnboundedSender<String>);

impl ClientHandler for ProgressHost {
    async fn on_progress(
        &self,
        p: ProgressNotificationParam,
        _cx: NotificationContext<RoleClient>,
    ) {
        let _ = self
            .0
            .send(format!("{}/{:?} {:?}", p.progress, p.total, p.message));
    }
}

#[tokio::test]
async fn serve_forwards_downstream_progress_to_a_host_that_asked() {
    let sb = Sandbox::new();
    if !probe_config(&sb) {
        return;
    }
    let runtime_dir = sb.dir.path().join("run");
    std::fs::create_dir_all(&runtime_dir).unwrap();
    let cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcpdeck")).configure(|c| {
        c.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", sb.dir.path())
            .env("XDG_CONFIG_HOME", &sb.home)
            .env("XDG_RUNTIME_DIR", &runtime_dir)
            .args(["--cwd", sb.project.to_str().unwrap(), "serve"]);
    });
    let (transport, _) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let mut host = tokio::time::timeout(Duration::from_secs(30), ProgressHost(tx).serve(transport))
        .await
        .unwrap()
        .unwrap();
    // rmcp's client puts a progressToken on every request, as hosts that want progress do.
    let params = CallToolRequestParams::new("mcp").with_arguments(
        json!({"server": "probe", "tool": "log_and_progress"})
            .as_object()
            .unwrap()
            .clone(),
    );
    let result = tokio::time::timeout(Duration::from_secs(60), host.call_tool(params))
        .await
        .unwrap()
        .unwrap();
    assert_ne!(result.is_error, Some(true), "{result:?}");
    // Notifications are handled concurrently on the host side: collect both, in any order.
    let mut seen = Vec::new();
    for _ in 0..2 {
        let got = tokio::time::timeout(Duration::from_secs(10), rx.recv()).await;
        seen.push(got.unwrap().unwrap());
    }
    seen.sort();
    assert_eq!(
        seen,
        [
            "1/Some(2.0) Some(\"half way\")",
            "2/Some(2.0) Some(\"done\")"
        ]
    );
    let _ = host.close().await;
}

#[test]
fn configured_roots_resolve_against_the_config_file_and_are_checked() {
    let Some((python, script)) = python() else {
        return;
    };
    let sb = Sandbox::new();
    let file = sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {
            "probe": {"command": python, "args": [script], "roots": ["data", "/srv/x"]},
            "none": {"command": python, "args": [script], "roots": []}
        }})
        .to_string(),
    );
    let dir = file.parent().unwrap().join("data");
    let (code, v, _) = run(&sb, &["call", "probe", "ask_roots"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(
        first_json(&v),
        json!([
            url::Url::from_directory_path(&dir)
                .unwrap()
                .as_str()
                .trim_end_matches('/'),
            "file:///srv/x"
        ])
    );
    let (_, v, _) = run(&sb, &["call", "none", "ask_roots"]);
    assert_eq!(first_json(&v), json!([]));
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {"bad": {"command": "x", "roots": "."}, "uri": {"command": "x", "roots": ["file:///x"]}}}).to_string(),
    );
    let (code, v, _) = run(&sb, &["config", "check"]);
    assert_eq!(code, 1, "{v}");
    let text = v.to_string();
    assert!(text.contains("`roots` must be an array"), "{text}");
    assert!(text.contains("not a URI"), "{text}");
}
