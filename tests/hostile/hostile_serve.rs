//! Hostile or unusual hosts of `mcpdeck serve`, on its real stdio: every answer is prompt and
//! no misleading message reaches stderr.

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
