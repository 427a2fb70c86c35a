//! Every proxy operation through the real binary against the fixture servers (stdio and
//! Streamable HTTP), with exit codes, `--json` shapes, spills, no replay and no leaks.

use crate::common;

use common::json_keys::not_camel_case;
use common::{HttpFixture, Sandbox, fixture};
use serde_json::{Value, json};

fn with_servers(sb: &Sandbox, servers: &Value) {
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": servers}).to_string(),
    );
}

fn stdio(args: &[&str]) -> Value {
    let all: Vec<&str> = std::iter::once("stdio")
        .chain(args.iter().copied())
        .collect();
    json!({"command": fixture(), "args": all})
}

fn run(sb: &Sandbox, args: &[&str]) -> (i32, Value) {
    let out = sb.cmd().args(args).arg("--json").output().expect("runs");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{args:?}: no JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), v)
}

#[test]
fn every_operation_over_stdio() {
    let sb = Sandbox::new();
    with_servers(&sb, &json!({"fx": stdio(&[])}));

    let (code, v) = run(&sb, &["tools", "fx"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["operation"], "tools.list");
    assert_eq!(v["server"], "fx");
    let names: Vec<&str> = v["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .map(|t| t["name"].as_str().expect("name"))
        .collect();
    assert!(
        names.contains(&"echo") && names.contains(&"weather_bad"),
        "{names:?}"
    );
    assert_eq!(v["result"]["count"], names.len());

    let (_, v) = run(&sb, &["tools", "fx", "--search", "echo"]);
    assert_eq!(v["result"]["matches"][0]["tool"]["name"], "echo");
    assert_eq!(v["result"]["matches"][0]["rank"], "ExactName");

    let (_, v) = run(&sb, &["describe", "fx", "add"]);
    assert_eq!(v["result"]["name"], "add");
    assert!(
        v["result"]["inputSchema"]["properties"]["a"].is_object(),
        "{v}"
    );
    assert!(v["result"]["outputSchema"].is_object(), "{v}");

    let (code, v) = run(&sb, &["call", "fx", "echo", "text=hello"]);
    assert_eq!(
        (code, v["result"]["text"].as_str()),
        (0, Some("hello")),
        "{v}"
    );
    let (_, v) = run(&sb, &["call", "fx", "add", r#"{"a": 2, "b": 40}"#]);
    assert_eq!(v["result"]["structuredContent"], json!({"sum": 42}));
    assert_eq!(v["result"]["outputSchemaVerdict"]["verdict"], "valid");
    let (_, v) = run(&sb, &["call", "fx", "add", "a=1", "b:=2"]);
    assert_eq!(
        v["result"]["structuredContent"],
        json!({"sum": 3}),
        "key=value typed by schema"
    );

    let (_, v) = run(&sb, &["resources", "fx"]);
    let resources = v["result"]["resources"].as_array().expect("resources");
    assert!(
        resources.iter().all(|r| r["reference"]
            .as_str()
            .is_some_and(|s| s.starts_with("mcp-resource-") && s.len() == 45)),
        "{v}"
    );
    assert!(
        !v.to_string().contains("mem://"),
        "raw URIs are never shown: {v}"
    );
    assert_eq!(v["result"]["templates"][0]["name"], "doc-by-id");
    let (code, v) = run(&sb, &["read", "fx", "doc-1"]);
    assert_eq!(code, 0, "{v}");
    let text = v["result"]["text"].as_str().expect("text");
    assert!(
        text.starts_with("<untrusted-mcp-data server=\"fx\" kind=\"resource\">"),
        "{text}"
    );
    assert!(text.contains("content of mem://doc/1"), "{text}");

    let (_, v) = run(&sb, &["prompts", "fx"]);
    assert_eq!(v["result"]["prompts"][0]["name"], "greet");
    let (code, v) = run(&sb, &["prompt", "fx", "greet", "name=Ada"]);
    assert_eq!(code, 0);
    assert!(
        v["result"]["text"]
            .as_str()
            .expect("text")
            .contains("Say hello to Ada"),
        "{v}"
    );
    let (code, v) = run(&sb, &["prompt", "fx", "greet"]);
    assert_eq!(
        (code, v["error"]["class"].as_str()),
        (1, Some("invalid_request")),
        "required argument checked first: {v}"
    );
    let (code, v) = run(&sb, &["prompt", "fx", "greet", "name=a", "extra=b"]);
    assert_eq!(code, 1, "{v}");

    let (code, v) = run(
        &sb,
        &["proxy", r#"{"server":"fx","operation":"reconnect"}"#],
    );
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["result"]["protocolVersion"], "2025-11-25");
}

#[test]
fn proxy_requests_are_validated_and_name_conflicts() {
    let sb = Sandbox::new();
    with_servers(&sb, &json!({"fx": stdio(&[])}));
    let (code, v) = run(
        &sb,
        &["proxy", r#"{"server":"fx","search":"a","tool":"b"}"#],
    );
    assert_eq!(code, 1);
    let message = v["error"]["message"].as_str().expect("message");
    assert!(
        message.contains("search") && message.contains("tool"),
        "{message}"
    );
    let (code, v) = run(&sb, &["proxy", r#"{"server":"nope"}"#]);
    assert_eq!(code, 1);
    assert!(
        v["error"]["message"]
            .as_str()
            .expect("message")
            .contains("fx"),
        "lists configured names: {v}"
    );
    let (code, _) = run(&sb, &["proxy", r#"{"server":"fx","bogus":1}"#]);
    assert_eq!(code, 1);
}

#[test]
fn results_are_validated_and_tool_errors_exit_5() {
    let sb = Sandbox::new();
    with_servers(&sb, &json!({"fx": stdio(&[])}));
    let (code, v) = run(&sb, &["call", "fx", "weather_bad"]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(
        v["result"]["outputSchemaVerdict"]["verdict"], "invalid",
        "{v}"
    );
    let (code, v) = run(&sb, &["call", "fx", "nosuch"]);
    assert_eq!(
        (code, v["error"]["class"].as_str()),
        (1, Some("unknown_tool"))
    );
    let (code, v) = run(&sb, &["call", "fx", "add", "a=x", "b=1"]);
    assert_eq!(code, 1, "schema-typed argument refused before calling: {v}");
}

#[test]
fn a_large_result_is_previewed_and_spilled_then_removed() {
    let sb = Sandbox::new();
    let runtime = sb.dir.path().join("run");
    std::fs::create_dir_all(&runtime).expect("runtime dir");
    with_servers(&sb, &json!({"fx": stdio(&[])}));
    let out = sb
        .cmd()
        .env("XDG_RUNTIME_DIR", &runtime)
        .args(["call", "fx", "big_text", "size=300000"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).expect("utf8");
    assert!(
        stdout.len() <= 51 * 1024,
        "model-visible text is bounded: {}",
        stdout.len()
    );
    let note = stdout.lines().last().expect("note");
    assert!(
        note.contains("the full text is in spill file spill-"),
        "{note}"
    );
    assert!(
        !stdout.contains(runtime.to_str().expect("utf8")),
        "no host path in model-visible text"
    );
    let stderr = String::from_utf8(out.stderr).expect("utf8");
    assert!(stderr.contains("300000 bytes"), "{stderr}");
    let leftovers: Vec<_> = walk(&runtime).into_iter().filter(|p| p.is_file()).collect();
    assert!(
        leftovers.is_empty(),
        "spills removed at exit: {leftovers:?}"
    );
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(walk(&path));
        }
        out.push(path);
    }
    out
}

#[test]
fn error_classes_map_to_exit_codes() {
    let sb = Sandbox::new();
    let mut fast = stdio(&[]);
    fast["requestTimeoutMs"] = json!(300);
    with_servers(
        &sb,
        &json!({
            "missing": {"command": "/nonexistent/server"},
            "needs-env": {"command": fixture(), "args": ["stdio"], "env": {"API_TOKEN": "${MCPDECK_TEST_UNSET_TOKEN}"}},
            "fast": fast,
            "big": stdio(&["--tools", "10001"]),
            "repeat": stdio(&["--cursor", "repeat", "--page-size", "3"]),
            "off": {"command": fixture(), "disabled": true},
            "broken": {"command": fixture(), "bogus": 1},
        }),
    );
    sb.write(
        "project/.mcp.json",
        &json!({"mcpServers": {"proj": stdio(&[])}}).to_string(),
    );
    let cases: &[(&[&str], i32, &str)] = &[
        (&["tools", "missing"], 4, "spawn_failed"),
        (&["tools", "needs-env"], 1, "missing_env"),
        (&["call", "fast", "hang"], 6, "timeout"),
        (&["tools", "big"], 7, "limit"),
        (&["tools", "repeat"], 7, "limit"),
        (&["tools", "off"], 2, "disabled"),
        (&["tools", "broken"], 1, "invalid_config"),
        (&["tools", "proj"], 2, "untrusted"),
    ];
    for (args, code, class) in cases {
        let (got, v) = run(&sb, args);
        assert_eq!(
            (got, v["error"]["class"].as_str()),
            (*code, Some(*class)),
            "{args:?}: {v}"
        );
        assert!(not_camel_case(&v).is_empty(), "{args:?}: {v}");
    }
    // A class's details are keys like any other: camelCase.
    let (_, v) = run(&sb, &["call", "fast", "hang"]);
    assert_eq!(v["error"]["afterMs"], 300, "{v}");
    let (_, v) = run(&sb, &["tools", "missing"]);
    assert!(v["error"]["osError"].is_string(), "{v}");
    let (_, v) = run(&sb, &["tools", "needs-env"]);
    assert!(
        v["error"]["message"]
            .as_str()
            .expect("m")
            .contains("MCPDECK_TEST_UNSET_TOKEN")
    );
}

#[test]
fn a_crash_mid_call_runs_once_and_is_not_replayed() {
    let sb = Sandbox::new();
    let counter = sb.dir.path().join("counter");
    let mut server = stdio(&[]);
    server["env"] = json!({"FIXTURE_COUNTER": counter.to_str().expect("utf8")});
    server["reconnect"] = json!({"automatic": true, "maxAttempts": 3, "baseDelayMs": 100});
    with_servers(&sb, &json!({"fx": server}));
    let (code, v) = run(&sb, &["call", "fx", "crash"]);
    assert_eq!(
        (code, v["error"]["class"].as_str()),
        (4, Some("exited")),
        "{v}"
    );
    assert!(v["error"]["stderrTail"].is_array(), "{v}");
    assert!(not_camel_case(&v).is_empty(), "{v}");
    let calls = std::fs::read_to_string(&counter).expect("counter");
    assert_eq!(calls.lines().count(), 1, "invoked exactly once: {calls:?}");
}

#[test]
fn http_scoped_keys_from_the_environment() {
    let sb = Sandbox::new();
    let server = HttpFixture::start("full=read,write,admin,bookings:read,bookings:write;none=");
    with_servers(
        &sb,
        &json!({
            "api": {"url": server.url("mcp"), "headers": {"Authorization": "Bearer ${MCPDECK_TEST_KEY}"}},
            "stateful": {"url": server.url("stateful"), "headers": {"Authorization": "Bearer ${MCPDECK_TEST_KEY}"}},
        }),
    );
    let json_with = |key: &str, args: &[&str]| {
        let out = sb
            .cmd()
            .env("MCPDECK_TEST_KEY", key)
            .args(args)
            .arg("--json")
            .output()
            .expect("runs");
        let v: Value = serde_json::from_slice(&out.stdout).expect("json");
        (
            out.status.code().unwrap_or(-1),
            v,
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    for server_name in ["api", "stateful"] {
        let (code, v, _) = json_with("full", &["tools", server_name]);
        assert_eq!(code, 0, "{v}");
        assert!(v["result"]["count"].as_u64().expect("count") > 0);
        let (code, v, _) = json_with("full", &["describe", server_name, "cancel_booking"]);
        assert_eq!(code, 0, "{v}");
        assert!(v["result"]["_meta"].is_object(), "rich _meta shown: {v}");
        assert!(v["result"]["serverClaimedAnnotations"].is_object(), "{v}");
        let (code, v, _) = json_with("full", &["call", server_name, "echo", "text=over http"]);
        assert_eq!(
            (code, v["result"]["text"].as_str()),
            (0, Some("over http")),
            "{v}"
        );
    }
    let (code, v, _) = json_with("none", &["tools", "api"]);
    assert_eq!(
        (code, v["result"]["count"].as_u64()),
        (0, Some(0)),
        "a key with no scopes sees no tools: {v}"
    );
    let (code, v, stderr) = json_with("wrong-key-value", &["tools", "api"]);
    assert_eq!(
        (code, v["error"]["class"].as_str()),
        (3, Some("auth_required")),
        "{v}"
    );
    assert!(!v.to_string().contains("wrong-key-value") && !stderr.contains("wrong-key-value"));
}

#[test]
fn a_secret_echoed_by_the_server_never_reaches_output() {
    let sb = Sandbox::new();
    let server = HttpFixture::start("k=read");
    let secret = "s3cr3t-header-value-1234";
    with_servers(
        &sb,
        &json!({
            "echo": {"url": server.url("echo"), "headers": {"Authorization": "Bearer ${MCPDECK_TEST_KEY}"}},
            "echo-json": {"url": server.url("echo-json"), "headers": {"Authorization": "Bearer ${MCPDECK_TEST_KEY}"}},
            "redirect": {"url": server.url("redirect"), "headers": {"Authorization": "Bearer ${MCPDECK_TEST_KEY}"}},
        }),
    );
    for name in ["echo", "echo-json", "redirect"] {
        for json_flag in [true, false] {
            let mut cmd = sb.cmd();
            cmd.env("MCPDECK_TEST_KEY", secret).args(["tools", name]);
            if json_flag {
                cmd.arg("--json");
            }
            let out = cmd.output().expect("runs");
            assert_ne!(out.status.code(), Some(0), "{name} must fail");
            for stream in [&out.stdout, &out.stderr] {
                assert!(
                    !String::from_utf8_lossy(stream).contains(secret),
                    "{name} leaked the secret"
                );
            }
        }
    }
}

#[test]
fn hostile_server_text_is_sanitised_in_cli_output() {
    let sb = Sandbox::new();
    with_servers(&sb, &json!({"evil": stdio(&["--hostile-text"])}));
    for args in [
        &["tools", "evil"][..],
        &["tools", "evil", "--json"],
        &["resources", "evil"],
        &["prompts", "evil"],
        &["describe", "evil", "echo", "--json"],
    ] {
        let out = sb.cmd().args(args).output().expect("runs");
        for stream in [&out.stdout, &out.stderr] {
            assert!(!stream.contains(&0x1b), "{args:?} printed ESC");
            let text = String::from_utf8_lossy(stream);
            for c in ['\u{202e}', '\u{200b}', '\u{9b}'] {
                assert!(!text.contains(c), "{args:?} printed {c:?}");
            }
        }
    }
}

#[cfg(unix)]
#[test]
fn ctrl_c_cancels_closes_and_cleans_up() {
    use std::io::Read as _;
    let sb = Sandbox::new();
    let pidfile = sb.dir.path().join("grandchild.pid");
    let runtime = sb.dir.path().join("run");
    std::fs::create_dir_all(&runtime).expect("runtime");
    let events = sb.dir.path().join("events");
    let mut server = stdio(&["--grandchild"]);
    server["env"] = json!({"FIXTURE_GRANDCHILD_PID": pidfile.to_str().expect("utf8"), "FIXTURE_EVENTS": events.to_str().expect("utf8")});
    with_servers(&sb, &json!({"fx": server}));
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mcpdeck"))
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", sb.dir.path())
        .env("XDG_CONFIG_HOME", &sb.home)
        .env("XDG_RUNTIME_DIR", &runtime)
        .args([
            "--cwd",
            sb.project.to_str().expect("utf8"),
            "call",
            "fx",
            "hang",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    // Wait until the server runs: it writes the grandchild's pid at start (the file may exist
    // before its content is written, so wait for a whole pid).
    let read_pid = || {
        std::fs::read_to_string(&pidfile)
            .ok()
            .and_then(|s| s.trim().parse::<u32>().ok())
    };
    common::fs_wait::until_changed_blocking(
        sb.dir.path(),
        std::time::Duration::from_secs(20),
        || read_pid().is_some(),
    );
    let grandchild: u32 = read_pid().expect("the server wrote its grandchild's pid");
    let pid = rustix::process::Pid::from_child(&child);
    rustix::process::kill_process(pid, rustix::process::Signal::INT).expect("SIGINT");
    let status = child.wait().expect("exits");
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut stderr)
        .expect("read");
    assert_eq!(status.code(), Some(6), "{stderr}");
    assert!(
        common::gone_within(grandchild, std::time::Duration::from_secs(10)),
        "grandchild leaked"
    );
    let leftovers: Vec<_> = walk(&runtime).into_iter().filter(|p| p.is_file()).collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

/// `--meta` entries reach the server in the request's `_meta`, beside the protocol's own (a
/// 2026 session's version and client entries are kept), in both eras; a key the protocol keeps
/// is refused before anything is sent.
#[test]
fn meta_entries_reach_the_server_in_both_eras() {
    for version in ["legacy", "2026-07-28"] {
        let sb = Sandbox::new();
        let seen = sb.dir.path().join("meta");
        let mut server = stdio(&[]);
        server["env"] = json!({"FIXTURE_META": seen.to_str().expect("utf8")});
        server["protocolVersion"] = json!(version);
        with_servers(&sb, &json!({"fx": server}));
        let (code, v) = run(
            &sb,
            &[
                "call",
                "fx",
                "echo",
                "text=hi",
                "--meta",
                "trace=abc",
                "--meta",
                "n:=3",
            ],
        );
        assert_eq!(code, 0, "{version}: {v}");
        let line = std::fs::read_to_string(&seen).expect("the fixture saw a call");
        let meta: Value = serde_json::from_str(line.trim()).expect("one JSON line");
        assert_eq!(meta["trace"], "abc", "{version}: {meta}");
        assert_eq!(meta["n"], 3, "{version}: {meta}");
        if version == "2026-07-28" {
            assert_eq!(
                meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28",
                "the protocol's own entries are kept: {meta}"
            );
        } else {
            // A legacy session's request names no protocol context: rmcp's dual-era server
            // would serve it statelessly, outside the session (the Python SDK 2.3 refuses it).
            let modern: Vec<&String> = meta
                .as_object()
                .expect("an object")
                .keys()
                .filter(|k| k.starts_with("io.modelcontextprotocol/"))
                .collect();
            assert!(modern.is_empty(), "{version}: {meta}");
        }
        let (code, v) = run(
            &sb,
            &[
                "call",
                "fx",
                "echo",
                "text=hi",
                "--meta",
                "io.modelcontextprotocol/protocolVersion=1999-01-01",
            ],
        );
        assert_eq!(code, 1, "{version}: {v}");
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .contains("kept for the protocol"),
            "{v}"
        );
        let lines = std::fs::read_to_string(&seen)
            .expect("meta")
            .lines()
            .count();
        assert_eq!(lines, 1, "{version}: the refused call was not sent");
    }
}
