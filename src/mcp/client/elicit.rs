//! Elicitation forms as data: the fields of a `requestedSchema` (strings with format and
//! length, numbers and integers with bounds, booleans, single- and multi-select enums in every
//! shape the protocol allows, with titles), their defaults, and validation of an answer.
//!
//! Built once from the raw schema; every text a server wrote is sanitised and capped here, so
//! the faces render fields without touching server text again. Unknown property shapes become
//! plain strings rather than failing the whole request.

use serde_json::{Map, Value};

use crate::mcp::sanitize::sanitize_capped;

/// Longest title, description or option label kept.
const TEXT_CAP: usize = 512;
/// Most properties a form may have.
pub(crate) const MAX_FIELDS: usize = 64;
/// Most options an enum may offer.
pub(crate) const MAX_OPTIONS: usize = 256;

/// A form built from `requestedSchema`.
#[derive(Debug, Clone, PartialEq)]
pub struct Form {
    /// The fields in the schema's order.
    pub fields: Vec<FormField>,
}

/// One property of the form.
#[derive(Debug, Clone, PartialEq)]
pub struct FormField {
    /// The property name (sanitised; the answer uses the raw name below).
    pub name: String,
    /// The raw property name, the key of the answer.
    pub key: String,
    /// The title, else the name.
    pub title: String,
    /// The description (may be empty).
    pub description: String,
    /// Whether the schema lists it as required.
    pub required: bool,
    /// Its type and constraints.
    pub kind: FieldKind,
    /// The schema's default, already checked against the kind (SEP-1034).
    pub default: Option<Value>,
}

/// What a field accepts.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldKind {
    /// Text, with an optional `format` (email, uri, date, date-time) and length bounds.
    Text {
        /// The `format`, sanitised.
        format: Option<String>,
        /// `minLength`.
        min_len: Option<u64>,
        /// `maxLength`.
        max_len: Option<u64>,
    },
    /// A number (`integer` when `integer` is set), with bounds.
    Number {
        /// Only whole numbers.
        integer: bool,
        /// `minimum`.
        min: Option<f64>,
        /// `maximum`.
        max: Option<f64>,
    },
    /// True or false.
    Boolean,
    /// One of the options.
    Single(Vec<Choice>),
    /// Several of the options, with item-count bounds.
    Multi {
        /// The options.
        options: Vec<Choice>,
        /// `minItems`.
        min_items: Option<u64>,
        /// `maxItems`.
        max_items: Option<u64>,
    },
}

/// One enum option: the value sent and the label shown.
#[derive(Debug, Clone, PartialEq)]
pub struct Choice {
    /// The raw value (sent back unchanged).
    pub value: String,
    /// The title, else the value (sanitised).
    pub label: String,
}

impl Form {
    /// Builds the form from a `requestedSchema` object.
    pub fn from_schema(schema: &Value) -> Self {
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let fields = schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|props| {
                props
                    .iter()
                    .take(MAX_FIELDS)
                    .map(|(key, prop)| field(key, prop, required.contains(&key.as_str())))
                    .collect()
            })
            .unwrap_or_default();
        Self { fields }
    }

    /// The content made of every default, when every required field has one (SEP-1034);
    /// `None` when a required field has no default.
    pub fn defaults(&self) -> Option<Map<String, Value>> {
        let mut out = Map::new();
        for field in &self.fields {
            match &field.default {
                Some(value) => {
                    out.insert(field.key.clone(), value.clone());
                }
                None if field.required => return None,
                None => {}
            }
        }
        Some(out)
    }

    /// Checks an answer: every required field present, every value of its field's kind, no
    /// unknown key. Returns the first problem, for a person.
    pub fn validate(&self, content: &Map<String, Value>) -> Result<(), String> {
        for key in content.keys() {
            if !self.fields.iter().any(|f| &f.key == key) {
                return Err(format!(
                    "`{}` is not a field of this form",
                    sanitize_capped(key, 64)
                ));
            }
        }
        for field in &self.fields {
            match content.get(&field.key) {
                None if field.required => {
                    return Err(format!("`{}` is required", field.title));
                }
                None => {}
                Some(value) => field
                    .check(value)
                    .map_err(|e| format!("`{}`: {e}", field.title))?,
            }
        }
        Ok(())
    }
}

