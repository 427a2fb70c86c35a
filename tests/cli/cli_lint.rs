//! `mcpdeck lint`, `mcpdeck tools --cost` and `mcpdeck bench` against real servers: the demo
//! server, server-everything and server-filesystem (npm, `scripts/install-interop`), and a
//! deliberately broken server on the official Python SDK (`tests/python/broken_server.py`,
//! `.venv/` from `scripts/install-python-sdk`) that earns every finding. A missing peer skips,
//! saying so, except under `CI=true`, where it fails.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::common;
use common::Sandbox;
use serde_json::{Value, json};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// `Some(path)` when `found`; else skipped (or, under CI, failed) saying what to install.
fn peer(path: PathBuf, found: bool, install: &str) -> Option<PathBuf> {
    if found {
        return Some(path);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{} is missing under CI: run {install}",
        path.display()
    );
    eprintln!("SKIPPED: run {install}");
    None
}

fn python() -> Option<PathBuf> {
    let python = root().join(".venv/bin/python");
    let found = python.exists();
    peer(python, found, "scripts/install-python-sdk")
}

fn npm_server(name: &str) -> Option<PathBuf> {
    let script = root().join(format!(
        "tests/interop/node_modules/@modelcontextprotocol/{name}/dist/index.js"
    ));
    let node = std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let found = script.exists() && node;
    peer(script, found, "scripts/install-interop (needs node)")
}

/// A sandbox whose user configuration holds `servers`.
fn sandbox(servers: &Value) -> Sandbox {
    let sb = Sandbox::new();
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({ "mcpServers": servers }).to_string(),
    );
    sb
}

