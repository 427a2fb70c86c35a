//! The official MCP Python SDK 2.x as the server (`tests/python/modern_server.py`, the SDK pinned
//! in `.venv-sdk2/` by `scripts/install-python-sdk`): over stdio and in the four Streamable HTTP
//! modes (stateful, stateless, JSON, stateless + JSON), with every `protocolVersion` setting,
//! `status --live` reports the server alive in the era the setting leads to, and a tool that
//! asks for input gets its answer — as an input-required round on 2026-07-28, as a
//! server-initiated elicitation before. Fails under `CI=true` when the SDK is missing.

use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::Sandbox;
use serde_json::{Value, json};

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/modern_server.py")
}

/// The SDK's Streamable HTTP server on a free loopback port, killed when dropped.
struct HttpServer {
    child: Child,
    url: String,
}

impl HttpServer {
    fn start(python: &Path, flags: &[&str]) -> Self {
        let port = TcpListener::bind("127.0.0.1:0")
            .expect("a free port")
            .local_addr()
            .expect("addr")
            .port();
        let child = Command::new(python)
            .arg(script())
            .args(["http", &port.to_string()])
            .args(flags)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("python starts");
        // Readiness: the port accepts connections once uvicorn listens (bounded polling).
        let deadline = Instant::now() + Duration::from_secs(30);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "the SDK server never listened");
            std::thread::sleep(Duration::from_millis(50));
        }
        Self {
            child,
            url: format!("http://127.0.0.1:{port}/mcp"),
        }
    }
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The era each `protocolVersion` setting leads to against a server of both eras.
const SETTINGS: [(Option<&str>, &str); 4] = [
    (None, "legacy"),
    (Some("legacy"), "legacy"),
    (Some("auto"), "stateless"),
    (Some("2026-07-28"), "stateless"),
];

/// Every setting against the server `base` describes: alive, in its era, and asking for input.
/// `legacy_asks`: whether the server can ask in the older protocol at all (a stateless or JSON
/// HTTP server has no channel for a server-initiated request and says so; on 2026-07-28 it
/// asks in an input-required round).
fn check_every_era(base: &Value, legacy_asks: bool) {
    for (setting, era) in SETTINGS {
        let sb = Sandbox::new();
        let mut def = base.clone();
        if let Some(setting) = setting {
            def["protocolVersion"] = json!(setting);
        }
        sb.write(
            "config/mcpdeck/mcp.json",
            &json!({"mcpServers": {"py": def}}).to_string(),
        );
        let live = sb.json(&["status", "--live", "--json"]);
        let row = live["result"]["servers"]
            .as_array()
            .and_then(|rows| rows.iter().find(|r| r["name"] == "py"))
            .cloned()
            .unwrap_or_else(|| panic!("{setting:?}: no row in {live:#}"));
        assert_eq!(row["state"], "connected", "{setting:?}: {row:#}");
        assert_eq!(row["probe"]["era"], era, "{setting:?}: {row:#}");
        let liveness = if era == "stateless" {
            "server/discover"
        } else {
            "ping"
        };
        assert_eq!(row["probe"]["liveness"], liveness, "{setting:?}");
        let out = sb
            .cmd()
            .args([
                "--elicit",
                "accept-defaults",
                "call",
                "py",
                "greet",
                "--json",
            ])
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        let v: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{setting:?}: no JSON ({e}): {stderr}"));
        if era == "legacy" && !legacy_asks {
            assert_eq!(v["error"]["code"], -32600, "{setting:?}: {v:#}");
        } else {
            assert_eq!(v["ok"], true, "{setting:?}: {v:#} {stderr}");
            let text = v["result"]["text"].as_str().unwrap_or_default();
            assert!(text.starts_with("hello operator"), "{setting:?}: {v:#}");
            assert!(
                stderr.contains("Who should be greeted?"),
                "{setting:?}: the question was not asked: {stderr}"
            );
        }
        let text = sb.stdout(&["call", "py", "echo", "text=same"]);
        assert!(text.contains("same"), "{setting:?}: {text}");
        let read = sb.stdout(&["read", "py", "note://readme"]);
        assert!(read.contains("modern readme"), "{setting:?}: {read}");
        let prompt = sb.stdout(&["prompt", "py", "review", "topic=maps"]);
        assert!(
            prompt.contains("please review maps"),
            "{setting:?}: {prompt}"
        );
        let done = sb.stdout(&["complete", "py", "--prompt", "review", "topic=ru"]);
        assert!(
            done.contains("rust") && done.contains("ruby"),
            "{setting:?}: {done}"
        );
    }
}

#[test]
fn stdio_in_every_era() {
    let Some(python) = crate::common::peers::python_sdk2() else {
        return;
    };
    check_every_era(
        &json!({"command": python, "args": [script(), "stdio"]}),
        true,
    );
}

#[test]
fn http_stateful_in_every_era() {
    let Some(python) = crate::common::peers::python_sdk2() else {
        return;
    };
    let server = HttpServer::start(&python, &[]);
    check_every_era(&json!({"url": server.url}), true);
}

#[test]
fn http_stateless_in_every_era() {
    let Some(python) = crate::common::peers::python_sdk2() else {
        return;
    };
    let server = HttpServer::start(&python, &["stateless"]);
    check_every_era(&json!({"url": server.url}), false);
}

#[test]
fn http_json_in_every_era() {
    let Some(python) = crate::common::peers::python_sdk2() else {
        return;
    };
    let server = HttpServer::start(&python, &["json"]);
    check_every_era(&json!({"url": server.url}), false);
}

#[test]
fn http_stateless_json_in_every_era() {
    let Some(python) = crate::common::peers::python_sdk2() else {
        return;
    };
    let server = HttpServer::start(&python, &["stateless", "json"]);
    check_every_era(&json!({"url": server.url}), false);
}
