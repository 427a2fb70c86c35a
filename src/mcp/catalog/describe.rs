//! `describe`: one tool's full input and output schemas, its annotations
//! labelled as server-claimed, and `_meta`, with every string (keys included) sanitised.
//! Nothing here judges whether a tool is safe.

use rmcp::model::Tool;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::summary::{NameFlag, tool_title};
use crate::mcp::sanitize::sanitize;

/// One tool in full, as `describe` returns it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolDescription {
    /// The name, sanitised.
    pub name: String,
    /// The title, sanitised.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The whole description, sanitised.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The input schema, sanitised.
    #[serde(default)]
    pub input_schema: Value,
    /// The output schema, sanitised.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
    /// The annotations: hints the server claims, never verified.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_claimed_annotations: Option<Value>,
    /// `_meta`, sanitised.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    pub meta: Option<Value>,
    /// Name problems found when the catalog was listed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<NameFlag>,
    /// The input schema's argument types and checks as the catalog compiled them (once per
    /// entry), for the console's call form; never serialised.
    #[serde(skip)]
    pub arguments: Option<crate::mcp::arguments::Compiled>,
}

/// Every string in `value`, keys included, passed through the sanitiser.
pub(crate) fn sanitize_json(value: &Value) -> Value {
    match value {
        Value::String(s) => Value::String(sanitize(s).into_owned()),
        Value::Array(items) => Value::Array(items.iter().map(sanitize_json).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (sanitize(k).into_owned(), sanitize_json(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

pub(super) fn to_value<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// Describes one tool in full.
pub(crate) fn describe_tool(tool: &Tool, flags: Vec<NameFlag>) -> ToolDescription {
    ToolDescription {
        name: sanitize(&tool.name).into_owned(),
        title: tool_title(tool).map(|t| sanitize(t).into_owned()),
        description: tool
            .description
            .as_deref()
            .map(|d| sanitize(d).into_owned()),
        input_schema: sanitize_json(&Value::Object((*tool.input_schema).clone())),
        output_schema: tool
            .output_schema
            .as_ref()
            .map(|s| sanitize_json(&Value::Object((**s).clone()))),
        server_claimed_annotations: tool
            .annotations
            .as_ref()
            .map(|a| sanitize_json(&to_value(a))),
        meta: tool.meta.as_ref().map(|m| sanitize_json(&to_value(m))),
        flags,
        arguments: None,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    fn tool(value: Value) -> Tool {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn describe_carries_everything_sanitised_and_labelled() {
        let t = tool(json!({
            "name": "weather", "description": "Full\ndescription\u{202e}",
            "inputSchema": {"type": "object", "properties": {"city\u{1b}": {"type": "string"}}},
            "outputSchema": {"type": "object"},
            "annotations": {"readOnlyHint": true},
            "_meta": {"owner": "team"}
        }));
        let d = describe_tool(&t, vec![]);
        let text = serde_json::to_string(&d).unwrap();
        assert!(text.contains("serverClaimedAnnotations"), "{text}");
        assert!(text.contains("\"readOnlyHint\":true"), "{text}");
        assert!(text.contains("city␛"), "{text}");
        assert!(text.contains("\"_meta\":{\"owner\":\"team\"}"), "{text}");
        assert_eq!(d.description.as_deref(), Some("Full\ndescription⟨U+202E⟩"));
        assert!(d.output_schema.is_some());
    }
}
