//! Snapshots at 80×24, 120×40 and 40×15 of what the operator trial found: servers whose names
//! share a prefix in a narrow pane, an authorization refusal that names the sign-in key, and
//! the footer while a query is typed.

use serde_json::json;

use crossterm::event::KeyCode;

use super::tests::{draw, snapshot_all, tools_app};
use crate::app::Load;
use crate::app::auth::AuthState;
use crate::app::auth_tests::auth_app;
use crate::app::testkit::{app_with, ch, ctrl, key};

#[test]
fn servers_sharing_a_prefix() {
    let (mut app, _d) = app_with(&json!({
        "github-personal": {"command": "mcpdeck", "args": ["demo-server"]},
        "github-work": {"command": "mcpdeck", "args": ["demo-server"]},
        "fs": {"command": "mcpdeck", "args": ["demo-server"]},
    }));
    let narrow = draw(&app, 40, 15);
    assert!(
        narrow.contains("githu…onal") && narrow.contains("githu…work"),
        "{narrow}"
    );
    snapshot_all("servers_sharing_a_prefix", &mut app);
}

#[test]
fn an_authorization_refusal_names_the_sign_in_key() {
    let (mut app, _d) = auth_app(AuthState::SignedOut);
    let pane = app.panes.get_mut("web").expect("pane");
    pane.tools.catalog = Some(Load::Failed(
        "auth_required".to_owned(),
        "the server asks for OAuth sign-in (HTTP 401): run `mcpdeck auth login web`".to_owned(),
    ));
    app.focus = crate::app::Focus::Main;
    snapshot_all("auth_refusal_sign_in_key", &mut app);
}

fn footer(app: &crate::app::App) -> String {
    let screen = draw(app, 120, 40);
    screen.lines().last().unwrap_or_default().to_owned()
}

/// While the tool search is typed, `c` goes into the query and the footer says what the keys
/// do there, not `c call`.
#[test]
fn the_footer_in_a_search_shows_the_keys_that_work_there() {
    let (mut app, _d) = tools_app();
    app.focus = crate::app::Focus::Main;
    assert!(footer(&app).contains("c call tool"), "{}", footer(&app));
    app.update(ch('/'));
    app.update(ch('c'));
    let typing = footer(&app);
    assert!(typing.contains("type search tools"), "{typing}");
    assert!(typing.contains("Esc clear the search"), "{typing}");
    assert!(!typing.contains("c call tool"), "{typing}");
    assert!(
        app.pane()
            .and_then(|p| p.tools.search.as_ref())
            .is_some_and(|s| s.query == "c"),
        "c typed into the query"
    );
    snapshot_all("tool_search_typing", &mut app);
    app.update(key(KeyCode::Esc));
    assert!(!footer(&app).contains("type search tools"));
}

/// The search footer is the keymap's `tool_search` context: a key remapped there is the key the
/// footer names, and it does what the footer says; a filter's footer is its own context's.
#[test]
fn the_footer_in_a_query_comes_from_the_keymap() {
    let (mut app, _d) = tools_app();
    app.focus = crate::app::Focus::Main;
    let problems = app.keymap.apply(
        r#"tool_search = [{ keys = ["C-g"], action = "back", desc = "give up", hint = true }]"#,
    );
    assert!(problems.is_empty(), "{problems:?}");
    app.update(ch('/'));
    app.update(ch('x'));
    let typing = footer(&app);
    assert!(typing.contains("C-g give up"), "{typing}");
    assert!(!typing.contains("Esc clear the search"), "{typing}");
    app.update(ctrl('g'));
    assert!(
        app.pane().is_some_and(|p| p.tools.search.is_none()),
        "the remapped key cleared the search"
    );
    app.tab = crate::app::Tab::Resources;
    app.update(ch('/'));
    let filtering = footer(&app);
    assert!(filtering.contains("type filter"), "{filtering}");
    assert!(filtering.contains("Esc clear the filter"), "{filtering}");
}
