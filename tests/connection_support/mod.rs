//! Shared helpers for the connection integration tests: server definitions for the fixture,
//! process-group checks through `/proc`, a request timed out in held time, and an HTTP fixture
//! process that is killed on drop. Nothing here polls or sleeps: waits are on events, bounded.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use mcpdeck::mcp::config::{
    HttpDef, ProtocolChoice, ReconnectPolicy, ServerDef, StdioDef, Template, Transport,
};
use mcpdeck::mcp::connection::{Connection, RequestError, max_total_for};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequest, ServerResult,
};

#[allow(unused_imports)] // not every test module starts the HTTP fixture
pub use crate::common::HttpFixture;
use crate::common::fs_wait::until_changed;
#[allow(unused_imports)] // not every test module holds the clock
pub use crate::common::held_clock::Held;

pub fn template(s: &str) -> Template {
    Template::parse(s).expect("valid template")
}

pub fn stdio_def(args: &[&str], env: &[(&str, &str)]) -> ServerDef {
    ServerDef {
        name: "fx".into(),
        transport: Transport::Stdio(StdioDef {
            command: crate::common::fixture().into(),
            args: std::iter::once("stdio")
                .chain(args.iter().copied())
                .map(str::to_owned)
                .collect(),
            cwd: None,
            env: env
                .iter()
                .map(|(k, v)| ((*k).to_owned(), template(v)))
                .collect::<BTreeMap<_, _>>(),
            sandbox: None,
        }),
        request_timeout_ms: Some(10_000),
        task_timeout_ms: None,
        reconnect: ReconnectPolicy::default(),
        disabled: false,
        protocol: ProtocolChoice::Legacy,
        roots: None,
    }
}

pub fn http_def(url: &str, headers: &[(&str, &str)]) -> ServerDef {
    ServerDef {
        name: "web".into(),
        transport: Transport::Http(HttpDef {
            url: url.into(),
            headers: headers
                .iter()
                .map(|(k, v)| ((*k).to_owned(), template(v)))
                .collect(),
            oauth: None,
        }),
        request_timeout_ms: Some(10_000),
        task_timeout_ms: None,
        reconnect: ReconnectPolicy::default(),
        disabled: false,
        protocol: ProtocolChoice::Legacy,
        roots: None,
    }
}

/// A lookup over fixed pairs.
pub fn vars(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + use<> {
    let owned: Vec<(String, String)> = pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    move |name| {
        owned
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    }
}

pub fn no_vars(_: &str) -> Option<String> {
    None
}

pub fn here() -> &'static Path {
    Path::new(".")
}

/// Sends the fixture's `hang` call with idle timeout `t` in held time and returns its failure.
/// No time passes until the fixture reports the call running (one more `started hang` line in
/// `events`); then the clock moves to `t`, at which (and not before) the request must fail.
pub async fn hang_times_out(
    held: &Held,
    conn: &Connection,
    events: &Path,
    t: Duration,
) -> RequestError {
    let started = || {
        std::fs::read_to_string(events)
            .unwrap_or_default()
            .matches("started hang")
            .count()
    };
    let before = started();
    let request = conn.request(
        call_request("hang", serde_json::json!({})),
        t,
        max_total_for(t),
    );
    let mut request = std::pin::pin!(request);
    let dir = events.parent().expect("the events file's directory");
    tokio::select! {
        biased;
        r = &mut request => panic!("answered before the server ran the call: {r:?}"),
        running = until_changed(dir, Duration::from_secs(10), || started() > before) => {
            assert!(running, "the fixture never started the hang call");
        }
    }
    held.finishes_at(request, t)
        .await
        .expect_err("the hang call times out")
}

/// Whether a live (non-zombie) process is in process group `pgid`.
pub fn group_alive(pgid: u32) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return false;
    };
    entries.flatten().any(|e| {
        let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
            return false;
        };
        // pid (comm) state ppid pgrp ...
        let Some(after) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
            return false;
        };
        let fields: Vec<&str> = after.split_whitespace().collect();
        fields.len() > 3 && fields[0] != "Z" && fields[0] != "X" && fields[2] == pgid.to_string()
    })
}

/// Whether process `pid` has a SIGTERM waiting to be delivered (`SigPnd`/`ShdPnd` in
/// `/proc/PID/status`): it is queued there as `kill` returns, before the process acts on it.
pub fn term_pending(pid: u32) -> bool {
    const SIGTERM_BIT: u64 = 1 << (15 - 1);
    std::fs::read_to_string(format!("/proc/{pid}/status")).is_ok_and(|status| {
        status.lines().any(|line| {
            line.strip_prefix("SigPnd:")
                .or_else(|| line.strip_prefix("ShdPnd:"))
                .and_then(|mask| u64::from_str_radix(mask.trim(), 16).ok())
                .is_some_and(|mask| mask & SIGTERM_BIT != 0)
        })
    })
}

/// Whether process `pid` exists and is not a zombie.
pub fn pid_alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.rfind(')')
            .map(|i| &stat[i + 1..])
            .and_then(|s| s.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X")
    })
}

pub fn call_request(name: &str, args: serde_json::Value) -> ClientRequest {
    let mut params = CallToolRequestParams::new(name.to_owned());
    if let serde_json::Value::Object(map) = args {
        params = params.with_arguments(map);
    }
    ClientRequest::CallToolRequest(CallToolRequest::new(params))
}

pub async fn call(
    conn: &Connection,
    name: &str,
    args: serde_json::Value,
) -> Result<CallToolResult, mcpdeck::mcp::connection::RequestError> {
    match conn.request_default(call_request(name, args)).await? {
        ServerResult::CallToolResult(r) => Ok(r),
        other => panic!("unexpected result {other:?}"),
    }
}

pub fn first_text(r: &CallToolResult) -> String {
    r.content
        .first()
        .and_then(|c| c.as_text())
        .map(|t| t.text.clone())
        .unwrap_or_default()
}

pub fn temp_file(dir: &tempfile::TempDir, name: &str) -> PathBuf {
    dir.path().join(name)
}
