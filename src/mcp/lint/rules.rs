//! The rules over what a server listed: schemas, names, descriptions, annotations and header
//! annotations. Pure functions; the probe feeds them.

use std::collections::HashMap;

use rmcp::model::Tool;
use serde_json::{Map, Value};

use super::{Finding, Level};
use crate::mcp::catalog::summary::is_valid_tool_name;

/// Every rule over one tool listing.
pub(crate) fn check_tools(tools: &[Tool]) -> Vec<Finding> {
    let mut out = duplicates("tool", tools.iter().map(|t| t.name.as_ref()));
    for tool in tools {
        let subject = format!("tool {}", tool.name);
        if !is_valid_tool_name(&tool.name) {
            out.push(Finding::new(
                "tool-name",
                Level::Warning,
                &subject,
                "the name is not 1–128 characters of A–Z a–z 0–9 _ - . (hosts may refuse it)",
            ));
        }
        out.extend(schema_findings(&subject, "inputSchema", &tool.input_schema));
        if tool.input_schema.get("type").and_then(Value::as_str) != Some("object") {
            out.push(Finding::new(
                "input-schema-object",
                Level::Error,
                &subject,
                "the inputSchema's type is not \"object\"",
            ));
        }
        if let Some(output) = &tool.output_schema {
            out.extend(schema_findings(&subject, "outputSchema", output));
        }
        if tool
            .description
            .as_deref()
            .is_none_or(|d| d.trim().is_empty())
        {
            out.push(Finding::new(
                "description",
                Level::Warning,
                &subject,
                "no description: a model has only the name to go on",
            ));
        }
        out.extend(annotation_findings(&subject, tool));
        out.extend(header_findings(&subject, &tool.input_schema));
    }
    out
}

/// `duplicate-name` for every name given more than once.
pub(crate) fn duplicates<'a>(kind: &str, names: impl Iterator<Item = &'a str>) -> Vec<Finding> {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    let mut at: HashMap<&str, usize> = HashMap::new();
    for name in names {
        if let Some(i) = at.get(name) {
            counts[*i].1 += 1;
        } else {
            at.insert(name, counts.len());
            counts.push((name, 1));
        }
    }
    counts
        .into_iter()
        .filter(|(_, n)| *n > 1)
        .map(|(name, n)| {
            Finding::new(
                "duplicate-name",
                Level::Error,
                format!("{kind} {name}"),
                format!("{n} {kind}s share this name; clients keep one of them"),
            )
        })
        .collect()
}

/// `schema-compiles`: the schema compiles as JSON Schema 2020-12 (or as the dialect its
/// `$schema` names).
fn schema_findings(subject: &str, which: &str, schema: &Map<String, Value>) -> Vec<Finding> {
    let value = Value::Object(schema.clone());
    let compiled = if schema.contains_key("$schema") {
        jsonschema::validator_for(&value).map(drop)
    } else {
        jsonschema::draft202012::new(&value).map(drop)
    };
    match compiled {
        Ok(()) => Vec::new(),
        Err(e) => vec![Finding::new(
            "schema-compiles",
            Level::Error,
            subject,
            format!("the {which} does not compile as JSON Schema 2020-12: {e}"),
        )],
    }
}

/// `annotations` and `annotations-consistent`.
fn annotation_findings(subject: &str, tool: &Tool) -> Vec<Finding> {
    let Some(a) = &tool.annotations else {
        return vec![Finding::new(
            "annotations",
            Level::Warning,
            subject,
            "no annotations: clients must assume the tool writes, destroys and reaches the \
             open world",
        )];
    };
    let mut out = Vec::new();
    if a.read_only_hint.is_none() {
        out.push(Finding::new(
            "annotations",
            Level::Warning,
            subject,
            "readOnlyHint is missing: clients must assume the tool writes",
        ));
    }
    if a.read_only_hint == Some(true) && a.destructive_hint == Some(true) {
        out.push(Finding::new(
            "annotations-consistent",
            Level::Warning,
            subject,
            "readOnlyHint and destructiveHint are both true: a read-only tool destroys nothing",
        ));
    }
    out
}

