//! Argument completion in the call form, as a component: Tab in a prompt's argument or a
//! resource template's variable asks the server (`completion/complete`, with the arguments
//! already filled as context) and opens a bounded suggestion list under the form. While the
//! list is open, typing edits the field and asks again once the operator pauses
//! ([`DEBOUNCE`]); the list's keys (the keymap's `completion` context) pick, take the pick or
//! close the list. Tool forms
//! (tools have no completion in MCP) and servers that do not declare `completions` keep Tab as
//! "next field". Replies carry their request id; a reply for a list that moved on is dropped.

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::form::{FieldKind, Form, Target};
use super::keymap::{Action, Ctx};
use super::{App, Effect, Load, ReqId, Screen, Waiter};
use crate::mcp::api::OpResult;
use crate::mcp::connection::ErrorClass;
use crate::mcp::engine::{CompletionTarget, EngineRequest, OperatorOp, Outcome};
use crate::mcp::sanitize::sanitize_capped;

/// How long typing must pause before the list asks the server again.
pub const DEBOUNCE: Duration = Duration::from_millis(250);

/// Suggestions kept from one reply (the protocol's own cap is 100).
pub const MAX_KEPT: usize = 100;

/// Rows the list shows at most (fewer on a small screen); the highlight scrolls through the
/// rest.
pub const VISIBLE: usize = 6;

/// The server's suggestions for one field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suggestions {
    /// The values (sanitised by the engine), at most [`MAX_KEPT`].
    pub values: Vec<String>,
    /// How many there are in all, when the server says.
    pub total: Option<u32>,
    /// Whether there are more than these.
    pub has_more: bool,
}

/// An open suggestion list for one field of the call form in front.
#[derive(Debug, Clone, PartialEq)]
pub struct CompletionList {
    /// The server asked.
    pub server: String,
    /// The prompt or template the form fills.
    pub target: CompletionTarget,
    /// The field's index in the form.
    pub field: usize,
    /// The field's name as the schema has it (the argument completed).
    pub argument: String,
    /// The field's name for display (sanitised).
    pub label: String,
    /// When the next ask is due (typing waits for a pause), if one is.
    pub due: Option<Instant>,
    /// The last reply, or the ask in flight.
    pub load: Load<Suggestions>,
    /// The highlighted suggestion.
    pub sel: usize,
}

impl CompletionList {
    /// The highlighted value, when suggestions arrived.
    pub fn picked(&self) -> Option<&str> {
        match &self.load {
            Load::Ready(s) => s.values.get(self.sel).map(String::as_str),
            _ => None,
        }
    }
}

/// Completion state across forms: the open list, and the servers known to offer none.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Completer {
    /// The list in front, if open.
    pub open: Option<CompletionList>,
    /// Servers that answered "no completions" this session (Tab then moves between fields).
    pub refused: BTreeSet<String>,
}

impl Completer {
    /// When a debounced ask is due (the runtime ticks until then).
    pub fn due(&self) -> Option<Instant> {
        self.open.as_ref().and_then(|l| l.due)
    }
}

/// What a form field completes against, when it completes at all: a text field of a prompt
/// or a resource template.
fn completion_target(form: &Form) -> Option<CompletionTarget> {
    let field = form.fields.get(form.focus)?;
    if field.kind != FieldKind::Text {
        return None;
    }
    match &form.target {
        Target::Prompt(name) => Some(CompletionTarget::Prompt(name.clone())),
        Target::Template(name) => Some(CompletionTarget::Template(name.clone())),
        Target::Tool(_) | Target::Uri => None,
    }
}

/// The arguments already filled, other than `skip`: the context a server narrows by.
fn filled_context(form: &Form, skip: usize) -> BTreeMap<String, String> {
    form.fields
        .iter()
        .enumerate()
        .filter(|(i, f)| *i != skip && !f.value.trim().is_empty())
        .map(|(_, f)| (f.key.clone(), f.value.clone()))
        .collect()
}

impl App {
    /// Tab in the call form: asks for the focused field's completions where it has any, else
    /// moves to the next field.
    pub(super) fn on_complete(&mut self) -> Vec<Effect> {
        let Screen::Form(form) = &mut self.screen else {
            return Vec::new();
        };
        let target =
            completion_target(form).filter(|_| !self.completer.refused.contains(&form.server));
        let Some(target) = target else {
            form.move_focus(1);
            return Vec::new();
        };
        let Some(field) = form.fields.get(form.focus) else {
            return Vec::new();
        };
        let list = CompletionList {
            server: form.server.clone(),
            target,
            field: form.focus,
            argument: field.key.clone(),
            label: field.name.clone(),
            due: None,
            load: Load::Idle,
            sel: 0,
        };
        self.completer.open = Some(list);
        self.ask_completion()
    }

