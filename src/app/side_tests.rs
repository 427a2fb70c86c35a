//! `update` tests of the workspace side panel: opening it describes the selected tool, the form
//! comes from that schema, Enter runs `tools.call` on the `workspace` server, the answer becomes
//! readable lines, Esc cancels a run, and the panel keeps its own keys.

use crate::mcp::connection::ErrorClass;
use crossterm::event::KeyCode;
use serde_json::json;

use super::side::WORKSPACE_TOOLS;
use super::testkit::{
    ch, ctrl, demo_app, failed, key, workspace_answer, workspace_app, workspace_description,
};
use super::{App, Effect, Focus};
use crate::mcp::proxy::ProxyRequest;

fn only_execute(effects: &[Effect]) -> (u64, ProxyRequest) {
    let found: Vec<_> = effects
        .iter()
        .filter_map(|e| match e {
            Effect::Engine {
                id,
                request: crate::mcp::EngineRequest::Agent(request),
            } => Some((*id, request.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(found.len(), 1, "{effects:?}");
    found.into_iter().next().expect("one request")
}

/// Opens the panel and answers the describe of `workspace_find`.
fn opened() -> (App, tempfile::TempDir) {
    let (mut app, dir) = workspace_app();
    let (id, request) = only_execute(&app.update(ch('w')));
    assert_eq!(
        request,
        ProxyRequest::ToolsDescribe {
            server: "workspace".to_owned(),
            tool: "workspace_find".to_owned()
        }
    );
    assert!(app.side_panel);
    assert_eq!(app.focus, Focus::Side);
    app.update(super::testkit::ok(
        id,
        "tools.describe",
        workspace_description("workspace_find"),
    ));
    (app, dir)
}

fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        assert!(app.update(ch(c)).is_empty(), "typing runs nothing");
    }
}

#[test]
fn the_form_comes_from_the_schema_and_enter_calls_the_workspace_server() {
    let (mut app, _d) = opened();
    let form = app.side.form().expect("form");
    let names: Vec<&str> = form.fields.iter().map(|f| f.key.as_str()).collect();
    assert!(
        names.contains(&"question") && names.contains(&"budget"),
        "{names:?}"
    );
    assert_eq!(
        form.fields[form.focus].key, "question",
        "focus starts on the question"
    );
    // Keys that mean something elsewhere type here: `q`, `w`, `s`.
    type_text(&mut app, "how does swq work");
    let (id, request) = only_execute(&app.update(key(KeyCode::Enter)));
    let ProxyRequest::ToolsCall { server, tool, args } = request else {
        panic!("a tools.call");
    };
    assert_eq!(
        (server.as_str(), tool.as_str()),
        ("workspace", "workspace_find")
    );
    assert_eq!(args["question"], "how does swq work");
    assert_eq!(args["workspace"], "proj");
    assert!(app.animating());
    app.update(workspace_answer(
        id,
        &json!({"schema": "mcpdeck.workspace-result/v1", "status": "known", "workspace": "proj",
            "result": {"passages": [{"path": "README.md", "lines": {"start": 1, "end": 2},
            "kind": "markdown", "score": 1.5, "text": "Precedence: project over user.", "words": 4}],
            "words_used": 4, "budget": 800, "matching_passages": 1}}),
    ));
    assert!(app.side.run.is_none());
    let lines: Vec<&str> = app
        .side
        .result
        .as_ref()
        .expect("a result")
        .lines
        .iter()
        .map(|l| l.text.as_str())
        .collect();
    assert_eq!(lines[1], "1. README.md:1-2");
    assert_eq!(lines[2], "Precedence: project over user.");
}

#[test]
fn invalid_input_stays_in_the_form_with_the_error() {
    let (mut app, _d) = opened();
    // The question is required and must not be empty.
    assert!(app.update(key(KeyCode::Enter)).is_empty());
    let form = app.side.form().expect("form");
    assert!(
        form.fields
            .iter()
            .any(|f| f.key == "question" && f.error.is_some()),
        "{:?}",
        form.fields
    );
    // An out-of-range budget is refused before anything is sent.
    type_text(&mut app, "x");
    let budget = app
        .side
        .form()
        .expect("form")
        .fields
        .iter()
        .position(|f| f.key == "budget")
        .expect("budget");
    while app.side.form().expect("form").focus != budget {
        app.update(key(KeyCode::Tab));
    }
    for _ in 0..5 {
        app.update(key(KeyCode::Backspace));
    }
    type_text(&mut app, "1");
    assert!(app.update(key(KeyCode::Enter)).is_empty());
}

#[test]
fn arrows_switch_tools_and_describe_each_once() {
    let (mut app, _d) = opened();
    let (id, request) = only_execute(&app.update(key(KeyCode::Right)));
    assert!(
        matches!(request, ProxyRequest::ToolsDescribe { tool, .. } if tool == WORKSPACE_TOOLS[1])
    );
    app.update(super::testkit::ok(
        id,
        "tools.describe",
        workspace_description(WORKSPACE_TOOLS[1]),
    ));
    assert_eq!(app.side.form().expect("form").fields[0].key, "text");
    // Back to find: its form is kept, nothing is asked again.
    assert!(app.update(key(KeyCode::Left)).is_empty());
    assert_eq!(app.side.tool, 0);
    // Left from find wraps to capsule.
    let (_, request) = only_execute(&app.update(key(KeyCode::Left)));
    assert!(
        matches!(request, ProxyRequest::ToolsDescribe { tool, .. } if tool == WORKSPACE_TOOLS[3])
    );
}

#[test]
fn esc_cancels_a_run_then_leaves_the_panel() {
    let (mut app, _d) = opened();
    type_text(&mut app, "q");
    let (id, _) = only_execute(&app.update(key(KeyCode::Enter)));
    // A second Enter while running sends nothing.
    assert!(app.update(key(KeyCode::Enter)).is_empty());
    assert_eq!(app.update(key(KeyCode::Esc)), vec![Effect::Cancel(id)]);
    assert!(app.side.run.is_some_and(|r| r.cancelling));
    app.update(failed(
        id,
        "tools.call",
        ErrorClass::Cancelled,
        "the call was cancelled",
    ));
    let result = app.side.result.as_ref().expect("result");
    assert_eq!(result.lines[0].text, "cancelled: the call was cancelled");
    app.update(key(KeyCode::Esc));
    assert_eq!(app.focus, Focus::Main);
    assert!(app.side_panel, "Esc leaves the panel open");
    // `w` outside the panel closes it.
    app.update(ch('w'));
    assert!(!app.side_panel);
}

#[test]
fn control_keys_keep_their_global_meaning() {
    let (mut app, _d) = opened();
    assert_eq!(app.update(ctrl('c')), vec![Effect::Quit]);
}

#[test]
fn without_a_workspace_server_the_panel_asks_nothing() {
    let (mut app, _d) = demo_app();
    assert!(app.update(ch('w')).is_empty());
    assert!(app.side_panel);
    assert!(!app.has_workspace());
}

#[test]
fn a_click_in_the_panel_focuses_it_and_the_wheel_scrolls_its_result() {
    use crossterm::event::{MouseEvent, MouseEventKind};
    let (mut app, _d) = opened();
    app.update(key(KeyCode::Esc));
    assert_eq!(app.focus, Focus::Main);
    app.size = (120, 40);
    let side = super::layout::areas(app.size, true).side;
    let at = |kind| {
        super::Msg::Mouse(MouseEvent {
            kind,
            column: side.x + 2,
            row: side.y + 3,
            modifiers: crossterm::event::KeyModifiers::NONE,
        })
    };
    app.update(at(MouseEventKind::Down(
        crossterm::event::MouseButton::Left,
    )));
    assert_eq!(app.focus, Focus::Side);
    type_text(&mut app, "q");
    let (id, _) = only_execute(&app.update(key(KeyCode::Enter)));
    let passages: Vec<serde_json::Value> = (1..=5)
        .map(|i| json!({"path": format!("f{i}.md"), "lines": {"start": 1, "end": 1}, "kind": "markdown", "score": 1.0, "text": "t", "words": 1}))
        .collect();
    app.update(workspace_answer(
        id,
        &json!({"schema": "mcpdeck.workspace-result/v1", "status": "known", "workspace": "proj",
            "result": {"passages": passages, "words_used": 5, "budget": 800, "matching_passages": 5}}),
    ));
    app.update(at(MouseEventKind::ScrollDown));
    app.update(at(MouseEventKind::ScrollDown));
    assert_eq!(app.side.scroll, 2);
    app.update(at(MouseEventKind::ScrollUp));
    assert_eq!(app.side.scroll, 1);
}
