//! Structured tool output against the tool's `outputSchema`: a verdict that is
//! always reported, never hidden. Validation is bounded: a huge or uncompilable schema yields a
//! `Skipped` verdict with the reason, and only the first few errors are kept. No remote `$ref`
//! is ever fetched (jsonschema is built without network resolution).

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::mcp::sanitize::sanitize_capped;

/// Largest output schema validated, in bytes of compact JSON.
pub(crate) const MAX_SCHEMA_BYTES: usize = 256 * 1024;
/// Most validation errors reported.
pub(crate) const MAX_REPORTED_ERRORS: usize = 5;
/// Longest single error message, in bytes.
const ERROR_BYTES: usize = 300;

/// The result of checking structured output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "verdict", content = "detail", rename_all = "snake_case")]
pub enum OutputVerdict {
    /// The structured content matches the schema.
    Valid,
    /// It does not; the first errors as `path: message`.
    Invalid(Vec<String>),
    /// The tool declares an output schema but returned no structured content.
    Missing,
    /// Validation was not attempted; why.
    Skipped(String),
}

impl fmt::Display for OutputVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Valid => f.write_str("structured output matches the tool's outputSchema"),
            Self::Invalid(errors) => write!(
                f,
                "structured output does NOT match the tool's outputSchema: {}",
                errors.join("; ")
            ),
            Self::Missing => {
                f.write_str("the tool declares an outputSchema but returned no structured content")
            }
            Self::Skipped(why) => write!(f, "structured output not validated: {why}"),
        }
    }
}

/// Checks `structured` against `schema`. `None` when there is no schema to check against.
pub(crate) fn check_output(
    schema: Option<&serde_json::Map<String, Value>>,
    structured: Option<&Value>,
) -> Option<OutputVerdict> {
    let schema = schema?;
    let Some(instance) = structured else {
        return Some(OutputVerdict::Missing);
    };
    let schema = Value::Object(schema.clone());
    let size = serde_json::to_vec(&schema).map_or(usize::MAX, |v| v.len());
    if size > MAX_SCHEMA_BYTES {
        return Some(OutputVerdict::Skipped(format!(
            "the outputSchema is larger than {MAX_SCHEMA_BYTES} bytes"
        )));
    }
    let validator = match jsonschema::validator_for(&schema) {
        Ok(v) => v,
        Err(e) => {
            return Some(OutputVerdict::Skipped(format!(
                "the outputSchema is not usable: {}",
                sanitize_capped(&e.to_string(), ERROR_BYTES)
            )));
        }
    };
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .take(MAX_REPORTED_ERRORS)
        .map(|e| {
            let path = e.instance_path().to_string();
            let path = if path.is_empty() {
                "/".to_owned()
            } else {
                path
            };
            sanitize_capped(&format!("{path}: {e}"), ERROR_BYTES)
        })
        .collect();
    Some(if errors.is_empty() {
        OutputVerdict::Valid
    } else {
        OutputVerdict::Invalid(errors)
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    fn schema(v: Value) -> serde_json::Map<String, Value> {
        let Value::Object(map) = v else {
            panic!("not an object")
        };
        map
    }

    #[test]
    fn verdicts() {
        let s = schema(json!({"type": "object", "required": ["celsius"],
            "properties": {"celsius": {"type": "number"}}}));
        assert_eq!(
            check_output(Some(&s), Some(&json!({"celsius": 21.5}))),
            Some(OutputVerdict::Valid)
        );
        let bad = check_output(Some(&s), Some(&json!({"celsius": "warm"}))).unwrap();
        let OutputVerdict::Invalid(errors) = &bad else {
            panic!("{bad:?}")
        };
        assert!(errors[0].starts_with("/celsius: "), "{errors:?}");
        assert!(bad.to_string().contains("does NOT match"));
        assert_eq!(check_output(Some(&s), None), Some(OutputVerdict::Missing));
        assert_eq!(check_output(None, Some(&json!(1))), None);
    }

    #[test]
    fn bounded_and_unusable_schemas_are_skipped_with_a_reason() {
        let huge = schema(json!({"description": "x".repeat(MAX_SCHEMA_BYTES)}));
        assert!(matches!(
            check_output(Some(&huge), Some(&json!({}))),
            Some(OutputVerdict::Skipped(why)) if why.contains("larger than")
        ));
        let remote = schema(json!({"$ref": "https://example.invalid/schema.json"}));
        assert!(matches!(
            check_output(Some(&remote), Some(&json!({}))),
            Some(OutputVerdict::Skipped(_))
        ));
        let broken = schema(json!({"type": 12}));
        assert!(matches!(
            check_output(Some(&broken), Some(&json!({}))),
            Some(OutputVerdict::Skipped(_))
        ));
    }

    #[test]
    fn many_errors_are_capped() {
        let s = schema(json!({"type": "array", "items": {"type": "string"}}));
        let instance = Value::Array((0..50).map(Value::from).collect());
        let Some(OutputVerdict::Invalid(errors)) = check_output(Some(&s), Some(&instance)) else {
            panic!()
        };
        assert_eq!(errors.len(), MAX_REPORTED_ERRORS);
    }
}
