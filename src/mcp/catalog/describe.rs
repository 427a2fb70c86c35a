//! `describe` (SPEC.md §5.3) and tool pinning (§6). A description carries one tool's full
//! input and output schemas, its annotations labelled as server-claimed, and `_meta`, with every
//! string (keys included) sanitised. A pin is SHA-256 over the canonical JSON of the parts of a
//! definition that approvals depend on. Nothing here judges whether a tool is safe.

use std::fmt::Write as _;

use rmcp::model::Tool;
use serde::Serialize;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::summary::{NameFlag, tool_title};
use crate::mcp::sanitize::sanitize;

/// One tool in full, as `describe` returns it.
#[derive(Debug, Clone, PartialEq, Serialize)]
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
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<NameFlag>,
}

/// Every string in `value`, keys included, passed through the sanitiser.
pub fn sanitize_json(value: &Value) -> Value {
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

fn to_value<T: Serialize>(value: &T) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// Describes one tool in full.
pub fn describe_tool(tool: &Tool, flags: Vec<NameFlag>) -> ToolDescription {
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
    }
}

/// Compact JSON with object keys sorted (byte order) at every level: the same definition
/// always gives the same text, whatever order the server sent its keys in.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort_unstable();
            out.push('{');
            for (i, key) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                let _ = write!(out, "{}", Value::String(key.clone()));
                out.push(':');
                write_canonical(&map[key], out);
            }
            out.push('}');
        }
        scalar => {
            let _ = write!(out, "{scalar}");
        }
    }
}

/// SHA-256 of a tool's definition: name, description, input and output schemas, annotations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ToolPin(pub [u8; 32]);

impl ToolPin {
    /// Lowercase hex.
    pub fn to_hex(&self) -> String {
        hex::encode(self.0)
    }
}

/// Pins a tool's definition as first listed; a later different pin means the tool changed.
pub fn pin_tool(tool: &Tool) -> ToolPin {
    let mut parts = Map::new();
    parts.insert("name".into(), Value::String(tool.name.to_string()));
    parts.insert(
        "description".into(),
        tool.description
            .as_deref()
            .map_or(Value::Null, |d| Value::String(d.to_owned())),
    );
    parts.insert(
        "inputSchema".into(),
        Value::Object((*tool.input_schema).clone()),
    );
    parts.insert(
        "outputSchema".into(),
        tool.output_schema
            .as_ref()
            .map_or(Value::Null, |s| Value::Object((**s).clone())),
    );
    parts.insert(
        "annotations".into(),
        tool.annotations.as_ref().map_or(Value::Null, to_value),
    );
    let digest = Sha256::digest(canonical_json(&Value::Object(parts)).as_bytes());
    ToolPin(digest.into())
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

    #[test]
    fn canonical_json_sorts_keys_everywhere() {
        let a = json!({"b": 1, "a": {"d": [1, {"z": 0, "y": "x\"q"}], "c": null}});
        assert_eq!(
            canonical_json(&a),
            r#"{"a":{"c":null,"d":[1,{"y":"x\"q","z":0}]},"b":1}"#
        );
    }

    #[test]
    fn pins_ignore_key_order_and_see_real_changes() {
        let a = tool(json!({"name": "t", "description": "d",
            "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}}}));
        let b = tool(
            json!({"inputSchema": {"properties": {"x": {"type": "string"}},
            "type": "object"}, "description": "d", "name": "t"}),
        );
        assert_eq!(pin_tool(&a), pin_tool(&b));
        assert_eq!(pin_tool(&a).to_hex().len(), 64);
        let changed = [
            json!({"name": "t", "description": "d2", "inputSchema": {"type": "object"}}),
            json!({"name": "t", "description": "d", "inputSchema": {"type": "object",
                "properties": {"x": {"type": "number"}}}}),
            json!({"name": "t", "description": "d", "inputSchema": {"type": "object",
                "properties": {"x": {"type": "string"}}}, "annotations": {"destructiveHint": true}}),
            json!({"name": "t", "description": "d", "inputSchema": {"type": "object",
                "properties": {"x": {"type": "string"}}}, "outputSchema": {"type": "object"}}),
        ];
        for c in changed {
            assert_ne!(pin_tool(&a), pin_tool(&tool(c.clone())), "{c}");
        }
    }
}
