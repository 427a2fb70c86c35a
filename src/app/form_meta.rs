//! The call form's `_meta` field: entries the operator attaches to a tool call's request
//! `_meta`, as the CLI's `--meta` words are written (`key=value` for a string, `key:=JSON`,
//! separated by spaces, so a JSON value is written without spaces), parsed by the engine's one
//! parser (`CallOptions::parse_meta`) and checked against the keys the protocol keeps
//! (`CallOptions::check_meta`) before anything is sent. It is the last field of the call form
//! of a tool (not of the workspace panel's forms, which run their own calls) and never one of
//! the call's arguments.

use serde_json::{Map, Value};

use super::form::{Field, FieldKind, Form, Invalid};
use crate::mcp::engine::CallOptions;
use crate::mcp::sanitize::sanitize_capped;

/// The field's name in the form.
pub const META_FIELD: &str = "_meta";

/// The empty `_meta` field.
pub fn meta_field() -> Field {
    Field {
        name: META_FIELD.to_owned(),
        key: META_FIELD.to_owned(),
        kind: FieldKind::Meta,
        required: false,
        nullable: false,
        description: "entries for the request's _meta, not arguments: key=value (a string) or \
                      key:=JSON, separated by spaces"
            .to_owned(),
        value: String::new(),
        error: None,
    }
}

impl Form {
    /// The form with the `_meta` field last (a tool's call form).
    #[must_use]
    pub fn with_meta_field(mut self) -> Self {
        self.fields.push(meta_field());
        self
    }

    /// The `_meta` entries typed, or the reason they cannot be sent (also put on the field).
    pub fn meta(&mut self) -> Result<Map<String, Value>, Invalid> {
        let Some(field) = self.fields.iter_mut().find(|f| f.kind == FieldKind::Meta) else {
            return Ok(Map::new());
        };
        let words: Vec<&str> = field.value.split_whitespace().collect();
        let parsed = CallOptions::parse_meta(&words)
            .and_then(|meta| CallOptions::check_meta(&meta).map(|()| meta));
        match parsed {
            Ok(meta) => Ok(meta),
            Err(e) => {
                field.error = Some(sanitize_capped(&e, 256));
                Err(Invalid)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::app::form::Target;

    fn form() -> Form {
        let schema = json!({"type": "object", "properties": {"text": {"type": "string"}},
                            "required": ["text"]});
        Form::new("s", Target::Tool("echo".to_owned()), schema).with_meta_field()
    }

    #[test]
    fn a_tool_form_ends_with_the_meta_field_which_is_never_an_argument() {
        let mut f = form();
        let keys: Vec<&str> = f.fields.iter().map(|f| f.key.as_str()).collect();
        assert_eq!(keys, ["text", META_FIELD]);
        f.fields[0].value = "hi".to_owned();
        f.fields[1].value = "trace=abc  n:=3".to_owned();
        assert_eq!(f.value().expect("valid"), json!({"text": "hi"}));
        assert_eq!(
            Value::Object(f.meta().expect("valid")),
            json!({"trace": "abc", "n": 3})
        );
        // The raw editor's JSON fills the arguments and leaves the entries alone.
        f.fill(&json!({"text": "there"}));
        assert_eq!(f.fields[1].value, "trace=abc  n:=3");
        let plain = Form::new("s", Target::Tool("echo".to_owned()), json!({}));
        assert!(plain.fields.is_empty(), "only the call form adds the field");
    }

    #[test]
    fn a_bad_entry_or_a_protocol_key_is_an_error_on_the_field() {
        let mut f = form();
        for bad in [
            "trace",
            "n:=nope",
            "io.modelcontextprotocol/protocolVersion=x",
        ] {
            f.fields[1].value = bad.to_owned();
            assert_eq!(f.meta(), Err(Invalid), "{bad}");
            assert!(f.fields[1].error.is_some(), "{bad}");
        }
        f.fields[1].value.clear();
        assert_eq!(f.meta(), Ok(Map::new()));
    }
}
