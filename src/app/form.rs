//! Call forms as data: a `Vec<Field>` built once from a tool's input schema (or a
//! prompt's arguments), edited key by key, and turned into a `serde_json::Value` on submit.
//! Nested objects and arrays are edited as JSON text in their field; the whole argument object
//! can also be edited as raw JSON (the raw editor state lives beside the form). A field's text
//! is typed, and the arguments checked, by the engine's compiled schema
//! (`mcp::arguments::ToolArguments`), the same as the CLI's `key=value` words.

use serde_json::{Map, Value};

use crate::mcp::arguments::ToolArguments;
use crate::mcp::sanitize::sanitize_capped;

/// What kind of value a field takes.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldKind {
    /// A string.
    Text,
    /// A JSON number.
    Number,
    /// An integer.
    Integer,
    /// `true` / `false`, toggled with Space.
    Bool,
    /// One of fixed values, cycled with Space.
    Enum(Vec<Value>),
    /// Any JSON (objects, arrays, unions), typed as JSON text.
    Json,
    /// Not an argument: the call's `_meta` entries (`app::form_meta`).
    Meta,
}

/// One form field.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// The property name (sanitised for display; the raw name is `key`).
    pub name: String,
    /// The property name as the schema has it.
    pub key: String,
    /// The kind.
    pub kind: FieldKind,
    /// Whether the schema requires it.
    pub required: bool,
    /// Whether `null` is allowed (`anyOf` with `null`, or a `type` array with `null`).
    pub nullable: bool,
    /// The description, sanitised and capped.
    pub description: String,
    /// The text typed so far.
    pub value: String,
    /// The field's validation error, if any.
    pub error: Option<String>,
}

/// What a form submits to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// `tools/call` of this tool.
    Tool(String),
    /// `prompts/get` of this prompt.
    Prompt(String),
    /// `resources/read` of this resource template (by name), expanded with the fields.
    Template(String),
    /// `resources/read` of the URI typed in the form's one field.
    Uri,
}

/// The form's input does not validate; the reasons are on the fields and in `errors`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Invalid;

/// The fields of one call, with the schema they came from.
#[derive(Debug, Clone)]
pub struct Form {
    /// The server the call goes to.
    pub server: String,
    /// What the call is.
    pub target: Target,
    /// The input schema (validation source).
    pub schema: Value,
    /// The schema compiled: each field's types and the validator.
    pub arguments: std::sync::Arc<ToolArguments>,
    /// The fields, in schema order.
    pub fields: Vec<Field>,
    /// The focused field.
    pub focus: usize,
    /// Errors not tied to one field.
    pub errors: Vec<String>,
    /// Run the tool as a task (`tasks` of 2025-11-25); a tool that requires one runs as one
    /// either way.
    pub as_task: bool,
    /// What the poisoning scan found in the prompt or template the form is for (one line
    /// each, sanitised), shown under its title; empty when nothing.
    pub findings: Vec<String>,
}

/// The non-null type of a property schema and whether it admits null.
fn kind_of(prop: &Value) -> (FieldKind, bool) {
    if let Some(values) = prop.get("enum").and_then(Value::as_array) {
        let nullable = values.iter().any(Value::is_null);
        let values = values.iter().filter(|v| !v.is_null()).cloned().collect();
        return (FieldKind::Enum(values), nullable);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(options) = prop.get(key).and_then(Value::as_array) {
            let is_null = |v: &&Value| v.get("type").and_then(Value::as_str) == Some("null");
            let nullable = options.iter().any(|o| is_null(&o));
            let rest: Vec<&Value> = options.iter().filter(|o| !is_null(o)).collect();
            if let [only] = rest.as_slice() {
                let (kind, inner) = kind_of(only);
                return (kind, nullable || inner);
            }
            return (FieldKind::Json, nullable);
        }
    }
    let (ty, nullable) = match prop.get("type") {
        Some(Value::String(t)) => (t.as_str(), false),
        Some(Value::Array(types)) => {
            let names: Vec<&str> = types.iter().filter_map(Value::as_str).collect();
            let nullable = names.contains(&"null");
            let rest: Vec<&str> = names.into_iter().filter(|t| *t != "null").collect();
            match rest.as_slice() {
                [one] => (*one, nullable),
                _ => ("", nullable),
            }
        }
        _ => ("", false),
    };
    let kind = match ty {
        "string" => FieldKind::Text,
        "number" => FieldKind::Number,
        "integer" => FieldKind::Integer,
        "boolean" => FieldKind::Bool,
        _ => FieldKind::Json,
    };
    (kind, nullable)
}