impl FormField {
    /// Checks one value against this field's kind and bounds.
    pub fn check(&self, value: &Value) -> Result<(), String> {
        match &self.kind {
            FieldKind::Text {
                format,
                min_len,
                max_len,
            } => {
                let Some(text) = value.as_str() else {
                    return Err("must be text".to_owned());
                };
                let len = text.chars().count() as u64;
                if min_len.is_some_and(|m| len < m) {
                    return Err(format!("at least {} characters", min_len.unwrap_or(0)));
                }
                if max_len.is_some_and(|m| len > m) {
                    return Err(format!("at most {} characters", max_len.unwrap_or(0)));
                }
                check_format(format.as_deref(), text)
            }
            FieldKind::Number { integer, min, max } => {
                let Some(n) = value.as_f64() else {
                    return Err("must be a number".to_owned());
                };
                if *integer && (n.fract() != 0.0 || value.is_f64() && !n.is_finite()) {
                    return Err("must be a whole number".to_owned());
                }
                if min.is_some_and(|m| n < m) {
                    return Err(format!("at least {}", min.unwrap_or(0.0)));
                }
                if max.is_some_and(|m| n > m) {
                    return Err(format!("at most {}", max.unwrap_or(0.0)));
                }
                Ok(())
            }
            FieldKind::Boolean => value
                .is_boolean()
                .then_some(())
                .ok_or_else(|| "must be true or false".to_owned()),
            FieldKind::Single(options) => match value.as_str() {
                Some(v) if options.iter().any(|o| o.value == v) => Ok(()),
                _ => Err("must be one of the options".to_owned()),
            },
            FieldKind::Multi {
                options,
                min_items,
                max_items,
            } => {
                let Some(items) = value.as_array() else {
                    return Err("must be a list of options".to_owned());
                };
                if items.iter().any(|i| {
                    !i.as_str()
                        .is_some_and(|v| options.iter().any(|o| o.value == v))
                }) {
                    return Err("every item must be one of the options".to_owned());
                }
                let n = items.len() as u64;
                if min_items.is_some_and(|m| n < m) {
                    return Err(format!("choose at least {}", min_items.unwrap_or(0)));
                }
                if max_items.is_some_and(|m| n > m) {
                    return Err(format!("choose at most {}", max_items.unwrap_or(0)));
                }
                Ok(())
            }
        }
    }

    /// Parses what a person typed into this field's value (`None` for an empty answer).
    /// Multi-select takes comma-separated values or option numbers; single-select a value or
    /// its number (1-based).
    pub fn parse_input(&self, input: &str) -> Result<Option<Value>, String> {
        let input = input.trim();
        if input.is_empty() {
            return Ok(None);
        }
        let value = match &self.kind {
            FieldKind::Text { .. } => Value::String(input.to_owned()),
            FieldKind::Number { integer: true, .. } => input
                .parse::<i64>()
                .map(Value::from)
                .map_err(|_| "must be a whole number".to_owned())?,
            FieldKind::Number { .. } => input
                .parse::<f64>()
                .ok()
                .and_then(serde_json::Number::from_f64)
                .map(Value::Number)
                .ok_or_else(|| "must be a number".to_owned())?,
            FieldKind::Boolean => match input.to_ascii_lowercase().as_str() {
                "y" | "yes" | "true" => Value::Bool(true),
                "n" | "no" | "false" => Value::Bool(false),
                _ => return Err("answer yes or no".to_owned()),
            },
            FieldKind::Single(options) => Value::String(pick(options, input)?),
            FieldKind::Multi { options, .. } => Value::Array(
                input
                    .split(',')
                    .map(|part| pick(options, part.trim()).map(Value::String))
                    .collect::<Result<_, _>>()?,
            ),
        };
        self.check(&value)?;
        Ok(Some(value))
    }
}

/// An option by its 1-based number or its value.
fn pick(options: &[Choice], input: &str) -> Result<String, String> {
    if let Ok(n) = input.parse::<usize>()
        && let Some(choice) = n.checked_sub(1).and_then(|i| options.get(i))
    {
        return Ok(choice.value.clone());
    }
    options
        .iter()
        .find(|o| o.value == input)
        .map(|o| o.value.clone())
        .ok_or_else(|| format!("`{}` is not one of the options", sanitize_capped(input, 64)))
}

