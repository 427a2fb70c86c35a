//! Completion in the call form: Tab asks with the filled arguments as context, the list picks
//! and takes a suggestion, typing asks again only after a pause, stale and refused answers.

use crate::mcp::connection::ErrorClass;
use std::collections::BTreeMap;
use std::time::Duration;

use crossterm::event::KeyCode;
use serde_json::json;

use super::completion::DEBOUNCE;
use super::form::{Form, Target};
use super::keymap::Ctx;
use super::testkit::{ch, demo_app, failed, key, ok};
use super::{App, Effect, Load, Screen};
use crate::mcp::engine::{CompletionTarget, EngineRequest, OperatorOp};

/// The demo app with a prompt form of two completable arguments in front.
fn prompt_form() -> (App, tempfile::TempDir) {
    let (mut app, dir) = demo_app();
    let schema = json!({"type": "object", "required": ["department", "name"], "properties": {
        "department": {"type": "string"},
        "name": {"type": "string"}
    }});
    app.screen = Screen::Form(Form::new(
        "demo",
        Target::Prompt("completable-prompt".to_owned()),
        schema,
    ));
    (app, dir)
}

fn form(app: &App) -> &Form {
    let Screen::Form(form) = &app.screen else {
        panic!("no form in front: {:?}", app.screen);
    };
    form
}

/// The one completion ask among `effects`: (id, argument, value, context).
fn asked(effects: &[Effect]) -> (u64, String, String, BTreeMap<String, String>) {
    let asks: Vec<_> = effects
        .iter()
        .filter_map(|e| match e {
            Effect::Engine {
                id,
                request:
                    EngineRequest::Operator {
                        server,
                        op:
                            OperatorOp::Complete {
                                target,
                                argument,
                                value,
                                context,
                            },
                    },
            } => {
                assert_eq!(server, "demo");
                assert_eq!(
                    target,
                    &CompletionTarget::Prompt("completable-prompt".to_owned())
                );
                Some((*id, argument.clone(), value.clone(), context.clone()))
            }
            _ => None,
        })
        .collect();
    let [one] = &asks[..] else {
        panic!("expected one completion ask: {effects:?}");
    };
    one.clone()
}

fn suggestions(id: u64, values: &[&str]) -> super::Msg {
    ok(
        id,
        "completion.complete",
        json!({"argument": "x", "values": values, "total": null, "hasMore": false}),
    )
}

#[test]
fn tab_asks_with_the_filled_arguments_and_takes_the_picked_suggestion() {
    let (mut app, _d) = prompt_form();
    // department is filled; the focus moves to name (Down), where Tab asks.
    for c in "Engineering".chars() {
        app.update(ch(c));
    }
    app.update(key(KeyCode::Down));
    let (id, argument, value, context) = asked(&app.update(key(KeyCode::Tab)));
    assert_eq!(argument, "name");
    assert_eq!(value, "");
    assert_eq!(
        context,
        BTreeMap::from([("department".to_owned(), "Engineering".to_owned())])
    );
    assert_eq!(app.contexts()[0], Ctx::Completion);
    app.update(suggestions(id, &["Alice", "Bob", "Charlie"]));
    app.update(key(KeyCode::Down));
    app.update(key(KeyCode::Tab));
    assert_eq!(form(&app).fields[1].value, "Bob");
    assert!(
        app.completer.open.is_none(),
        "taking a suggestion closes the list"
    );
    assert_eq!(app.contexts(), vec![Ctx::Form]);
}

#[test]
fn typing_asks_again_only_after_a_pause_and_drops_stale_answers() {
    let (mut app, _d) = prompt_form();
    let (first, ..) = asked(&app.update(key(KeyCode::Tab)));
    app.update(ch('S'));
    assert!(app.animating(), "a debounced ask keeps the clock ticking");
    app.now += DEBOUNCE / 2;
    let fx = app.update(super::Msg::Tick);
    assert!(
        !fx.iter().any(|e| matches!(
            e,
            Effect::Engine {
                request: EngineRequest::Operator { .. },
                ..
            }
        )),
        "no ask before the pause: {fx:?}"
    );
    app.update(ch('a'));
    app.now += DEBOUNCE.saturating_sub(Duration::from_millis(1));
    assert!(
        !app.update(super::Msg::Tick).iter().any(|e| matches!(
            e,
            Effect::Engine {
                request: EngineRequest::Operator { .. },
                ..
            }
        )),
        "each key restarts the pause"
    );
    app.now += Duration::from_millis(2);
    let (second, argument, value, _) = asked(&app.update(super::Msg::Tick));
    assert_eq!((argument.as_str(), value.as_str()), ("department", "Sa"));
    assert!(!app.animating());
    // The first answer arrives late: dropped.
    app.update(suggestions(first, &["Engineering"]));
    assert!(matches!(
        app.completer.open.as_ref().map(|l| &l.load),
        Some(Load::Loading(id)) if *id == second
    ));
    app.update(suggestions(second, &["Sales"]));
    app.update(key(KeyCode::Enter));
    assert_eq!(form(&app).fields[0].value, "Sales");
    assert!(matches!(app.screen, Screen::Form(_)), "Enter took, not ran");
}

#[test]
fn esc_closes_the_list_and_a_second_esc_leaves_the_form() {
    let (mut app, _d) = prompt_form();
    let (id, ..) = asked(&app.update(key(KeyCode::Tab)));
    app.update(suggestions(id, &["Engineering", "Sales"]));
    app.update(key(KeyCode::Esc));
    assert!(app.completer.open.is_none());
    assert!(matches!(app.screen, Screen::Form(_)));
    assert_eq!(form(&app).fields[0].value, "", "closing takes nothing");
    app.update(key(KeyCode::Esc));
    assert!(!matches!(app.screen, Screen::Form(_)));
}

#[test]
fn a_server_without_completions_is_remembered_and_tab_moves_on() {
    let (mut app, _d) = prompt_form();
    let (id, ..) = asked(&app.update(key(KeyCode::Tab)));
    app.update(failed(
        id,
        "completion.complete",
        ErrorClass::NotSupported,
        "demo does not offer completions",
    ));
    assert!(app.completer.open.is_none());
    assert_eq!(form(&app).focus, 1, "the refused Tab still moves on");
    assert!(
        app.message
            .as_deref()
            .is_some_and(|m| m.contains("no completions"))
    );
    let fx = app.update(key(KeyCode::Tab));
    assert!(fx.is_empty(), "no second ask: {fx:?}");
    assert_eq!(form(&app).focus, 0);
}

#[test]
fn a_failed_ask_shows_in_the_list() {
    let (mut app, _d) = prompt_form();
    let (id, ..) = asked(&app.update(key(KeyCode::Tab)));
    app.update(failed(
        id,
        "completion.complete",
        ErrorClass::ServerError { code: -32603 },
        "boom",
    ));
    assert!(matches!(
        app.completer.open.as_ref().map(|l| &l.load),
        Some(Load::Failed(class, _)) if class == "server_error"
    ));
}

#[test]
fn a_tool_form_keeps_tab_as_next_field() {
    let (mut app, _d) = demo_app();
    let schema =
        json!({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}}});
    app.screen = Screen::Form(Form::new("demo", Target::Tool("t".to_owned()), schema));
    let fx = app.update(key(KeyCode::Tab));
    assert!(fx.is_empty(), "{fx:?}");
    assert_eq!(form(&app).focus, 1);
    assert!(app.completer.open.is_none());
}
