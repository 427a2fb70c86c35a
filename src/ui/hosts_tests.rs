//! Snapshots of the Hosts view at 80×24, 120×40 and 40×15: a host's tab with the selected
//! server opened, a broken host's positioned diagnostics, the side-by-side tab, an input prompt
//! (masked) and an import preview.

use crossterm::event::KeyCode;

use super::tests::{SIZES, draw};
use crate::app::App;
use crate::app::Msg;
use crate::app::hosts::{HostsMsg, ImportPreview, ImportTo};
use crate::app::hosts_tests::hosts_app;
use crate::app::testkit::{ch, ctrl, key};
use crate::mcp::hosts::HostId;

fn snapshot_all(name: &str, app: &mut App) {
    for (w, h) in SIZES {
        app.size = (w, h);
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), draw(app, w, h));
    }
}

#[test]
fn hosts_claude_code_tab() {
    let (mut app, _d) = hosts_app("valid");
    app.update(key(KeyCode::Down));
    app.update(key(KeyCode::Down));
    snapshot_all("hosts_claude_code", &mut app);
}

#[test]
fn hosts_broken_cursor_tab() {
    let (mut app, _d) = hosts_app("broken");
    app.update(key(KeyCode::Right));
    snapshot_all("hosts_broken_cursor", &mut app);
}

#[test]
fn hosts_side_by_side() {
    let (mut app, _d) = hosts_app("valid");
    app.update(key(KeyCode::Left));
    app.update(key(KeyCode::Down));
    snapshot_all("hosts_side_by_side", &mut app);
}

#[test]
fn hosts_input_prompt_is_masked() {
    let (mut app, _d) = hosts_app("valid");
    app.update(key(KeyCode::Right));
    app.update(key(KeyCode::Right));
    app.update(ctrl('t'));
    for c in "abc".chars() {
        app.update(ch(c));
    }
    for (w, h) in SIZES {
        app.size = (w, h);
        let screen = draw(&app, w, h);
        assert!(!screen.contains("abc"), "{screen}");
        assert!(screen.contains("•••"), "{screen}");
    }
    snapshot_all("hosts_input_prompt", &mut app);
}

#[test]
fn hosts_import_preview() {
    let (mut app, _d) = hosts_app("valid");
    app.update(ch('i'));
    app.update(Msg::Hosts(HostsMsg::Planned(Ok(ImportPreview {
        host: HostId::ClaudeCode,
        server: "demo-copy".to_owned(),
        to: ImportTo::User,
        path: "/home/u/config/mcpdeck/mcp.json".to_owned(),
        lines: vec![
            "import from Claude Code into /home/u/config/mcpdeck/mcp.json (existing file)"
                .to_owned(),
            "  + demo-copy: {\"args\":[\"demo-server\"],\"command\":\"mcpdeck\"}".to_owned(),
        ],
        writes: true,
    }))));
    snapshot_all("hosts_import_preview", &mut app);
}

#[test]
fn sign_in_view_and_auth_line() {
    use crate::app::auth::{AuthMsg, AuthState};
    let (mut app, _d) = crate::app::auth_tests::auth_app(AuthState::SignedOut);
    // The Config tab's Auth line names the store (its path varies: no snapshot).
    app.focus = crate::app::Focus::Main;
    app.tab = crate::app::Tab::Config;
    let screen = draw(&app, 120, 40);
    assert!(
        screen.contains(
            "Auth: not signed in · grant authorization_code · store: file /home/u/.local/state/"
        ),
        "{screen}"
    );
    app.tab = crate::app::Tab::Tools;
    snapshot_all("auth_header", &mut app);
    app.update(ch('L'));
    app.update(Msg::Auth(AuthMsg::Url {
        server: "web".to_owned(),
        url: "https://as.example.com/authorize?response_type=code&client_id=mcpdeck-1&state=abc123&code_challenge=xyz&code_challenge_method=S256&resource=https%3A%2F%2Fmcp.example.com%2Fmcp".to_owned(),
    }));
    snapshot_all("auth_sign_in", &mut app);
}

#[test]
fn hosts_import_refused() {
    let (mut app, _d) = hosts_app("valid");
    app.update(ch('i'));
    let why = "not importing anything:\n  `demo-copy`: `args[1]` holds what looks like an \
               Anthropic API key written out; write it as a reference\n  `demo-copy`: \
               sandbox: unknown preset `tight`";
    app.update(Msg::Hosts(HostsMsg::Planned(Err(why.to_owned()))));
    snapshot_all("hosts_import_refused", &mut app);
}