fn check_format(format: Option<&str>, text: &str) -> Result<(), String> {
    match format {
        Some("email")
            if !(text.contains('@') && !text.starts_with('@') && !text.ends_with('@')) =>
        {
            Err("must be an email address".to_owned())
        }
        Some("uri") if url::Url::parse(text).is_err() => Err("must be a URI".to_owned()),
        Some("date") if !is_date(text) => Err("must be a date (YYYY-MM-DD)".to_owned()),
        Some("date-time") if !(text.len() >= 19 && is_date(&text[..10.min(text.len())])) => {
            Err("must be a date and time (YYYY-MM-DDThh:mm:ss)".to_owned())
        }
        _ => Ok(()),
    }
}

fn is_date(text: &str) -> bool {
    let b = text.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
}

fn text_of(prop: &Value, key: &str) -> String {
    prop.get(key)
        .and_then(Value::as_str)
        .map(|s| sanitize_capped(s, TEXT_CAP))
        .unwrap_or_default()
}

fn field(key: &str, prop: &Value, required: bool) -> FormField {
    let name = sanitize_capped(key, 128);
    let title = match text_of(prop, "title") {
        t if t.is_empty() => name.clone(),
        t => t,
    };
    let kind = kind_of(prop);
    let default = prop.get("default").cloned().filter(|d| {
        let probe = FormField {
            name: String::new(),
            key: String::new(),
            title: String::new(),
            description: String::new(),
            required,
            kind: kind.clone(),
            default: None,
        };
        probe.check(d).is_ok()
    });
    FormField {
        name,
        key: key.to_owned(),
        title,
        description: text_of(prop, "description"),
        required,
        kind,
        default,
    }
}

fn uint(prop: &Value, key: &str) -> Option<u64> {
    prop.get(key).and_then(Value::as_u64)
}

fn kind_of(prop: &Value) -> FieldKind {
    let ty = prop.get("type").and_then(Value::as_str).unwrap_or("string");
    match ty {
        "number" | "integer" => FieldKind::Number {
            integer: ty == "integer",
            min: prop.get("minimum").and_then(Value::as_f64),
            max: prop.get("maximum").and_then(Value::as_f64),
        },
        "boolean" => FieldKind::Boolean,
        "array" => {
            let items = prop.get("items").unwrap_or(&Value::Null);
            FieldKind::Multi {
                options: choices(items),
                min_items: uint(prop, "minItems"),
                max_items: uint(prop, "maxItems"),
            }
        }
        _ => {
            let options = choices(prop);
            if options.is_empty() {
                FieldKind::Text {
                    format: prop
                        .get("format")
                        .and_then(Value::as_str)
                        .map(|f| sanitize_capped(f, 32)),
                    min_len: uint(prop, "minLength"),
                    max_len: uint(prop, "maxLength"),
                }
            } else {
                FieldKind::Single(options)
            }
        }
    }
}

