//! The workspace server's bounds, through the real binary over raw stdio lines: an over-long
//! input line refuses only its own request, `--max-files` admits a bounded part of a workspace
//! and every answer says so (`coverage`), `workspace_check` checks a file named twice once,
//! literal credentials of an MCP config file never appear in quoting tools, and a file changed,
//! added or deleted between calls is seen by the next one. Every read is bounded
//! by the child's own output; nothing synchronises on a sleep.

#![allow(
    clippy::unwrap_used,
    clippy::needless_pass_by_value,
    clippy::cast_precision_loss
)]

use std::io::{BufRead as _, BufReader, Write as _};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{Value, json};

const ALIAS: &str = "ws";
const HIDDEN: &str = "«literal secret hidden»";

fn write(root: &Path, rel: &str, content: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, content).unwrap();
}

/// A workspace server spoken to line by line.
struct Raw {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
    next_id: u64,
}

impl Raw {
    fn start(root: &Path, extra: &[&str]) -> Self {
        Self::start_binary(env!("CARGO_BIN_EXE_mcpdeck").as_ref(), root, extra)
    }

    fn start_binary(binary: &Path, root: &Path, extra: &[&str]) -> Self {
        let mut child = Command::new(binary)
            .args(["workspace-server", "--workspace", ALIAS])
            .arg(root)
            .args(extra)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let mut raw = Self {
            child,
            stdin,
            stdout,
            next_id: 1,
        };
        let init = raw.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {},
                   "clientInfo": {"name": "bounds", "version": "1"}}),
        );
        assert_eq!(init["result"]["serverInfo"]["name"], "mcpdeck-workspace");
        raw.send_line(
            &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string(),
        );
        raw
    }

    fn send_line(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(line.as_bytes()).unwrap();
        stdin.write_all(b"\n").unwrap();
        stdin.flush().unwrap();
    }

    /// The next line the server writes, as JSON.
    fn read(&mut self) -> Value {
        let mut line = String::new();
        let n = self.stdout.read_line(&mut line).unwrap();
        assert!(n > 0, "the server closed stdout");
        serde_json::from_str(&line).unwrap()
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.send_line(&line.to_string());
        let answer = self.read();
        assert_eq!(answer["id"], id, "{answer}");
        answer
    }

    /// The envelope of one tool call.
    fn call(&mut self, tool: &str, args: Value) -> Value {
        let answer = self.request("tools/call", json!({"name": tool, "arguments": args}));
        answer["result"]["structuredContent"].clone()
    }

    /// Closes stdin and returns (exit success, stderr).
    fn finish(mut self) -> (bool, String) {
        drop(self.stdin.take());
        let out = self.child.wait_with_output().unwrap();
        (out.status.success(), String::from_utf8(out.stderr).unwrap())
    }
}

#[test]
fn an_over_long_line_refuses_that_request_and_the_server_goes_on() {
    let ws = tempfile::tempdir().unwrap();
    write(
        ws.path(),
        "README.md",
        "# Guide\n\nConfiguration precedence.\n",
    );
    let mut raw = Raw::start(ws.path(), &[]);
    // The id comes after 70,000 bytes of arguments: it is found while the line streams past.
    let pad = "x".repeat(70_000);
    raw.send_line(&format!(
        "{{\"jsonrpc\":\"2.0\",\"method\":\"tools/call\",\"params\":{{\"name\":\"workspace_find\",\
         \"arguments\":{{\"workspace\":\"{ALIAS}\",\"question\":\"{pad}\"}}}},\"id\":41}}"
    ));
    let refused = raw.read();
    assert_eq!(refused["id"], 41, "{refused}");
    assert_eq!(refused["error"]["code"], -32600);
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("65536"),
        "{refused}"
    );
    // A line without a usable id gets an error with a null id; the next request is served.
    raw.send_line(&format!("{{\"pad\":\"{pad}\"}}"));
    assert!(raw.read()["id"].is_null());
    let answer = raw.call(
        "workspace_find",
        json!({"workspace": ALIAS, "question": "configuration precedence"}),
    );
    assert_eq!(answer["status"], "known", "{answer}");
    let (ok, stderr) = raw.finish();
    assert!(ok, "a refused line does not stop the server: {stderr}");
    assert_eq!(
        stderr
            .matches(r#"{"event":"frame_too_large","limit_bytes":65536}"#)
            .count(),
        2,
        "{stderr}"
    );
}

