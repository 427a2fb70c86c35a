//! A server's elicitation in front of the operator, as a component. Form mode: one editable
//! value per field of the server's `requestedSchema` (already sanitised and bounded by the
//! engine's `mcp::client::Form`), pre-filled with the schema's defaults, checked field by field
//! as the operator types once a first accept was tried; Accept sends the content, Decline and
//! Cancel send nothing. URL mode: the URL is shown (its origin apart), opened only on the
//! operator's key, copied on another. Answers are effects (`Effect::AnswerElicit`); the engine
//! checks an accepted content against the form again before it leaves.

use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::{Map, Value};

use super::Effect;
use super::component::{Component, Update};
use super::keymap::Action;
use super::overlays::Asks;
use crate::mcp::client::{ElicitAnswer, ElicitKind, ElicitationAsk, FieldKind, Form, FormField};

/// Longest text a field keeps while typing.
const MAX_TYPED: usize = 4096;

/// One field's value as the operator edits it.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldValue {
    /// Text or a number, as typed.
    Text(String),
    /// A boolean; `None` until chosen.
    Bool(Option<bool>),
    /// The chosen option's index.
    Single(Option<usize>),
    /// Which options are chosen.
    Multi(Vec<bool>),
}

/// The form being filled.
#[derive(Debug, Clone, PartialEq)]
pub struct FormState {
    /// The fields (sanitised by the engine).
    pub form: Form,
    /// One value per field.
    pub values: Vec<FieldValue>,
    /// The focused field.
    pub focus: usize,
    /// The option cursor in a multi-select field.
    pub option: usize,
    /// Each field's problem, shown once an accept was tried.
    pub errors: Vec<Option<String>>,
    /// Whether an accept was tried (problems are shown from then on).
    pub checked: bool,
}

/// What the server asks for.
#[derive(Debug, Clone, PartialEq)]
pub enum ElicitMode {
    /// A form.
    Form(FormState),
    /// A URL to visit in a browser.
    Url {
        /// The URL (sanitised).
        url: String,
        /// Its origin, for emphasis.
        origin: String,
        /// The server's elicitation id (`notifications/elicitation/complete` names it).
        id: String,
    },
}

/// An elicitation waiting for the operator.
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitState {
    /// Names the reply the engine awaits.
    pub ticket: u64,
    /// The server that asks.
    pub server: String,
    /// The server's message.
    pub message: String,
    /// Form or URL.
    pub mode: ElicitMode,
    /// When it was first shown (keys are ignored for a moment after).
    pub shown_at: Instant,
    /// The server withdrew it: the modal says so and no answer is sent.
    pub withdrawn: bool,
}

/// What an elicitation answers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElicitMsg {
    /// Accept: the form's content when every field is right (a URL: done).
    Accept,
    /// Decline.
    Decline,
    /// Cancel (dismiss).
    Cancel,
    /// Open the URL in the browser.
    OpenUrl,
    /// Copy the URL.
    Copy,
    /// Move the focus by this many fields.
    Focus(isize),
    /// Toggle the focused yes/no or option (a space in text).
    Toggle,
    /// Step the focused field's option by this much.
    Step(isize),
    /// Type a character into the focused field.
    Type(char),
    /// Delete back (a yes/no or choice back to "not answered").
    Backspace,
}

impl ElicitMsg {
    /// What a key no binding took types: a character, or a backspace.
    pub fn typed(key: &KeyEvent) -> Option<Self> {
        match key.code {
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                Some(Self::Type(c))
            }
            KeyCode::Backspace => Some(Self::Backspace),
            _ => None,
        }
    }
}

impl FormState {
    fn new(mut form: Form) -> Self {
        // Required fields first, as in the call form; otherwise the engine's order.
        form.fields.sort_by_key(|f| !f.required);
        let values: Vec<FieldValue> = form.fields.iter().map(initial).collect();
        let errors = vec![None; values.len()];
        Self {
            form,
            values,
            focus: 0,
            option: 0,
            errors,
            checked: false,
        }
    }

    /// The focused field and its value.
    pub fn focused(&self) -> Option<(&FormField, &FieldValue)> {
        Some((
            self.form.fields.get(self.focus)?,
            self.values.get(self.focus)?,
        ))
    }

    /// The content the fields make, with each field's problem (`Err` when any).
    pub fn content(&self) -> (Map<String, Value>, Vec<Option<String>>) {
        let mut out = Map::new();
        let mut errors = Vec::with_capacity(self.values.len());
        for (field, value) in self.form.fields.iter().zip(&self.values) {
            let (parsed, problem) = match field_value(field, value) {
                Ok(Some(v)) => {
                    let problem = field.check(&v).err();
                    (Some(v), problem)
                }
                Ok(None) if field.required => (None, Some("required".to_owned())),
                Ok(None) => (None, None),
                Err(e) => (None, Some(e)),
            };
            if let Some(v) = parsed {
                out.insert(field.key.clone(), v);
            }
            errors.push(problem);
        }
        (out, errors)
    }

