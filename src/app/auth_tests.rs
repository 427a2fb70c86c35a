//! Sign-in in the console's state machine: the Auth line from the store's answer, `L` opening
//! the sign-in view and asking the runtime, the URL shown and copied, Esc cancelling, a finished
//! sign-in reconnecting, `O` signing out, a server refused for authorization shown as waiting
//! for sign-in (not "failed"), and a server that does not sign in saying so.

use std::collections::BTreeMap;

use crossterm::event::KeyCode;
use serde_json::json;

use super::auth::{AuthEffect, AuthInfo, AuthMsg, AuthState, ServerAuth};
use super::testkit::{app_with, ch, key};
use super::{App, Effect, Msg, Overlay};
use crate::mcp::proxy::ProxyRequest;
use crate::mcp::status::ServerState;

/// An app with an OAuth server `web` (selected) and a stdio server `local`, the store read.
pub fn auth_app(web: AuthState) -> (App, tempfile::TempDir) {
    let (mut app, dir) = app_with(&json!({
        "web": {"url": "https://mcp.example.com/mcp"},
        "local": {"command": "true"},
    }));
    app.servers.select_name("web");
    let info = AuthInfo {
        store: "file /home/u/.local/state/mcpdeck/credentials.json".to_owned(),
        servers: BTreeMap::from([(
            "web".to_owned(),
            ServerAuth {
                grant: "authorization_code",
                state: web,
            },
        )]),
    };
    app.update(Msg::Auth(AuthMsg::Status(Box::new(info))));
    (app, dir)
}

#[test]
fn the_auth_line_says_what_the_store_holds() {
    let (mut app, _d) = auth_app(AuthState::SignedIn {
        expires_at: Some(1_800_000_000),
        scopes: vec!["mcp:read".to_owned()],
        refreshable: true,
        issuer: Some("https://as.example.com".to_owned()),
        dpop_bound: false,
    });
    assert_eq!(
        app.auth_line("web").as_deref(),
        Some(
            "Auth: signed in, token until 2027-01-15 08:00 UTC, refreshable, scopes mcp:read, \
             bearer, issuer https://as.example.com · grant authorization_code"
        )
    );
    // A headless grant's DPoP-bound token says so, and which grant it came by.
    let info = AuthInfo {
        store: "file credentials.json".to_owned(),
        servers: BTreeMap::from([(
            "web".to_owned(),
            ServerAuth {
                grant: "client_credentials",
                state: AuthState::SignedIn {
                    expires_at: None,
                    scopes: Vec::new(),
                    refreshable: false,
                    issuer: None,
                    dpop_bound: true,
                },
            },
        )]),
    };
    app.update(Msg::Auth(AuthMsg::Status(Box::new(info))));
    assert_eq!(
        app.auth_line("web").as_deref(),
        Some("Auth: signed in, DPoP-bound · grant client_credentials")
    );
    assert_eq!(
        app.auth_line("local"),
        None,
        "stdio servers have no Auth line"
    );
}

#[test]
fn l_signs_in_shows_the_url_copies_it_and_esc_cancels() {
    let (mut app, _d) = auth_app(AuthState::SignedOut);
    let effects = app.update(ch('L'));
    assert_eq!(
        effects,
        [Effect::Auth(AuthEffect::SignIn("web".to_owned()))]
    );
    assert_eq!(app.state_label(app.server().expect("web")), "signing in");
    let url = "https://as.example.com/authorize?client_id=c&state=s";
    app.update(Msg::Auth(AuthMsg::Url {
        server: "web".to_owned(),
        url: url.to_owned(),
    }));
    assert!(matches!(&app.overlay, Some(Overlay::SignIn(v)) if v.url.as_deref() == Some(url)));
    assert_eq!(app.update(ch('y')), [Effect::Copy(url.to_owned())]);
    let effects = app.update(key(KeyCode::Esc));
    assert_eq!(
        effects,
        [Effect::Auth(AuthEffect::Cancel("web".to_owned()))]
    );
    assert!(app.overlay.is_none());
}

#[test]
fn a_finished_sign_in_refreshes_and_reconnects() {
    let (mut app, _d) = auth_app(AuthState::SignedOut);
    app.update(ch('L'));
    let effects = app.update(Msg::Auth(AuthMsg::SignedIn {
        server: "web".to_owned(),
        result: Ok("signed in to web".to_owned()),
    }));
    assert!(app.overlay.is_none());
    assert!(app.auth.signing_in.is_empty());
    assert!(effects.contains(&Effect::Auth(AuthEffect::Refresh)));
    assert!(effects.iter().any(|e| matches!(e,
        Effect::Engine { request: crate::mcp::EngineRequest::Agent(ProxyRequest::Reconnect { server }), .. } if server == "web")));
    // A failed sign-in reconnects nothing.
    app.update(ch('L'));
    let effects = app.update(Msg::Auth(AuthMsg::SignedIn {
        server: "web".to_owned(),
        result: Err("sign-in to web failed: refused".to_owned()),
    }));
    assert_eq!(effects, [Effect::Auth(AuthEffect::Refresh)]);
    assert!(
        app.message
            .as_deref()
            .is_some_and(|m| m.contains("refused"))
    );
}

