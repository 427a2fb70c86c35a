//! Content annotations in the console at 80×24, 120×40 and 40×15: a result whose blocks the
//! server annotated (each preceded by its `[annotations: …]` line, as the engine shapes it) and
//! the Resources tab, where a resource's annotations follow its MIME type.

use crossterm::event::KeyCode;
use serde_json::json;

use super::tests::{draw, snapshot_all, tools_app};
use crate::app::Screen;
use crate::app::testkit::{agent_request_id as request_id, ch, echo_description, key, ok};

#[test]
fn an_annotated_result() {
    let (mut app, _d) = tools_app();
    let id = request_id(&app.update(key(KeyCode::Enter)));
    app.update(ok(id, "tools.describe", echo_description()));
    app.update(ch('c'));
    app.update(ch('h'));
    app.update(ch('i'));
    let id = request_id(&app.update(key(KeyCode::Enter)));
    let text = "[annotations: audience user · priority 0.9 · modified 2025-06-01T10:00:00Z]\n\
                for you\nplain\n[annotations: audience assistant · priority 0.2]\nfor the model";
    app.update(ok(
        id,
        "tools.call echo",
        json!({"isError": false, "text": text, "structuredContent": null,
               "outputSchemaVerdict": null,
               "annotations": [
                   {"block": 0, "audience": ["user"], "priority": 0.9,
                    "lastModified": "2025-06-01T10:00:00Z"},
                   {"block": 2, "audience": ["assistant"], "priority": 0.2}]}),
    ));
    assert!(matches!(app.screen, Screen::Result(_)), "{:?}", app.screen);
    assert!(
        draw(&app, 120, 40).contains("[annotations: audience user · priority 0.9"),
        "{}",
        draw(&app, 120, 40)
    );
    snapshot_all("annotated_result", &mut app);
}

#[test]
fn annotated_resources() {
    let (mut app, _d) = tools_app();
    let id = request_id(&app.update(ch('l')));
    app.update(ok(
        id,
        "resources.list",
        json!({"resources": [
            {"reference": "mcp-resource-00000000000000000000000000000001", "name": "notes",
             "mimeType": "text/markdown", "description": "Meeting notes",
             "annotations": {"audience": ["user", "assistant"], "priority": 0.5,
                             "lastModified": "2025-05-31T08:00:00Z"}},
            {"reference": "mcp-resource-00000000000000000000000000000002", "name": "plain",
             "description": "No annotations"}],
               "templates": []}),
    ));
    let screen = draw(&app, 120, 40);
    assert!(
        screen.contains("text/markdown · audience user, assistant · priority 0.5"),
        "{screen}"
    );
    snapshot_all("annotated_resources", &mut app);
}
