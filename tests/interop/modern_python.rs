//! The official MCP Python SDK 2.x as the server (`tests/python/modern_server.py`, the SDK pinned
//! in `.venv-sdk2/` by `scripts/install-python-sdk`): over stdio and in the four Streamable HTTP
//! modes (stateful, stateless, JSON, stateless + JSON), with every `protocolVersion` setting,
//! `status --live` reports the server alive in the era the setting leads to, and a tool that
//! asks for input gets its answer — as an input-required round on 2026-07-28, as a
//! server-initiated elicitation before. Fails under `CI=true` when the SDK is missing.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

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
        let mut args = vec!["http"];
        args.extend_from_slice(flags);
        Self::start_script(python, &script(), &args)
    }

    /// `script` with `args`, serving on a loopback port this test binds and listens on: the
    /// listening socket is the child's standard input (uvicorn's `fd=0`), so a connection made
    /// before uvicorn starts waits in the listen backlog and no readiness wait is needed.
    fn start_script(python: &Path, script: &Path, args: &[&str]) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
        let port = listener.local_addr().expect("addr").port();
        let child = Command::new(python)
            .arg(script)
            .args(args)
            .stdin(Stdio::from(std::os::fd::OwnedFd::from(listener)))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("python starts");
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

/// `header_drift_server.py` on a free port, logging its listings to `log`.
fn drift_server(python: &Path, log: &Path, stale: bool) -> HttpServer {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/python/header_drift_server.py");
    let log = log.display().to_string();
    let mut args = vec![log.as_str()];
    if stale {
        args.push("stale");
    }
    HttpServer::start_script(python, &script, &args)
}

fn listings(log: &Path) -> usize {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .filter(|l| *l == "tools/list")
        .count()
}

/// A tool that gained an `x-mcp-header` annotation after mcpdeck listed it: the server refuses
/// the call without the header (HTTP 400, `-32020`); mcpdeck lists the tools again, which gives
/// rmcp's transport the new schema, and sends the call once more, now with `Mcp-Param-Region`.
#[test]
fn header_mismatch_relists_and_retries_once() {
    let Some(python) = crate::common::peers::python_sdk2() else {
        return;
    };
    let sb = Sandbox::new();
    let log = sb.dir.path().join("listings.log");
    let server = drift_server(&python, &log, false);
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {"py": {"url": server.url, "protocolVersion": "2026-07-28"}}})
            .to_string(),
    );
    let out = sb
        .cmd()
        .args(["call", "py", "query", "region=eu-west", "--json"])
        .output()
        .expect("runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let v: Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("no JSON ({e}): {stderr}"));
    assert_eq!(v["ok"], true, "{v:#} {stderr}");
    assert!(
        v["result"]["text"]
            .as_str()
            .unwrap_or_default()
            .contains("answered from eu-west"),
        "{v:#}"
    );
    assert!(
        stderr.contains("-32020"),
        "the retry was not explained: {stderr}"
    );
    assert_eq!(listings(&log), 2, "one listing, then one re-listing");
}

/// When the fresh listing does not cure it, the second `-32020` is the answer: one re-list,
/// one more call, no loop.
#[test]
fn header_mismatch_is_retried_only_once() {
    let Some(python) = crate::common::peers::python_sdk2() else {
        return;
    };
    let sb = Sandbox::new();
    let log = sb.dir.path().join("listings.log");
    let server = drift_server(&python, &log, true);
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {"py": {"url": server.url, "protocolVersion": "2026-07-28"}}})
            .to_string(),
    );
    let out = sb
        .cmd()
        .args(["call", "py", "query", "region=eu-west", "--json"])
        .output()
        .expect("runs");
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["ok"], false, "{v:#}");
    assert_eq!(v["error"]["code"], -32020, "{v:#}");
    assert_eq!(listings(&log), 2, "exactly one re-listing");
}

/// On 2026-07-28, `--log-level` travels in each request's `_meta` (there is no
/// `logging/setLevel`), so the server sends the call's own log lines at that level and above,
/// over stdio and Streamable HTTP alike.
#[test]
fn log_level_rides_in_each_requests_meta() {
    let Some(python) = crate::common::peers::python_sdk2() else {
        return;
    };
    let server = HttpServer::start(&python, &["stateless"]);
    let defs = [
        json!({"command": python, "args": [script(), "stdio"], "protocolVersion": "2026-07-28"}),
        json!({"url": server.url, "protocolVersion": "2026-07-28"}),
    ];
    for def in defs {
        let sb = Sandbox::new();
        sb.write(
            "config/mcpdeck/mcp.json",
            &json!({"mcpServers": {"py": def}}).to_string(),
        );
        let out = sb
            .cmd()
            .args(["--log-level", "info", "call", "py", "chatty"])
            .output()
            .expect("runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{def}: {stderr}");
        assert!(
            stderr.contains("chatty says info"),
            "{def}: the info line did not arrive: {stderr}"
        );
        assert!(
            !stderr.contains("chatty says debug"),
            "{def}: a line below the level arrived: {stderr}"
        );
    }
}

/// `mcpdeck watch` on a 2026-07-28 server, which has no `resources/subscribe`: one
/// `subscriptions/listen` names the URI, and an update another client causes reaches the
/// watch, which reads the resource again.
#[test]
fn watch_listens_on_a_2026_server() {
    use std::io::{BufRead, BufReader};
    let Some(python) = crate::common::peers::python_sdk2() else {
        return;
    };
    let server = HttpServer::start(&python, &["stateless"]);
    let sb = Sandbox::new();
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {"py": {"url": server.url, "protocolVersion": "2026-07-28"}}})
            .to_string(),
    );
    // `Sandbox::cmd`'s environment, on a std command (it has to stream while it runs).
    let mut watch = Command::new(env!("CARGO_BIN_EXE_mcpdeck"))
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", sb.dir.path())
        .env("XDG_CONFIG_HOME", &sb.home)
        .env("MCPDECK_CREDENTIAL_STORE", "file")
        .arg("--cwd")
        .arg(&sb.project)
        .args(["watch", "py", "note://readme", "--count", "1", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("watch starts");
    let mut stderr = BufReader::new(watch.stderr.take().expect("stderr"));
    let mut said = String::new();
    while !said.contains("subscribed to") {
        let mut line = String::new();
        if stderr.read_line(&mut line).expect("reads") == 0 {
            let _ = watch.kill();
            panic!("watch ended before it subscribed: {said}");
        }
        said.push_str(&line);
    }
    let touched = sb.stdout(&["call", "py", "touch"]);
    assert!(touched.contains("touched"), "{touched}");
    let out = watch.wait_with_output().expect("watch ends");
    assert!(out.status.success(), "{said}");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let first: Value = serde_json::from_str(stdout.lines().next().unwrap_or_default())
        .unwrap_or_else(|e| panic!("no update line ({e}): {stdout}"));
    assert_eq!(first["update"], 1, "{stdout}");
    assert!(
        first["read"].to_string().contains("modern readme"),
        "{stdout}"
    );
}
