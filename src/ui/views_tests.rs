//! Snapshots at 80×24, 120×40 and 40×15 of the views the other snapshot files leave out: the
//! approvals list, the config editor (valid, then with a diagnostic), the spill pager, the raw
//! JSON form, the Prompts tab and a result's model-visible text.

use std::path::PathBuf;

use crossterm::event::KeyCode;
use serde_json::json;

use super::tests::{draw, snapshot_all, tools_app};
use crate::app::approval::Answered;
use crate::app::testkit::{
    agent_request_id as request_id, ch, ctrl, demo_app, echo_description, key, ok,
};
use crate::app::{App, Effect, Msg, Overlay, Screen, Tab};
use crate::mcp::config::Layer;

#[test]
fn approvals_list() {
    let (mut app, _d) = tools_app();
    for (operation, answered) in [
        ("tools.call echo", Answered::Once),
        ("tools.call long_task", Answered::Denied),
        ("resources.read notes", Answered::Always),
    ] {
        app.decided
            .push(("demo".to_owned(), operation.to_owned(), answered));
    }
    app.update(ch('a'));
    assert!(matches!(app.overlay, Some(Overlay::Approvals(_))));
    snapshot_all("approvals_list", &mut app);
}

#[test]
fn approvals_list_empty() {
    let (mut app, _d) = tools_app();
    app.update(ch('a'));
    snapshot_all("approvals_list_empty", &mut app);
}

/// The editor as `e` on the Config tab opens it, on a fixed path.
pub(super) fn editor_app(text: &str) -> (App, tempfile::TempDir) {
    let (mut app, dir) = demo_app();
    app.update(Msg::EditorText {
        path: PathBuf::from("/home/ada/.config/mcpdeck/mcp.json"),
        layer: Layer::User,
        text: Ok(text.to_owned()),
    });
    assert!(matches!(app.overlay, Some(Overlay::Editor(_))));
    (app, dir)
}

#[test]
fn config_editor() {
    let text = "{\n  \"mcpServers\": {\n    \"demo\": {\"command\": \"mcpdeck\", \"args\": [\"demo-server\"]}\n  }\n}\n";
    let (mut app, _d) = editor_app(text);
    snapshot_all("config_editor", &mut app);
}

#[test]
fn config_editor_with_a_diagnostic() {
    let text = "{\n  \"mcpServers\": {\n    \"demo\": {\"command\": 42}\n  }\n}\n";
    let (mut app, _d) = editor_app(text);
    let Some(Overlay::Editor(editor)) = &app.overlay else {
        unreachable!("just checked")
    };
    assert!(!editor.valid(), "a number is not a command");
    snapshot_all("config_editor_diagnostic", &mut app);
}

#[test]
fn spill_pager() {
    let (mut app, _d) = tools_app();
    let lines = (1..=60).map(|i| format!("{i:02} a spilled line")).collect();
    app.update(Msg::SpillPage {
        path: PathBuf::from("/run/user/1000/mcpdeck/spill-1/spill-1.txt"),
        at: crate::app::SpillAt::Line(0),
        window: Ok(crate::mcp::results::SpillWindow {
            lines,
            total_lines: 60,
            size: 70_000,
            ..Default::default()
        }),
    });
    assert!(matches!(app.overlay, Some(Overlay::Pager(_))));
    snapshot_all("spill_pager", &mut app);
    // The footer offers the pager's keys, not the spills list's.
    let screen = draw(&app, 120, 40);
    assert!(screen.contains("y copy the whole text"), "{screen}");
    assert!(!screen.contains("delete spill"), "{screen}");
    app.update(key(KeyCode::End));
    let screen = draw(&app, 120, 40);
    assert!(
        screen.contains("60 a spilled line"),
        "End reaches the last line: {screen}"
    );
    app.update(ch('g'));
    let screen = draw(&app, 120, 40);
    assert!(
        screen.contains("01 a spilled line"),
        "g goes back to the first: {screen}"
    );
}

#[test]
fn raw_json_form() {
    let (mut app, _d) = tools_app();
    let id = request_id(&app.update(key(KeyCode::Enter)));
    app.update(ok(id, "tools.describe", echo_description()));
    app.update(ch('c'));
    app.update(ch('h'));
    app.update(ch('i'));
    app.update(ctrl('e'));
    assert!(matches!(app.screen, Screen::Raw(_)), "{:?}", app.screen);
    snapshot_all("raw_form", &mut app);
}

#[test]
fn prompts_tab() {
    let (mut app, _d) = demo_app();
    let mut effects = app.update(key(KeyCode::Tab));
    while app.tab != Tab::Prompts {
        effects = app.update(key(KeyCode::Right));
    }
    let id = request_id(&effects);
    app.update(ok(
        id,
        "prompts.list",
        json!({"prompts": [
            {"name": "summarise", "description": "Summarise a document in three lines.",
             "arguments": [{"name": "path", "required": true, "description": "The file"}]},
            {"name": "review-a-change-with-a-long-name", "title": "Review",
             "description": "Review a diff and list the risks.", "arguments": []},
        ]}),
    ));
    snapshot_all("prompts_tab", &mut app);
}

