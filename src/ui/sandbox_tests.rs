//! Snapshots of a sandboxed server where the console shows its rules: the server header (a
//! definition's own sandbox, and the user's `projectSandbox` for a project server without one)
//! and the trust review, built from real configuration (`info::build`, the status report) at
//! fixed paths, at 80×24, 120×40 and 40×15.

use std::path::{Path, PathBuf};
use std::time::Instant;

use crossterm::event::KeyCode;

use super::tests::{draw, snapshot_all};
use crate::app::testkit::{ch, key};
use crate::app::{App, info};
use crate::mcp::config::{ConfigFile, ConfigSet, Layer, parse_file};
use crate::mcp::status::report;
use crate::mcp::trust::TrustStore;

fn file(layer: Layer, path: &str, text: &str) -> ConfigFile {
    let parsed = parse_file(text, Path::new(path), layer);
    assert!(parsed.diagnostics.is_empty(), "{:?}", parsed.diagnostics);
    ConfigFile {
        layer,
        path: PathBuf::from(path),
        present: true,
        diagnostics: parsed.diagnostics,
        entries: parsed.entries,
        project_sandbox: parsed.project_sandbox,
    }
}

/// An untrusted project with two stdio servers: `fetch` with its own sandbox, `files` under
/// the user's `projectSandbox`.
fn sandboxed_app() -> (App, tempfile::TempDir) {
    let user = file(
        Layer::User,
        "/home/op/.config/mcpdeck/mcp.json",
        r#"{"projectSandbox": "read-only-project", "mcpServers": {}}"#,
    );
    let project = file(
        Layer::Project,
        "/work/p/.mcp.json",
        r#"{"mcpServers": {
            "fetch": {"command": "uvx", "args": ["mcp-server-fetch==2025.4.7"],
                      "sandbox": {"preset": "no-network", "net": {"connect": [443]}}},
            "files": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem@2026.1.14", "."],
                      "cwd": "/work/p"}
        }}"#,
    );
    let config = ConfigSet::from_files(PathBuf::from("/work/p"), vec![user, project]);
    let dir = tempfile::tempdir().expect("tempdir");
    let store = TrustStore::load(dir.path().join("trust.json"));
    let status = report(&config, &store, &|_| false);
    let info = info::build(&config, &store);
    (App::new(&status, info, Instant::now()), dir)
}

#[test]
fn the_header_shows_a_servers_own_sandbox() {
    let (mut app, _d) = sandboxed_app();
    snapshot_all("sandbox_header_own", &mut app);
    let screen = draw(&app, 120, 40);
    assert!(
        screen.contains(" fetch · inert · stdio · roots: . · sandboxed: no-network · read / · write / · exec comm"),
        "{screen}"
    );
}

#[test]
fn the_header_shows_the_user_default() {
    let (mut app, _d) = sandboxed_app();
    app.update(key(KeyCode::Down));
    snapshot_all("sandbox_header_default", &mut app);
    let screen = draw(&app, 120, 40);
    assert!(
        screen
            .contains(" files · inert · stdio · roots: . · sandboxed: read-only-project · read . "),
        "{screen}"
    );
    // The Config tab has the rules whole, one to a line.
    app.update(ch('h'));
    snapshot_all("sandbox_config_tab", &mut app);
    let screen = draw(&app, 80, 24);
    for rule in [
        "sandboxed:",
        "  read .  ",
        "  net none  ",
        "  from your projectSandbox  ",
    ] {
        assert!(screen.contains(rule), "{rule} in {screen}");
    }
}

#[test]
fn the_trust_review_shows_each_servers_sandbox() {
    let (mut app, _d) = sandboxed_app();
    app.update(ch('t'));
    snapshot_all("sandbox_trust_review", &mut app);
    let screen = draw(&app, 120, 40);
    assert!(
        screen.contains("sandboxed: no-network · read / · write / · exec command, / · net tcp connect 443; bind none"),
        "{screen}"
    );
    assert!(
        screen.contains(
            "sandboxed: read-only-project · read . · write none · exec command · net none · from your projectSandbox"
        ),
        "{screen}"
    );
}
