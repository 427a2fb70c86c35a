//! `update` tests of result folding (`z`, `Z`, copy of the open JSON) and of the whole-description
//! key in a tool's detail (`f`).

use super::ResultScreen;
use crossterm::event::KeyCode;
use serde_json::json;

use super::testkit::{agent_request_id as first_execute, ch, demo_app, key, ok, tools_result};
use super::{App, Effect, Screen};

/// The echo form, run, answered with `structured`.
fn result_with(structured: &serde_json::Value) -> (App, tempfile::TempDir) {
    let (mut app, dir) = demo_app();
    let id = first_execute(&app.update(key(KeyCode::Enter)));
    app.update(ok(id, "tools.list", tools_result()));
    let id = first_execute(&app.update(ch('c')));
    app.update(ok(id, "tools.describe", super::testkit::echo_description()));
    app.update(ch('x'));
    let id = first_execute(&app.update(key(KeyCode::Enter)));
    app.update(ok(
        id,
        "tools.call echo",
        json!({"isError": false, "text": "x", "structuredContent": structured.clone()}),
    ));
    (app, dir)
}

fn lines(app: &App) -> Vec<String> {
    let Screen::Result(ResultScreen { view, .. }) = &app.screen else {
        panic!("{:?}", app.screen)
    };
    view.lines.clone()
}

#[test]
fn z_folds_the_container_under_the_cursor_and_copy_keeps_it_whole() {
    let (mut app, _d) = result_with(&json!({"a": {"b": 1, "c": [1, 2, 3]}, "d": "e"}));
    let open = lines(&app);
    let at = open
        .iter()
        .position(|l| l.contains("▾ \"a\": {"))
        .expect("the a line");
    // The cursor starts on the first line that folds: the root.
    let root = open.iter().position(|l| l.starts_with('▾')).expect("root");
    app.update(ch('z'));
    assert_eq!(lines(&app)[root], "▸ {… 2 keys}");
    app.update(ch('z'));
    assert_eq!(lines(&app), open);
    for _ in root..at {
        app.update(key(KeyCode::Down));
    }
    app.update(ch('z'));
    let folded = lines(&app);
    assert_eq!(folded[at], "  ▸ \"a\": {… 2 keys},");
    assert_eq!(folded.len(), open.len() - 7);
    // Copying takes the whole JSON, without markers, however it is folded.
    let [Effect::Copy(text)] = &app.update(ch('y'))[..] else {
        panic!("a copy")
    };
    assert!(
        text.contains("\"c\": [") && !text.contains('▾') && !text.contains('▸'),
        "{text}"
    );
    app.update(ch('z'));
    assert_eq!(lines(&app), open);
    // Z folds everything below the root, and again opens everything.
    app.update(ch('Z'));
    assert!(lines(&app).iter().any(|l| l.contains("▸ \"a\"")));
    assert!(lines(&app).len() < open.len());
    app.update(ch('Z'));
    assert_eq!(lines(&app), open);
    // On a value inside `c`, z folds `c` (its container) and puts the cursor on it.
    let value = open
        .iter()
        .position(|l| l.trim() == "2,")
        .expect("a value of c");
    let c = open
        .iter()
        .position(|l| l.contains("▾ \"c\": ["))
        .expect("c");
    for _ in at..value {
        app.update(key(KeyCode::Down));
    }
    app.update(ch('z'));
    assert_eq!(lines(&app)[c], "    ▸ \"c\": [… 3 items]");
    let Screen::Result(ResultScreen { view, .. }) = &app.screen else {
        panic!()
    };
    assert_eq!(view.cursor, c);
}

#[test]
fn f_shows_the_whole_description_beyond_2_kib() {
    let (mut app, _d) = demo_app();
    let id = first_execute(&app.update(key(KeyCode::Enter)));
    app.update(ok(id, "tools.list", tools_result()));
    let id = first_execute(&app.update(key(KeyCode::Enter)));
    let long = format!("{}END", "word ".repeat(1000));
    app.update(ok(
        id,
        "tools.describe",
        json!({"name": "echo", "description": long, "inputSchema": {"type": "object"}}),
    ));
    let Screen::Detail(d) = &app.screen else {
        panic!("{:?}", app.screen)
    };
    let super::Load::Ready(desc) = &d.load else {
        panic!("described")
    };
    let capped = desc.description.as_deref().unwrap_or_default();
    assert!(
        !capped.contains("END") && capped.contains("more bytes"),
        "{capped}"
    );
    assert!(
        d.full_description
            .as_deref()
            .is_some_and(|f| f.ends_with("END"))
    );
    assert!(!d.show_full);
    app.update(ch('f'));
    assert!(matches!(&app.screen, Screen::Detail(d) if d.show_full));
    app.update(ch('f'));
    assert!(matches!(&app.screen, Screen::Detail(d) if !d.show_full));
}

