//! Resource links in a call's result. A tool may answer with links to resources instead of
//! their contents; the result's text names each one (`[resource link: NAME (origin)]`) and the
//! engine keeps their URIs for the console alone. `Enter` on a result reads its one link, or
//! opens a list of its links (the one in view highlighted) to pick from. A link is read with
//! `resources/read` on the server that returned it, never on another server and never in a
//! browser; the read shows like one typed with `u`, so `c` shows its URI again.

use serde_json::json;

use super::keymap::{Action, Ctx};
use super::{App, Effect, ResultScreen, ResultView, Screen};
use crate::mcp::api::OpResult;
use crate::mcp::engine::Outcome;
use crate::mcp::sanitize::sanitize_capped;

/// One resource link of a result (sanitised).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkRow {
    /// The server that returned it, where it is read.
    pub server: String,
    /// Its name, as the result's text shows it.
    pub name: String,
    /// The resource's URI.
    pub uri: String,
}

/// The resource links of a call's result (or of a tool error's result).
pub fn link_rows(outcome: &Outcome) -> Vec<LinkRow> {
    let Some(server) = &outcome.server else {
        return Vec::new();
    };
    let call = match &outcome.body {
        Ok(success) => match &success.result {
            OpResult::Call(call) => Some(call),
            _ => None,
        },
        Err(failure) => failure.call.as_deref(),
    };
    call.map(|c| {
        c.links
            .iter()
            .map(|l| LinkRow {
                server: sanitize_capped(server, 128),
                name: sanitize_capped(&l.name, 128),
                uri: sanitize_capped(&l.uri, 2048),
            })
            .collect()
    })
    .unwrap_or_default()
}

impl ResultView {
    /// The link the operator most likely means: the one named in the line at the cursor, else
    /// in the first visible line that names one, else the first.
    pub fn link_in_view(&self) -> usize {
        let named = |line: &str| {
            self.links
                .iter()
                .position(|l| line.contains(&format!("[resource link: {} (", l.name)))
        };
        if self.has_cursor()
            && let Some(at) = self.lines.get(self.cursor).and_then(|l| named(l))
        {
            return at;
        }
        let (first, last) = self.viewer.visible_lines(&self.lines);
        self.lines
            .get(first..=last.min(self.lines.len().saturating_sub(1)))
            .into_iter()
            .flatten()
            .find_map(|l| named(l))
            .unwrap_or(0)
    }
}

impl App {
    /// While a result's link list is open it takes the moves, `Back` (closes it) and `Open`
    /// (reads the pick); `None` for the rest, which act on the result under it.
    pub(super) fn on_link_list(&mut self, msg: Action) -> Option<Vec<Effect>> {
        let Screen::Result(ResultScreen { view, .. }) = &mut self.screen else {
            return None;
        };
        let at = view
            .link_pick
            .filter(|_| !view.links.is_empty() && !view.show_model)?;
        let last = view.links.len() - 1;
        match msg {
            Action::Up => view.link_pick = Some(at.saturating_sub(1)),
            Action::Down => view.link_pick = Some((at + 1).min(last)),
            Action::Back => view.link_pick = None,
            Action::Open => return Some(self.read_link(at)),
            _ => return None,
        }
        Some(Vec::new())
    }

    /// `Open` on a result: reads its one resource link or opens the list of them; without
    /// links, opens the spill the text in view names.
    pub(super) fn open_from_result(&mut self) -> Vec<Effect> {
        let Screen::Result(ResultScreen { view, .. }) = &mut self.screen else {
            return Vec::new();
        };
        if !view.links.is_empty() && !view.show_model {
            if view.links.len() == 1 {
                return self.read_link(0);
            }
            view.link_pick = Some(view.link_in_view());
            return Vec::new();
        }
        let Some(spill) = view.spill_in_view() else {
            self.message = Some("this result wrote no spill".to_owned());
            return Vec::new();
        };
        vec![Effect::ReadSpill {
            path: spill.path.clone(),
            at: super::SpillAt::Line(0),
        }]
    }

    /// Reads the result's link `at` on the server that returned it.
    fn read_link(&mut self, at: usize) -> Vec<Effect> {
        let Screen::Result(ResultScreen { view, .. }) = &self.screen else {
            return Vec::new();
        };
        let Some(link) = view.links.get(at).cloned() else {
            return Vec::new();
        };
        let mut form = super::templates::uri_form(&link.server);
        let args = json!({ "uri": link.uri });
        form.fill(&args);
        self.message = Some(format!("reading {} on {}…", link.name, link.server));
        self.start_call(form, &args)
    }

