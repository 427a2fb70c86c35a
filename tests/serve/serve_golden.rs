//! Golden files of both serialisations of an operation's outcome: the CLI's `--json` envelope
//! (with its exit code) and serve's `structuredContent` (with `isError` and the model-visible
//! text), for every operation and every failure class the fixture can reach. The same proxy
//! request goes through `mcpdeck proxy REQUEST --json` and through serve's `mcp` tool, so the two
//! faces are compared case by case; a few CLI commands of their own (`call` with `key=value`,
//! `status`, `scan`, `pins`) are recorded too.
//!
//! The files are `tests/golden/*.json`. `MCPDECK_BLESS=1` rewrites them; otherwise a difference
//! fails with both texts. Volatile values (the sandbox's paths, the fixture's path, pids, timings)
//! are replaced in one place, [`redact`].

use crate::common;
use crate::serve_kit::{Agent, serve};

use std::path::PathBuf;

use common::{Sandbox, fixture};
use rmcp::model::CallToolRequestParams;
use serde_json::{Map, Value, json};

/// The keys whose values change from run to run (timings, pids, spill names).
const VOLATILE_KEYS: &[&str] = &[
    "pid",
    "elapsedMs",
    "durationMs",
    "rttMs",
    "latencyMs",
    "startedAt",
    "lastActivity",
    "connectedAt",
    // The project's fingerprint hashes its definitions, whose command is the fixture's
    // absolute path: it differs between checkouts.
    "fingerprint",
    "uptimeMs",
];

/// Replaces the run's volatile values in `value`, everywhere: the sandbox and fixture paths in
/// every string, and the values of [`VOLATILE_KEYS`].
fn redact(value: &mut Value, sb: &Sandbox) {
    let root = sb.dir.path().display().to_string();
    let fix = fixture().to_owned();
    redact_in(value, &root, &fix);
}

fn redact_in(value: &mut Value, root: &str, fix: &str) {
    match value {
        Value::String(s) => {
            *s = s.replace(fix, "<fixture>").replace(root, "<sandbox>");
            // A resource reference is keyed by the process that listed it.
            *s = references(s);
        }
        Value::Array(items) => items.iter_mut().for_each(|v| redact_in(v, root, fix)),
        Value::Object(map) => {
            for (k, v) in map.iter_mut() {
                if VOLATILE_KEYS.contains(&k.as_str()) && !v.is_null() {
                    *v = Value::String("<volatile>".to_owned());
                } else {
                    redact_in(v, root, fix);
                }
            }
        }
        _ => {}
    }
}

/// `s` with every `mcp-resource-<32 hex>` reference written as `mcp-resource-<ref>`.
fn references(s: &str) -> String {
    const PREFIX: &str = "mcp-resource-";
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find(PREFIX) {
        let (head, tail) = rest.split_at(at + PREFIX.len());
        out.push_str(head);
        let hex = tail.bytes().take_while(u8::is_ascii_hexdigit).count();
        if hex == 32 {
            out.push_str("<ref>");
            rest = &tail[hex..];
        } else {
            rest = tail;
        }
    }
    out.push_str(rest);
    out
}

fn golden_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(format!("{name}.json"))
}

/// Compares `cases` with the golden file `name`, or writes it under `MCPDECK_BLESS=1`.
fn check(name: &str, cases: &Value) {
    let path = golden_path(name);
    let text = format!(
        "{}\n",
        serde_json::to_string_pretty(cases).expect("serialises")
    );
    if std::env::var("MCPDECK_BLESS").is_ok_and(|v| v == "1") {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, &text).expect("write golden");
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (run with MCPDECK_BLESS=1)", path.display()));
    if want != text {
        let want_v: Value = serde_json::from_str(&want).expect("golden is JSON");
        let (wants, gots) = (
            want_v.as_array().cloned().unwrap_or_default(),
            cases.as_array().cloned().unwrap_or_default(),
        );
        for (w, g) in wants.iter().zip(&gots) {
            assert_eq!(
                w,
                g,
                "{}: case {} differs",
                path.display(),
                w["case"].as_str().unwrap_or("?")
            );
        }
        assert_eq!(want, text, "{}", path.display());
    }
}

fn stdio(args: &[&str]) -> Value {
    let all: Vec<&str> = std::iter::once("stdio")
        .chain(args.iter().copied())
        .collect();
    json!({"command": fixture(), "args": all})
}

