//! The approval modal as a component: pending approvals as state, answered with an
//! `Effect::Answer` (the runtime holds the sender the asker awaits). A request shows what it
//! will do — server, operation, effects (labelled server-claimed when they come from the tool's
//! annotations) and the call's arguments: the first [`SHOWN_ARGUMENTS`] bytes in the modal, all
//! of them (as carried, sanitised and with secrets redacted by the engine) in the one text
//! viewer. "Always" adds an allow rule for exactly this server and operation to the user's
//! policy file, after a typed `y`; the runtime writes it (atomic, backed up) and then answers.
//!
//! Keys typed in the first [`GUARD`] after a request appears are ignored (a keystroke meant for
//! something else must not answer), and a paste never answers. Time comes from the app's
//! injected clock.

use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent};

use super::component::{Component, KeyMsg, Update};
use super::keymap::{Action, Ctx};
use super::viewer::Viewer;
use super::{App, Effect};
use crate::mcp::policy::approval::{ApprovalRequest, Decision};
use crate::mcp::policy::exact_rule;
use crate::mcp::sanitize::sanitize_capped;

/// How long keys are ignored after an approval appears.
pub const GUARD: Duration = Duration::from_millis(300);

pub use crate::mcp::policy::approval::{SHOWN_ARGUMENTS, cut_lines};

/// Most bytes of arguments kept from a request (what the engine and the control socket carry).
const KEPT_ARGUMENTS: usize = crate::mcp::engine::MAX_ARGUMENT_BYTES;

/// How an approval was answered, for the approvals view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answered {
    /// Allowed this once.
    Once,
    /// Allowed for the asker's session.
    Session,
    /// An allow rule was asked for in the policy file.
    Always,
    /// Denied.
    Denied,
}

impl Answered {
    /// The words the approvals view shows.
    pub fn label(self) -> &'static str {
        match self {
            Self::Once => "allowed once",
            Self::Session => "allowed (session)",
            Self::Always => "always allowed",
            Self::Denied => "denied",
        }
    }
}

/// One approval waiting for the operator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    /// The request (server and operation sanitised again on entry).
    pub request: ApprovalRequest,
    /// The arguments' lines, sanitised again on entry (empty when the request has none).
    pub arguments: Vec<String>,
    /// When it was first shown (guard start).
    pub shown_at: Instant,
    /// The agent session that asks (its `mcpdeck serve` pid); `None` for the console's own.
    pub agent: Option<u32>,
    /// The arguments' viewer, while it is open.
    pub viewer: Option<Viewer>,
    /// Whether a typed `y` is awaited to add the "always" rule.
    pub confirming_always: bool,
}

