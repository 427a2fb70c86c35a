//! `notifications/elicitation/complete`: a server says the out-of-band interaction of a URL
//! elicitation (named by its elicitation id) is finished. A URL request still waiting for the
//! operator closes by itself, answered `accept` (the person did visit it: the server says so),
//! and the status line and the server's Log tab say why. The notification may overtake its
//! own request (they travel apart), so the last few completions are remembered and a request
//! that arrives already completed closes at once. A completion for a request answered
//! earlier is only noted.

use std::collections::VecDeque;

use serde_json::Map;

use super::elicitation::ElicitMode;
use super::server_asks::ServerAsk;
use super::{App, Effect, Msg};
use crate::mcp::client::ElicitAnswer;
use crate::mcp::sanitize::sanitize_capped;

/// Completions remembered for requests not seen yet.
const REMEMBERED: usize = 16;

/// Completions that came before their request: (server, elicitation id), newest last.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EarlyCompletions(VecDeque<(String, String)>);

impl App {
    /// A server's `notifications/elicitation/complete` for elicitation `id`.
    pub(super) fn on_elicitation_complete(&mut self, server: &str, id: &str) -> Vec<Effect> {
        let server = sanitize_capped(server, 128);
        let id = sanitize_capped(id, 256);
        if id.is_empty() {
            return Vec::new();
        }
        if let Some(effects) = self.close_url_ask(&server, &id) {
            return effects;
        }
        let early = &mut self.early_completions.0;
        if early.len() == REMEMBERED {
            early.pop_front();
        }
        early.push_back((server.clone(), id.clone()));
        self.on_server_ask_msg(Msg::ClientNote {
            server,
            text: format!("the URL interaction {id} is complete (the server says)"),
        })
    }

    /// A URL request was queued: it closes at once when its completion came first.
    pub(super) fn on_url_ask_queued(&mut self) -> Vec<Effect> {
        let Some(ServerAsk::Elicit(e)) = self.asks.back() else {
            return Vec::new();
        };
        let ElicitMode::Url { id, .. } = &e.mode else {
            return Vec::new();
        };
        let key = (e.server.clone(), id.clone());
        let early = &mut self.early_completions.0;
        let Some(at) = early.iter().position(|k| *k == key) else {
            return Vec::new();
        };
        early.remove(at);
        self.close_url_ask(&key.0, &key.1).unwrap_or_default()
    }

    /// Closes the waiting URL request `id` of `server`, answering accept; `None` when no such
    /// request waits.
    fn close_url_ask(&mut self, server: &str, id: &str) -> Option<Vec<Effect>> {
        let at = self.asks.iter().position(|a| match a {
            ServerAsk::Elicit(e) => {
                e.server == server
                    && matches!(&e.mode, ElicitMode::Url { id: waiting, .. } if waiting == id)
            }
            ServerAsk::Sample(_) => false,
        })?;
        let Some(ServerAsk::Elicit(e)) = self.asks.remove(at) else {
            return None;
        };
        // The next request's key guard starts when it comes to the front.
        if at == 0
            && let Some(next) = self.asks.front_mut()
        {
            next.reset_shown(self.now);
        }
        let mut effects = vec![Effect::AnswerElicit {
            ticket: e.ticket,
            answer: ElicitAnswer::Accept(Map::new()),
        }];
        effects.extend(self.on_server_ask_msg(Msg::ClientNote {
            server: server.to_owned(),
            text: format!(
                "the URL interaction {id} is complete (the server says): its request closed, answered accept"
            ),
        }));
        Some(effects)
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::app::testkit::demo_app;
    use crate::mcp::client::{ElicitKind, ElicitationAsk};
    use crate::mcp::connection::{ConnectionEvent, ServerEvent};

    fn url_ask(ticket: u64, id: &str) -> Msg {
        Msg::Elicit {
            ticket,
            ask: ElicitationAsk {
                server: "demo".into(),
                message: "Finish in the browser".into(),
                kind: ElicitKind::Url {
                    url: "https://example.com/done".into(),
                    origin: "https://example.com".into(),
                    id: id.into(),
                },
            },
        }
    }

    fn complete(server: &str, id: &str) -> Msg {
        Msg::Event(ServerEvent {
            server: server.into(),
            event: ConnectionEvent::ElicitationComplete { id: id.into() },
        })
    }

    fn accepted(effects: &[Effect]) -> Vec<u64> {
        effects
            .iter()
            .filter_map(|e| match e {
                Effect::AnswerElicit {
                    ticket,
                    answer: ElicitAnswer::Accept(content),
                } if content.is_empty() => Some(*ticket),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn the_servers_completion_closes_the_waiting_url_request() {
        let (mut app, _d) = demo_app();
        app.update(url_ask(5, "el-2"));
        app.update(url_ask(6, "el-3"));
        app.now += Duration::from_secs(1);
        // Another server's, or another id's, completion closes nothing.
        assert!(accepted(&app.update(complete("other", "el-2"))).is_empty());
        assert!(accepted(&app.update(complete("demo", "el-9"))).is_empty());
        assert_eq!(app.asks.len(), 2);
        assert_eq!(accepted(&app.update(complete("demo", "el-2"))), [5]);
        assert_eq!(app.asks.len(), 1, "the next request stays");
        assert!(
            !app.asks[0].armed(app.now),
            "the next request's key guard starts again"
        );
        assert!(
            app.message
                .as_deref()
                .is_some_and(|m| m.contains("el-2 is complete")),
            "{:?}",
            app.message
        );
        let log = &app.panes["demo"].log.lines;
        assert!(log.iter().any(|l| l.text.contains("el-2 is complete")));
    }

    #[test]
    fn a_completion_that_overtakes_its_request_closes_it_on_arrival() {
        let (mut app, _d) = demo_app();
        assert!(accepted(&app.update(complete("demo", "el-2"))).is_empty());
        assert_eq!(accepted(&app.update(url_ask(7, "el-2"))), [7]);
        assert!(app.asks.is_empty());
        // Remembered once: the same id again waits for the operator.
        assert!(accepted(&app.update(url_ask(8, "el-2"))).is_empty());
        assert_eq!(app.asks.len(), 1);
    }
}
