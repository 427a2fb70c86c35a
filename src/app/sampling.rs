//! A server's sampling request in front of the operator, as a component. mcpdeck has no model:
//! the request (system prompt, messages with images and audio described, model preferences,
//! the token budget, the tools offered) is shown, the operator writes the reply in the editor
//! below it and picks the stop reason, then sends or rejects. Nothing leaves without one of
//! those keys; the answer is an effect (`Effect::AnswerSample`).

use std::time::Instant;

use crossterm::event::KeyEvent;
use ratatui_textarea::TextArea;

use super::Effect;
use super::component::{Component, Update};
use super::keymap::Action;
use super::overlays::{Asks, scrolled};
use super::update::to_input;
use crate::mcp::client::{SamplingAnswer, SamplingAsk};

/// The stop reasons a reply may carry, in the order the key cycles them.
pub const STOP_REASONS: [&str; 3] = ["endTurn", "stopSequence", "maxTokens"];

/// Longest reply kept (characters).
const MAX_REPLY: usize = 64 * 1024;

/// A sampling request waiting for the operator.
#[derive(Debug, Clone)]
pub struct SamplingState {
    /// Names the reply the engine awaits.
    pub ticket: u64,
    /// The request (sanitised by the engine).
    pub ask: SamplingAsk,
    /// The reply being written.
    pub reply: Box<TextArea<'static>>,
    /// Index into [`STOP_REASONS`].
    pub stop: usize,
    /// The first line of the request shown.
    pub scroll: usize,
    /// When it was first shown (keys are ignored for a moment after).
    pub shown_at: Instant,
    /// The server withdrew it: the modal says so and no answer is sent.
    pub withdrawn: bool,
}

impl PartialEq for SamplingState {
    fn eq(&self, other: &Self) -> bool {
        self.ticket == other.ticket && self.reply.lines() == other.reply.lines()
    }
}

impl SamplingState {
    /// The state for a server's ask, shown at `now`.
    pub fn new(ticket: u64, ask: SamplingAsk, now: Instant) -> Self {
        Self {
            ticket,
            ask,
            reply: Box::new(TextArea::default()),
            stop: 0,
            scroll: 0,
            shown_at: now,
            withdrawn: false,
        }
    }

    /// The request as lines for a person: who asks, the budget, preferences, tools, the system
    /// prompt and every message with its role.
    pub fn request_lines(&self) -> Vec<(String, String)> {
        let a = &self.ask;
        let mut out = vec![("max tokens".to_owned(), a.max_tokens.to_string())];
        if let Some(p) = &a.model_preferences {
            out.push(("model".to_owned(), p.clone()));
        }
        if !a.tools.is_empty() {
            out.push((
                "tools".to_owned(),
                format!(
                    "{} (tool use: a text reply declines it)",
                    a.tools.join(", ")
                ),
            ));
        }
        if let Some(s) = &a.system_prompt {
            for line in s.lines() {
                out.push(("system".to_owned(), line.to_owned()));
            }
        }
        for (role, text) in &a.messages {
            for line in text.lines() {
                out.push((role.clone(), line.to_owned()));
            }
        }
        out
    }

    /// The stop reason chosen.
    pub fn stop_reason(&self) -> &'static str {
        STOP_REASONS[self.stop % STOP_REASONS.len()]
    }

    fn answer(&self, answer: SamplingAnswer) -> Update<Box<Self>> {
        let said = match &answer {
            SamplingAnswer::Reply { text, .. } => {
                format!(
                    "sent a {}-character reply to {}",
                    text.chars().count(),
                    self.ask.server
                )
            }
            SamplingAnswer::Reject => format!("rejected {}'s sampling request", self.ask.server),
        };
        let mut asks = Asks::said(&said);
        asks.effects.push(Effect::AnswerSample {
            ticket: self.ticket,
            answer,
        });
        Update::close(Some(asks))
    }

    fn reply_len(&self) -> usize {
        self.reply
            .lines()
            .iter()
            .map(|l| l.chars().count() + 1)
            .sum()
    }

    /// A paste goes into the reply; it never sends.
    pub fn on_paste(&mut self, text: &str) {
        let room = MAX_REPLY.saturating_sub(self.reply_len());
        let text: String = text.chars().take(room).collect();
        self.reply.insert_str(crate::mcp::sanitize::sanitize(&text));
    }
}