#[test]
fn max_files_bounds_the_index_and_every_answer_says_so() {
    let ws = tempfile::tempdir().unwrap();
    for name in ["a", "b", "c", "d", "e"] {
        write(
            ws.path(),
            &format!("{name}.md"),
            &format!("# Note {name}\n\nConfiguration precedence note {name}.\n"),
        );
    }
    let mut raw = Raw::start(ws.path(), &["--max-files", "3"]);
    let cut = json!({"admitted": 3, "skipped_over_limit": 2, "max_files": 3, "complete": false});
    let calls = [
        (
            "workspace_find",
            json!({"workspace": ALIAS, "question": "configuration precedence"}),
        ),
        ("workspace_query", json!({"workspace": ALIAS, "text": "*"})),
        ("workspace_check", json!({"workspace": ALIAS})),
        (
            "workspace_capsule",
            json!({"workspace": ALIAS, "question": "configuration precedence"}),
        ),
        // No match is still an answer about the (cut) workspace.
        (
            "workspace_find",
            json!({"workspace": ALIAS, "question": "zzunmatched"}),
        ),
    ];
    for (tool, args) in calls {
        let envelope = raw.call(tool, args);
        assert_eq!(envelope["coverage"], cut, "{tool}: {envelope}");
    }
    // The files kept are the first in walk order (names sorted), never the others.
    let all = raw.call("workspace_query", json!({"workspace": ALIAS, "text": "*"}));
    let paths: Vec<&str> = all["result"]["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["a.md", "b.md", "c.md"]);
    // Invalid arguments are refused before any indexing: no coverage to report.
    let refused = raw.call("workspace_find", json!({"workspace": ALIAS}));
    assert_eq!(refused["status"], "refused");
    assert!(refused.get("coverage").is_none(), "{refused}");
    assert!(raw.finish().0);

    let mut whole = Raw::start(ws.path(), &[]);
    let envelope = whole.call("workspace_query", json!({"workspace": ALIAS, "text": "*"}));
    assert_eq!(
        envelope["coverage"],
        json!({"admitted": 5, "skipped_over_limit": 0, "max_files": 50_000, "complete": true})
    );
    assert!(whole.finish().0);
}

#[test]
fn max_files_outside_its_range_is_a_usage_error() {
    let ws = tempfile::tempdir().unwrap();
    for bad in ["0", "200001", "many"] {
        let out = Command::new(env!("CARGO_BIN_EXE_mcpdeck"))
            .args(["workspace-server", "--workspace", ALIAS])
            .arg(ws.path())
            .args(["--max-files", bad])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{bad}: a usage error");
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn check_names_a_file_once_however_it_is_spelled() {
    let ws = tempfile::tempdir().unwrap();
    write(ws.path(), "README.md", "See [gone](gone.md).\n");
    write(ws.path(), "docs/a.json", "{\"a\": 1,}\n");
    let mut raw = Raw::start(ws.path(), &[]);
    let envelope = raw.call(
        "workspace_check",
        json!({"workspace": ALIAS, "paths": [
            "README.md", "./README.md", ".//README.md", "docs/a.json", "./docs//a.json",
            "missing.md", "./missing.md", "../README.md"
        ]}),
    );
    let result = &envelope["result"];
    assert_eq!(result["files_checked"], 2, "{envelope}");
    // `missing.md` (twice) and `../README.md` (outside the root).
    assert_eq!(result["paths_not_checked"], 2, "{envelope}");
    let findings = result["findings"].as_array().unwrap();
    assert_eq!(
        findings.len(),
        2,
        "one finding per file, not per spelling: {envelope}"
    );
    assert!(raw.finish().0);
}

#[test]
fn literal_credentials_of_an_mcp_config_never_appear_in_quoting_tools() {
    let ws = tempfile::tempdir().unwrap();
    let config = r#"{
  "mcpServers": {
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github@1.0.0"],
      "env": {"GITHUB_TOKEN": "zqxghpliteral", "LOG_LEVEL": "debug", "API_KEY": "${API_KEY}"}
    },
    "remote": {
      "url": "https://me:zqxurlpassword@example.test/mcp?api_key=zqxquerykey",
      "headers": {"Authorization": "Bearer zqxbearer"}
    }
  }
}
"#;
    write(ws.path(), ".mcp.json", config);
    let mut raw = Raw::start(ws.path(), &[]);
    let outputs = [
        raw.call(
            "workspace_find",
            json!({"workspace": ALIAS, "question": "github token remote url authorization headers"}),
        ),
        raw.call(
            "workspace_query",
            json!({"workspace": ALIAS, "text": "GITHUB_TOKEN", "snippet_chars": 1000}),
        ),
        raw.call(
            "workspace_query",
            json!({"workspace": ALIAS, "text": "Authorization", "snippet_chars": 1000}),
        ),
        raw.call(
            "workspace_capsule",
            json!({"workspace": ALIAS, "question": "github token remote url authorization"}),
        ),
    ];
    for envelope in &outputs {
        assert_eq!(envelope["status"], "known", "{envelope}");
        let text = envelope.to_string();
        assert!(!text.contains("zqx"), "a literal credential leaked: {text}");
    }
    let find = outputs[0].to_string();
    assert!(find.contains(HIDDEN), "{find}");
    assert!(
        find.contains("${API_KEY}"),
        "references are names, kept: {find}"
    );
    assert!(find.contains("LOG_LEVEL"), "{find}");
    assert!(outputs[1].to_string().contains(HIDDEN));
    assert!(outputs[2].to_string().contains(HIDDEN));
    // The hidden value is not indexed either.
    let probe = raw.call(
        "workspace_query",
        json!({"workspace": ALIAS, "text": "zqxghpliteral"}),
    );
    assert_eq!(probe["status"], "unknown", "{probe}");
    // `workspace_check` still diagnoses the file as written: the literal credentials are found
    // at their own lines.
    let check = raw.call(
        "workspace_check",
        json!({"workspace": ALIAS, "strict": true}),
    );
    let lines: Vec<u64> = check["result"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["code"] == "literal_credential")
        .map(|f| f["line"].as_u64().unwrap())
        .collect();
    assert!(lines.contains(&6), "{check}");
    assert!(!check.to_string().contains("zqx"), "{check}");
    assert!(raw.finish().0);
}

/// Dates every file and directory under `root` (and `root`) an hour back, as a settled
/// checkout is: the server then relies on change notification between calls instead of
/// walking again (stamps this close to a walk are never trusted).
fn settle(root: &Path) {
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let file = std::fs::File::options().write(true).open(&path).unwrap();
                file.set_modified(old).unwrap();
            }
        }
        std::fs::File::open(&dir)
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
}