#[test]
fn v_filters_the_log_between_traffic_and_notifications() {
    use crate::mcp::connection::traffic::Traffic;
    use crate::mcp::connection::{ConnectionEvent, ServerEvent};
    let (mut app, _d) = demo_app();
    let traffic = |id: &str| {
        super::Msg::Event(ServerEvent {
            server: "demo".into(),
            event: ConnectionEvent::Traffic(Box::new(Traffic {
                outgoing: true,
                kind: "request",
                method: Some("tools/list".to_owned()),
                id: Some(id.to_owned()),
                bytes: 10,
                latency: None,
                body: format!("{{\"id\":{id}}}"),
            })),
        })
    };
    app.update(traffic("1"));
    app.update(super::Msg::Event(ServerEvent {
        server: "demo".into(),
        event: ConnectionEvent::ToolListChanged,
    }));
    app.update(traffic("2"));
    // To the Log tab (fourth), where `v` cycles the filter.
    app.update(key(KeyCode::Enter));
    for _ in 0..3 {
        app.update(key(KeyCode::Right));
    }
    let shown = |app: &App| {
        app.pane()
            .expect("pane")
            .log
            .visible()
            .iter()
            .map(|l| l.text.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(shown(&app).len(), 3);
    app.update(ch('v'));
    assert!(
        shown(&app).iter().all(|t| t.starts_with("request")),
        "{:?}",
        shown(&app)
    );
    assert_eq!(shown(&app).len(), 2);
    assert_eq!(app.message.as_deref(), Some("log: traffic"));
    // Enter opens the newest traffic line's body.
    app.update(key(KeyCode::Enter));
    assert!(
        matches!(&app.screen, Screen::Result(ResultScreen { view: v, .. }) if v.plain.iter().any(|l| l.contains("\"id\": 2")))
    );
    app.update(key(KeyCode::Esc));
    app.update(ch('v'));
    assert_eq!(shown(&app), ["tools/list_changed"]);
    app.update(ch('v'));
    assert_eq!(shown(&app).len(), 3);
}

#[test]
fn the_viewer_names_the_match_keys_the_keymap_has() {
    let (mut app, _d) = result_with(&json!({"a": 1}));
    assert!(app.keymap.apply("next_match = \"C-n\"").is_empty());
    app.update(ch('/'));
    let Screen::Result(ResultScreen { view, .. }) = &app.screen else {
        panic!("{:?}", app.screen)
    };
    let keys = view.viewer.search.as_ref().and_then(|s| s.keys.clone());
    assert_eq!(keys.as_deref(), Some("C-n/N"));
}

#[test]
fn structured_content_is_shown_once() {
    let structured = json!({"city": "Oslo", "celsius": 24.4});
    let (mut app, _d) = demo_app();
    let id = first_execute(&app.update(key(KeyCode::Enter)));
    app.update(ok(id, "tools.list", tools_result()));
    let id = first_execute(&app.update(ch('c')));
    app.update(ok(id, "tools.describe", super::testkit::echo_description()));
    app.update(ch('x'));
    let id = first_execute(&app.update(key(KeyCode::Enter)));
    let text = serde_json::to_string_pretty(&structured).expect("json");
    app.update(ok(
        id,
        "tools.call echo",
        json!({"isError": false, "text": text, "structuredContent": structured}),
    ));
    let shown = lines(&app);
    assert_eq!(
        shown.iter().filter(|l| l.contains("\"city\"")).count(),
        1,
        "{shown:?}"
    );
    assert!(shown[0].starts_with("── structured content"), "{shown:?}");
    // A text that says something else stays.
    let (app, _d) = result_with(&json!({"a": 1}));
    assert_eq!(lines(&app)[0], "x");
}
