//! The raw JSON view at 80×24, 120×40 and 40×15: a call's answer as the server sent it (one
//! compact line, wrapped; its secret already redacted by the engine; an escaped control
//! character shown as the characters it was sent as, a raw one as a picture), and the text
//! view's footer offering the key only when a frame was kept.

use crossterm::event::KeyCode;

use super::tests::{draw, snapshot_all, tools_app};
use crate::app::testkit::{agent_request_id as request_id, ch, echo_description, key, ok};
use crate::app::{Msg, Screen};
use crate::mcp::api::{OpResult, ToolCall};
use crate::mcp::engine::{Outcome, Success};
use crate::mcp::results::RawJson;

const FRAME: &str = "{ \"result\" : {\"content\":[{\"text\":\"key [redacted] \\u001b[2J end \
                     \u{7}\",\"type\":\"text\"}], \"structuredContent\": {\"n\": 2.50}}, \
                     \"id\":3, \"jsonrpc\":\"2.0\" }";

fn answered(id: u64, raw: Option<RawJson>) -> Msg {
    let text = "key [redacted] \u{241b}[2J end \u{2407}".to_owned();
    Msg::Done {
        id,
        outcome: Box::new(Outcome {
            server: Some("demo".to_owned()),
            operation: "tools.call echo".to_owned(),
            body: Ok(Success {
                result: OpResult::Call(ToolCall {
                    is_error: false,
                    text: text.clone(),
                    structured_content: None,
                    output_schema_verdict: None,
                    spills: Vec::new(),
                    links: Vec::new(),
                    annotations: Vec::new(),
                    raw,
                }),
                text,
                spills: Vec::new(),
            }),
        }),
    }
}

fn called(raw: Option<RawJson>) -> (crate::app::App, tempfile::TempDir) {
    let (mut app, dir) = tools_app();
    let id = request_id(&app.update(key(KeyCode::Enter)));
    app.update(ok(id, "tools.describe", echo_description()));
    app.update(ch('c'));
    app.update(ch('h'));
    app.update(ch('i'));
    let id = request_id(&app.update(key(KeyCode::Enter)));
    app.update(answered(id, raw));
    assert!(matches!(app.screen, Screen::Result(_)), "{:?}", app.screen);
    (app, dir)
}

#[test]
fn the_raw_json_view() {
    let (mut app, _d) = called(Some(RawJson::Inline(FRAME.to_owned())));
    assert!(
        draw(&app, 120, 40).contains("J raw JSON"),
        "the footer offers it"
    );
    app.update(ch('J'));
    let screen = draw(&app, 120, 40);
    assert!(screen.contains("raw JSON as sent"), "{screen}");
    assert!(screen.contains(r#""n": 2.50"#), "as sent: {screen}");
    assert!(
        !screen.contains('\u{7}'),
        "a raw control character is a picture"
    );
    snapshot_all("result_raw_json", &mut app);
}

#[test]
fn without_a_kept_frame_the_footer_does_not_offer_the_raw_key() {
    let (app, _d) = called(None);
    assert!(!draw(&app, 120, 40).contains("J raw JSON"));
}
