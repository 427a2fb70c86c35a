//! The hostile battery through the real binary: each case gets its documented exit class, and
//! neither stdout nor stderr carries a raw escape byte or Rust `Debug` text.

use crate::common;

use common::{HttpFixture, Sandbox, fixture};
use serde_json::{Value, json};

fn with_servers(sb: &Sandbox, servers: &Value) {
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": servers}).to_string(),
    );
}

fn raw(case: &str) -> Value {
    json!({"command": fixture(), "args": ["raw", "--case", case], "requestTimeoutMs": 20000})
}

/// Debug renderings of engine and rmcp types that must never reach a person.
const DEBUG_TEXT: &[&str] = &[
    "Some(",
    "None",
    "EmptyResult",
    "Object {",
    "[Invalid",
    "NotFound",
    "AllowOnce",
    "JsonRpcError(",
];

/// Runs `args` (with or without `--json`) and checks both streams are written for a person.
fn run(sb: &Sandbox, args: &[&str], json: bool) -> (i32, String, String) {
    let mut cmd = sb.cmd();
    cmd.args(args);
    if json {
        cmd.arg("--json");
    }
    let out = cmd.output().expect("runs");
    let stdout = String::from_utf8(out.stdout).expect("stdout is UTF-8");
    let stderr = String::from_utf8(out.stderr).expect("stderr is UTF-8");
    for text in [&stdout, &stderr] {
        assert!(!text.contains('\u{1b}'), "raw escape in {args:?}: {text}");
        if !json {
            for debug in DEBUG_TEXT {
                assert!(
                    !text.contains(debug),
                    "Debug text {debug} in {args:?}: {text}"
                );
            }
        }
    }
    (out.status.code().unwrap_or(-1), stdout, stderr)
}

#[test]
fn undeclared_capabilities_are_empty_lists_not_errors() {
    let sb = Sandbox::new();
    with_servers(&sb, &json!({"fs": raw("plain")}));
    for (op, key, what) in [
        ("resources", "resources", "resources"),
        ("prompts", "prompts", "prompts"),
    ] {
        let (code, out, _) = run(&sb, &[op, "fs"], true);
        assert_eq!(code, 0, "{out}");
        let v: Value = serde_json::from_str(&out).expect("json");
        assert_eq!(v["result"]["declared"], false, "{v}");
        assert_eq!(v["result"][key], json!([]), "{v}");
        let (code, out, err) = run(&sb, &[op, "fs"], false);
        assert_eq!(code, 0, "{out}{err}");
        assert!(
            format!("{out}{err}").contains(&format!("fs offers no {what}")),
            "{out}{err}"
        );
    }
}

#[test]
fn undecodable_answers_exit_4_at_once_and_oversized_events_exit_7() {
    let sb = Sandbox::new();
    let http = HttpFixture::start("");
    with_servers(
        &sb,
        &json!({
            "deep": raw("deep-result"),
            "utf8": raw("bad-utf8"),
            "junk": raw("not-message"),
            "schema": raw("deep-schema"),
            "sse": {"url": http.url("/raw/deep-result"), "requestTimeoutMs": 20000},
            "huge": {"url": http.url("/raw/huge-sse"), "requestTimeoutMs": 20000},
        }),
    );
    for (server, code) in [
        ("deep", 4),
        ("utf8", 4),
        ("junk", 4),
        ("sse", 4),
        ("huge", 7),
    ] {
        let started = std::time::Instant::now();
        let (got, out, err) = run(&sb, &["call", server, "echo", "--no-validate"], false);
        assert_eq!(got, code, "{server}: {out}{err}");
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "{server}"
        );
    }
    let started = std::time::Instant::now();
    let (got, out, err) = run(&sb, &["tools", "schema"], false);
    assert_eq!(got, 4, "{out}{err}");
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
}

#[test]
fn oauth_challenge_exits_3_with_one_clear_message() {
    let sb = Sandbox::new();
    let http = HttpFixture::start("");
    with_servers(&sb, &json!({"cloud": {"url": http.url("/raw/oauth")}}));
    let (code, out, err) = run(&sb, &["tools", "cloud"], false);
    assert_eq!(code, 3, "{out}{err}");
    assert!(
        format!("{out}{err}").contains("OAuth sign-in"),
        "{out}{err}"
    );
}

/// A server's own requests that mcpdeck cannot read get a prompt JSON-RPC error with the right
/// code, and the call that was waiting on them still ends: an `elicitation/create` nested 450
/// levels deep is invalid (-32600; it used to be dropped, and the call waited for its deadline),
/// one whose form schema nests 30 objects has invalid parameters (-32602; it used to be
/// "method not found"). Over stdio and over HTTP (where the deep one used to be skipped).
#[test]
fn undecodable_server_requests_are_answered_at_once_with_their_code() {
    let sb = Sandbox::new();
    let ask = |case: &str| json!({"command": fixture(), "args": ["raw", "--case", case], "requestTimeoutMs": 60000});
    // Over HTTP the request arrives on the call's event stream and the error is posted back.
    let http = HttpFixture::start("");
    let ask_http =
        |case: &str| json!({"url": http.url(&format!("/raw/{case}")), "requestTimeoutMs": 60000});
    with_servers(
        &sb,
        &json!({"deep": ask("ask-deep"), "form": ask("ask-deep-form"),
            "deep-http": ask_http("ask-deep"), "form-http": ask_http("ask-deep-form")}),
    );
    for (server, code) in [
        ("deep", "-32600"),
        ("form", "-32602"),
        ("deep-http", "-32600"),
        ("form-http", "-32602"),
    ] {
        let started = std::time::Instant::now();
        let (exit, out, err) = run(&sb, &["call", server, "echo", "--no-validate"], false);
        assert_eq!(exit, 0, "{server}: {out}{err}");
        assert!(
            out.contains(&format!("answered {code}")),
            "{server}: {out}{err}"
        );
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "{server} waited {:?}",
            started.elapsed()
        );
    }
}