/// The CLI's `--json` envelope for `args`, with its exit code.
fn cli(sb: &Sandbox, case: &str, args: &[&str]) -> Value {
    let out = sb.cmd().args(args).arg("--json").output().expect("runs");
    let envelope: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?}: no JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    let mut v = json!({
        "case": case,
        "face": "cli",
        "args": args,
        "exit": out.status.code(),
        "json": envelope,
    });
    redact(&mut v, sb);
    v
}

/// serve's answer to `request`: `isError`, the text and the structured content.
async fn served(agent: &Agent, sb: &Sandbox, case: &str, request: &Value) -> Value {
    let args: Map<String, Value> = request.as_object().expect("object").clone();
    let params = CallToolRequestParams::new("mcp").with_arguments(args);
    let result = tokio::time::timeout(crate::serve_kit::WAIT, agent.call_tool(params))
        .await
        .expect("in time")
        .expect("answered");
    let mut v = json!({
        "case": case,
        "face": "serve",
        "request": request,
        "isError": result.is_error,
        "text": crate::serve_kit::text(&result),
        "structuredContent": result.structured_content,
    });
    redact(&mut v, sb);
    v
}

/// Each request through both faces, paired in the golden file.
async fn both(sb: &Sandbox, agent: &Agent, requests: &[(&str, Value)]) -> Vec<Value> {
    let mut out = Vec::new();
    for (case, request) in requests {
        let text = request.to_string();
        out.push(cli(sb, case, &["proxy", &text]));
        out.push(served(agent, sb, case, request).await);
    }
    out
}

/// Servers for every failure class a definition can cause, beside the fixture.
fn servers(sb: &Sandbox) {
    let mut fast = stdio(&[]);
    fast["requestTimeoutMs"] = json!(300);
    let servers = json!({
        "fx": stdio(&[]),
        "missing": {"command": "/nonexistent/server"},
        "needs-env": {"command": fixture(), "args": ["stdio"], "env": {"API_TOKEN": "${MCPDECK_TEST_UNSET_TOKEN}"}},
        "fast": fast,
        "repeat": stdio(&["--cursor", "repeat", "--page-size", "3"]),
        "off": {"command": fixture(), "disabled": true},
        "broken": {"command": fixture(), "bogus": 1},
        "crashy": stdio(&[]),
    });
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": servers}).to_string(),
    );
    sb.write(
        "project/.mcp.json",
        &json!({"mcpServers": {"proj": stdio(&[])}}).to_string(),
    );
}

/// serve reads the first resource by the reference its own listing gave (a reference is keyed
/// by the process that listed it).
async fn read_own_reference(agent: &Agent, sb: &Sandbox) -> Value {
    let list = json!({"server": "fx", "operation": "resources.list"});
    let args: Map<String, Value> = list.as_object().expect("object").clone();
    let listed = tokio::time::timeout(
        crate::serve_kit::WAIT,
        agent.call_tool(CallToolRequestParams::new("mcp").with_arguments(args)),
    )
    .await
    .expect("in time")
    .expect("answered");
    let content = listed.structured_content.expect("structured");
    let reference = content["result"]["resources"][0]["reference"]
        .as_str()
        .unwrap_or_else(|| panic!("no reference: {content}"))
        .to_owned();
    let request = json!({"server": "fx", "operation": "resources.read", "resource": reference});
    served(agent, sb, "resources.read", &request).await
}