    fn recheck(&mut self) {
        if self.checked {
            self.errors = self.content().1;
        }
    }

    fn move_focus(&mut self, delta: isize) {
        let n = self.values.len();
        if n == 0 {
            return;
        }
        self.focus = self.focus.saturating_add_signed(delta).min(n - 1);
        self.option = 0;
    }

    /// Space: toggles a boolean or the option under the cursor; types a space in text.
    fn toggle(&mut self) {
        let options = self.option_count().max(1);
        match self.values.get_mut(self.focus) {
            Some(FieldValue::Bool(b)) => *b = Some(!b.unwrap_or(false)),
            Some(FieldValue::Multi(chosen)) => {
                if let Some(c) = chosen.get_mut(self.option) {
                    *c = !*c;
                }
            }
            Some(FieldValue::Single(choice)) => {
                *choice = Some(choice.map_or(0, |c| c + 1) % options);
            }
            Some(FieldValue::Text(_)) => self.type_char(' '),
            None => {}
        }
        self.recheck();
    }

    fn option_count(&self) -> usize {
        match self.form.fields.get(self.focus).map(|f| &f.kind) {
            Some(FieldKind::Single(o)) => o.len(),
            Some(FieldKind::Multi { options, .. }) => options.len(),
            _ => 0,
        }
    }

    /// Right/Left: the next or previous option (single-select chooses it).
    fn step_option(&mut self, delta: isize) {
        let n = self.option_count();
        if n == 0 {
            return;
        }
        match self.values.get_mut(self.focus) {
            Some(FieldValue::Single(choice)) => {
                let at = choice.map_or(0, |c| (c + n).saturating_add_signed(delta) % n);
                *choice = Some(at);
            }
            Some(FieldValue::Multi(_)) => {
                self.option = (self.option + n).saturating_add_signed(delta) % n;
            }
            _ => {}
        }
        self.recheck();
    }

    fn type_char(&mut self, c: char) {
        if let Some(FieldValue::Text(text)) = self.values.get_mut(self.focus)
            && text.len() < MAX_TYPED
            && !c.is_control()
        {
            text.push(c);
        }
        self.recheck();
    }

    fn backspace(&mut self) {
        match self.values.get_mut(self.focus) {
            Some(FieldValue::Text(text)) => {
                text.pop();
            }
            // Back to "not answered".
            Some(FieldValue::Bool(b)) => *b = None,
            Some(FieldValue::Single(c)) => *c = None,
            _ => {}
        }
        self.recheck();
    }

    fn paste(&mut self, text: &str) {
        for c in text.chars().filter(|c| !c.is_control()) {
            self.type_char(c);
        }
    }
}

/// A field's starting value: its default (SEP-1034), else empty.
fn initial(field: &FormField) -> FieldValue {
    let default = field.default.as_ref();
    match &field.kind {
        FieldKind::Text { .. } => FieldValue::Text(
            default
                .and_then(Value::as_str)
                .map(str::to_owned)
                .unwrap_or_default(),
        ),
        FieldKind::Number { .. } => {
            FieldValue::Text(default.map(ToString::to_string).unwrap_or_default())
        }
        FieldKind::Boolean => FieldValue::Bool(default.and_then(Value::as_bool)),
        FieldKind::Single(options) => FieldValue::Single(
            default
                .and_then(Value::as_str)
                .and_then(|d| options.iter().position(|o| o.value == d)),
        ),
        FieldKind::Multi { options, .. } => {
            let chosen: Vec<&str> = default
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            FieldValue::Multi(
                options
                    .iter()
                    .map(|o| chosen.contains(&o.value.as_str()))
                    .collect(),
            )
        }
    }
}

/// The JSON a field's value makes (`None` when unanswered).
fn field_value(field: &FormField, value: &FieldValue) -> Result<Option<Value>, String> {
    match (value, &field.kind) {
        (FieldValue::Text(text), FieldKind::Text { .. }) if !text.is_empty() => {
            Ok(Some(Value::String(text.clone())))
        }
        (FieldValue::Text(text), _) => field.parse_input(text),
        (FieldValue::Bool(b), _) => Ok(b.map(Value::Bool)),
        (FieldValue::Single(choice), FieldKind::Single(options)) => Ok(choice
            .and_then(|c| options.get(c))
            .map(|o| Value::String(o.value.clone()))),
        (FieldValue::Multi(chosen), FieldKind::Multi { options, .. }) => {
            let picked: Vec<Value> = options
                .iter()
                .zip(chosen)
                .filter(|(_, c)| **c)
                .map(|(o, _)| Value::String(o.value.clone()))
                .collect();
            Ok((!picked.is_empty() || field.required).then_some(Value::Array(picked)))
        }
        _ => Ok(None),
    }
}

