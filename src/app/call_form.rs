//! The call form as a component: the schema form ([`Form`]) and its raw JSON twin
//! ([`RawForm`]) each take a [`FormMsg`] in `update` and return effects (none today: typing
//! only changes the form). Submitting and switching between the two are the app's, since they
//! replace the screen; drawing is `ui::call_form`.

use crossterm::event::KeyEvent;

use super::form::Form;
use super::{Effect, RawForm};

/// What the call form is told (keys the keymap did not take, pastes, arrows).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormMsg {
    /// A key typed into the form.
    Key(KeyEvent),
    /// Pasted text (it only types, never submits).
    Paste(String),
    /// Move the field focus by this many fields (wrapping).
    Move(isize),
}

impl Form {
    /// Handles one message.
    pub fn update(&mut self, msg: FormMsg) -> Vec<Effect> {
        match msg {
            FormMsg::Key(key) => self.on_text_key(&key),
            FormMsg::Paste(text) => {
                if let Some(f) = self.focused() {
                    f.value.push_str(&text);
                    f.error = None;
                }
            }
            FormMsg::Move(delta) => self.move_focus(delta.signum()),
        }
        Vec::new()
    }
}

impl RawForm {
    /// Handles one message; any edit clears the last parse error.
    pub fn update(&mut self, msg: FormMsg) -> Vec<Effect> {
        match msg {
            FormMsg::Key(key) => {
                self.area.input(super::update::to_input(key));
                self.error = None;
            }
            FormMsg::Paste(text) => {
                self.area.insert_str(text);
            }
            FormMsg::Move(_) => {}
        }
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::form::Target;
    use crossterm::event::{KeyCode, KeyModifiers};

    #[test]
    fn typing_and_pasting_fill_the_focused_field_and_arrows_wrap() {
        let schema = serde_json::json!({
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "string"}}
        });
        let mut form = Form::new("s", Target::Tool("t".to_owned()), schema);
        let key = KeyEvent::new(KeyCode::Char('x'), KeyModifiers::NONE);
        assert!(form.update(FormMsg::Key(key)).is_empty());
        form.update(FormMsg::Paste("yz".to_owned()));
        assert_eq!(form.fields[0].value, "xyz");
        form.update(FormMsg::Move(-3));
        assert_eq!(form.focus, 1, "moves one field, wrapping");
    }
}
