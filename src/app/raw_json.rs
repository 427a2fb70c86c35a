//! The raw JSON view of a result: the response frame of a tool call, resource read or prompt
//! as the server sent it (the engine keeps it with secrets redacted, `mcp::results::RawJson`).
//! The result viewer's raw key (`J`) switches to it and back. A small frame is shown in the
//! viewer itself, a result view of its lines, each sanitised, so control characters show as
//! visible pictures; a larger one is a raw spill, which opens in the spill pager (read by
//! lines through the line index, never held). It is shown as sent, not pretty-printed: a
//! compact one-line frame wraps, and a line over 16 KiB is read as several.

use super::keymap::Action;
use super::{App, Effect, ResultScreen, ResultView, Screen};
use crate::mcp::api::OpResult;
use crate::mcp::engine::Outcome;
use crate::mcp::results::RawJson;
use crate::mcp::sanitize::sanitize;

/// The frame an outcome's result kept, if any (a tool's error keeps its call's).
pub fn raw_of(outcome: &Outcome) -> Option<RawJson> {
    match &outcome.body {
        Ok(success) => match &success.result {
            OpResult::Call(call) => call.raw.clone(),
            OpResult::Read(read) => read.raw.clone(),
            OpResult::Prompt(prompt) => prompt.raw.clone(),
            _ => None,
        },
        Err(failure) => failure.call.as_ref().and_then(|call| call.raw.clone()),
    }
}

/// The raw view of `text`'s frame: its lines, sanitised, over the text view it returns to.
fn inline_view(text_view: ResultView, frame: &str) -> ResultView {
    let lines = frame.lines().map(|l| sanitize(l).into_owned()).collect();
    let title = format!("{} · raw JSON as sent", text_view.title);
    let mut raw = ResultView::new(title, lines, None, Vec::new());
    raw.model.clone_from(&text_view.model);
    raw.spills.clone_from(&text_view.spills);
    raw.text_view = Some(Box::new(text_view));
    raw
}

impl App {
    /// The raw key, and `Esc` while the raw view is shown (back to the text); `None` for the
    /// rest.
    pub(super) fn on_raw_json(&mut self, msg: Action) -> Option<Vec<Effect>> {
        let Screen::Result(ResultScreen { view, .. }) = &mut self.screen else {
            return None;
        };
        match msg {
            Action::RawJson | Action::Back if view.text_view.is_some() => {
                if let Some(text) = view.text_view.take() {
                    *view = text;
                }
                Some(Vec::new())
            }
            Action::RawJson => match view.raw.clone() {
                None => {
                    self.message = Some(
                        "no raw JSON for this result (only calls, reads and prompts keep theirs)"
                            .to_owned(),
                    );
                    Some(Vec::new())
                }
                Some(RawJson::Inline(frame)) => {
                    let blank = ResultView::new(String::new(), Vec::new(), None, Vec::new());
                    let text = std::mem::replace(&mut **view, blank);
                    **view = inline_view(text, &frame);
                    Some(Vec::new())
                }
                Some(RawJson::Spilled { path, .. }) => Some(vec![Effect::ReadSpill {
                    path,
                    at: super::SpillAt::Line(0),
                }]),
            },
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::testkit::{ch, demo_app, key};
    use crate::mcp::engine::Success;
    use crossterm::event::KeyCode;

    fn call_outcome(raw: Option<RawJson>) -> Outcome {
        Outcome {
            server: Some("demo".to_owned()),
            operation: "tools.call echo".to_owned(),
            body: Ok(Success {
                result: OpResult::Call(crate::mcp::api::ToolCall {
                    is_error: false,
                    text: "hello".to_owned(),
                    structured_content: None,
                    output_schema_verdict: None,
                    spills: Vec::new(),
                    links: Vec::new(),
                    annotations: Vec::new(),
                    raw,
                }),
                text: "hello".to_owned(),
                spills: Vec::new(),
            }),
        }
    }

    fn shown(app: &App) -> &ResultView {
        let Screen::Result(ResultScreen { view, .. }) = &app.screen else {
            panic!("a result is shown");
        };
        view
    }

    #[test]
    fn the_raw_key_switches_to_the_frame_as_sent_and_back() {
        let (mut app, _d) = demo_app();
        app.focus = crate::app::Focus::Main;
        let frame = "{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"text\":\"a\u{1b}[2Jb\"}}";
        let view =
            crate::app::model::result_view(&call_outcome(Some(RawJson::Inline(frame.to_owned()))));
        app.screen = Screen::Result(ResultScreen {
            view: Box::new(view),
            form: None,
        });
        assert!(shown(&app).lines.iter().any(|l| l == "hello"));
        app.update(ch('J'));
        let raw = shown(&app);
        assert!(raw.title.ends_with("raw JSON as sent"), "{}", raw.title);
        assert_eq!(raw.lines, [sanitize(frame).into_owned()]);
        assert!(
            !raw.lines[0].contains('\u{1b}'),
            "a control character is shown as a picture"
        );
        app.update(ch('J'));
        assert!(
            shown(&app).lines.iter().any(|l| l == "hello"),
            "J goes back"
        );
        app.update(ch('J'));
        app.update(key(KeyCode::Esc));
        assert!(
            shown(&app).lines.iter().any(|l| l == "hello"),
            "Esc in the raw view goes back to the text"
        );
    }

    #[test]
    fn a_raw_spill_opens_in_the_pager_and_a_result_without_a_frame_says_so() {
        let (mut app, _d) = demo_app();
        app.focus = crate::app::Focus::Main;
        let spilled = RawJson::Spilled {
            basename: "spill-1.json".to_owned(),
            path: "/run/mcpdeck/spill-1.json".into(),
            size: 1 << 20,
        };
        let view = crate::app::model::result_view(&call_outcome(Some(spilled)));
        app.screen = Screen::Result(ResultScreen {
            view: Box::new(view),
            form: None,
        });
        let fx = app.update(ch('J'));
        assert!(
            matches!(&fx[..], [Effect::ReadSpill { path, at: crate::app::SpillAt::Line(0) }]
                if path.to_str() == Some("/run/mcpdeck/spill-1.json")),
            "{fx:?}"
        );
        let view = crate::app::model::result_view(&call_outcome(None));
        app.screen = Screen::Result(ResultScreen {
            view: Box::new(view),
            form: None,
        });
        assert!(app.update(ch('J')).is_empty());
        assert!(
            app.message
                .as_deref()
                .is_some_and(|m| m.contains("no raw JSON")),
            "{:?}",
            app.message
        );
    }
}
