//! Results a script can keep, through the real binary against the fixture server: `--output`
//! files that survive the process (0600 in a 0700 directory), `--full`, `--json` that carries the
//! server's characters exactly (escaped, never rewritten), arguments checked against the input
//! schema before sending, hints that name CLI commands, and clap's usage errors exiting 1.

use crate::common;

use common::json_keys::not_camel_case;
use common::{Sandbox, fixture};
use serde_json::{Value, json};

fn with_fixture(sb: &Sandbox, extra: &[&str]) {
    let args: Vec<&str> = std::iter::once("stdio")
        .chain(extra.iter().copied())
        .collect();
    let counter = sb.dir.path().join("calls");
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {"fx": {
            "command": fixture(), "args": args,
            "env": {"FIXTURE_COUNTER": counter.to_str().expect("utf8")}
        }}})
        .to_string(),
    );
}

fn mode(path: &std::path::Path) -> u32 {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::metadata(path).expect("meta").permissions().mode() & 0o777
}

#[test]
fn output_keeps_text_and_media_after_exit() {
    let sb = Sandbox::new();
    with_fixture(&sb, &[]);
    let dir = sb.dir.path().join("kept/results");
    let out = sb
        .cmd()
        .args(["call", "fx", "image", "--output"])
        .arg(&dir)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let image = dir.join("image-1.png");
    let text = dir.join("result.txt");
    // The process has exited and removed its spills; the kept files are still there.
    let png = std::fs::read(&image).expect("image kept");
    assert!(png.starts_with(b"\x89PNG"), "a real PNG");
    assert_eq!(mode(&image), 0o600);
    assert_eq!(mode(&text), 0o600);
    assert_eq!(mode(&dir), 0o700);
    let stdout = String::from_utf8(out.stdout).expect("utf8");
    assert!(
        stdout.contains(image.to_str().expect("utf8")),
        "the printed text names the kept file: {stdout}"
    );
    assert!(!stdout.contains("spill-"), "{stdout}");

    // A second run never overwrites: new names.
    let v = sb.json(&[
        "call",
        "fx",
        "image",
        "--json",
        "--output",
        dir.to_str().expect("utf8"),
    ]);
    let files: Vec<&str> = v["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| f["path"].as_str().expect("path"))
        .collect();
    assert!(
        files.iter().any(|f| f.ends_with("result-2.txt")),
        "{files:?}"
    );
    assert!(
        files.iter().any(|f| f.ends_with("image-1-2.png")),
        "{files:?}"
    );
    assert_eq!(v["files"][1]["mimeType"], "image/png");
    assert_eq!(std::fs::read(&image).expect("unchanged"), png);
}

/// The spinner is for terminals: with stdout and stderr piped, a call that takes longer than
/// the spinner's delay and reports progress writes its answer and nothing of the spinner — no
/// carriage return, no escape sequence, no spinner frame.
#[test]
fn piped_output_carries_no_progress() {
    let sb = Sandbox::new();
    with_fixture(&sb, &[]);
    let out = sb
        .cmd()
        .args(["call", "fx", "slow", "steps=4", "delay_ms=150"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).expect("utf8");
    assert!(stdout.starts_with("done 4 steps"), "{stdout:?}");
    let stderr = String::from_utf8(out.stderr).expect("utf8");
    for forbidden in ["\r", "\u{1b}", "waiting for the server"] {
        assert!(!stderr.contains(forbidden), "{forbidden:?} in {stderr:?}");
    }
    assert!(
        !stderr
            .chars()
            .any(|c| ('\u{2800}'..='\u{28ff}').contains(&c)),
        "a spinner frame in {stderr:?}"
    );
}

#[test]
fn full_and_output_carry_the_whole_large_text() {
    let sb = Sandbox::new();
    with_fixture(&sb, &[]);
    let out = sb
        .cmd()
        .args(["call", "fx", "big_text", "size=300000", "--full"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).expect("utf8");
    assert_eq!(
        stdout.trim_end().len(),
        300_000,
        "the whole text, unbounded"
    );

    let dir = sb.dir.path().join("big");
    let out = sb
        .cmd()
        .args(["call", "fx", "big_text", "size=300000", "--output"])
        .arg(&dir)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let kept = std::fs::read_to_string(dir.join("result.txt")).expect("kept");
    assert_eq!(kept, "x".repeat(300_000));
    let stdout = String::from_utf8(out.stdout).expect("utf8");
    assert!(stdout.len() < 51 * 1024, "stdout keeps the preview");

    // With --json, the envelope carries both: the whole text in its result, the kept files
    // beside it.
    let dir = sb.dir.path().join("big-json");
    let out = sb
        .cmd()
        .args([
            "call",
            "fx",
            "big_text",
            "size=300000",
            "--json",
            "--full",
            "--output",
        ])
        .arg(&dir)
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON line");
    assert_eq!(v["ok"], true);
    assert_eq!(v["result"]["text"].as_str().map(str::len), Some(300_000));
    let files = v["files"].as_array().expect("files");
    assert!(
        files.iter().any(|f| f["path"]
            .as_str()
            .is_some_and(|p| p.ends_with("result.txt"))),
        "{files:?}"
    );

    // Without either, stderr says how to keep it.
    let out = sb
        .cmd()
        .args(["call", "fx", "big_text", "size=300000"])
        .output()
        .expect("runs");
    let stderr = String::from_utf8(out.stderr).expect("utf8");
    assert!(stderr.contains("--output DIR keeps it"), "{stderr}");
}

#[test]
fn json_keeps_every_character_and_stays_safe_to_print() {
    let sb = Sandbox::new();
    with_fixture(&sb, &["--hostile-text"]);
    let sent = "tab\there\u{200b}";
    let out = sb
        .cmd()
        .args(["call", "fx", "echo", &format!("text={sent}"), "--json"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    for byte in [0x1b_u8, 0x07, b'\t'] {
        assert!(!out.stdout.contains(&byte), "raw byte {byte:#x} printed");
    }
    let printed = String::from_utf8(out.stdout.clone()).expect("utf8");
    for c in ['\u{202e}', '\u{200b}'] {
        assert!(!printed.contains(c), "{c:?} printed raw");
    }
    assert!(
        printed.contains("\\u202e") && printed.contains("\\u200b"),
        "{printed}"
    );
    let v: Value = serde_json::from_str(&printed).expect("valid JSON");
    assert_eq!(
        v["result"]["text"].as_str(),
        Some(format!("\u{1b}[2J\u{1b}]0;pwned\u{7}{sent}\u{202e}").as_str()),
        "decoded data is exactly what the server sent"
    );
    assert_eq!(v["result"]["spills"], json!([]));

    // Human output still shows markers.
    let out = sb
        .cmd()
        .args(["call", "fx", "echo", "text=a\tb"])
        .output()
        .expect("runs");
    assert!(!out.stdout.contains(&0x1b));
    assert!(String::from_utf8_lossy(&out.stdout).contains('␛'));
}

#[test]
fn arguments_are_checked_against_the_schema_before_sending() {
    let sb = Sandbox::new();
    let counter = sb.dir.path().join("calls");
    with_fixture(&sb, &[]);
    let out = sb
        .cmd()
        .args(["call", "fx", "echo", "txt=hi"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).expect("utf8");
    assert!(
        stderr.contains("unknown argument `txt`; did you mean `text`?"),
        "{stderr}"
    );
    assert!(
        stderr.contains("missing required argument `text`"),
        "{stderr}"
    );
    assert!(
        stderr.contains("`mcpdeck describe fx echo` shows the schema"),
        "the hint names the command to run: {stderr}"
    );
    let out = sb
        .cmd()
        .args(["call", "fx", "add", r#"{"a": "one", "b": 2}"#])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("`a`:"));
    assert!(
        std::fs::read_to_string(&counter)
            .unwrap_or_default()
            .is_empty(),
        "nothing was sent"
    );

    // --no-validate sends as given (the fixture echoes an empty text).
    let out = sb
        .cmd()
        .args(["call", "fx", "echo", "txt=hi", "--no-validate"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert!(
        std::fs::read_to_string(&counter)
            .expect("called")
            .contains("echo")
    );
}

/// `--no-validate` skips the checks, type checks included: a value the schema's types do not fit
/// is sent as it reads, and the server's answer comes back. What the schema types unambiguously
/// is still typed (`b=2` is sent as the integer 2, so the fixture's sum is 2).
#[test]
fn no_validate_sends_a_wrongly_typed_value_and_the_servers_answer_comes_back() {
    let sb = Sandbox::new();
    with_fixture(&sb, &[]);
    let checked = sb
        .cmd()
        .args(["call", "fx", "add", "a=seven", "b=2"])
        .output()
        .expect("runs");
    assert_eq!(checked.status.code(), Some(1), "{checked:?}");
    assert!(
        String::from_utf8_lossy(&checked.stderr).contains("`a` must be integer"),
        "{checked:?}"
    );
    let out = sb
        .cmd()
        .args([
            "call",
            "fx",
            "add",
            "a=seven",
            "b=2",
            "--no-validate",
            "--json",
        ])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["ok"], json!(true), "{v}");
    assert_eq!(v["result"]["structuredContent"], json!({"sum": 2}), "{v}");
}

#[test]
fn human_hints_name_cli_commands() {
    let sb = Sandbox::new();
    with_fixture(&sb, &[]);
    let out = sb.cmd().args(["tools", "fx"]).output().expect("runs");
    let stdout = String::from_utf8(out.stdout).expect("utf8");
    assert!(stdout.contains("`mcpdeck describe fx TOOL`"), "{stdout}");
    assert!(!stdout.contains("{\"server\""), "{stdout}");
}

#[test]
fn usage_errors_exit_1_and_help_exits_0() {
    let sb = Sandbox::new();
    sb.cmd().arg("--no-such-flag").assert().code(1);
    sb.cmd().args(["call"]).assert().code(1);
    sb.cmd().arg("--help").assert().code(0);
}

#[test]
fn status_live_reports_what_each_server_answered() {
    let sb = Sandbox::new();
    with_fixture(&sb, &[]);
    let v = sb.json(&["status", "--live", "--json"]);
    assert_eq!(v["ok"], true, "{v}");
    let fx = &v["result"]["servers"][0];
    assert_eq!(fx["name"], "fx");
    assert_eq!(fx["state"], "connected");
    let probe = &fx["probe"];
    assert!(
        probe["protocolVersion"]
            .as_str()
            .is_some_and(|p| p.starts_with("20")),
        "{v}"
    );
    assert!(probe["serverName"].is_string(), "{v}");
    assert!(probe["pingMs"].is_number(), "{v}");
    assert!(
        probe["capabilities"].as_array().is_some_and(|c| c
            .iter()
            .any(|x| x.as_str().is_some_and(|s| s.starts_with("tools")))),
        "{v}"
    );

    // One server that cannot start: listed with its error, exit 4.
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {
            "fx": {"command": fixture(), "args": ["stdio"]},
            "gone": {"command": "/nonexistent/mcp-server"}
        }})
        .to_string(),
    );
    let out = sb.cmd().args(["status", "--live"]).output().expect("runs");
    assert_eq!(out.status.code(), Some(4));
    let stdout = String::from_utf8(out.stdout).expect("utf8");
    assert!(stdout.contains("fx  ok  protocol"), "{stdout}");
    assert!(stdout.contains("gone  failed  spawn_failed"), "{stdout}");
}

/// Every key of mcpdeck's own JSON is camelCase (server data aside), and every `--json` output
/// is the one envelope the README documents: `ok`, `operation`, then `result` or `error`.
#[test]
fn json_keys_are_camel_case() {
    let sb = Sandbox::new();
    with_fixture(&sb, &[]);
    for args in [
        &["status", "--json"][..],
        &["status", "--live", "--json"],
        &["resources", "fx", "--json"],
        &["config", "check", "--json"],
        &["tools", "fx", "--json"],
        &["describe", "fx", "echo", "--json"],
        &["call", "fx", "echo", "text=hi", "--json"],
        &["templates", "fx", "--json"],
        &["prompts", "fx", "--json"],
        &["ping", "fx", "--json"],
        &["policy", "--json"],
        &["trust", "--json"],
        &["auth", "status", "--json"],
        &["approvals", "--json"],
    ] {
        let v = sb.json(args);
        let found = not_camel_case(&v);
        assert!(found.is_empty(), "{args:?}: {found:?}");
        assert!(
            v["ok"].is_boolean() && v["operation"].is_string(),
            "{args:?}: {v}"
        );
        assert!(
            v.get("result").is_some() || v.get("error").is_some(),
            "{args:?}: {v}"
        );
    }
}

#[test]
fn config_schema_validates_what_config_check_accepts() {
    let sb = Sandbox::new();
    let out = sb.cmd().args(["config", "schema"]).output().expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let schema: Value = serde_json::from_slice(&out.stdout).expect("a JSON schema");
    let validator = jsonschema::validator_for(&schema).expect("usable");
    assert!(validator.is_valid(&json!({"mcpServers": {"a": {"command": "x"}}})));
    assert!(!validator.is_valid(&json!({"mcpServers": {"a": {"command": "x", "serverUrl": "y"}}})));
}

/// A server whose content blocks and resources carry annotations (the fixture's raw case).
fn with_annotated(sb: &Sandbox) {
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {"fx": {
            "command": fixture(), "args": ["raw", "--case", "annotated"]
        }}})
        .to_string(),
    );
}

#[test]
fn annotations_show_in_text_and_json() {
    let sb = Sandbox::new();
    with_annotated(&sb);
    let out = sb
        .cmd()
        .args(["call", "fx", "echo"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stdout = String::from_utf8(out.stdout).expect("utf8");
    assert!(
        stdout.contains(
            "[annotations: audience user · priority 0.9 · modified 2025-06-01T10:00:00Z]\nfor you\nplain\n"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("[annotations: audience assistant · priority 0.2 · modified "),
        "{stdout}"
    );
    assert!(!stdout.contains('\u{1b}'), "{stdout:?}");

    let v = sb.json(&["call", "fx", "echo", "--json"]);
    let annotations = &v["result"]["annotations"];
    assert_eq!(
        annotations[0],
        json!({"block": 0, "audience": ["user"], "priority": 0.9,
               "lastModified": "2025-06-01T10:00:00Z"}),
        "{v}"
    );
    assert_eq!(annotations[1]["block"], 2, "the plain block has none: {v}");
    let stamp = annotations[1]["lastModified"].as_str().expect("stamp");
    assert!(!stamp.contains('\u{1b}'), "sanitised: {stamp:?}");
    assert_eq!(annotations.as_array().map(Vec::len), Some(2), "{v}");
}

#[test]
fn resource_annotations_show_in_the_list_and_json() {
    let sb = Sandbox::new();
    with_annotated(&sb);
    let out = sb.cmd().args(["resources", "fx"]).output().expect("runs");
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let stdout = String::from_utf8(out.stdout).expect("utf8");
    let notes = stdout
        .lines()
        .find(|l| l.contains(" notes"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(
        notes.ends_with(
            ": Meeting notes [annotations: audience user, assistant · priority 0.5 · modified 2025-05-31T08:00:00Z]"
        ),
        "{notes}"
    );
    let plain = stdout
        .lines()
        .find(|l| l.contains(" plain"))
        .expect("plain");
    assert!(!plain.contains("annotations"), "{plain}");

    let v = sb.json(&["resources", "fx", "--json"]);
    let resources = v["result"]["resources"].as_array().expect("resources");
    assert_eq!(
        resources[0]["annotations"],
        json!({"audience": ["user", "assistant"], "priority": 0.5,
               "lastModified": "2025-05-31T08:00:00Z"}),
        "{v}"
    );
    assert!(resources[1].get("annotations").is_none(), "{v}");
}