    /// A result with resource links arrived: the status line says how to open one (unless it
    /// already says something the operator must see).
    pub(super) fn announce_links(&mut self) {
        let Screen::Result(ResultScreen { view, .. }) = &self.screen else {
            return;
        };
        if view.links.is_empty() || self.message.is_some() {
            return;
        }
        let key = self
            .keymap
            .key_for(Ctx::Result, Action::Open)
            .unwrap_or_else(|| "Enter".to_owned());
        let n = view.links.len();
        let (noun, what) = if n == 1 {
            ("link", "reads it")
        } else {
            ("links", "lists them")
        };
        self.message = Some(format!(
            "{n} resource {noun}: {key} {what} (read on {})",
            view.links[0].server
        ));
    }
}

#[cfg(test)]
mod tests {
    use crossterm::event::KeyCode;

    use super::*;
    use crate::app::form::{Form, Target};
    use crate::app::testkit::{demo_app, key};
    use crate::app::{Msg, ReqId};
    use crate::mcp::api::ToolCall;
    use crate::mcp::engine::{EngineRequest, OperatorOp, Success};
    use crate::mcp::results::links::ResourceLinkRef;

    /// The demo app showing a call's result with `links` named in its text.
    fn result_with_links(links: &[(&str, &str)]) -> (App, tempfile::TempDir) {
        let (mut app, dir) = demo_app();
        app.screen = Screen::Form(Form::new(
            "demo",
            Target::Tool("links".to_owned()),
            json!({"type": "object"}),
        ));
        let fx = app.update(key(KeyCode::Enter));
        let [
            Effect::Engine {
                id,
                request: EngineRequest::Agent(_),
                ..
            },
        ] = &fx[..]
        else {
            panic!("{fx:?}");
        };
        let mut text = "Here are the links:".to_owned();
        for (name, _) in links {
            text.push_str("\n[resource link: ");
            text.push_str(name);
            text.push_str(" (demo://resource)]");
        }
        let call = ToolCall {
            is_error: false,
            text: text.clone(),
            structured_content: None,
            output_schema_verdict: None,
            spills: Vec::new(),
            links: links
                .iter()
                .map(|(name, uri)| ResourceLinkRef {
                    name: (*name).to_owned(),
                    uri: (*uri).to_owned(),
                })
                .collect(),
            annotations: Vec::new(),
            raw: None,
        };
        app.update(Msg::Done {
            id: *id,
            outcome: Box::new(Outcome {
                server: Some("demo".to_owned()),
                operation: "tools.call links".to_owned(),
                body: Ok(Success {
                    result: OpResult::Call(call),
                    text,
                    spills: Vec::new(),
                }),
            }),
        });
        (app, dir)
    }

    fn read_uri(effects: &[Effect]) -> (ReqId, String, String) {
        match effects {
            [
                Effect::Engine {
                    id,
                    request:
                        EngineRequest::Operator {
                            server,
                            op: OperatorOp::ReadUri { uri },
                        },
                },
            ] => (*id, server.clone(), uri.clone()),
            other => panic!("expected one read: {other:?}"),
        }
    }

    #[test]
    fn enter_reads_a_single_link_on_the_server_that_returned_it() {
        let (mut app, _d) = result_with_links(&[("Text 2", "demo://resource/dynamic/text/2")]);
        assert!(
            app.message
                .as_deref()
                .is_some_and(|m| m.contains("1 resource link: Enter reads it")),
            "{:?}",
            app.message
        );
        let (_, server, uri) = read_uri(&app.update(key(KeyCode::Enter)));
        assert_eq!(server, "demo");
        assert_eq!(uri, "demo://resource/dynamic/text/2");
        assert!(matches!(app.screen, Screen::Running(_)));
    }

    #[test]
    fn several_links_are_picked_from_a_list() {
        let (mut app, _d) = result_with_links(&[
            ("Blob 1", "demo://resource/dynamic/blob/1"),
            ("Text 2", "demo://resource/dynamic/text/2"),
        ]);
        assert!(app.update(key(KeyCode::Enter)).is_empty(), "the list opens");
        assert_eq!(app.contexts()[0], Ctx::ResultLinks);
        // Esc closes the list, not the result.
        app.update(key(KeyCode::Esc));
        assert!(matches!(app.screen, Screen::Result(..)));
        assert_ne!(app.contexts()[0], Ctx::ResultLinks);
        app.update(key(KeyCode::Enter));
        app.update(key(KeyCode::Down));
        app.update(key(KeyCode::Down));
        let (_, server, uri) = read_uri(&app.update(key(KeyCode::Enter)));
        assert_eq!(server, "demo");
        assert_eq!(uri, "demo://resource/dynamic/text/2");
    }

    #[test]
    fn a_result_without_links_keeps_enter_for_spills() {
        let (mut app, _d) = result_with_links(&[]);
        let fx = app.update(key(KeyCode::Enter));
        assert!(fx.is_empty(), "{fx:?}");
        assert_eq!(app.message.as_deref(), Some("this result wrote no spill"));
    }
}