/// What the sampling modal answers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SampleMsg {
    /// Send the reply with the stop reason chosen.
    Send,
    /// Reject the request.
    Reject,
    /// The next stop reason.
    StopReason,
    /// Scroll the request a page (`PageUp` or `PageDown`).
    Page(Action),
    /// A key no binding took: it types into the reply.
    Type(KeyEvent),
}

/// The sampling modal: every key it does not bind types into the reply.
impl Component for Box<SamplingState> {
    type Msg = SampleMsg;
    type Env<'a> = ();
    type Out = Asks;

    fn message(action: Action) -> Option<SampleMsg> {
        match action {
            Action::Submit => Some(SampleMsg::Send),
            Action::Decline | Action::Back => Some(SampleMsg::Reject),
            Action::StopReason => Some(SampleMsg::StopReason),
            Action::PageUp | Action::PageDown => Some(SampleMsg::Page(action)),
            _ => None,
        }
    }

    fn update(mut self, msg: SampleMsg, (): &()) -> Update<Self> {
        match msg {
            SampleMsg::Send => {
                let text = self.reply.lines().join("\n");
                if text.trim().is_empty() {
                    return Update::then(self, Asks::said("write a reply first (or reject)"));
                }
                let stop_reason = self.stop_reason().to_owned();
                return self.answer(SamplingAnswer::Reply { text, stop_reason });
            }
            SampleMsg::Reject => return self.answer(SamplingAnswer::Reject),
            SampleMsg::StopReason => self.stop = (self.stop + 1) % STOP_REASONS.len(),
            SampleMsg::Page(action) => {
                let max = self.request_lines().len().saturating_sub(1);
                self.scroll = scrolled(self.scroll, action, max);
            }
            SampleMsg::Type(key) => {
                if self.reply_len() < MAX_REPLY {
                    self.reply.input(to_input(key));
                }
            }
        }
        Update::stay(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::{KeyCode, KeyModifiers};

    fn ask() -> SamplingAsk {
        SamplingAsk {
            server: "s".into(),
            system_prompt: Some("be brief".into()),
            messages: vec![("user".into(), "hi\nthere".into())],
            max_tokens: 100,
            model_preferences: Some("hints: claude".into()),
            tools: vec!["weather".into()],
        }
    }

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn the_request_is_shown_line_by_line() {
        let s = SamplingState::new(1, ask(), Instant::now());
        let lines = s.request_lines();
        assert!(lines.contains(&("system".into(), "be brief".into())));
        assert!(lines.contains(&("user".into(), "there".into())));
        assert!(
            lines
                .iter()
                .any(|(k, v)| k == "tools" && v.contains("weather"))
        );
    }

    /// `msg` through the pure update: whether it closed, and the effects it asked.
    fn step(s: &mut Box<SamplingState>, msg: SampleMsg) -> (bool, Vec<Effect>) {
        let update = s.clone().update(msg, &());
        let effects = update.out.map(|a| a.effects).unwrap_or_default();
        match update.next {
            Some(next) => {
                *s = next;
                (false, effects)
            }
            None => (true, effects),
        }
    }

    #[test]
    fn nothing_is_sent_until_the_operator_sends_or_rejects() {
        let mut s = Box::new(SamplingState::new(3, ask(), Instant::now()));
        let (done, effects) = step(&mut s, SampleMsg::Send);
        assert!(!done && effects.is_empty(), "an empty reply is not sent");
        for c in "hello".chars() {
            let (done, effects) = step(&mut s, SampleMsg::Type(key(KeyCode::Char(c))));
            assert!(!done && effects.is_empty());
        }
        step(&mut s, SampleMsg::StopReason);
        step(&mut s, SampleMsg::Page(Action::PageDown));
        assert_eq!(
            s.scroll,
            s.request_lines().len() - 1,
            "kept at the last line"
        );
        let (done, effects) = step(&mut s, SampleMsg::Send);
        assert!(done);
        assert_eq!(
            effects,
            [Effect::AnswerSample {
                ticket: 3,
                answer: SamplingAnswer::Reply {
                    text: "hello".into(),
                    stop_reason: "stopSequence".into()
                }
            }]
        );
        let mut s = Box::new(SamplingState::new(4, ask(), Instant::now()));
        assert_eq!(
            Box::<SamplingState>::message(Action::Back),
            Some(SampleMsg::Reject)
        );
        let (done, effects) = step(&mut s, SampleMsg::Reject);
        assert!(done);
        assert_eq!(
            effects,
            [Effect::AnswerSample {
                ticket: 4,
                answer: SamplingAnswer::Reject
            }]
        );
    }
}
