//! Hostile configuration files: paths that are not regular files, files near the 4 MiB cap
//! with 100,000 servers or env keys, and values too long to quote whole.

use crate::common;

use std::fmt::Write as _;
use std::time::Duration;

use common::Sandbox;

/// Every command here must answer well within this; a blocking open would hang forever.
const BOUND: Duration = Duration::from_secs(30);

/// `config check` on a project whose `.mcp.json` is whatever `make` put there.
fn check_unreadable(make: impl FnOnce(&std::path::Path)) {
    let sb = Sandbox::new();
    let path = sb.project.join(".mcp.json");
    make(&path);
    let out = sb
        .cmd()
        .args(["config", "check"])
        .timeout(BOUND)
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains(&format!("{}: error[unreadable]", path.display())),
        "{text}"
    );
    assert!(text.contains("not a regular file"), "{text}");
}

#[test]
fn a_fifo_is_unreadable_without_blocking() {
    check_unreadable(|path| {
        rustix::fs::mknodat(
            rustix::fs::CWD,
            path,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .expect("mkfifo");
    });
}

#[test]
fn a_socket_is_unreadable() {
    check_unreadable(|path| {
        let listener = std::os::unix::net::UnixListener::bind(path).expect("bind");
        // The socket file stays after the listener closes; nobody needs to accept.
        drop(listener);
    });
}

#[test]
fn a_directory_is_unreadable() {
    check_unreadable(|path| std::fs::create_dir(path).expect("mkdir"));
}

#[test]
fn a_device_is_unreadable() {
    check_unreadable(|path| std::os::unix::fs::symlink("/dev/zero", path).expect("symlink"));
}

/// A file of `count` servers `s0…`, one of them with a duplicate key, written minified (one line).
fn many_servers(count: usize) -> String {
    let mut text = String::from("{\"mcpServers\": {");
    for i in 0..count {
        let _ = write!(text, "\"s{i}\": {{\"command\": \"x\"}},");
    }
    text.push_str("\"s7\": {\"command\": \"y\"}}}");
    text
}

#[test]
fn a_hundred_thousand_servers_load_and_duplicates_are_still_found() {
    let sb = Sandbox::new();
    let text = many_servers(100_000);
    assert!(text.len() < 4 * 1024 * 1024);
    sb.write("project/.mcp.json", &text);
    let out = sb
        .cmd()
        .args(["config", "check", "--json"])
        .timeout(Duration::from_secs(120))
        .output()
        .expect("runs");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let diagnostics = report.to_string();
    // Both definitions of `s7` are reported, at their own columns of the one line; nothing else.
    let duplicates: Vec<&serde_json::Value> = report["result"]["files"]
        .as_array()
        .expect("files")
        .iter()
        .flat_map(|f| f["diagnostics"].as_array().expect("diagnostics"))
        .filter(|d| d["code"] == "duplicate_key")
        .collect();
    assert_eq!(duplicates.len(), 2, "{diagnostics:.2000}");
    let first = text.find("\"s7\"").expect("s7") + 1;
    let last = text.rfind("\"s7\"").expect("s7") + 1;
    let columns: Vec<u64> = duplicates
        .iter()
        .map(|d| d["column"].as_u64().expect("column"))
        .collect();
    assert_eq!(columns, [first as u64, last as u64]);
}

#[test]
fn a_hundred_thousand_env_keys_load() {
    let sb = Sandbox::new();
    let mut text = String::from("{\"mcpServers\": {\"one\": {\"command\": \"x\", \"env\": {");
    for i in 0..100_000 {
        let _ = write!(text, "\"K{i}\": \"v\", ");
    }
    text.push_str("\"K5\": \"w\", \"api_token\": \"literal\"}}}}");
    sb.write("project/.mcp.json", &text);
    let out = sb
        .cmd()
        .args(["config", "check"])
        .timeout(Duration::from_secs(120))
        .output()
        .expect("runs");
    let printed = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{printed:.2000}");
    assert!(
        printed.contains("error[duplicate_key] at mcpServers.one.env.K5"),
        "{printed:.2000}"
    );
    assert!(
        printed.contains("error[literal_secret] at mcpServers.one.env.api_token"),
        "{printed:.2000}"
    );
}

#[test]
fn diagnostics_quote_at_most_200_characters_of_a_value() {
    let sb = Sandbox::new();
    let huge = "N".repeat(700_000);
    let text = format!(
        r#"{{"mcpServers": {{"{huge}": {{"command": "x", "{huge}x": 1, "env": {{"{huge}=": "v"}}, "headers": {{"{huge} ": "v"}}, "url": "{huge}"}}}}}}"#
    );
    sb.write("project/.mcp.json", &text);
    let out = sb
        .cmd()
        .args(["config", "check"])
        .timeout(BOUND)
        .output()
        .expect("runs");
    let printed = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{printed:.2000}");
    assert!(printed.contains("error[invalid_name]"), "{printed:.2000}");
    assert!(
        printed.contains(&format!("{}…", "N".repeat(200))),
        "{printed:.2000}"
    );
    let longest_run = printed
        .split(|c: char| c != 'N')
        .map(str::len)
        .max()
        .unwrap_or(0);
    assert!(longest_run <= 200, "a run of {longest_run} N printed");
    assert!(printed.len() < 20_000, "{} bytes printed", printed.len());
}

#[test]
fn status_of_a_hundred_thousand_servers_is_one_json_document_and_one_table() {
    let sb = Sandbox::new();
    sb.write("project/.mcp.json", &many_servers(100_000));
    let out = sb
        .cmd()
        .args(["status", "--json"])
        .timeout(Duration::from_secs(120))
        .output()
        .expect("runs");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    assert_eq!(report["ok"], true);
    assert_eq!(report["result"]["project"]["trust"], "untrusted");
    let servers: Vec<&serde_json::Value> = report["result"]["servers"]
        .as_array()
        .expect("servers")
        .iter()
        .filter(|s| s["source"]["layer"] == "project")
        .collect();
    assert_eq!(servers.len(), 100_000);
    let s7 = servers.iter().find(|s| s["name"] == "s7").expect("s7");
    assert_eq!(servers[0]["name"], "s0");
    // The later `s7` wins and shadows the earlier one; both carry the duplicate error.
    assert_eq!(s7["state"], "invalid");
    assert_eq!(s7["shadowed"].as_array().map(Vec::len), Some(1));
    assert_eq!(servers[1]["state"], "inert");
    assert_eq!(report["result"]["files"][2]["servers"], 100_001);
    let table = sb
        .cmd()
        .arg("status")
        .timeout(Duration::from_secs(120))
        .output()
        .expect("runs");
    let text = String::from_utf8_lossy(&table.stdout);
    let rows = text.lines().filter(|l| l.contains(" inert ")).count();
    assert_eq!(rows, 99_999, "{text:.500}");
    assert!(text.contains("shadows project"), "{text:.500}");
}

/// Peak RSS and wall time of `status`, `status --json` and `config check` on the two files
/// near the 4 MiB cap (100,000 servers; one server with 100,000 env keys), as
/// `/usr/bin/time` reports them. A measurement, not a check:
/// `cargo test --release --test hostile config_hostile:: -- --ignored --nocapture` (the README's figures).
#[test]
#[ignore = "measurement: prints figures"]
fn measure_loading_at_scale() {
    let mut keys = String::from("{\"mcpServers\": {\"one\": {\"command\": \"x\", \"env\": {");
    for i in 0..100_000 {
        let _ = write!(keys, "\"K{i}\": \"v\", ");
    }
    keys.push_str("\"LAST\": \"v\"}}}}");
    for (name, text) in [
        ("100,000 servers", many_servers(100_000)),
        ("100,000 env keys", keys),
    ] {
        let sb = Sandbox::new();
        sb.write("project/.mcp.json", &text);
        for args in [&["status"][..], &["status", "--json"], &["config", "check"]] {
            let out = std::process::Command::new("/usr/bin/time")
                .args(["-f", "%e %M"])
                .arg(env!("CARGO_BIN_EXE_mcpdeck"))
                .env_clear()
                .env("PATH", std::env::var_os("PATH").unwrap_or_default())
                .env("HOME", sb.dir.path())
                .env("XDG_CONFIG_HOME", &sb.home)
                .arg("--cwd")
                .arg(&sb.project)
                .args(args)
                .stdout(std::process::Stdio::null())
                .output()
                .expect("/usr/bin/time runs");
            let figures = String::from_utf8_lossy(&out.stderr);
            let mut last = figures.lines().last().unwrap_or("").split_whitespace();
            let seconds = last.next().unwrap_or("?");
            let kib: f64 = last.next().and_then(|k| k.parse().ok()).unwrap_or(0.0);
            println!(
                "{name} ({} bytes), {}: {seconds} s, {:.0} MiB",
                text.len(),
                args.join(" "),
                kib / 1024.0
            );
        }
    }
}