    /// Sends the open list's ask for what the field holds now.
    fn ask_completion(&mut self) -> Vec<Effect> {
        let Screen::Form(form) = &self.screen else {
            self.completer.open = None;
            return Vec::new();
        };
        let Some(list) = self.completer.open.as_ref() else {
            return Vec::new();
        };
        let Some(field) = form.fields.get(list.field) else {
            self.completer.open = None;
            return Vec::new();
        };
        let op = OperatorOp::Complete {
            target: list.target.clone(),
            argument: list.argument.clone(),
            value: field.value.clone(),
            context: filled_context(form, list.field),
        };
        let server = list.server.clone();
        let id = self.id(Waiter::Completion);
        if let Some(list) = self.completer.open.as_mut() {
            list.due = None;
            list.load = Load::Loading(id);
        }
        vec![Effect::Engine {
            id,
            request: EngineRequest::Operator { server, op },
        }]
    }

    /// A key while a suggestion list is open; `None` lets the form handle it (the list closes
    /// first unless the key only types). The list's own keys come from the keymap.
    pub(super) fn on_completion_key(&mut self, key: &KeyEvent) -> Option<Vec<Effect>> {
        let action = self.keymap.lookup(&[Ctx::Completion], key);
        let now = self.now;
        let list = self.completer.open.as_mut()?;
        let still_there = matches!(&self.screen, Screen::Form(f)
            if f.focus == list.field && f.server == list.server);
        if !still_there {
            self.completer.open = None;
            return None;
        }
        let count = match &list.load {
            Load::Ready(s) => s.values.len(),
            _ => 0,
        };
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match (action, key.code) {
            (Some(Action::Back), _) => self.completer.open = None,
            (Some(Action::Up), _) => list.sel = list.sel.saturating_sub(1),
            (Some(Action::Down), _) => list.sel = (list.sel + 1).min(count.saturating_sub(1)),
            (Some(Action::Submit), _) if count > 0 => {
                let value = list.picked().map(str::to_owned);
                let field = list.field;
                self.completer.open = None;
                if let (Some(value), Screen::Form(form)) = (value, &mut self.screen)
                    && let Some(f) = form.fields.get_mut(field)
                {
                    f.value = value;
                    f.error = None;
                }
            }
            // Nothing to take yet: Tab waits; Enter runs the form as usual.
            (Some(Action::Submit), KeyCode::Tab) => {}
            (None, KeyCode::Char(_) | KeyCode::Backspace) if !ctrl => {
                list.due = Some(now + DEBOUNCE);
                list.sel = 0;
                if let Screen::Form(form) = &mut self.screen {
                    form.on_text_key(key);
                }
            }
            _ => {
                self.completer.open = None;
                return None;
            }
        }
        Some(Vec::new())
    }

    /// A pasted text into a field whose list is open: ask again after the pause.
    pub(super) fn completion_typed(&mut self) {
        let now = self.now;
        if let Some(list) = self.completer.open.as_mut() {
            list.due = Some(now + DEBOUNCE);
            list.sel = 0;
        }
    }

    /// Time passed: the debounced ask goes out once the pause is long enough.
    pub(super) fn on_completion_tick(&mut self) -> Vec<Effect> {
        match self.completer.due() {
            Some(due) if self.now >= due => self.ask_completion(),
            _ => Vec::new(),
        }
    }

    /// The server's suggestions arrived (dropped unless the list still waits for them).
    pub(super) fn on_completion_done(&mut self, id: ReqId, outcome: &Outcome) -> Vec<Effect> {
        let Some(list) = self.completer.open.as_mut() else {
            return Vec::new();
        };
        if !list.load.waits_for(id) {
            return Vec::new();
        }
        match &outcome.body {
            Ok(success) => {
                list.load = match &success.result {
                    OpResult::Completion(c) => Load::Ready(Suggestions {
                        values: c
                            .values
                            .iter()
                            .take(MAX_KEPT)
                            .map(|v| sanitize_capped(v, 200))
                            .collect(),
                        total: c.total,
                        has_more: c.has_more,
                    }),
                    _ => Load::Failed(
                        "unexpected_result".to_owned(),
                        "the engine answered the completion with another result type".to_owned(),
                    ),
                };
                list.sel = 0;
            }
            // Nothing was sent: this server offers no completion, so Tab moves on from now on.
            Err(f) if f.class == ErrorClass::NotSupported => {
                let server = list.server.clone();
                self.completer.open = None;
                self.message = Some(format!(
                    "{} offers no completions; Tab moves to the next field",
                    sanitize_capped(&server, 64)
                ));
                self.completer.refused.insert(server);
                if let Screen::Form(form) = &mut self.screen {
                    form.move_focus(1);
                }
            }
            Err(f) => {
                list.load = Load::Failed(
                    sanitize_capped(f.class.name(), 64),
                    sanitize_capped(&f.message, 300),
                );
            }
        }
        Vec::new()
    }
}