impl ElicitState {
    /// The state for a server's ask, shown at `now`.
    pub fn new(ticket: u64, ask: ElicitationAsk, now: Instant) -> Self {
        let mode = match ask.kind {
            ElicitKind::Form(form) => ElicitMode::Form(FormState::new(form)),
            ElicitKind::Url { url, origin, id } => ElicitMode::Url { url, origin, id },
        };
        Self {
            ticket,
            server: ask.server,
            message: ask.message,
            mode,
            shown_at: now,
            withdrawn: false,
        }
    }

    fn answered(&self, answer: ElicitAnswer) -> Update<Self> {
        let said = match &answer {
            ElicitAnswer::Accept(_) => "accepted",
            ElicitAnswer::Decline => "declined",
            ElicitAnswer::Cancel => "cancelled",
        };
        Update::close(Some(Asks {
            effects: vec![Effect::AnswerElicit {
                ticket: self.ticket,
                answer,
            }],
            message: Some(format!("{said}: {}'s request for input", self.server)),
            ..Asks::default()
        }))
    }

    /// Accept: the form's content when every field is right, else the problems are shown.
    fn accept(mut self) -> Update<Self> {
        let ElicitMode::Form(form) = &mut self.mode else {
            return self.answered(ElicitAnswer::Accept(Map::new()));
        };
        let (content, errors) = form.content();
        form.checked = true;
        let first = errors.iter().position(Option::is_some);
        form.errors = errors;
        if let Some(at) = first {
            form.focus = at;
            let title = &form.form.fields[at].title;
            let said = format!("`{title}` needs attention before accepting");
            return Update::then(self, Asks::said(&said));
        }
        self.answered(ElicitAnswer::Accept(content))
    }

    /// A paste types into the focused text field; it never answers.
    pub fn on_paste(&mut self, text: &str) {
        if let ElicitMode::Form(form) = &mut self.mode {
            form.paste(text);
        }
    }
}

/// An elicitation takes the keys of its mode's context, and typing.
impl Component for ElicitState {
    type Msg = ElicitMsg;
    type Env<'a> = ();
    type Out = Asks;

    fn message(action: Action) -> Option<ElicitMsg> {
        Some(match action {
            Action::Submit => ElicitMsg::Accept,
            Action::Decline => ElicitMsg::Decline,
            Action::Back => ElicitMsg::Cancel,
            Action::OpenUrl => ElicitMsg::OpenUrl,
            Action::Copy => ElicitMsg::Copy,
            Action::Up => ElicitMsg::Focus(-1),
            Action::Down => ElicitMsg::Focus(1),
            Action::Toggle => ElicitMsg::Toggle,
            Action::NextOption => ElicitMsg::Step(1),
            Action::PrevOption => ElicitMsg::Step(-1),
            _ => return None,
        })
    }

