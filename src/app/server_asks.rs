//! Requests a server makes of the operator (elicitation, sampling), queued oldest first and
//! shown one at a time in front of everything but an approval. Keys typed in the first
//! [`GUARD`](super::approval::GUARD) after one appears are ignored (a keystroke meant for
//! something else must not answer); a paste only types. Engine notes about a server (what it
//! asked and what was answered, a task's status) go to its Log tab and the status line.

use std::time::Instant;

use crossterm::event::KeyEvent;

use super::component::{Component, Update};
use super::elicitation::{ElicitMsg, ElicitState};
use super::keymap::Ctx;
use super::log_tab::LogLine;
use super::overlays::Asks;
use super::sampling::{SampleMsg, SamplingState};
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

    /// The ticket naming the reply the engine awaits.
    pub fn ticket(&self) -> u64 {
        match self {
            Self::Elicit(e) => e.ticket,
            Self::Sample(s) => s.ticket,
        }
    }

    /// Whether the server withdrew it (the modal says so; no answer is sent).
    pub fn withdrawn(&self) -> bool {
        match self {
            Self::Elicit(e) => e.withdrawn,
            Self::Sample(s) => s.withdrawn,
        }
    }

    fn withdraw(&mut self) {
        match self {
            Self::Elicit(e) => e.withdrawn = true,
            Self::Sample(s) => s.withdrawn = true,
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

/// A request's update as the queue's front next and what it asks.
fn step<C: Component<Out = Asks>>(
    update: Update<C>,
    front: fn(C) -> ServerAsk,
) -> (Option<ServerAsk>, Option<Asks>) {
    (update.next.map(front), update.out)
}

/// What a withdrawn request's modal and the status line say.
pub const WITHDRAWN: &str = "withdrawn by the server: no answer is sent · any key closes";

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
            Msg::AskWithdrawn { ticket } => {
                self.on_ask_withdrawn(ticket);
                Vec::new()
            }
            _ => Vec::new(),
        }
    }

    /// The server withdrew its request `ticket`: in front, the modal says so until a key
    /// closes it; queued behind, it leaves the queue unseen.
    fn on_ask_withdrawn(&mut self, ticket: u64) {
        let Some(at) = self.asks.iter().position(|a| a.ticket() == ticket) else {
            return;
        };
        if at == 0 {
            if let Some(front) = self.asks.front_mut() {
                front.withdraw();
            }
        } else {
            self.asks.remove(at);
        }
        self.message = Some(WITHDRAWN.to_owned());
    }

    /// A key while a server's request is in front: its update, or a keyed-in character.
    pub(super) fn on_ask_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let now = self.now;
        let Some(front) = self.asks.front() else {
            return Vec::new();
        };
        if !front.armed(now) {
            return Vec::new();
        }
        let action = self.keymap.lookup(&[front.ctx()], &key);
        let (next, asks) = match self.asks.pop_front() {
            // Any key closes a withdrawn request; nothing is sent.
            Some(ask) if ask.withdrawn() => (None, None),
            Some(ServerAsk::Elicit(e)) => {
                // A key its update does not take types, if it is a character.
                let done = match action.and_then(ElicitState::message) {
                    Some(msg) => e.update(msg, &()),
                    None => Update::pass(e),
                };
                match (done.taken, done.next, ElicitMsg::typed(&key)) {
                    (false, Some(e), Some(msg)) => step(e.update(msg, &()), ServerAsk::Elicit),
                    (_, next, _) => (next.map(ServerAsk::Elicit), done.out),
                }
            }
            Some(ServerAsk::Sample(s)) => {
                let msg = action.and_then(Box::<SamplingState>::message);
                step(
                    s.update(msg.unwrap_or(SampleMsg::Type(key)), &()),
                    ServerAsk::Sample,
                )
            }
            None => return Vec::new(),
        };
        match next {
            Some(ask) => self.asks.push_front(ask),
            // The next request's guard starts as it is first shown.
            None => {
                if let Some(next) = self.asks.front_mut() {
                    next.reset_shown(now);
                }
            }
        }
        let asks = asks.unwrap_or_default();
        if asks.message.is_some() {
            self.message = asks.message;
        }
        asks.effects
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::app::testkit::{ch, demo_app, key};
    use crate::mcp::client::{ElicitKind, ElicitationAsk, Form, SamplingAsk};
    use crossterm::event::KeyCode;

    fn elicit(app: &mut App, ticket: u64) {
        let form = Form::from_schema(&serde_json::json!({"type": "object", "properties": {}}));
        let ask = ElicitationAsk {
            server: "demo".into(),
            message: "go on?".into(),
            kind: ElicitKind::Form(form),
        };
        app.update(Msg::Elicit { ticket, ask });
    }

    fn sample(app: &mut App, ticket: u64) {
        let ask = SamplingAsk {
            server: "demo".into(),
            system_prompt: None,
            messages: vec![("user".into(), "hi".into())],
            max_tokens: 10,
            model_preferences: None,
            tools: Vec::new(),
        };
        app.update(Msg::Sample { ticket, ask });
    }

    /// A withdrawn request in front says so; the key that would have answered only closes it,
    /// and the next request comes to the front with its own key guard.
    #[test]
    fn a_withdrawn_request_in_front_sends_no_late_answer() {
        let (mut app, _d) = demo_app();
        elicit(&mut app, 1);
        sample(&mut app, 2);
        app.now += Duration::from_secs(1);
        assert!(app.update(Msg::AskWithdrawn { ticket: 1 }).is_empty());
        assert!(app.asks.front().is_some_and(ServerAsk::withdrawn));
        assert_eq!(app.message.as_deref(), Some(WITHDRAWN));
        let effects = app.update(key(KeyCode::Enter));
        assert!(effects.is_empty(), "a late answer is not sent: {effects:?}");
        assert_eq!(app.asks.front().map(ServerAsk::ticket), Some(2));
        let next = app.asks.front().expect("the next request");
        assert!(!next.armed(app.now), "its key guard starts now");
    }

    /// A key a user's keymap binds to copying (or opening) a URL still types into a form, which
    /// has no URL.
    #[test]
    fn a_key_bound_to_copy_types_into_a_form() {
        let (mut app, _d) = demo_app();
        let problems = app
            .keymap
            .apply("elicitation = [{ keys = [\"y\"], action = \"copy\", desc = \"copy\" }]\n");
        assert!(problems.is_empty(), "{problems:?}");
        let form = Form::from_schema(&serde_json::json!({
            "type": "object", "properties": {"name": {"type": "string"}}
        }));
        let ask = ElicitationAsk {
            server: "demo".into(),
            message: "who?".into(),
            kind: ElicitKind::Form(form),
        };
        app.update(Msg::Elicit { ticket: 1, ask });
        app.now += Duration::from_secs(1);
        let effects = app.update(ch('y'));
        assert!(effects.is_empty(), "{effects:?}");
        let Some(ServerAsk::Elicit(e)) = app.asks.front() else {
            panic!("the form stays open")
        };
        let super::super::elicitation::ElicitMode::Form(f) = &e.mode else {
            panic!("a form")
        };
        assert_eq!(
            f.values.first(),
            Some(&super::super::elicitation::FieldValue::Text("y".into()))
        );
    }

    /// A withdrawn sampling request sends nothing either; one queued behind leaves unseen; an
    /// unknown ticket changes nothing.
    #[test]
    fn withdrawn_sampling_and_queued_requests_leave_quietly() {
        let (mut app, _d) = demo_app();
        sample(&mut app, 1);
        elicit(&mut app, 2);
        app.update(Msg::AskWithdrawn { ticket: 2 });
        assert_eq!(app.asks.len(), 1);
        app.update(Msg::AskWithdrawn { ticket: 9 });
        assert_eq!(app.asks.len(), 1);
        app.now += Duration::from_secs(1);
        app.update(Msg::AskWithdrawn { ticket: 1 });
        let effects = app.update(ch('x'));
        assert!(effects.is_empty(), "{effects:?}");
        assert!(app.asks.is_empty());
    }
}