/// A character of an RFC 9110 token.
fn is_tchar(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c)
}

/// `header-annotation`: every `x-mcp-header` sits on a property reached through `properties`
/// alone, of a primitive type, and is a non-empty HTTP token unique ignoring case.
fn header_findings(subject: &str, schema: &Map<String, Value>) -> Vec<Finding> {
    let mut found = Vec::new();
    if schema.contains_key("x-mcp-header") {
        found.push("x-mcp-header annotates the schema root, not a property".to_owned());
    }
    let mut seen = HashMap::new();
    walk_headers(
        schema.get("properties"),
        &mut Vec::new(),
        &mut seen,
        &mut found,
    );
    found
        .into_iter()
        .map(|m| {
            Finding::new(
                "header-annotation",
                Level::Error,
                subject,
                format!("{m} (2026-07-28 HTTP clients drop the tool)"),
            )
        })
        .collect()
}

fn walk_headers(
    properties: Option<&Value>,
    path: &mut Vec<String>,
    seen: &mut HashMap<String, String>,
    found: &mut Vec<String>,
) {
    let Some(Value::Object(properties)) = properties else {
        return;
    };
    for (name, schema) in properties {
        path.push(name.clone());
        let at = path.join(".");
        if let Some(header) = schema.get("x-mcp-header") {
            match header.as_str() {
                None => found.push(format!("property `{at}`: x-mcp-header is not a string")),
                Some("") => found.push(format!("property `{at}`: x-mcp-header is empty")),
                Some(h) if !h.chars().all(is_tchar) => {
                    found.push(format!("property `{at}`: `{h}` is not an HTTP token"));
                }
                Some(h) => {
                    if let Some(other) = seen.insert(h.to_ascii_lowercase(), at.clone()) {
                        found.push(format!(
                            "property `{at}`: header `{h}` is also `{other}`'s (ignoring case)"
                        ));
                    }
                    let kind = schema.get("type").and_then(Value::as_str);
                    if !matches!(kind, Some("string" | "integer" | "boolean")) {
                        found.push(format!(
                            "property `{at}`: a header needs a string, integer or boolean, \
                             not {}",
                            kind.unwrap_or("an untyped value")
                        ));
                    }
                }
            }
        }
        walk_headers(schema.get("properties"), path, seen, found);
        path.pop();
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    fn rules_of(tools: Value) -> Vec<&'static str> {
        let tools: Vec<Tool> = serde_json::from_value(tools).unwrap();
        let mut rules: Vec<&str> = check_tools(&tools).iter().map(|f| f.rule).collect();
        rules.sort_unstable();
        rules
    }

    #[test]
    fn a_well_made_tool_has_no_findings() {
        assert!(
            rules_of(json!([{"name": "add", "description": "Add",
                "inputSchema": {"type": "object", "properties": {"a": {"type": "integer",
                    "x-mcp-header": "A"}}},
                "outputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true}}]))
            .is_empty()
        );
    }

    #[test]
    fn each_rule_fires_on_its_fault() {
        let got = rules_of(json!([
            {"name": "x y", "inputSchema": {"type": "object"}},
            {"name": "dup", "description": "d", "inputSchema": {"type": "objekt"},
                "annotations": {"readOnlyHint": true, "destructiveHint": true}},
            {"name": "dup", "description": "d", "inputSchema": {"type": "object",
                "x-mcp-header": "Root",
                "properties": {"a": {"type": "object", "x-mcp-header": "A"},
                    "b": {"type": "string", "x-mcp-header": "a"},
                    "c": {"type": "string", "x-mcp-header": "bad header"}}},
                "annotations": {"title": "t"}},
        ]));
        assert_eq!(
            got,
            vec![
                "annotations",
                "annotations",
                "annotations-consistent",
                "description",
                "duplicate-name",
                "header-annotation",
                "header-annotation",
                "header-annotation",
                "header-annotation",
                "input-schema-object",
                "schema-compiles",
                "tool-name",
            ]
        );
    }
}