    fn update(mut self, msg: ElicitMsg, (): &()) -> Update<Self> {
        match (msg, &mut self.mode) {
            (ElicitMsg::Accept, _) => return self.accept(),
            (ElicitMsg::Decline, _) => return self.answered(ElicitAnswer::Decline),
            (ElicitMsg::Cancel, _) => return self.answered(ElicitAnswer::Cancel),
            (ElicitMsg::OpenUrl, ElicitMode::Url { url, .. }) => {
                let mut asks = Asks::said("opening the URL in the browser");
                let server = self.server.clone();
                asks.effects.push(Effect::OpenUrl {
                    server,
                    url: url.clone(),
                });
                return Update::then(self, asks);
            }
            (ElicitMsg::Copy, ElicitMode::Url { url, .. }) => {
                let copy = Effect::Copy(url.clone());
                return Update::then(self, copy.into());
            }
            (ElicitMsg::Focus(delta), ElicitMode::Form(form)) => form.move_focus(delta),
            (ElicitMsg::Toggle, ElicitMode::Form(form)) => form.toggle(),
            (ElicitMsg::Step(delta), ElicitMode::Form(form)) => form.step_option(delta),
            (ElicitMsg::Type(c), ElicitMode::Form(form)) => form.type_char(c),
            (ElicitMsg::Backspace, ElicitMode::Form(form)) => form.backspace(),
            // A form has no URL: the key is not taken (it types); a URL takes no typing.
            (ElicitMsg::OpenUrl | ElicitMsg::Copy, ElicitMode::Form(_)) => {
                return Update::pass(self);
            }
            (_, ElicitMode::Url { .. }) => {}
        }
        Update::stay(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn state(schema: &Value) -> ElicitState {
        let ask = ElicitationAsk {
            server: "s".into(),
            message: "tell me".into(),
            kind: ElicitKind::Form(Form::from_schema(schema)),
        };
        ElicitState::new(7, ask, Instant::now())
    }

    /// `msg` through the pure update: whether it closed, and the effects it asked.
    fn step(s: &mut ElicitState, msg: ElicitMsg) -> (bool, Vec<Effect>) {
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

    fn schema() -> Value {
        json!({"type": "object", "required": ["name", "age"], "properties": {
            "name": {"type": "string", "minLength": 2},
            "age": {"type": "integer", "minimum": 1, "default": 30},
            "ok": {"type": "boolean"},
            "pick": {"type": "string", "oneOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "B"}]},
            "many": {"type": "array", "items": {"type": "string", "enum": ["x", "y"]}, "default": ["y"]}
        }})
    }

    #[test]
    fn defaults_are_prefilled_and_missing_required_blocks_accept() {
        let mut s = state(&schema());
        let ElicitMode::Form(form) = &s.mode else {
            panic!("form")
        };
        // Required first (age, name), then the engine's key order: many, ok, pick.
        assert_eq!(form.values[0], FieldValue::Text("30".into()));
        assert_eq!(form.values[2], FieldValue::Multi(vec![false, true]));
        let (done, effects) = step(&mut s, ElicitMsg::Accept);
        assert!(!done && effects.is_empty(), "{effects:?}");
        let ElicitMode::Form(form) = &s.mode else {
            panic!("form")
        };
        assert_eq!(form.focus, 1, "the first field with a problem");
        assert_eq!(form.errors[1].as_deref(), Some("required"));
    }

    #[test]
    fn typed_values_build_typed_content_and_errors_update_live() {
        let mut s = state(&schema());
        // name: too short, then right, checked again as typed once accept was tried.
        step(&mut s, ElicitMsg::Focus(1));
        step(&mut s, ElicitMsg::Type('J'));
        step(&mut s, ElicitMsg::Accept);
        let ElicitMode::Form(form) = &s.mode else {
            panic!("form")
        };
        assert!(
            form.errors[1]
                .as_deref()
                .is_some_and(|e| e.contains("at least 2"))
        );
        step(&mut s, ElicitMsg::Type('o'));
        let ElicitMode::Form(form) = &s.mode else {
            panic!("form")
        };
        assert_eq!(form.errors[1], None, "checked again as typed");
        // many: Space toggles x (y is the default).
        step(&mut s, ElicitMsg::Focus(1));
        step(&mut s, ElicitMsg::Toggle);
        // ok: Space → true; pick: Right → A, Right → B.
        step(&mut s, ElicitMsg::Focus(1));
        step(&mut s, ElicitMsg::Toggle);
        step(&mut s, ElicitMsg::Focus(1));
        step(&mut s, ElicitMsg::Step(1));
        step(&mut s, ElicitMsg::Step(1));
        let (done, effects) = step(&mut s, ElicitMsg::Accept);
        assert!(done);
        let Effect::AnswerElicit {
            ticket: 7,
            answer: ElicitAnswer::Accept(content),
        } = &effects[0]
        else {
            panic!("{effects:?}")
        };
        assert_eq!(
            Value::Object(content.clone()),
            json!({"name": "Jo", "age": 30, "ok": true, "pick": "b", "many": ["x", "y"]})
        );
    }

    #[test]
    fn decline_and_cancel_send_no_content_and_url_mode_opens_only_on_the_key() {
        let mut s = state(&schema());
        let copy = s.clone().update(ElicitMsg::Copy, &());
        assert!(
            !copy.taken && copy.next == Some(s.clone()),
            "a form has no URL to copy"
        );
        let (_, effects) = step(&mut s, ElicitMsg::Decline);
        assert_eq!(
            effects,
            [Effect::AnswerElicit {
                ticket: 7,
                answer: ElicitAnswer::Decline
            }]
        );
        let ask = ElicitationAsk {
            server: "s".into(),
            message: "go".into(),
            kind: ElicitKind::Url {
                url: "https://example.com/x".into(),
                origin: "https://example.com".into(),
                id: "1".into(),
            },
        };
        let mut s = ElicitState::new(9, ask, Instant::now());
        let (done, effects) = step(&mut s, ElicitMsg::Type('z'));
        assert!(
            !done && effects.is_empty(),
            "typing does nothing in URL mode"
        );
        let (done, effects) = step(&mut s, ElicitMsg::OpenUrl);
        assert_eq!(
            effects,
            [Effect::OpenUrl {
                server: "s".into(),
                url: "https://example.com/x".into()
            }]
        );
        assert!(!done);
        assert_eq!(ElicitState::message(Action::Back), Some(ElicitMsg::Cancel));
        let (_, effects) = step(&mut s, ElicitMsg::Cancel);
        assert_eq!(
            effects,
            [Effect::AnswerElicit {
                ticket: 9,
                answer: ElicitAnswer::Cancel
            }]
        );
    }
}
