//! Memory of the hostile battery: each case's exit class (always checked), and its peak RSS
//! (`VmHWM` of the `mcpdeck` process alone, not its servers), printed by an ignored
//! measurement: `cargo test --test hostile hostile_memory:: -- --ignored --nocapture`.

use crate::common;

use std::time::Duration;

use common::{HttpFixture, Sandbox, fixture};
use serde_json::json;

/// The battery's memory cases: name, server arguments, mcpdeck arguments, expected exit.
fn cases() -> Vec<(&'static str, Vec<&'static str>, Vec<&'static str>, i32)> {
    vec![
        (
            "one ~16 MiB page of 480,000 tiny tools",
            vec!["raw", "--case", "tiny-tools"],
            vec!["tools", "fx"],
            7,
        ),
        (
            "100,000 tools in one page",
            vec!["stdio", "--tools", "100000", "--page-size", "100000"],
            vec!["tools", "fx"],
            7,
        ),
        (
            "6,500 tools of 25 enum properties (15 MiB)",
            vec!["raw", "--case", "enum-tools"],
            vec!["tools", "fx"],
            7,
        ),
        (
            "9,900 tools in pages of 1,000",
            vec!["stdio", "--tools", "9900", "--page-size", "1000"],
            vec!["tools", "fx"],
            0,
        ),
        (
            "a 15 MiB text result",
            vec!["raw", "--case", "huge-text"],
            vec!["call", "fx", "echo", "--no-validate"],
            0,
        ),
        (
            "a 15 MiB text result with an escape every 80 bytes",
            vec!["raw", "--case", "huge-escaped"],
            vec!["call", "fx", "echo", "--no-validate"],
            0,
        ),
        (
            "tasks/list pages of 40,000 tasks, each with a fresh cursor",
            vec!["raw", "--case", "tasks-flood"],
            vec!["tasks", "fx"],
            7,
        ),
        (
            "tasks/list pages of 10 tasks with fresh cursors forever",
            vec!["raw", "--case", "tasks-endless"],
            vec!["tasks", "fx"],
            7,
        ),
        // The same pages over Streamable HTTP, as a plain JSON body and as an SSE event.
        (
            "HTTP JSON body: one ~16 MiB page of 480,000 tiny tools",
            vec!["http", "/raw/tiny-tools"],
            vec!["tools", "fx"],
            7,
        ),
        (
            "HTTP JSON body: 6,500 tools of 25 enum properties (15 MiB)",
            vec!["http", "/raw/enum-tools"],
            vec!["tools", "fx"],
            7,
        ),
        (
            "HTTP SSE event: 6,500 tools of 25 enum properties (15 MiB)",
            vec!["http", "/raw/enum-tools-as-sse"],
            vec!["tools", "fx"],
            7,
        ),
        (
            "HTTP JSON body: a 15 MiB text result",
            vec!["http", "/raw/huge-text"],
            vec!["call", "fx", "echo", "--no-validate"],
            0,
        ),
        (
            "HTTP JSON body: a 15 MiB text result with an escape every 80 bytes",
            vec!["http", "/raw/huge-escaped"],
            vec!["call", "fx", "echo", "--no-validate"],
            0,
        ),
    ]
}

/// Runs one case; returns its exit code and the peak RSS of mcpdeck in KiB (sampled).
fn run(server: &[&str], args: &[&str]) -> (i32, u64) {
    let sb = Sandbox::new();
    // `["http", PATH]`: the fixture's HTTP mode at PATH; anything else: stdio arguments.
    let http = (server.first() == Some(&"http")).then(|| HttpFixture::start(""));
    let definition = match (&http, server) {
        (Some(fx), [_, path]) => json!({"url": fx.url(path)}),
        _ => json!({"command": fixture(), "args": server}),
    };
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {"fx": definition}}).to_string(),
    );
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mcpdeck"))
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", sb.dir.path())
        .env("XDG_CONFIG_HOME", &sb.home)
        .arg("--cwd")
        .arg(&sb.project)
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("runs");
    let status_path = format!("/proc/{}/status", child.id());
    let mut peak = 0;
    loop {
        if let Ok(status) = std::fs::read_to_string(&status_path)
            && let Some(kib) = status
                .lines()
                .find(|l| l.starts_with("VmHWM"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        {
            peak = kib;
        }
        if let Some(status) = child.try_wait().expect("waits") {
            return (status.code().unwrap_or(-1), peak);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[test]
fn every_memory_case_gets_its_class() {
    for (name, server, args, code) in cases() {
        assert_eq!(run(&server, &args).0, code, "{name}");
    }
}

#[test]
#[ignore = "measurement: prints peak RSS"]
fn peak_rss_of_every_memory_case() {
    for (name, server, args, code) in cases() {
        let (got, peak) = run(&server, &args);
        assert_eq!(got, code, "{name}");
        println!("{name}: exit {got}, peak RSS {} MiB", peak.div_ceil(1024));
    }
}
