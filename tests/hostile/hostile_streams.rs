//! The hostile battery, stream cases, through the real binary: a progress flood, answers and
//! notifications naming requests that do not exist, an answer under the wrong id, an answer sent
//! twice, an SSE stream that never answers, a response header of 1 MiB, and a listing too large
//! to decode sent as an SSE event. Each asserts the
//! documented exit class, no raw escape byte in stdout or stderr, no leftover server process
//! and no spill left behind.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{HttpFixture, Sandbox, alive, fixture, gone_within};
use serde_json::{Value, json};

/// A raw stdio case that records its pid in `pidfile`.
fn raw(case: &str, pidfile: &Path, timeout_ms: u64) -> Value {
    json!({
        "command": fixture(),
        "args": ["raw", "--case", case],
        "env": {"FIXTURE_PID_FILE": pidfile.to_string_lossy()},
        "requestTimeoutMs": timeout_ms,
    })
}

/// Runs `mcpdeck ARGS` in `sb` with its spills under `run/`; checks both streams carry no raw
/// escape byte and that no spill directory is left. Returns (exit code, stdout, stderr).
fn run(sb: &Sandbox, args: &[&str]) -> (i32, String, String) {
    let runtime = sb.dir.path().join("run");
    std::fs::create_dir_all(&runtime).expect("runtime dir");
    let out = sb
        .cmd()
        .env("XDG_RUNTIME_DIR", &runtime)
        .args(args)
        .output()
        .expect("runs");
    let stdout = String::from_utf8(out.stdout).expect("stdout is UTF-8");
    let stderr = String::from_utf8(out.stderr).expect("stderr is UTF-8");
    for text in [&stdout, &stderr] {
        assert!(!text.contains('\u{1b}'), "raw escape in {args:?}: {text}");
        assert!(!text.contains('\u{7}'), "raw BEL in {args:?}: {text}");
    }
    let left: Vec<PathBuf> = std::fs::read_dir(runtime.join("mcpdeck"))
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "spills left behind: {left:?}");
    (out.status.code().unwrap_or(-1), stdout, stderr)
}

/// The server whose pid is in `pidfile` is gone (killed if not, so no test leaks it).
fn assert_gone(pidfile: &Path) {
    let pid: u32 = std::fs::read_to_string(pidfile)
        .expect("the server started")
        .trim()
        .parse()
        .expect("a pid");
    let gone = gone_within(pid, Duration::from_secs(5));
    if !gone && alive(pid) {
        let _ = std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status();
    }
    assert!(gone, "server {pid} outlived mcpdeck");
}

#[test]
fn floods_and_strangers_do_not_disturb_the_answer() {
    for case in ["progress-flood", "unknown-ids", "duplicate-id"] {
        let sb = Sandbox::new();
        let pidfile = sb.dir.path().join(format!("{case}.pid"));
        sb.write(
            "config/mcpdeck/mcp.json",
            &json!({"mcpServers": {"fx": raw(case, &pidfile, 20_000)}}).to_string(),
        );
        let (code, out, err) = run(&sb, &["call", "fx", "echo", "--no-validate", "--json"]);
        assert_eq!(code, 0, "{case}: {out}{err}");
        let v: Value = serde_json::from_str(&out).expect("json");
        let text = v.to_string();
        assert!(
            text.contains("\"ok\""),
            "{case}: the first answer wins: {text}"
        );
        assert!(!text.contains("second"), "{case}: {text}");
        assert_gone(&pidfile);
    }
}

#[test]
fn an_answer_under_the_wrong_id_is_a_timeout() {
    let sb = Sandbox::new();
    let pidfile = sb.dir.path().join("wrong.pid");
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {"fx": raw("wrong-id", &pidfile, 1_500)}}).to_string(),
    );
    let (code, out, err) = run(&sb, &["call", "fx", "echo", "--no-validate"]);
    assert_eq!(code, 6, "{out}{err}");
    assert!(!format!("{out}{err}").contains("wrong"), "{out}{err}");
    assert_gone(&pidfile);
}

#[test]
fn an_event_stream_that_never_answers_is_a_timeout() {
    let sb = Sandbox::new();
    let http = HttpFixture::start("");
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {"sse": {"url": http.url("/raw/endless-sse"), "requestTimeoutMs": 1_500}}})
            .to_string(),
    );
    let (code, out, err) = run(&sb, &["call", "sse", "echo", "--no-validate"]);
    assert_eq!(code, 6, "{out}{err}");
}

#[test]
fn a_huge_response_header_is_refused() {
    let sb = Sandbox::new();
    let http = HttpFixture::start("");
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {"big": {"url": http.url("/raw/huge-headers"), "requestTimeoutMs": 10_000}}})
            .to_string(),
    );
    let (code, out, err) = run(&sb, &["tools", "big"]);
    assert_eq!(code, 4, "{out}{err}");
    assert!(
        err.len() < 4096,
        "the header is never quoted: {} bytes",
        err.len()
    );
}

#[test]
fn an_oversized_listing_sent_as_an_event_is_refused_before_it_is_decoded() {
    let sb = Sandbox::new();
    let http = HttpFixture::start("");
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {"enums": {"url": http.url("/raw/enum-tools-as-sse"), "requestTimeoutMs": 20_000}}})
            .to_string(),
    );
    let (code, out, err) = run(&sb, &["tools", "enums"]);
    assert_eq!(code, 7, "{out}{err}");
    assert!(err.contains("JSON values"), "{err}");
}
