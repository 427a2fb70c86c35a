//! Requests a server makes of the operator (elicitation, sampling), queued oldest first and
//! shown one at a time in front of everything but an approval. Keys typed in the first
//! [`GUARD`](super::approval::GUARD) after one appears are ignored (a keystroke meant for
//! something else must not answer); a paste only types. Engine notes about a server (what it
//! asked and what was answered, a task's status) go to its Log tab and the status line.

use std::time::Instant;

use crossterm::event::KeyEvent;

use super::elicitation::ElicitState;
use super::keymap::Ctx;
use super::model::LogLine;
use super::sampling::SamplingState;
use super::{App, Effect, Msg};
use crate::mcp::sanitize::sanitize_capped;

/// One request waiting for the operator.
#[derive(Debug, PartialEq)]
pub enum ServerAsk {
    /// Input (a form or a URL visit).
    Elicit(ElicitState),
    /// A completion the operator writes.
    Sample(Box<SamplingState>),
}

impl ServerAsk {
    /// The keymap context in force while it is in front.
    pub fn ctx(&self) -> Ctx {
        match self {
            Self::Elicit(e) if matches!(e.mode, super::elicitation::ElicitMode::Url { .. }) => {
                Ctx::ElicitUrl
            }
            Self::Elicit(_) => Ctx::Elicitation,
            Self::Sample(_) => Ctx::Sampling,
        }
    }

    /// Starts the key guard again: the request is first shown at `now`.
    pub(super) fn reset_shown(&mut self, now: Instant) {
        *self.shown_at() = now;
    }

    fn shown_at(&mut self) -> &mut Instant {
        match self {
            Self::Elicit(e) => &mut e.shown_at,
            Self::Sample(s) => &mut s.shown_at,
        }
    }

    /// Whether keys typed at `now` may answer.
    pub fn armed(&self, now: Instant) -> bool {
        let shown = match self {
            Self::Elicit(e) => e.shown_at,
            Self::Sample(s) => s.shown_at,
        };
        armed(shown, now)
    }
}

/// Whether keys typed at `now` may answer a request first shown at `shown`.
pub fn armed(shown: Instant, now: Instant) -> bool {
    now.saturating_duration_since(shown) >= super::approval::GUARD
}

impl App {
    /// A server's request or note.
    pub(super) fn on_server_ask_msg(&mut self, msg: Msg) -> Vec<Effect> {
        match msg {
            Msg::Elicit { ticket, ask } => {
                let ask = ElicitState::new(ticket, ask, self.now);
                self.asks.push_back(ServerAsk::Elicit(ask));
                self.on_url_ask_queued()
            }
            Msg::Sample { ticket, ask } => {
                let ask = SamplingState::new(ticket, ask, self.now);
                self.asks.push_back(ServerAsk::Sample(Box::new(ask)));
                Vec::new()
            }
            Msg::ClientNote { server, text } => {
                let text = sanitize_capped(&text, 1024);
                self.message = Some(format!("{}: {text}", sanitize_capped(&server, 64)));
                let line = LogLine {
                    kind: "client",
                    text,
                    body: None,
                    logger: None,
                };
                self.push_log(&server, line)
            }
            _ => Vec::new(),
        }
    }

    /// A key while a server's request is in front.
    pub(super) fn on_ask_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let now = self.now;
        let Some(front) = self.asks.front_mut() else {
            return Vec::new();
        };
        if !front.armed(now) {
            return Vec::new();
        }
        let action = self.keymap.lookup(&[front.ctx()], &key);
        let (done, effects, message) = match front {
            ServerAsk::Elicit(e) => {
                let out = e.on_key(action, &key);
                (out.done, out.effects, out.message)
            }
            ServerAsk::Sample(s) => s.on_key(action, key),
        };
        if message.is_some() {
            self.message = message;
        }
        if done {
            self.asks.pop_front();
            // The next request's guard starts when it is first shown.
            if let Some(next) = self.asks.front_mut() {
                *next.shown_at() = now;
            }
        }
        effects
    }

    /// A paste while a server's request is in front: it types, never answers.
    pub(super) fn on_ask_paste(&mut self, text: &str) -> Vec<Effect> {
        match self.asks.front_mut() {
            Some(ServerAsk::Elicit(e)) => e.on_paste(text),
            Some(ServerAsk::Sample(s)) => s.on_paste(text),
            None => {}
        }
        Vec::new()
    }
}
