//! Interop: the official MCP Python SDK (pinned by `scripts/install-python-sdk`, installed into
//! the project-local `.venv/`) starts `mcpdeck workspace-server`, lists the four tools and calls
//! each. Without the venv the test says loudly that it was skipped.

#![allow(clippy::unwrap_used)]

use std::path::Path;

#[test]
fn the_python_sdk_lists_and_calls_every_tool() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let python = manifest.join(".venv/bin/python");
    if !python.exists() {
        eprintln!(
            "SKIPPED the_python_sdk_lists_and_calls_every_tool: no .venv; run scripts/install-python-sdk"
        );
        return;
    }
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(
        ws.path().join("README.md"),
        "# Guide\n\nConfiguration precedence works from user files to project files.\n",
    )
    .unwrap();
    let out = std::process::Command::new(python)
        .arg(manifest.join("tests/interop/workspace_client.py"))
        .arg(env!("CARGO_BIN_EXE_mcpdeck"))
        .arg(ws.path())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "python client failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let summary: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        summary["tools"],
        serde_json::json!([
            "workspace_find",
            "workspace_query",
            "workspace_check",
            "workspace_capsule"
        ])
    );
    for tool in [
        "workspace_find",
        "workspace_query",
        "workspace_check",
        "workspace_capsule",
    ] {
        assert_eq!(summary["statuses"][tool], "known", "{summary}");
    }
}