/// A skeleton value for a field, used to prefill required fields.
fn skeleton(kind: &FieldKind, prop: &Value) -> String {
    if let Some(default) = prop.get("default") {
        return match default {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
    }
    match kind {
        FieldKind::Bool => "false".to_owned(),
        FieldKind::Enum(values) => values.first().map(display_enum).unwrap_or_default(),
        FieldKind::Json => match prop.get("type").and_then(Value::as_str) {
            Some("array") => "[]".to_owned(),
            Some("object") => "{}".to_owned(),
            _ => String::new(),
        },
        _ => String::new(),
    }
}

fn display_enum(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

impl Form {
    /// Builds the form for `schema` (an object schema; anything else gives one raw field).
    pub fn new(server: &str, target: Target, schema: Value) -> Self {
        Self::with_arguments(server, target, schema, None)
    }

    /// A form for `schema` typed by `arguments` when the catalog compiled them already (a
    /// tool's description carries them), else by compiling `schema` here.
    pub fn with_arguments(
        server: &str,
        target: Target,
        schema: Value,
        arguments: Option<std::sync::Arc<ToolArguments>>,
    ) -> Self {
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut fields = Vec::new();
        if let Some(props) = schema.get("properties").and_then(Value::as_object) {
            for (key, prop) in props {
                let (kind, nullable) = kind_of(prop);
                let is_required = required.contains(&key.as_str());
                let description = prop
                    .get("description")
                    .and_then(Value::as_str)
                    .map(|d| sanitize_capped(d, 512))
                    .unwrap_or_default();
                let value = if is_required || prop.get("default").is_some() {
                    skeleton(&kind, prop)
                } else {
                    String::new()
                };
                fields.push(Field {
                    name: sanitize_capped(key, 128),
                    key: key.clone(),
                    kind,
                    required: is_required,
                    nullable,
                    description,
                    value,
                    error: None,
                });
            }
        }
        // Required fields first; otherwise the schema's (sorted) order.
        fields.sort_by_key(|f| !f.required);
        Self {
            server: server.to_owned(),
            target,
            arguments: arguments
                .unwrap_or_else(|| std::sync::Arc::new(ToolArguments::compile(&schema))),
            schema,
            fields,
            focus: 0,
            errors: Vec::new(),
            as_task: false,
            findings: Vec::new(),
        }
    }

    /// The focused field.
    pub fn focused(&mut self) -> Option<&mut Field> {
        self.fields.get_mut(self.focus)
    }

    /// Moves the focus by `delta`, wrapping.
    pub fn move_focus(&mut self, delta: isize) {
        let n = self.fields.len();
        if n == 0 {
            return;
        }
        self.focus = (self.focus.cast_signed() + delta)
            .rem_euclid(n.cast_signed())
            .cast_unsigned();
    }

    /// Types a character into the focused field (Space toggles booleans and cycles enums).
    pub fn type_char(&mut self, c: char) {
        let Some(field) = self.focused() else {
            return;
        };
        field.error = None;
        match &field.kind {
            FieldKind::Bool if c == ' ' => {
                let next = if field.value == "true" {
                    "false"
                } else {
                    "true"
                };
                field.value.clear();
                field.value.push_str(next);
            }
            FieldKind::Enum(values) if c == ' ' => {
                let names: Vec<String> = values.iter().map(display_enum).collect();
                let at = names.iter().position(|n| *n == field.value);
                let next = at.map_or(0, |i| (i + 1) % names.len().max(1));
                field.value = names.get(next).cloned().unwrap_or_default();
            }
            FieldKind::Bool | FieldKind::Enum(_) => {}
            _ => field.value.push(c),
        }
    }

    /// A key typed into the form: Tab / Shift-Tab move between fields, Backspace deletes,
    /// characters type (control chords do nothing here).
    pub fn on_text_key(&mut self, key: &crossterm::event::KeyEvent) {
        use crossterm::event::{KeyCode, KeyModifiers};
        match key.code {
            KeyCode::Tab => self.move_focus(1),
            KeyCode::BackTab => self.move_focus(-1),
            KeyCode::Backspace => self.backspace(),
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => self.type_char(c),
            _ => {}
        }
    }

    /// Deletes the last character of the focused field.
    pub fn backspace(&mut self) {
        if let Some(field) = self.focused() {
            field.value.pop();
            field.error = None;
        }
    }

    /// The arguments object, or the field errors (also recorded on the fields).
    pub fn value(&mut self) -> Result<Value, Invalid> {
        let mut map = Map::new();
        let mut failed = false;
        for field in self.fields.iter_mut().filter(|f| f.kind != FieldKind::Meta) {
            field.error = None;
            match parse_field(field, &self.arguments) {
                Ok(Some(v)) => {
                    map.insert(field.key.clone(), v);
                }
                Ok(None) => {}
                Err(e) => {
                    field.error = Some(e);
                    failed = true;
                }
            }
        }
        if failed {
            return Err(Invalid);
        }
        let value = Value::Object(map);
        self.validate(&value).map(|()| value)
    }

    /// Validates `value` against the schema, attaching errors to fields where the path names one.
    pub fn validate(&mut self, value: &Value) -> Result<(), Invalid> {
        self.errors.clear();
        // A schema the validator cannot compile is the server's problem: it has no errors here.
        let mut failed = false;
        for (path, message) in self.arguments.schema_errors(value) {
            failed = true;
            let first = path.trim_start_matches('/').split('/').next().unwrap_or("");
            let message = sanitize_capped(&message, 256);
            match self
                .fields
                .iter_mut()
                .find(|f| !first.is_empty() && f.key == first)
            {
                Some(f) if f.error.is_none() => f.error = Some(message),
                Some(_) => {}
                None => self.errors.push(message),
            }
        }
        if failed { Err(Invalid) } else { Ok(()) }
    }

    /// The current input as JSON, leniently (unparseable fields as strings): for the raw editor.
    pub fn lenient_value(&self) -> Value {
        let mut map = Map::new();
        for field in &self.fields {
            match parse_field(field, &self.arguments) {
                Ok(Some(v)) => {
                    map.insert(field.key.clone(), v);
                }
                Ok(None) => {}
                Err(_) => {
                    map.insert(field.key.clone(), Value::String(field.value.clone()));
                }
            }
        }
        Value::Object(map)
    }

    /// Fills the fields from a JSON object (from the raw editor). Unknown keys stay in raw only.
    pub fn fill(&mut self, value: &Value) {
        let Some(map) = value.as_object() else {
            return;
        };
        for field in self.fields.iter_mut().filter(|f| f.kind != FieldKind::Meta) {
            field.error = None;
            field.value = match map.get(&field.key) {
                None => String::new(),
                Some(Value::String(s)) if field.kind != FieldKind::Json => s.clone(),
                Some(Value::Null) => "null".to_owned(),
                Some(v) => v.to_string(),
            };
        }
    }
}

/// One field's value: `None` to omit it. Typed by the schema as the CLI types a `key=value`
/// word; the field's kind only says what to tell the operator when the text fits none of its
/// types.
fn parse_field(field: &Field, arguments: &ToolArguments) -> Result<Option<Value>, String> {
    let text = field.value.trim();
    if text.is_empty() {
        return if field.required && field.nullable {
            Ok(Some(Value::Null))
        } else if field.required {
            Err("required".to_owned())
        } else {
            Ok(None)
        };
    }
    if field.nullable && text == "null" {
        return Ok(Some(Value::Null));
    }
    // A text field keeps what was typed, spaces included.
    let text = if field.kind == FieldKind::Text {
        field.value.as_str()
    } else {
        text
    };
    if let Some(value) = arguments.fit(&field.key, text) {
        return Ok(Some(value));
    }
    Err(match &field.kind {
        FieldKind::Number => "not a number".to_owned(),
        FieldKind::Integer => "not an integer".to_owned(),
        FieldKind::Bool => "true or false".to_owned(),
        FieldKind::Enum(_) => "not one of the allowed values".to_owned(),
        FieldKind::Text | FieldKind::Json | FieldKind::Meta => {
            match serde_json::from_str::<Value>(text) {
                Err(e) => format!("invalid JSON: {e}"),
                Ok(_) => format!("must be {}", arguments.types(&field.key).join(" or ")),
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "text": {"type": "string", "description": "what to say"},
                "count": {"type": "integer", "minimum": 1},
                "ratio": {"type": "number"},
                "loud": {"type": "boolean"},
                "mode": {"enum": ["a", "b"]},
                "tags": {"type": "array", "items": {"type": "string"}},
                "opts": {"type": "object"},
                "maybe": {"anyOf": [{"type": "string"}, {"type": "null"}]}
            },
            "required": ["text", "count", "maybe"]
        })
    }

    fn form() -> Form {
        Form::new("demo", Target::Tool("t".into()), schema())
    }

    fn field<'a>(form: &'a mut Form, key: &str) -> &'a mut Field {
        form.fields
            .iter_mut()
            .find(|f| f.key == key)
            .expect("field")
    }

    /// One tool: the same arguments typed in the console's form and given to the CLI as
    /// `key=value` words (which the engine types by the same compiled schema) are the same JSON.
    #[test]
    fn the_form_and_the_cli_type_a_tool_the_same() {
        let schema = json!({
            "type": "object",
            "properties": {
                "zip": {"type": "string"}, "n": {"type": "integer"}, "x": {"type": "number"},
                "flag": {"type": "boolean"}, "tags": {"type": "array"},
                "opt": {"anyOf": [{"type": "string"}, {"type": "null"}]},
                "mode": {"enum": ["a", "b"]}, "free": {}
            },
            "required": ["zip"]
        });
        let typed = [
            ("zip", "02134"),
            ("n", "7"),
            ("x", "1.5"),
            ("flag", "true"),
            ("tags", "[1,2]"),
            ("opt", "null"),
            ("mode", "a"),
            ("free", "hi"),
        ];
        let mut f = Form::new("demo", Target::Tool("t".into()), schema.clone());
        for (key, text) in typed {
            field(&mut f, key).value = text.to_owned();
        }
        let from_form = f.value().expect("the form's arguments");
        let words: Vec<String> = typed.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let from_cli = ToolArguments::compile(&schema)
            .words(&words, true)
            .expect("the CLI's arguments");
        assert_eq!(from_form, Value::Object(from_cli));
        assert_eq!(
            from_form,
            json!({"zip": "02134", "n": 7, "x": 1.5, "flag": true, "tags": [1, 2], "opt": null,
                   "mode": "a", "free": "hi"})
        );
    }

    #[test]
    fn kinds_follow_the_schema() {
        let f = form();
        let kinds: Vec<(&str, &FieldKind, bool)> = f
            .fields
            .iter()
            .map(|f| (f.key.as_str(), &f.kind, f.nullable))
            .collect();
        assert!(kinds.contains(&("count", &FieldKind::Integer, false)));
        assert!(kinds.contains(&("ratio", &FieldKind::Number, false)));
        assert!(kinds.contains(&("loud", &FieldKind::Bool, false)));
        assert!(kinds.contains(&("tags", &FieldKind::Json, false)));
        assert!(kinds.contains(&("opts", &FieldKind::Json, false)));
        assert!(kinds.contains(&("maybe", &FieldKind::Text, true)));
        assert!(matches!(&field(&mut form(), "mode").kind, FieldKind::Enum(v) if v.len() == 2));
    }

    #[test]
    fn submit_builds_typed_values_and_omits_empty_optionals() {
        let mut f = form();
        field(&mut f, "text").value = "hi".into();
        field(&mut f, "count").value = "3".into();
        field(&mut f, "tags").value = r#"["x"]"#.into();
        let v = f.value().expect("valid");
        assert_eq!(
            v,
            json!({"text": "hi", "count": 3, "maybe": null, "tags": ["x"]})
        );
    }

    #[test]
    fn a_whole_number_typed_in_a_number_field_stays_whole() {
        let mut f = form();
        field(&mut f, "text").value = "hi".into();
        field(&mut f, "count").value = "3".into();
        field(&mut f, "ratio").value = "10".into();
        let v = f.value().expect("valid");
        assert_eq!(v["ratio"].to_string(), "10");
        field(&mut f, "ratio").value = "0.5".into();
        assert_eq!(f.value().expect("valid")["ratio"].to_string(), "0.5");
    }

    #[test]
    fn type_errors_and_schema_errors_land_on_fields() {
        let mut f = form();
        field(&mut f, "text").value = "hi".into();
        field(&mut f, "count").value = "x".into();
        assert!(f.value().is_err());
        assert_eq!(
            field(&mut f, "count").error.as_deref(),
            Some("not an integer")
        );
        field(&mut f, "count").value = "0".into();
        assert!(f.value().is_err());
        assert!(
            field(&mut f, "count")
                .error
                .as_deref()
                .is_some_and(|e| e.contains("minimum") || e.contains("less than"))
        );
    }

    #[test]
    fn space_toggles_bool_and_cycles_enum() {
        let mut f = form();
        f.focus = f.fields.iter().position(|x| x.key == "loud").expect("loud");
        f.type_char(' ');
        assert_eq!(field(&mut f, "loud").value, "true");
        f.focus = f.fields.iter().position(|x| x.key == "mode").expect("mode");
        f.type_char(' ');
        f.type_char(' ');
        assert_eq!(field(&mut f, "mode").value, "b");
    }

    #[test]
    fn raw_round_trip_keeps_input() {
        let mut f = form();
        field(&mut f, "text").value = "hello".into();
        let raw = f.lenient_value();
        let mut g = form();
        g.fill(&raw);
        assert_eq!(field(&mut g, "text").value, "hello");
    }
}