impl Pending {
    /// A pending approval shown at `now`.
    pub fn new(mut request: ApprovalRequest, now: Instant) -> Self {
        request.server = sanitize_capped(&request.server, 256);
        request.operation = sanitize_capped(&request.operation, 512);
        let arguments = request
            .arguments
            .as_deref()
            .map(|a| {
                sanitize_capped(a, KEPT_ARGUMENTS)
                    .lines()
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        Self {
            request,
            arguments,
            shown_at: now,
            agent: None,
            viewer: None,
            confirming_always: false,
        }
    }

    /// A pending approval from the agent session `pid`, shown at `now`.
    pub fn from_agent(pid: u32, request: ApprovalRequest, now: Instant) -> Self {
        Self {
            agent: Some(pid),
            ..Self::new(request, now)
        }
    }

    /// Whether keys typed at `now` may answer.
    pub fn armed(&self, now: Instant) -> bool {
        now.saturating_duration_since(self.shown_at) >= GUARD
    }

    /// The lines the modal shows: the arguments' first [`SHOWN_ARGUMENTS`] bytes, the line
    /// that crosses the bound cut short with `…`.
    pub fn shown_arguments(&self) -> Vec<String> {
        cut_lines(&self.arguments, SHOWN_ARGUMENTS)
    }

    /// The allow rule "always" adds: exactly this server and operation.
    pub fn always_rule(&self) -> String {
        exact_rule(&self.request.server, &self.request.operation)
    }

    /// The effect that sends `decision` to whoever asked.
    pub fn answer(self, decision: Decision) -> super::Effect {
        super::Effect::Answer {
            agent: self.agent,
            ticket: self.request.ticket,
            decision,
        }
    }
}

/// What the approval prompt asks of the app.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApprovalOut {
    /// Answer it (the app takes it off the queue).
    Answer(Answered),
    /// Only a status message.
    Said(&'static str),
}

/// The approval prompt answers, asks for the typed `y` of "always" (when there is a policy
/// file, the env's `bool`) and opens its arguments in the viewer (its viewport the env's size).
impl Component for Pending {
    type Msg = KeyMsg;
    type Env<'a> = ((u16, u16), bool);
    type Out = ApprovalOut;

    fn message(action: Action) -> Option<KeyMsg> {
        Some(KeyMsg::Do(action))
    }

    fn update(mut self, msg: KeyMsg, &(viewport, policy): &((u16, u16), bool)) -> Update<Self> {
        let answer = |a| Some(ApprovalOut::Answer(a));
        // The typed `y` of "always" is awaited for one key only.
        let confirming = std::mem::take(&mut self.confirming_always);
        let out = match (msg, &mut self.viewer) {
            (KeyMsg::Do(Action::Back), Some(_)) => {
                self.viewer = None;
                None
            }
            (KeyMsg::Do(action), Some(viewer)) => {
                viewer.viewport = viewport;
                viewer.scroll(&self.arguments, action);
                None
            }
            (KeyMsg::Type(key), None) if confirming && key.code == KeyCode::Char('y') => {
                answer(Answered::Always)
            }
            (_, None) if confirming => {
                Some(ApprovalOut::Said("no rule added; the approval still waits"))
            }
            (KeyMsg::Do(Action::AllowOnce), None) => answer(Answered::Once),
            (KeyMsg::Do(Action::AllowSession), None) => answer(Answered::Session),
            (KeyMsg::Do(Action::Deny), None) => answer(Answered::Denied),
            (KeyMsg::Do(Action::AllowAlways), None) if policy => {
                self.confirming_always = true;
                None
            }
            (KeyMsg::Do(Action::AllowAlways), None) => {
                Some(ApprovalOut::Said("no policy file to add a rule to"))
            }
            (KeyMsg::Do(Action::ViewArguments), None) if !self.arguments.is_empty() => {
                self.viewer = Some(Viewer {
                    viewport,
                    ..Viewer::default()
                });
                None
            }
            _ => return Update::pass(self),
        };
        Update {
            out,
            ..Update::stay(self)
        }
    }
}

impl App {
    /// A key while an approval is in front: its context's action (the arguments viewer's while
    /// it is open), else the key itself (the typed `y` of "always"), through its update.
    pub(super) fn on_approval_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let env = (self.approval_viewport(), self.policy_path.is_some());
        let Some(front) = self.approvals.pop_front() else {
            return Vec::new();
        };
        let ctx = if front.viewer.is_some() {
            Ctx::ApprovalArguments
        } else {
            Ctx::Approval
        };
        let action = self
            .keymap
            .lookup(&[ctx], &key)
            .filter(|_| !front.confirming_always);
        let armed = front.armed(self.now);
        let step = match action.map(KeyMsg::Do) {
            _ if !armed => Update::pass(front),
            msg => front.update(msg.unwrap_or(KeyMsg::Type(key)), &env),
        };
        if let Some(front) = step.next {
            self.approvals.push_front(front);
        }
        match step.out {
            Some(ApprovalOut::Answer(answered)) => self.answer_front(answered),
            Some(ApprovalOut::Said(said)) => {
                self.message = Some(said.to_owned());
                Vec::new()
            }
            None => Vec::new(),
        }
    }

    /// Answers the approval in front and keeps the answer for the approvals view.
    fn answer_front(&mut self, answered: Answered) -> Vec<Effect> {
        let Some(pending) = self.approvals.pop_front() else {
            return Vec::new();
        };
        let (server, operation) = (&pending.request.server, &pending.request.operation);
        self.message = Some(match answered {
            Answered::Always => format!("always allowing {server} {operation}: adding the rule…"),
            other => format!("{}: {server} {operation}", other.label()),
        });
        let shown = match pending.agent {
            Some(pid) => format!("{server} (agent {pid})"),
            None => server.clone(),
        };
        self.decided.push((shown, operation.clone(), answered));
        let effect = match (answered, self.policy_path.clone()) {
            (Answered::Always, Some(policy)) => Effect::AllowAlways {
                agent: pending.agent,
                ticket: pending.request.ticket,
                rule: pending.always_rule(),
                policy,
            },
            (Answered::Once, _) => pending.answer(Decision::AllowOnce),
            (Answered::Session, _) => pending.answer(Decision::AllowSession),
            _ => pending.answer(Decision::Deny),
        };
        // The next request's guard starts when it is first shown.
        if let Some(next) = self.approvals.front_mut() {
            next.shown_at = self.now;
        }
        vec![effect]
    }

    /// The arguments viewer's text area for the current terminal size.
    pub fn approval_viewport(&self) -> (u16, u16) {
        let areas = self.areas();
        let text = super::layout::viewer_text(super::layout::inner(areas.big));
        (text.width, text.height)
    }
}

#[cfg(test)]
#[path = "approval_tests.rs"]
mod tests;