#[tokio::test]
async fn operations_and_failures_in_both_serialisations() {
    let sb = Sandbox::new();
    servers(&sb);
    let requests = [
        ("status", json!({})),
        ("tools.list", json!({"server": "fx"})),
        ("tools.search", json!({"server": "fx", "search": "echo"})),
        ("tools.describe", json!({"server": "fx", "describe": "add"})),
        (
            "tools.call text",
            json!({"server": "fx", "tool": "echo", "args": {"text": "hello"}}),
        ),
        (
            "tools.call structured",
            json!({"server": "fx", "tool": "add", "args": {"a": 2, "b": 40}}),
        ),
        (
            "tools.call output schema mismatch",
            json!({"server": "fx", "tool": "weather_bad"}),
        ),
        (
            "resources.list",
            json!({"server": "fx", "operation": "resources.list"}),
        ),
        (
            "prompts.list",
            json!({"server": "fx", "operation": "prompts.list"}),
        ),
        (
            "prompts.get",
            json!({"server": "fx", "operation": "prompts.get", "prompt": "greet", "arguments": {"name": "Ada"}}),
        ),
        (
            "reconnect",
            json!({"server": "fx", "operation": "reconnect"}),
        ),
        ("unknown_server", json!({"server": "nope"})),
        ("unknown_tool", json!({"server": "fx", "tool": "nosuch"})),
        (
            "unknown_prompt",
            json!({"server": "fx", "operation": "prompts.get", "prompt": "nosuch"}),
        ),
        (
            "invalid_request",
            json!({"server": "fx", "operation": "prompts.get", "prompt": "greet"}),
        ),
        (
            "tool_error",
            json!({"server": "fx", "tool": "cancel_booking", "args": {"booking_id": "b-1"}}),
        ),
        (
            "invalid_request malformed reference",
            json!({"server": "fx", "operation": "resources.read", "resource": "mcp-resource-stale"}),
        ),
        (
            "stale_reference",
            json!({"server": "fx", "operation": "resources.read", "resource": format!("mcp-resource-{}", "0".repeat(32))}),
        ),
        ("spawn_failed", json!({"server": "missing"})),
        ("missing_env", json!({"server": "needs-env"})),
        ("timeout", json!({"server": "fast", "tool": "hang"})),
        ("limit", json!({"server": "repeat"})),
        ("disabled", json!({"server": "off"})),
        ("invalid_config", json!({"server": "broken"})),
        ("untrusted", json!({"server": "proj"})),
        ("exited", json!({"server": "crashy", "tool": "crash"})),
    ];
    let mut cases = Vec::new();
    // The CLI's own commands, whose envelopes are built beside the proxy's.
    for (case, args) in [
        ("cli tools", &["tools", "fx"][..]),
        ("cli call key=value", &["call", "fx", "echo", "text=hi"]),
        ("cli call unknown tool", &["call", "fx", "nosuch"]),
        ("cli status", &["status"]),
        ("cli scan", &["scan", "fx"]),
        ("cli pins", &["pins", "fx"]),
        ("cli describe unknown tool", &["describe", "fx", "nosuch"]),
        ("cli unknown server", &["tools", "nope"]),
        ("cli read by name", &["read", "fx", "doc-1"]),
        ("cli invalid_request", &["call", "fx", "add", "a:=\"two\""]),
        (
            "cli not_supported",
            &["complete", "fx", "--prompt", "greet", "name=a"],
        ),
        ("cli spawn_failed", &["tools", "missing"]),
    ] {
        cases.push(cli(&sb, case, args));
    }
    let agent = serve(&sb, &[]).await;
    cases.extend(both(&sb, &agent, &requests).await);
    cases.push(read_own_reference(&agent, &sb).await);
    let _ = agent.cancel().await;
    check("operations", &Value::Array(cases));
}

#[tokio::test]
async fn policy_failures_in_both_serialisations() {
    let sb = Sandbox::new();
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {"fx": stdio(&[])}}).to_string(),
    );
    sb.write(
        "config/mcpdeck/policy.json",
        r#"{"mode": "enforce", "allow": ["fx:tools.list"], "deny": ["fx:tools.call add"]}"#,
    );
    let requests = [
        ("allowed", json!({"server": "fx"})),
        (
            "denied",
            json!({"server": "fx", "tool": "add", "args": {"a": 1, "b": 2}}),
        ),
        (
            "approval_required",
            json!({"server": "fx", "tool": "echo", "args": {"text": "x"}}),
        ),
    ];
    let agent = serve(&sb, &[]).await;
    let cases = both(&sb, &agent, &requests).await;
    let _ = agent.cancel().await;
    check("policy", &Value::Array(cases));
}

/// The hints are data: the CLI's text names its own commands where serve's names requests.
#[test]
fn the_cli_words_the_hints_as_commands() {
    let sb = Sandbox::new();
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {"fx": stdio(&[])}}).to_string(),
    );
    for (args, hint) in [
        (
            &["tools", "fx"][..],
            "Use `mcpdeck describe fx TOOL` for a tool's full schema.",
        ),
        (
            &["resources", "fx"],
            "Read one with `mcpdeck read fx NAME` (a name or a reference).",
        ),
    ] {
        let text = sb.stdout(args);
        assert!(text.trim_end().ends_with(hint), "{args:?}: {text}");
        assert!(!text.contains("{\"server\""), "{args:?}: {text}");
    }
}