#[test]
fn o_signs_out() {
    let (mut app, _d) = auth_app(AuthState::SignedIn {
        expires_at: None,
        scopes: Vec::new(),
        refreshable: false,
        issuer: None,
        dpop_bound: false,
    });
    assert_eq!(
        app.update(ch('O')),
        [Effect::Auth(AuthEffect::SignOut("web".to_owned()))]
    );
    let effects = app.update(Msg::Auth(AuthMsg::SignedOut {
        server: "web".to_owned(),
        result: Ok("signed out of web".to_owned()),
    }));
    assert_eq!(
        effects,
        [Effect::Auth(AuthEffect::Refresh)],
        "not connected: nothing to drop"
    );
}

#[test]
fn a_refused_server_waits_for_sign_in_instead_of_failing() {
    let (mut app, _d) = auth_app(AuthState::SignedOut);
    let row = app
        .servers
        .rows
        .iter_mut()
        .find(|s| s.name == "web")
        .expect("web");
    row.state = ServerState::Failed;
    row.error = Some(("auth_required".to_owned(), "sign in".to_owned()));
    let row = app.server().expect("web").clone();
    assert_eq!(app.state_label(&row), "sign-in needed");
    let local = app
        .servers
        .rows
        .iter()
        .find(|s| s.name == "local")
        .expect("local")
        .clone();
    assert_eq!(app.state_label(&local), local.state.label());
}

#[test]
fn servers_that_do_not_sign_in_say_so() {
    let (mut app, _d) = auth_app(AuthState::SignedOut);
    app.servers.select_name("local");
    assert!(app.update(ch('L')).is_empty());
    assert!(app.overlay.is_none());
    assert!(
        app.message
            .as_deref()
            .is_some_and(|m| m.contains("does not sign in with OAuth"))
    );
}

/// An authorization refusal in the console names the sign-in key, not the CLI command: in a
/// list that failed to load and in a result's error; a server without OAuth is left alone.
#[test]
fn an_authorization_error_says_to_press_the_sign_in_key() {
    use super::Load;
    let (mut app, _d) = auth_app(AuthState::SignedOut);
    let refused = "the server asks for OAuth sign-in (HTTP 401): run `mcpdeck auth login web`";
    assert_eq!(
        app.failure_words(Some("web"), "auth_required", refused),
        "the server asks for OAuth sign-in (HTTP 401); press L to sign in"
    );
    assert_eq!(
        app.failure_words(Some("web"), "auth_required", "HTTP 403: insufficient_scope"),
        "HTTP 403: insufficient_scope; press L to sign in"
    );
    assert_eq!(
        app.failure_words(Some("local"), "auth_required", "HTTP 401"),
        "HTTP 401",
        "a server without OAuth has no sign-in to offer"
    );
    assert_eq!(
        app.failure_words(Some("web"), "timeout", "no answer in 30 s"),
        "no answer in 30 s"
    );
    let pane = app.panes.get_mut("web").expect("pane");
    pane.tools.catalog = Some(Load::Failed("auth_required".to_owned(), refused.to_owned()));
    app.focus = super::Focus::Main;
    let screen = crate::ui::tests::draw(&app, 120, 40);
    assert!(screen.contains("press L to sign in"), "{screen}");
    assert!(!screen.contains("mcpdeck auth login"), "{screen}");
}

#[test]
fn the_sign_in_view_copies_its_url_and_closing_it_cancels_the_sign_in() {
    use crate::app::auth::SignInView;
    use crate::app::component::Component as _;
    use crate::app::keymap::Action;
    use crate::app::overlays::Asks;
    let view = SignInView {
        server: "web".to_owned(),
        url: Some("http://127.0.0.1/a".to_owned()),
    };
    let step = view.clone().update(Action::Copy, &());
    assert_eq!(step.next.as_ref(), Some(&view), "copying leaves it open");
    assert_eq!(
        step.out,
        Some(Asks::from(Effect::Copy("http://127.0.0.1/a".into())))
    );
    let waiting = SignInView {
        url: None,
        ..view.clone()
    };
    let step = waiting.update(Action::Copy, &());
    assert_eq!(
        step.out,
        Some(Asks::default()),
        "no URL yet, nothing copied"
    );
    let step = view.update(Action::Back, &());
    assert!(step.next.is_none());
    let mut cancelled = Asks::said("sign-in cancelled");
    cancelled
        .effects
        .push(Effect::Auth(AuthEffect::Cancel("web".to_owned())));
    assert_eq!(step.out, Some(cancelled));
}