/// The demo's `echo` called from its form (typing `hi`), answered with `result`.
fn echo_result(result: serde_json::Value) -> (App, tempfile::TempDir) {
    let (mut app, dir) = tools_app();
    let id = request_id(&app.update(key(KeyCode::Enter)));
    app.update(ok(id, "tools.describe", echo_description()));
    app.update(ch('c'));
    app.update(ch('h'));
    app.update(ch('i'));
    let id = request_id(&app.update(key(KeyCode::Enter)));
    app.update(ok(id, "tools.call echo", result));
    (app, dir)
}

#[test]
fn result_model_view() {
    let (mut app, _d) = echo_result(
        json!({"isError": false, "text": "<untrusted-mcp-data server=\"demo\" kind=\"tool-result\">\nhi\n</untrusted-mcp-data>", "structuredContent": null, "outputSchemaVerdict": null}),
    );
    app.update(ch('m'));
    snapshot_all("result_model", &mut app);
}

/// A resource read came from no form and holds no JSON: its footer offers neither "call
/// again" nor folding; a tool's result with structured content offers both.
#[test]
fn result_footers_offer_only_what_applies() {
    let footer = |app: &App| {
        let screen = draw(app, 200, 50);
        screen.lines().last().unwrap_or_default().to_owned()
    };
    let (mut app, _d) = tools_app();
    let id = request_id(&app.update(ch('l')));
    let reference = "mcp-resource-00000000000000000000000000000001";
    app.update(ok(
        id,
        "resources.list",
        json!({"resources": [{"reference": reference, "name": "notes.md", "description": ""}],
               "templates": []}),
    ));
    let id = request_id(&app.update(key(KeyCode::Enter)));
    app.update(ok(
        id,
        "resources.read",
        json!({"reference": reference, "text": "hello"}),
    ));
    assert!(matches!(app.screen, Screen::Result(_)), "{:?}", app.screen);
    let read = footer(&app);
    assert!(read.contains("y copy result"), "{read}");
    assert!(!read.contains("call again"), "{read}");
    assert!(!read.contains("fold"), "{read}");

    let (app, _d) = echo_result(
        json!({"isError": false, "text": "hi", "structuredContent": {"echo": "hi"}, "outputSchemaVerdict": null}),
    );
    let call = footer(&app);
    assert!(call.contains("c call again"), "{call}");
    assert!(call.contains("z fold"), "{call}");
}

/// A status message longer than the terminal is wide wraps onto more rows instead of being cut,
/// and a result scrolled to its end still shows its last line above it.
#[test]
fn a_long_status_line_wraps_and_the_last_line_stays_shown() {
    let text = (1..=80)
        .map(|i| format!("{i:02} a result line"))
        .collect::<Vec<_>>()
        .join("\n");
    let (mut app, _d) = echo_result(
        json!({"isError": false, "text": text, "structuredContent": null, "outputSchemaVerdict": null}),
    );
    app.size = (80, 24);
    app.update(key(KeyCode::End));
    assert!(draw(&app, 80, 24).contains("80 a result line"));
    app.message = Some(
        "the server asked for its roots; answered: file:///home/operator/projects/first, \
         file:///home/operator/projects/second (END)"
            .to_owned(),
    );
    let screen = draw(&app, 80, 24);
    assert!(screen.contains("(END)"), "the status line wraps: {screen}");
    assert!(
        screen.contains("80 a result line"),
        "the last line stays shown: {screen}"
    );
    let rows: Vec<&str> = screen.lines().collect();
    assert!(
        rows[21].starts_with(" mode audit") && rows[22].contains("(END)"),
        "the status line takes the two rows above the footer: {screen}"
    );
}

/// Every registered panel opens with its default key from the servers pane, is drawn at each
/// size, and closes with Esc (a new panel gets its snapshots here without a new test).
#[test]
fn every_panel_with_a_default_key_opens_draws_and_closes() {
    use crate::app::panels::PANELS;
    for (i, panel) in PANELS.iter().enumerate() {
        let Some((code, _)) = panel.keys.1.first() else {
            continue;
        };
        let (mut app, _d) = tools_app();
        app.focus = crate::app::Focus::Servers;
        app.update(key(*code));
        let open = app.overlay.as_ref();
        assert!(
            matches!(open, Some(Overlay::Panel(v)) if usize::from(v.index) == i),
            "{}: {open:?}",
            panel.name
        );
        snapshot_all(&format!("panel_{}", panel.name), &mut app);
        app.update(key(KeyCode::Esc));
        assert!(app.overlay.is_none(), "{}: Esc closes it", panel.name);
    }
}

#[test]
fn about_this_server() {
    let (mut app, _d) = tools_app();
    app.focus = crate::app::Focus::Servers;
    app.update(ch('i'));
    assert_eq!(
        app.overlay
            .as_ref()
            .map(|o| matches!(o, Overlay::Panel(v) if v.index == 0)),
        Some(true)
    );
    snapshot_all("about_this_server", &mut app);
    let copied = app.update(ch('y'));
    assert!(
        matches!(copied.as_slice(), [Effect::Copy(t)] if t.starts_with("About demo\nstate: ")),
        "y copies the facts: {copied:?}"
    );
    app.update(key(KeyCode::Esc));
    assert!(app.overlay.is_none(), "Esc closes it");
}
