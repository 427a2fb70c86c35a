//! An external client: the official MCP Python SDK (pinned, in the project-local `.venv/`
//! that `scripts/install-python-sdk` creates) lists and calls the `mcp` tool of
//! `mcpdeck serve`. Skipped, saying so, when the virtualenv is missing.

use crate::common;

use std::path::Path;

use common::{Sandbox, fixture};
use serde_json::{Value, json};

#[test]
fn the_python_sdk_lists_and_calls_the_mcp_tool() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = root.join(".venv/bin/python");
    if !python.exists() {
        eprintln!("SKIPPED: run scripts/install-python-sdk for the Python SDK interop test");
        return;
    }
    let sb = Sandbox::new();
    let config = sb.write(
        "extra/servers.json",
        &json!({"mcpServers": {"fx": {"command": fixture(), "args": ["stdio"]}}}).to_string(),
    );
    let out = std::process::Command::new(python)
        .arg(root.join("tests/python/serve_client.py"))
        .arg(env!("CARGO_BIN_EXE_mcpdeck"))
        .arg(&sb.project)
        .arg(&config)
        .env("XDG_CONFIG_HOME", &sb.home)
        .env("HOME", sb.dir.path())
        .output()
        .expect("python runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let seen: Value = serde_json::from_slice(&out.stdout).expect("one JSON line");
    assert_eq!(seen["server"], "mcpdeck");
    assert_eq!(seen["tools"], json!(["mcp"]));
    assert_eq!(seen["closed"], json!(false));
    assert!(
        seen["status"]
            .as_str()
            .expect("status")
            .contains("fx [disconnected]"),
        "{seen}"
    );
    assert!(
        seen["listing"]
            .as_str()
            .expect("listing")
            .contains("- echo"),
        "{seen}"
    );
    assert_eq!(seen["echo"], "from python");
    assert_eq!(seen["echo_structured"]["status"], "ok");
    assert_eq!(seen["bad_is_error"], true);
}