fn run(sb: &Sandbox, args: &[&str]) -> (Option<i32>, String, String) {
    let out = sb.cmd().args(args).output().expect("runs");
    (
        out.status.code(),
        String::from_utf8(out.stdout).expect("utf-8"),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn rules(report: &Value) -> BTreeSet<String> {
    report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["rule"].as_str().expect("rule").to_owned())
        .collect()
}

#[test]
fn the_broken_server_gets_every_finding_and_exit_1() {
    let Some(python) = python() else { return };
    let script = root().join("tests/python/broken_server.py");
    let sb = sandbox(&json!({"broken": {"command": python, "args": [script]}}));
    let (code, out, err) = run(&sb, &["lint", "broken", "--call", "--json"]);
    assert_eq!(code, Some(1), "{out}{err}");
    let envelope: Value = serde_json::from_str(&out).expect("json");
    let report = &envelope["result"];
    let got = rules(report);
    for rule in [
        "duplicate-name",
        "schema-compiles",
        "tool-name",
        "annotations",
        "header-annotation",
        "capability-refused",
        "capability-undeclared",
        "pagination-cursor",
        "error-code",
        "output-schema",
    ] {
        assert!(got.contains(rule), "no {rule} in {report:#}");
    }
    let text = report.to_string();
    for needle in [
        "tool twin",
        "tool bad_schema",
        "integr",
        "-32500",
        "the cursor `again` was handed out before",
        "resources/list with -32601",
        "is not of type",
        "at `/count`",
    ] {
        assert!(text.contains(needle), "{needle} not in {report:#}");
    }
    // Each fault is said once, though the listing was read twice.
    let cursor = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .filter(|f| f["rule"] == "pagination-cursor")
        .count();
    assert_eq!(cursor, 1, "{report:#}");
}

#[test]
fn sarif_output_has_the_shape_code_scanning_reads() {
    let Some(python) = python() else { return };
    let script = root().join("tests/python/broken_server.py");
    let sb = sandbox(&json!({"broken": {"command": python, "args": [script]}}));
    let (code, out, err) = run(&sb, &["lint", "broken", "--sarif"]);
    assert_eq!(code, Some(1), "{out}{err}");
    let sarif: Value = serde_json::from_str(&out).expect("SARIF is JSON");
    assert_eq!(sarif["version"], "2.1.0");
    assert!(
        sarif["$schema"]
            .as_str()
            .is_some_and(|s| s.contains("sarif-2.1.0"))
    );
    let run = &sarif["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "mcpdeck");
    let ids: Vec<&str> = run["tool"]["driver"]["rules"]
        .as_array()
        .expect("rules")
        .iter()
        .map(|r| r["id"].as_str().expect("id"))
        .collect();
    assert_eq!(
        ids.len(),
        ids.iter().collect::<BTreeSet<_>>().len(),
        "unique"
    );
    let results = run["results"].as_array().expect("results");
    assert!(!results.is_empty());
    for r in results {
        let id = r["ruleId"].as_str().expect("ruleId");
        let index = usize::try_from(r["ruleIndex"].as_u64().expect("ruleIndex")).expect("index");
        assert_eq!(ids[index], id, "{r}");
        assert!(["error", "warning", "note"].contains(&r["level"].as_str().expect("level")));
        assert!(!r["message"]["text"].as_str().expect("text").is_empty());
        let location = &r["locations"][0]["logicalLocations"][0];
        assert!(
            location["fullyQualifiedName"]
                .as_str()
                .is_some_and(|n| n.starts_with("broken/"))
        );
    }
}

#[test]
fn server_everything_lints_with_no_errors_and_its_real_findings() {
    let Some(script) = npm_server("server-everything") else {
        return;
    };
    let sb = sandbox(&json!({"everything": {"command": "node", "args": [script, "stdio"]}}));
    let (code, out, err) = run(&sb, &["lint", "everything", "--call", "--json"]);
    assert_eq!(code, Some(0), "{out}{err}");
    let envelope: Value = serde_json::from_str(&out).expect("json");
    let report = &envelope["result"];
    assert!(report["checked"]["tools"].as_u64() > Some(10), "{report:#}");
    assert!(report["checked"]["called"].as_u64() > Some(0), "{report:#}");
    let levels: BTreeSet<&str> = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["level"].as_str().expect("level"))
        .collect();
    assert!(!levels.contains("error"), "{report:#}");
    // What it really does: an unknown resource is -32602, not the specification's -32002.
    assert!(rules(report).contains("error-code"), "{report:#}");
}

#[test]
fn the_demo_server_and_server_filesystem_lint_clean_of_errors() {
    let mut servers = json!({"demo": common::console_kit::demo()});
    if let Some(script) = npm_server("server-filesystem") {
        let dir = tempfile::tempdir().expect("dir");
        servers["fs"] = json!({"command": "node", "args": [script, dir.path()]});
        let sb = sandbox(&servers);
        let (code, out, err) = run(&sb, &["lint", "fs", "--call"]);
        assert_eq!(code, Some(0), "{out}{err}");
        assert!(out.starts_with("lint fs (protocol "), "{out}");
        assert!(out.contains("\n0 errors,"), "{out}");
    }
    let sb = sandbox(&servers);
    let (code, out, err) = run(&sb, &["lint", "demo", "--call"]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("5 tools called"), "{out}");
}

#[test]
fn tool_costs_add_up_and_serve_costs_one_tool_whatever_stands_behind_it() {
    let sb = sandbox(&json!({"demo": common::console_kit::demo()}));
    let (code, out, err) = run(&sb, &["tools", "demo", "--cost", "--json"]);
    assert_eq!(code, Some(0), "{out}{err}");
    let cost: Value = serde_json::from_str(&out).expect("json");
    let result = &cost["result"];
    assert_eq!(result["tokenizer"], "o200k_base");
    let tools = result["tools"].as_array().expect("tools");
    let names: Vec<&str> = tools
        .iter()
        .map(|t| t["name"].as_str().expect("name"))
        .collect();
    assert_eq!(names, ["add", "echo", "image", "long_task", "weather"]);
    let sum: u64 = tools
        .iter()
        .map(|t| t["tokens"].as_u64().expect("tokens"))
        .sum();
    assert_eq!(result["total"].as_u64(), Some(sum));
    assert!(tools.iter().all(|t| t["tokens"].as_u64() > Some(10)));
    let proxy = result["proxyTool"].as_u64().expect("proxyTool");
    let (_, text, _) = run(&sb, &["tools", "demo", "--cost"]);
    assert!(
        text.contains(&format!("5 tools on demo: {sum} tokens (o200k_base")),
        "{text}"
    );
    assert!(
        text.contains(&format!("one tool, `mcp`: {proxy} tokens")),
        "{text}"
    );
    let Some(script) = npm_server("server-everything") else {
        return;
    };
    let sb = sandbox(&json!({"everything": {"command": "node", "args": [script, "stdio"]}}));
    let (code, out, err) = run(&sb, &["tools", "everything", "--cost", "--json"]);
    assert_eq!(code, Some(0), "{out}{err}");
    let cost: Value = serde_json::from_str(&out).expect("json");
    assert_eq!(
        cost["result"]["proxyTool"].as_u64(),
        Some(proxy),
        "the same one tool"
    );
    assert!(cost["result"]["total"].as_u64() > Some(proxy), "{cost:#}");
}

fn bench_json(sb: &Sandbox, args: &[&str]) -> Value {
    let (code, out, err) = run(sb, args);
    assert_eq!(code, Some(0), "{out}{err}");
    let envelope: Value = serde_json::from_str(&out).expect("json");
    envelope["result"].clone()
}

#[test]
fn bench_counts_every_call_into_its_histogram_and_is_bounded_in_time() {
    let sb = sandbox(&json!({"demo": common::console_kit::demo()}));
    let r = bench_json(
        &sb,
        &[
            "bench", "demo", "add", "a=2", "b=40", "-n", "120", "-c", "4", "--json",
        ],
    );
    assert_eq!(
        (r["planned"].as_u64(), r["made"].as_u64(), r["ok"].as_u64()),
        (Some(120), Some(120), Some(120)),
        "{r:#}"
    );
    let in_buckets: u64 = r["histogram"]
        .as_array()
        .expect("histogram")
        .iter()
        .map(|b| b["count"].as_u64().expect("count"))
        .sum();
    assert_eq!(in_buckets, 120, "{r:#}");
    let (p50, p99, max) = (
        r["p50Ms"].as_f64().expect("p50"),
        r["p99Ms"].as_f64().expect("p99"),
        r["maxMs"].as_f64().expect("max"),
    );
    assert!(0.0 < p50 && p50 <= p99 && p99 <= max, "{r:#}");
    assert!(r["throughput"].as_f64() > Some(0.0));
    // No call starts after --max-seconds: 100 calls of about 0.6 s each cannot all run in 1 s.
    let r = bench_json(
        &sb,
        &[
            "bench",
            "demo",
            "long_task",
            "steps=2",
            "delay_ms=300",
            "-n",
            "100",
            "--max-seconds",
            "1",
            "--json",
        ],
    );
    let made = r["made"].as_u64().expect("made");
    assert!((1..=3).contains(&made), "{r:#}");
    let (_, text, _) = run(
        &sb,
        &["bench", "demo", "echo", "text=hi", "-n", "20", "-c", "2"],
    );
    assert!(
        text.starts_with("bench demo echo: 20 calls made of 20 (20 ok)"),
        "{text}"
    );
    assert!(
        text.contains("latency ms: p50 ") && text.contains('█') && text.contains("errors: none"),
        "{text}"
    );
}

#[test]
fn bench_refuses_a_tool_not_marked_read_only_and_uses_k_connections() {
    let Some(script) = npm_server("server-everything") else {
        return;
    };
    let sb = sandbox(&json!({"everything": {"command": "node", "args": [script, "stdio"]}}));
    let (code, out, err) = run(
        &sb,
        &["bench", "everything", "toggle-simulated-logging", "-n", "3"],
    );
    assert_eq!(code, Some(2), "{out}{err}");
    assert!(
        err.contains("not marked read-only") && err.contains("--yes"),
        "{err}"
    );
    let r = bench_json(
        &sb,
        &[
            "bench",
            "everything",
            "get-sum",
            "a=1",
            "b=2",
            "-n",
            "60",
            "-c",
            "3",
            "--connections",
            "2",
            "--json",
        ],
    );
    assert_eq!(
        (r["connections"].as_u64(), r["ok"].as_u64()),
        (Some(2), Some(60)),
        "{r:#}"
    );
}
