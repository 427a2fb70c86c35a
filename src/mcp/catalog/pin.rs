//! Tool pinning: SHA-256 over the canonical JSON of the parts of a tool's
//! definition that approvals depend on (name, description, schemas, annotations), and the set
//! of pins first seen in a session, which says which tools changed on a re-list. It never drops
//! approvals itself; the policy layer acts on what it reports.

use std::collections::HashMap;

use rmcp::model::Tool;
use sha2::{Digest, Sha256};

use super::describe::to_value;

/// SHA-256 of a tool's definition: name, description, input and output schemas, annotations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct ToolPin(pub [u8; 32]);

impl ToolPin {
    /// Lowercase hex.
    #[cfg(test)]
    pub(crate) fn to_hex(self) -> String {
        hex::encode(self.0)
    }
}

/// Pins a tool's definition as first listed; a later different pin means the tool changed.
pub(crate) fn pin_tool(tool: &Tool) -> ToolPin {
    use crate::mcp::canonical::{write_canonical, write_canonical_map, write_string};
    // The canonical JSON of {annotations, description, inputSchema, name, outputSchema} (keys
    // in byte order), written from the tool itself: nothing is copied.
    let mut text = String::from("{\"annotations\":");
    match &tool.annotations {
        Some(a) => write_canonical(&to_value(a), &mut text),
        None => text.push_str("null"),
    }
    text.push_str(",\"description\":");
    match tool.description.as_deref() {
        Some(d) => write_string(d, &mut text),
        None => text.push_str("null"),
    }
    text.push_str(",\"inputSchema\":");
    write_canonical_map(&tool.input_schema, &mut text);
    text.push_str(",\"name\":");
    write_string(&tool.name, &mut text);
    text.push_str(",\"outputSchema\":");
    match &tool.output_schema {
        Some(s) => write_canonical_map(s, &mut text),
        None => text.push_str("null"),
    }
    text.push('}');
    ToolPin(Sha256::digest(text.as_bytes()).into())
}

/// The pins of every tool as first listed in this session, per server.
#[derive(Debug, Clone, Default)]
pub(crate) struct PinSet {
    first: HashMap<String, ToolPin>,
}

impl PinSet {
    /// An empty set.
    #[cfg(test)]
    pub(crate) fn new() -> Self {
        Self::default()
    }

    /// Records tools not seen before (each by its raw name and pin) and returns the names of
    /// those whose definition differs from the first one seen. The first pin is kept: a tool
    /// that changes and changes back is no longer reported.
    pub(crate) fn observe<'a>(
        &mut self,
        tools: impl IntoIterator<Item = (&'a str, ToolPin)>,
    ) -> Vec<String> {
        let mut changed: Vec<String> = Vec::new();
        for (name, pin) in tools {
            let first = *self.first.entry(name.to_owned()).or_insert(pin);
            if first != pin && !changed.iter().any(|n| n == name) {
                changed.push(name.to_owned());
            }
        }
        changed
    }

    /// [`Self::observe`] of whole tools.
    #[cfg(test)]
    pub(crate) fn observe_tools(&mut self, tools: &[Tool]) -> Vec<String> {
        let pins: Vec<(&str, ToolPin)> = tools
            .iter()
            .map(|t| (t.name.as_ref(), pin_tool(t)))
            .collect();
        self.observe(pins)
    }

    /// Whether `tool` differs from its first-seen definition (false if never seen).
    #[cfg(test)]
    pub(crate) fn is_changed(&self, tool: &Tool) -> bool {
        self.first
            .get(tool.name.as_ref())
            .is_some_and(|first| *first != pin_tool(tool))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::{Map, Value, json};

    use super::*;
    use crate::mcp::canonical::canonical_json;

    /// The pin as first written: the canonical JSON of a copy of the pinned parts.
    fn pin_by_copy(tool: &Tool) -> ToolPin {
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
        ToolPin(Sha256::digest(canonical_json(&Value::Object(parts)).as_bytes()).into())
    }

    #[test]
    fn the_pin_written_from_the_tool_is_that_of_a_copy_of_its_parts() {
        let tools = [
            json!({"name": "t\u{7f}\"", "inputSchema": {}}),
            json!({"name": "t", "description": "d\n\u{2028}", "inputSchema": {"z": [1, {"b": null, "a": 2.5}], "a": "x"},
                "outputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true, "title": "T"}}),
        ];
        for t in tools {
            let t = tool(t);
            assert_eq!(pin_tool(&t), pin_by_copy(&t), "{t:?}");
        }
    }

    fn tool(value: Value) -> Tool {
        serde_json::from_value(value).unwrap()
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

    #[test]
    fn pin_sets_report_changes_against_the_first_definition() {
        let v1 = tool(json!({"name": "t", "description": "one", "inputSchema": {}}));
        let v2 = tool(json!({"name": "t", "description": "two", "inputSchema": {}}));
        let other = tool(json!({"name": "u", "inputSchema": {}}));
        let mut pins = PinSet::new();
        assert!(pins.observe_tools(&[v1.clone(), other.clone()]).is_empty());
        assert_eq!(
            pins.observe_tools(&[v2.clone(), other.clone()]),
            vec!["t".to_owned()]
        );
        assert!(pins.is_changed(&v2) && !pins.is_changed(&v1) && !pins.is_changed(&other));
        assert!(
            pins.observe_tools(&[v1]).is_empty(),
            "changed back to the first definition"
        );
    }
}
