//! Hostile or unusual hosts of `mcpdeck serve`, on its real stdio: every answer is prompt,
//! oversized requests are answered with an error and the session goes on, and no misleading
//! message reaches stderr.

use crate::common;

use std::io::Write as _;

use common::Sandbox;
use serde_json::{Value, json};

/// Runs `mcpdeck serve` with `lines` on stdin (then closed); its exit code, answers and stderr.
fn serve_with(sb: &Sandbox, lines: &[String]) -> (i32, Vec<Value>, String) {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mcpdeck"))
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", sb.dir.path())
        .env("XDG_CONFIG_HOME", &sb.home)
        .env("XDG_RUNTIME_DIR", sb.dir.path())
        .args(["--cwd", sb.project.to_str().expect("utf8"), "serve"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("serve starts");
    let mut stdin = child.stdin.take().expect("stdin");
    for line in lines {
        stdin.write_all(line.as_bytes()).expect("write");
        stdin.write_all(b"\n").expect("write");
    }
    drop(stdin);
    let out = child.wait_with_output().expect("serve ends");
    let answers = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    (
        out.status.code().unwrap_or(-1),
        answers,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A 2026-era host asks `server/discover` and closes: no "handshake failed" message.
#[test]
fn a_host_that_only_discovers_gets_no_handshake_failure() {
    let sb = Sandbox::new();
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "host", "version": "1"},
    });
    let discover = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
                          "params": {"_meta": meta}});
    for lines in [vec![discover.to_string()], Vec::new()] {
        let (code, answers, stderr) = serve_with(&sb, &lines);
        assert_eq!(code, 0, "{stderr}");
        assert!(
            !stderr.contains("handshake"),
            "misleading message: {stderr}"
        );
        assert_eq!(
            answers.len(),
            lines.len(),
            "every request answered: {answers:?}"
        );
    }
}

/// The handshake a host starts with.
fn handshake() -> Vec<String> {
    vec![
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "host", "version": "1"}}})
        .to_string(),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
    ]
}

fn answer_to(answers: &[Value], id: i64) -> &Value {
    answers
        .iter()
        .find(|a| a["id"] == id)
        .unwrap_or_else(|| panic!("no answer to request {id}: {answers:?}"))
}

/// A `tools/call` of `mcp` whose `args` nest 100,000 arrays deep is answered with -32600 (it
/// used to be dropped unanswered), and the next request is answered as usual.
#[test]
fn a_request_nested_100000_deep_is_refused_and_the_session_goes_on() {
    let sb = Sandbox::new();
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let mut lines = handshake();
    lines.push(format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"mcp","arguments":{{"op":"tools.call","server":"x","tool":"t","args":{deep}}}}}}}"#
    ));
    lines.push(json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}).to_string());
    let (code, answers, stderr) = serve_with(&sb, &lines);
    assert_eq!(code, 0, "{stderr}");
    let refused = answer_to(&answers, 1);
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("nested deeper than 127")),
        "{refused}"
    );
    assert_eq!(answer_to(&answers, 2)["result"], json!({}));
}

/// A 30 MiB request line is refused with -32600 naming the limit, never buffered whole, and the
/// next request is answered as usual.
#[test]
fn a_30_mib_request_line_is_refused_and_the_session_goes_on() {
    let sb = Sandbox::new();
    let pad = "x".repeat(30 * 1024 * 1024);
    let mut lines = handshake();
    lines.push(format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"mcp","arguments":{{"op":"tools.call","server":"x","tool":"t","args":{{"pad":"{pad}"}}}}}}}}"#
    ));
    lines.push(json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}).to_string());
    let (code, answers, stderr) = serve_with(&sb, &lines);
    assert_eq!(code, 0, "{stderr}");
    let refused = answer_to(&answers, 1);
    assert_eq!(refused["error"]["code"], -32600, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("16777216 bytes")),
        "{refused}"
    );
    assert_eq!(answer_to(&answers, 2)["result"], json!({}));
}
