//! Where keys type text (the config editor, the call form and its raw twin), the footer's
//! overflow names the component's own help key (`F1`), and that key opens the box with the
//! component's keys over it, leaving what was typed alone. Snapshots at 80×24, 120×40 and 40×15.

use crossterm::event::KeyCode;

use super::tests::{draw, snapshot_all, tools_app};
use super::views_tests::editor_app;
use crate::app::testkit::{ch, ctrl, echo_description, key, ok};
use crate::app::{App, Overlay, Screen};

const EDITOR_TEXT: &str = "{\n  \"mcpServers\": {\n    \"demo\": {\"command\": \"mcpdeck\", \"args\": [\"demo-server\"]}\n  }\n}\n";

/// The call form for `echo`, `hi` typed into its field.
fn form_app() -> (App, tempfile::TempDir) {
    let (mut app, dir) = tools_app();
    let effects = app.update(key(KeyCode::Enter));
    let id = crate::app::testkit::agent_request_id(&effects);
    app.update(ok(id, "tools.describe", echo_description()));
    app.update(ch('c'));
    app.update(ch('h'));
    app.update(ch('i'));
    assert!(matches!(app.screen, Screen::Form(_)), "{:?}", app.screen);
    (app, dir)
}

/// The last row of a drawn screen: the footer.
fn footer(screen: &str) -> &str {
    screen.lines().last().unwrap_or_default()
}

fn field_value(app: &App) -> String {
    match &app.screen {
        Screen::Form(form) => form.fields[0].value.clone(),
        other => panic!("not a form: {other:?}"),
    }
}

fn editor_text(app: &App) -> String {
    match &app.overlay {
        Some(Overlay::Editor(editor)) => editor.text(),
        other => panic!("not the editor: {other:?}"),
    }
}

#[test]
fn form_footer_names_f1_when_hints_do_not_fit_and_question_mark_types() {
    let (mut app, _d) = form_app();
    app.size = (40, 15);
    let screen = draw(&app, 40, 15);
    assert!(footer(&screen).trim_end().ends_with("F1 more"), "{screen}");
    // Wide enough, every hint shows and F1 is one of them.
    app.size = (200, 50);
    let wide = draw(&app, 200, 50);
    assert!(footer(&wide).contains("F1 keys of the form"), "{wide}");
    assert!(!footer(&wide).contains("more"), "{wide}");
    // `?` is a character here.
    app.update(ch('?'));
    assert_eq!(field_value(&app), "hi?");
    assert!(app.overlay.is_none() && app.key_help.is_none());
}

#[test]
fn f1_in_the_form_shows_its_keys_and_esc_returns_to_what_was_typed() {
    let (mut app, _d) = form_app();
    app.update(key(KeyCode::F(1)));
    assert!(app.key_help.is_some());
    snapshot_all("form_keys", &mut app);
    let screen = draw(&app, 80, 24);
    assert!(screen.contains("Keys · call form"), "{screen}");
    assert!(screen.contains("run as a task (on/off)"), "{screen}");
    assert!(
        !screen.contains("config editor"),
        "only the form's keys: {screen}"
    );
    // Keys go to the box, not the field.
    app.update(ch('x'));
    app.update(key(KeyCode::Esc));
    assert!(app.key_help.is_none());
    assert!(
        matches!(app.screen, Screen::Form(_)),
        "Esc closed only the box"
    );
    assert_eq!(field_value(&app), "hi");
    // F1 toggles the box as well.
    app.update(key(KeyCode::F(1)));
    app.update(key(KeyCode::F(1)));
    assert!(app.key_help.is_none());
}

#[test]
fn f1_in_the_raw_form_shows_the_form_keys() {
    let (mut app, _d) = form_app();
    app.update(ctrl('e'));
    assert!(matches!(app.screen, Screen::Raw(_)), "{:?}", app.screen);
    app.size = (40, 15);
    let screen = draw(&app, 40, 15);
    assert!(footer(&screen).trim_end().ends_with("F1 more"), "{screen}");
    app.update(key(KeyCode::F(1)));
    let screen = draw(&app, 40, 15);
    assert!(screen.contains("Keys · call form"), "{screen}");
    app.update(key(KeyCode::Esc));
    assert!(matches!(app.screen, Screen::Raw(_)), "{:?}", app.screen);
}

#[test]
fn editor_footer_names_f1_and_f1_keeps_the_unsaved_text() {
    let (mut app, _d) = editor_app(EDITOR_TEXT);
    app.size = (40, 15);
    let screen = draw(&app, 40, 15);
    assert!(footer(&screen).trim_end().ends_with("F1 more"), "{screen}");
    app.update(ch('?'));
    let typed = editor_text(&app);
    assert!(typed.starts_with('?'), "`?` types in the editor: {typed}");
    app.update(key(KeyCode::F(1)));
    assert!(app.key_help.is_some());
    snapshot_all("config_editor_keys", &mut app);
    let screen = draw(&app, 80, 24);
    assert!(screen.contains("Keys · config editor"), "{screen}");
    assert!(screen.contains("test connect (unsaved)"), "{screen}");
    // A paste while the box is open does not type into the hidden editor.
    app.update(crate::app::Msg::Paste("pasted".to_owned()));
    app.update(ch('q'));
    assert!(app.key_help.is_none(), "q closes the box");
    assert_eq!(editor_text(&app), typed, "the editor kept its unsaved text");
}

#[test]
fn the_box_scrolls_to_its_last_line_and_no_further() {
    let (mut app, _d) = form_app();
    app.size = (40, 12);
    app.update(key(KeyCode::F(1)));
    let (lines, height) = app.key_help_lines();
    assert!(
        lines.len() > height,
        "the test needs a box that overflows: {} lines, {height} rows",
        lines.len()
    );
    let first = draw(&app, 40, 12);
    assert!(!first.contains("keys of the form"), "{first}");
    for _ in 0..50 {
        app.update(key(KeyCode::Down));
    }
    let end = draw(&app, 40, 12);
    assert!(end.contains("keys of the form"), "the last entry: {end}");
    // One step up shows a line again at once: the scroll stopped at the end.
    app.update(key(KeyCode::Up));
    let up = draw(&app, 40, 12);
    assert_ne!(up, end);
}

#[test]
fn f1_over_a_suggestion_list_lists_both_and_leaves_the_list_open() {
    use crate::app::form::{Form, Target};
    let (mut app, _d) = crate::app::testkit::demo_app();
    let schema = serde_json::json!({"type": "object", "properties": {
        "department": {"type": "string"}
    }});
    app.screen = Screen::Form(Form::new(
        "demo",
        Target::Prompt("completable-prompt".to_owned()),
        schema,
    ));
    app.update(key(KeyCode::Tab));
    assert!(app.completer.open.is_some(), "Tab opened the suggestions");
    app.update(key(KeyCode::F(1)));
    let screen = draw(&app, 120, 40);
    assert!(screen.contains("take the suggestion"), "{screen}");
    assert!(screen.contains("run as a task (on/off)"), "{screen}");
    app.update(key(KeyCode::Esc));
    assert!(app.key_help.is_none());
    assert!(app.completer.open.is_some(), "the list is still open");
}