/// The paths `workspace_query` matches with `*`.
fn all_paths(raw: &mut Raw) -> Vec<String> {
    let all = raw.call("workspace_query", json!({"workspace": ALIAS, "text": "*"}));
    all["result"]["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["path"].as_str().unwrap().to_owned())
        .collect()
}

/// A file changed, added or deleted after a call is seen by the very next call. Nothing waits:
/// the kernel queues the change notification while the write is made, and the next call reads
/// what is queued before it answers.
#[test]
fn a_changed_added_and_deleted_file_are_seen_by_the_next_call() {
    let ws = tempfile::tempdir().unwrap();
    write(ws.path(), "docs/a.md", "# A\n\nThe alpha note.\n");
    write(ws.path(), "docs/b.md", "# B\n\nThe bravo note.\n");
    settle(ws.path());
    let mut raw = Raw::start(ws.path(), &[]);
    let find = |raw: &mut Raw, word: &str| {
        let e = raw.call(
            "workspace_find",
            json!({"workspace": ALIAS, "question": word}),
        );
        e["result"]["passages"]
            .as_array()
            .map_or_else(Vec::<String>::new, |p| {
                p.iter()
                    .map(|p| p["path"].as_str().unwrap().to_owned())
                    .collect()
            })
    };
    assert_eq!(all_paths(&mut raw), ["docs/a.md", "docs/b.md"]);
    assert!(find(&mut raw, "zulu").is_empty());

    std::fs::write(ws.path().join("docs/a.md"), "# A\n\nThe zulu note now.\n").unwrap();
    assert_eq!(find(&mut raw, "zulu"), ["docs/a.md"], "the changed file");
    std::fs::write(ws.path().join("docs/c.md"), "# C\n\nThe charlie note.\n").unwrap();
    assert_eq!(find(&mut raw, "charlie"), ["docs/c.md"], "the added file");
    std::fs::remove_file(ws.path().join("docs/b.md")).unwrap();
    assert!(find(&mut raw, "bravo").is_empty(), "the deleted file");
    assert_eq!(all_paths(&mut raw), ["docs/a.md", "docs/c.md"]);
    // A new directory is walked again and seen too.
    write(ws.path(), "more/d.md", "# D\n\nThe delta note.\n");
    assert_eq!(find(&mut raw, "delta"), ["more/d.md"]);
    assert!(raw.finish().0);
}

/// Peak resident memory of a process, from `/proc/<pid>/status` (`VmHWM`), in KiB.
fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

/// The measurement behind the README's workspace figures: 100,000 small files (override with
/// `WORKSPACE_SCALE_FILES`), indexed with `--max-files` at least that many. Prints the first
/// answer's time, the slowest later answer and the server's peak RSS; asserts only that every
/// answer is whole. `cargo test --test workspace workspace_bounds:: -- --ignored --nocapture`; set
/// `WORKSPACE_SCALE_BIN` to measure another build of `mcpdeck` (a release binary).
#[test]
#[ignore = "a measurement: writes 100,000 files and prints figures"]
fn measure_a_hundred_thousand_small_files() {
    use std::time::{Duration, Instant, SystemTime};
    let files: usize = std::env::var("WORKSPACE_SCALE_FILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000);
    let ws = tempfile::tempdir().unwrap();
    let old = SystemTime::now() - Duration::from_secs(3600);
    for d in 0..files.div_ceil(100) {
        let dir = ws.path().join(format!("d{d:04}"));
        std::fs::create_dir_all(&dir).unwrap();
        for f in 0..100.min(files - d * 100) {
            let i = d * 100 + f;
            let path = dir.join(format!("n{f:02}.md"));
            std::fs::write(
                &path,
                format!(
                    "# Note {i}\n\nThis note describes topic {i} and module {m}. Configuration \
                     for component {m} lives beside it.\n\n## Details\n\nEach component has \
                     settings, defaults and a history of changes number {i}.\n\nSee [next](n{n:02}.md).\n",
                    m = i % 97,
                    n = (f + 1) % 100,
                ),
            )
            .unwrap();
            std::fs::File::options()
                .write(true)
                .open(&path)
                .unwrap()
                .set_modified(old)
                .unwrap();
        }
        std::fs::File::open(&dir)
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    std::fs::File::open(ws.path())
        .unwrap()
        .set_modified(old)
        .unwrap();
    let limit = files.max(1).to_string();
    let binary = std::env::var_os("WORKSPACE_SCALE_BIN").map_or_else(
        || env!("CARGO_BIN_EXE_mcpdeck").into(),
        std::path::PathBuf::from,
    );
    let mut raw = Raw::start_binary(&binary, ws.path(), &["--max-files", &limit]);
    let pid = raw.child.id();
    let find = json!({"workspace": ALIAS, "question": "configuration for component 42"});
    let t = Instant::now();
    let first = raw.call("workspace_find", find.clone());
    let first_time = t.elapsed();
    assert_eq!(first["status"], "known");
    assert_eq!(first["coverage"]["admitted"], files);
    let mut later = Duration::ZERO;
    let mut each = Vec::new();
    for (tool, args) in [
        ("workspace_find", find.clone()),
        ("workspace_capsule", find.clone()),
        (
            "workspace_query",
            json!({"workspace": ALIAS, "text": "component 42", "limit": 20}),
        ),
        ("workspace_find", find),
    ] {
        let t = Instant::now();
        let e = raw.call(tool, args);
        later = later.max(t.elapsed());
        each.push(format!("{tool} {} ms", t.elapsed().as_millis()));
        assert_eq!(e["status"], "known", "{tool}");
    }
    let peak = peak_rss_kib(pid);
    assert!(raw.finish().0);
    println!(
        "workspace of {files} files: first answer {:.2} s, later answers ≤ {} ms, peak RSS {:.1} MiB ({})",
        first_time.as_secs_f64(),
        later.as_millis(),
        peak as f64 / 1024.0,
        if std::env::var_os("WORKSPACE_SCALE_BIN").is_some() {
            "the binary in WORKSPACE_SCALE_BIN"
        } else if cfg!(debug_assertions) {
            "debug build"
        } else {
            "release build"
        }
    );
    println!("later answers: {}", each.join(", "));
}