/// Options from `enum` (+ legacy `enumNames`), or `oneOf` / `anyOf` of `{const, title}`.
fn choices(schema: &Value) -> Vec<Choice> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        let names = schema.get("enumNames").and_then(Value::as_array);
        return values
            .iter()
            .take(MAX_OPTIONS)
            .enumerate()
            .filter_map(|(i, v)| {
                let value = v.as_str()?.to_owned();
                let label = names
                    .and_then(|n| n.get(i))
                    .and_then(Value::as_str)
                    .unwrap_or(&value);
                Some(Choice {
                    label: sanitize_capped(label, TEXT_CAP),
                    value,
                })
            })
            .collect();
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(options) = schema.get(key).and_then(Value::as_array) {
            return options
                .iter()
                .take(MAX_OPTIONS)
                .filter_map(|o| {
                    let value = o.get("const")?.as_str()?.to_owned();
                    let label = o.get("title").and_then(Value::as_str).unwrap_or(&value);
                    Some(Choice {
                        label: sanitize_capped(label, TEXT_CAP),
                        value,
                    })
                })
                .collect();
        }
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "name": {"type": "string", "title": "Your name", "minLength": 2, "default": "Ada"},
                "email": {"type": "string", "format": "email"},
                "age": {"type": "integer", "minimum": 0, "maximum": 150, "default": 36},
                "score": {"type": "number", "default": "not a number"},
                "ok": {"type": "boolean", "default": true},
                "color": {"type": "string", "enum": ["r", "g"], "enumNames": ["Red", "Green"], "default": "g"},
                "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]},
                "tags": {"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}, {"const": "b", "title": "B"}]}, "maxItems": 1, "default": ["a"]}
            },
            "required": ["name", "age", "color"]
        })
    }

    #[test]
    fn every_shape_becomes_a_field_with_checked_defaults() {
        let form = Form::from_schema(&schema());
        let by = |k: &str| form.fields.iter().find(|f| f.key == k).expect("field");
        assert_eq!(by("name").title, "Your name");
        assert!(by("name").required);
        assert_eq!(
            by("color").kind,
            FieldKind::Single(vec![
                Choice {
                    value: "r".into(),
                    label: "Red".into()
                },
                Choice {
                    value: "g".into(),
                    label: "Green".into()
                }
            ])
        );
        assert!(matches!(&by("size").kind, FieldKind::Single(o) if o[1].label == "Large"));
        assert!(
            matches!(&by("tags").kind, FieldKind::Multi { options, max_items: Some(1), .. } if options.len() == 2)
        );
        // A default of the wrong type is dropped, not sent.
        assert_eq!(by("score").default, None);
        assert_eq!(
            Value::Object(form.defaults().expect("all required have defaults")),
            json!({"name": "Ada", "age": 36, "ok": true, "color": "g", "tags": ["a"]})
        );
    }

    #[test]
    fn defaults_are_none_when_a_required_field_has_none() {
        let form = Form::from_schema(&json!({
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "string", "default": "x"}},
            "required": ["a"]
        }));
        assert_eq!(form.defaults(), None);
    }

    #[test]
    fn answers_are_validated() {
        let form = Form::from_schema(&schema());
        let ok = json!({"name": "Bo", "age": 3, "color": "r", "tags": ["b"]});
        assert_eq!(form.validate(ok.as_object().expect("object")), Ok(()));
        for (bad, why) in [
            (json!({"age": 3, "color": "r"}), "required"),
            (json!({"name": "B", "age": 3, "color": "r"}), "at least 2"),
            (json!({"name": "Bo", "age": 3.5, "color": "r"}), "whole"),
            (
                json!({"name": "Bo", "age": 300, "color": "r"}),
                "at most 150",
            ),
            (json!({"name": "Bo", "age": 3, "color": "x"}), "options"),
            (
                json!({"name": "Bo", "age": 3, "color": "r", "tags": ["a", "b"]}),
                "at most 1",
            ),
            (
                json!({"name": "Bo", "age": 3, "color": "r", "email": "nope"}),
                "email",
            ),
            (
                json!({"name": "Bo", "age": 3, "color": "r", "zzz": 1}),
                "not a field",
            ),
        ] {
            let err = form
                .validate(bad.as_object().expect("object"))
                .expect_err(why);
            assert!(err.contains(why), "{err} should say {why}");
        }
    }

    #[test]
    fn typed_input_is_parsed_per_kind() {
        let form = Form::from_schema(&schema());
        let by = |k: &str| form.fields.iter().find(|f| f.key == k).expect("field");
        assert_eq!(by("age").parse_input("42"), Ok(Some(json!(42))));
        assert!(by("age").parse_input("x").is_err());
        assert_eq!(by("ok").parse_input("n"), Ok(Some(json!(false))));
        assert_eq!(by("color").parse_input("2"), Ok(Some(json!("g"))));
        assert_eq!(by("size").parse_input("l"), Ok(Some(json!("l"))));
        assert_eq!(by("tags").parse_input("1"), Ok(Some(json!(["a"]))));
        assert!(by("tags").parse_input("1,2").is_err());
        assert_eq!(by("name").parse_input("  "), Ok(None));
    }

    #[test]
    fn server_text_is_sanitised() {
        let form = Form::from_schema(&json!({
            "type": "object",
            "properties": {"x\u{1b}[2J": {"type": "string", "title": "T\u{202e}", "enum": ["v"], "enumNames": ["\u{7}bell"]}}
        }));
        let f = &form.fields[0];
        assert!(!f.name.contains('\u{1b}'));
        assert!(!f.title.contains('\u{202e}'));
        assert!(matches!(&f.kind, FieldKind::Single(o) if !o[0].label.contains('\u{7}')));
        assert_eq!(f.key, "x\u{1b}[2J");
    }
}
