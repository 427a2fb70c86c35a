//! Checking `mcpdeck call` arguments against the tool's input schema before anything is sent:
//! unknown keys (with the nearest real one), missing required keys, then whatever else the
//! schema says (types, enums, ranges), each problem named. `--no-validate` skips all of it.
//!
//! An unknown key is reported unless the schema explicitly admits extra properties
//! (`additionalProperties` true or a schema): a typo would otherwise be sent and silently
//! ignored by most servers.

use serde_json::{Map, Value};

use crate::mcp::sanitize::sanitize_capped;

/// Most problems listed.
const MAX_PROBLEMS: usize = 20;

/// Every problem of `args` under `schema`; empty when the call may go.
pub fn problems(schema: &Value, args: &Map<String, Value>) -> Vec<String> {
    let mut out = Vec::new();
    let properties = schema.get("properties").and_then(Value::as_object);
    let extras_allowed = matches!(
        schema.get("additionalProperties"),
        Some(Value::Bool(true) | Value::Object(_))
    );
    if let Some(properties) = properties.filter(|_| !extras_allowed) {
        for key in args.keys().filter(|k| !properties.contains_key(*k)) {
            let near = nearest(key, properties.keys())
                .map(|near| format!("; did you mean `{}`?", sanitize_capped(near, 128)))
                .unwrap_or_default();
            out.push(format!(
                "unknown argument `{}`{near}",
                sanitize_capped(key, 128)
            ));
        }
    }
    if let Some(required) = schema.get("required").and_then(Value::as_array) {
        for key in required.iter().filter_map(Value::as_str) {
            if !args.contains_key(key) {
                out.push(format!(
                    "missing required argument `{}`",
                    sanitize_capped(key, 128)
                ));
            }
        }
    }
    let Ok(validator) = jsonschema::validator_for(schema) else {
        // A schema the validator cannot use is the server's problem; the call goes as given.
        return out;
    };
    let instance = Value::Object(args.clone());
    for error in validator.iter_errors(&instance) {
        let path = error.instance_path().to_string();
        // Unknown and missing keys are already named above, more helpfully.
        let message = error.to_string();
        if path.is_empty()
            && (message.contains("is a required property")
                || message.contains("Additional properties"))
        {
            continue;
        }
        let at = path.trim_start_matches('/').replace('/', ".");
        let at = if at.is_empty() {
            "arguments".to_owned()
        } else {
            format!("`{at}`")
        };
        out.push(sanitize_capped(&format!("{at}: {message}"), 400));
    }
    out.truncate(MAX_PROBLEMS);
    out
}

/// The nearest known key to `key`, when it is close enough to be a likely typo.
fn nearest<'a>(key: &str, known: impl Iterator<Item = &'a String>) -> Option<&'a str> {
    known
        .map(|k| (strsim::normalized_damerau_levenshtein(key, k), k.as_str()))
        .filter(|(score, _)| *score >= 0.5)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, k)| k)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn check(schema: &Value, args: &Value) -> Vec<String> {
        problems(schema, args.as_object().expect("object"))
    }

    #[test]
    fn each_problem_is_named() {
        let schema = json!({
            "type": "object",
            "properties": {
                "message": {"type": "string"},
                "count": {"type": "integer"},
                "mode": {"enum": ["fast", "slow"]}
            },
            "required": ["message", "count"]
        });
        let got = check(
            &schema,
            &json!({"mesage": "hi", "count": "x", "mode": "medium"}),
        );
        assert!(
            got.iter()
                .any(|p| p == "unknown argument `mesage`; did you mean `message`?"),
            "{got:?}"
        );
        assert!(
            got.iter()
                .any(|p| p == "missing required argument `message`"),
            "{got:?}"
        );
        assert!(got.iter().any(|p| p.starts_with("`count`:")), "{got:?}");
        assert!(got.iter().any(|p| p.starts_with("`mode`:")), "{got:?}");
        assert!(check(&schema, &json!({"message": "hi", "count": 2})).is_empty());
    }

    #[test]
    fn extra_keys_pass_when_the_schema_admits_them() {
        let schema =
            json!({"type": "object", "properties": {"a": {}}, "additionalProperties": true});
        assert!(check(&schema, &json!({"b": 1})).is_empty());
        let closed = json!({"type": "object", "properties": {"a": {}}});
        assert_eq!(
            check(&closed, &json!({"zzzz": 1})),
            vec!["unknown argument `zzzz`".to_owned()]
        );
    }
}
