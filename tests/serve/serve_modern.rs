//! mcpdeck's own servers — `mcpdeck serve` and `mcpdeck workspace-server` — for a 2026-era host:
//! the official MCP Python SDK 2.x (pinned in `.venv-sdk2/`) as the client, in `auto` mode
//! (`server/discover` first) and pinned to `2026-07-28` (no handshake at all: every request
//! stateless, with its own `_meta`). Each lists the tools and calls one, and the server says
//! nothing misleading on stderr. Fails under `CI=true` when the SDK is missing.

use std::path::Path;
use std::process::Output;

use crate::common::{Sandbox, fixture};
use serde_json::{Value, json};

const MODES: [&str; 2] = ["auto", "2026-07-28"];

/// Runs the 2.x client in `mode` against `command`, calling `tool` with `args`.
fn drive(python: &Path, mode: &str, tool: &str, args: &Value, command: &[&str]) -> Output {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/serve_modern_client.py");
    std::process::Command::new(python)
        .arg(script)
        .args([mode, tool, &args.to_string(), "--"])
        .args(command)
        .output()
        .expect("python runs")
}

fn seen(mode: &str, out: &Output) -> Value {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{mode}: the client failed: {stderr}");
    // The client's stderr carries the server's.
    for misleading in ["handshake", "failed", "error"] {
        assert!(
            !stderr.to_lowercase().contains(misleading),
            "{mode}: the server said `{misleading}`: {stderr}"
        );
    }
    serde_json::from_slice(&out.stdout).expect("one JSON line")
}

#[test]
fn serve_answers_a_2026_host() {
    let Some(python) = crate::common::peers::python_sdk2() else {
        return;
    };
    let sb = Sandbox::new();
    let config = sb.write(
        "extra/servers.json",
        &json!({"mcpServers": {"fx": {"command": fixture(), "args": ["stdio"]}}}).to_string(),
    );
    let binary = env!("CARGO_BIN_EXE_mcpdeck");
    let (project, config) = (
        sb.project.to_str().expect("utf-8"),
        config.to_str().expect("utf-8"),
    );
    for mode in MODES {
        let args = json!({"server": "fx", "tool": "echo", "args": {"text": "from a 2026 host"}});
        let command = [binary, "--cwd", project, "--config", config, "serve"];
        let out = drive(&python, mode, "mcp", &args, &command);
        let v = seen(mode, &out);
        assert_eq!(v["protocol_version"], "2026-07-28", "{mode}: {v}");
        assert_eq!(v["tools"], json!(["mcp"]), "{mode}: {v}");
        assert_eq!(v["is_error"], false, "{mode}: {v}");
        assert_eq!(v["text"], "from a 2026 host", "{mode}: {v}");
        assert_eq!(v["structured"]["status"], "ok", "{mode}: {v}");
    }
}

/// A host that only asks `server/discover` and closes stdin has finished, not failed: neither
/// server says anything on stderr.
#[test]
fn a_discover_only_host_is_no_failure() {
    let Some(python) = crate::common::peers::python_sdk2() else {
        return;
    };
    let ws = tempfile::tempdir().expect("temp dir");
    let root = ws.path().to_str().expect("utf-8");
    let sb = Sandbox::new();
    let project = sb.project.to_str().expect("utf-8");
    let binary = env!("CARGO_BIN_EXE_mcpdeck");
    let commands: [&[&str]; 2] = [
        &[binary, "--cwd", project, "serve"],
        &[
            binary,
            "workspace-server",
            "--workspace",
            "docs",
            root,
            "--observability",
            "off",
        ],
    ];
    for command in commands {
        let out = drive(&python, "auto", "-", &json!({}), command);
        let v = seen(command[1], &out);
        assert_eq!(v["protocol_version"], "2026-07-28", "{command:?}: {v}");
    }
}

#[test]
fn workspace_server_answers_a_2026_host() {
    let Some(python) = crate::common::peers::python_sdk2() else {
        return;
    };
    let ws = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        ws.path().join("README.md"),
        "# Guide\n\nConfiguration precedence works from user files to project files.\n",
    )
    .expect("write");
    let root = ws.path().to_str().expect("utf-8");
    let binary = env!("CARGO_BIN_EXE_mcpdeck");
    for mode in MODES {
        let args = json!({"workspace": "docs", "question": "configuration precedence"});
        let command = [
            binary,
            "workspace-server",
            "--workspace",
            "docs",
            root,
            "--observability",
            "off",
        ];
        let out = drive(&python, mode, "workspace_find", &args, &command);
        let v = seen(mode, &out);
        assert_eq!(v["protocol_version"], "2026-07-28", "{mode}: {v}");
        assert_eq!(
            v["tools"],
            json!([
                "workspace_find",
                "workspace_query",
                "workspace_check",
                "workspace_capsule"
            ]),
            "{mode}: {v}"
        );
        assert_eq!(v["is_error"], false, "{mode}: {v}");
    }
}
