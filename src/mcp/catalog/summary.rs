//! Compact catalog summaries: what listing shows for each tool, resource and
//! prompt, plus name flags and prompt-argument checks. Every server string passes through
//! [`sanitize`] here. Summaries never carry raw URIs or full schemas; `describe` does the latter.

use std::collections::{BTreeMap, HashMap};

use rmcp::model::{Prompt, Resource, Tool};
use serde::{Deserialize, Serialize};

use crate::mcp::results::refs::ResourceRefs;
use crate::mcp::sanitize::{sanitize, sanitize_capped};

/// Longest description line a summary shows, in characters.
pub(crate) const SUMMARY_DESCRIPTION_CHARS: usize = 200;
/// Longest name a summary shows, in bytes (longer names are flagged anyway).
const NAME_BYTES: usize = 256;
/// Longest title a summary shows, in bytes.
const TITLE_BYTES: usize = 256;

/// Something wrong with a tool's name, flagged rather than dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NameFlag {
    /// The name is outside `[A-Za-z0-9_.-]{1,128}`.
    InvalidName,
    /// Another tool of the same server has the same name.
    Duplicate,
}

impl std::fmt::Display for NameFlag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::InvalidName => "invalid name",
            Self::Duplicate => "duplicate name",
        })
    }
}

/// Whether a tool name is within `[A-Za-z0-9_.-]{1,128}`.
pub(crate) fn is_valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

/// The flags of each tool, in the order given.
pub(crate) fn name_flags<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<Vec<NameFlag>> {
    let names: Vec<&str> = names.into_iter().collect();
    let mut counts: HashMap<&str, usize> = HashMap::with_capacity(names.len());
    for name in &names {
        *counts.entry(name).or_default() += 1;
    }
    names
        .iter()
        .map(|name| {
            let mut flags = Vec::new();
            if !is_valid_tool_name(name) {
                flags.push(NameFlag::InvalidName);
            }
            if counts.get(name).copied().unwrap_or(0) > 1 {
                flags.push(NameFlag::Duplicate);
            }
            flags
        })
        .collect()
}

/// The first non-empty line of `text`, sanitised, at most `max_chars` characters (with `…`).
pub fn first_line(text: &str, max_chars: usize) -> String {
    let line = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let clean = sanitize(line);
    let mut out: String = clean.chars().take(max_chars).collect();
    if clean.chars().nth(max_chars).is_some() {
        out.pop();
        out.push('…');
    }
    out
}

/// One tool as listing shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolSummary {
    /// The name, sanitised.
    pub name: String,
    /// The title (`title`, else the annotations' title), sanitised.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The description's first line, at most 200 characters.
    pub description: String,
    /// Required argument names from the input schema, sanitised.
    pub required: Vec<String>,
    /// Name problems.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<NameFlag>,
}

/// A tool's title: its own, else the (server-claimed) annotation title.
pub(crate) fn tool_title(tool: &Tool) -> Option<&str> {
    tool.title
        .as_deref()
        .or_else(|| tool.annotations.as_ref().and_then(|a| a.title.as_deref()))
}

/// The `required` names of an input schema.
pub(crate) fn required_arguments(tool: &Tool) -> Vec<String> {
    tool.input_schema
        .get("required")
        .and_then(serde_json::Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(serde_json::Value::as_str)
        .map(|s| sanitize_capped(s, NAME_BYTES))
        .collect()
}

/// The summary of one tool with its name `flags`.
pub(crate) fn summarize_tool(tool: &Tool, flags: Vec<NameFlag>) -> ToolSummary {
    ToolSummary {
        name: sanitize_capped(&tool.name, NAME_BYTES),
        title: tool_title(tool).map(|t| sanitize_capped(t, TITLE_BYTES)),
        description: first_line(
            tool.description.as_deref().unwrap_or(""),
            SUMMARY_DESCRIPTION_CHARS,
        ),
        required: required_arguments(tool),
        flags,
    }
}

/// Summaries of a server's tools, in the server's order, with name flags.
#[cfg(test)]
pub(crate) fn summarize_tools(tools: &[Tool]) -> Vec<ToolSummary> {
    let flags = name_flags(tools.iter().map(|t| t.name.as_ref()));
    tools
        .iter()
        .zip(flags)
        .map(|(tool, flags)| summarize_tool(tool, flags))
        .collect()
}

/// One resource as listing shows it: never its URI, only an opaque reference.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceSummary {
    /// The opaque `mcp-resource-…` reference.
    pub reference: String,
    /// The name, sanitised.
    pub name: String,
    /// The title, sanitised.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The MIME type, sanitised.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The size in bytes, if the server said.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// The description's first line, at most 200 characters.
    pub description: String,
    /// The annotations the server put on the resource (audience, priority, last change).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<crate::mcp::results::ContentAnnotations>,
}

/// Summarizes one resource under the reference the engine derived for it.
pub(crate) fn summarize_resource(resource: &Resource, reference: String) -> ResourceSummary {
    ResourceSummary {
        reference,
        name: sanitize_capped(&resource.name, NAME_BYTES),
        title: resource
            .title
            .as_deref()
            .map(|t| sanitize_capped(t, TITLE_BYTES)),
        mime_type: resource
            .mime_type
            .as_deref()
            .map(|m| sanitize_capped(m, 128)),
        size: resource.size,
        description: first_line(
            resource.description.as_deref().unwrap_or(""),
            SUMMARY_DESCRIPTION_CHARS,
        ),
        annotations: crate::mcp::results::ContentAnnotations::from_rmcp(
            resource.annotations.as_ref(),
        ),
    }
}

/// Summaries of one `resources/list` listing: every URI is registered in `refs` for the
/// connection's `generation` (replacing the previous listing) and only references come out.
pub(crate) fn summarize_resources(
    resources: &[Resource],
    refs: &mut ResourceRefs,
    generation: u64,
) -> Vec<ResourceSummary> {
    let references = refs.replace(generation, resources.iter().map(|r| r.uri.as_str()));
    resources
        .iter()
        .zip(references)
        .map(|(resource, reference)| summarize_resource(resource, reference))
        .collect()
}

/// One prompt argument as listing shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptArgumentSummary {
    /// The name, sanitised.
    pub name: String,
    /// Whether it is required.
    pub required: bool,
    /// The description's first line, at most 200 characters.
    pub description: String,
}

/// One prompt as listing shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptSummary {
    /// The name, sanitised.
    pub name: String,
    /// The title, sanitised.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The description's first line, at most 200 characters.
    pub description: String,
    /// Its arguments.
    pub arguments: Vec<PromptArgumentSummary>,
}

/// Summarizes one prompt.
pub(crate) fn summarize_prompt(prompt: &Prompt) -> PromptSummary {
    PromptSummary {
        name: sanitize_capped(&prompt.name, NAME_BYTES),
        title: prompt
            .title
            .as_deref()
            .map(|t| sanitize_capped(t, TITLE_BYTES)),
        description: first_line(
            prompt.description.as_deref().unwrap_or(""),
            SUMMARY_DESCRIPTION_CHARS,
        ),
        arguments: prompt
            .arguments
            .iter()
            .flatten()
            .map(|a| PromptArgumentSummary {
                name: sanitize_capped(&a.name, NAME_BYTES),
                required: a.required.unwrap_or(false),
                description: first_line(
                    a.description.as_deref().unwrap_or(""),
                    SUMMARY_DESCRIPTION_CHARS,
                ),
            })
            .collect(),
    }
}

/// Why prompt arguments were refused before any request was sent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum PromptArgumentError {
    /// A required argument is absent.
    #[error("prompt argument `{0}` is required")]
    Missing(String),
    /// An argument the prompt does not declare.
    #[error("prompt has no argument `{0}`")]
    Unknown(String),
}

/// Checks `arguments` against the prompt's declaration: required present, no unknown names.
/// (String values are guaranteed by the request parser.)
pub(crate) fn check_prompt_arguments(
    prompt: &Prompt,
    arguments: &BTreeMap<String, String>,
) -> Result<(), PromptArgumentError> {
    let declared = prompt.arguments.as_deref().unwrap_or(&[]);
    if let Some(unknown) = arguments
        .keys()
        .find(|k| !declared.iter().any(|d| &d.name == *k))
    {
        return Err(PromptArgumentError::Unknown(sanitize_capped(unknown, 64)));
    }
    if let Some(missing) = declared
        .iter()
        .find(|d| d.required == Some(true) && !arguments.contains_key(&d.name))
    {
        return Err(PromptArgumentError::Missing(sanitize_capped(
            &missing.name,
            64,
        )));
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    fn tool(value: serde_json::Value) -> Tool {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn summaries_are_compact_and_sanitised() {
        let long = "x".repeat(300);
        let tools = [
            tool(json!({"name": "search_issues", "title": "Search",
                "description": format!("\n  Find issues\u{1b}[2J.\nSecond line"),
                "inputSchema": {"type": "object", "required": ["q", "repo"]}})),
            tool(json!({"name": "long", "description": long,
                "annotations": {"title": "Annotated"}, "inputSchema": {"type": "object"}})),
        ];
        let s = summarize_tools(&tools);
        assert_eq!(s[0].description, "Find issues␛[2J.");
        assert_eq!(s[0].required, vec!["q", "repo"]);
        assert_eq!(s[0].title.as_deref(), Some("Search"));
        assert_eq!(s[1].description.chars().count(), 200);
        assert!(s[1].description.ends_with('…'));
        assert_eq!(s[1].title.as_deref(), Some("Annotated"));
    }

    #[test]
    fn bad_and_duplicate_names_are_flagged_not_dropped() {
        let long = "a".repeat(129);
        let flags = name_flags(["ok", "has space", "dup", "dup", "", &long, "a.b-c_9"]);
        assert_eq!(flags.len(), 7);
        assert!(flags[0].is_empty());
        assert_eq!(flags[1], vec![NameFlag::InvalidName]);
        assert_eq!(flags[2], vec![NameFlag::Duplicate]);
        assert_eq!(flags[3], vec![NameFlag::Duplicate]);
        assert_eq!(flags[4], vec![NameFlag::InvalidName]);
        assert_eq!(flags[5], vec![NameFlag::InvalidName]);
        assert!(flags[6].is_empty());
        assert!(is_valid_tool_name(&"a".repeat(128)));
    }

    #[test]
    fn resources_show_references_not_uris() {
        let r: Resource = serde_json::from_value(json!({"uri": "file:///secret/path",
            "name": "doc", "mimeType": "text/plain", "size": 12}))
        .unwrap();
        let mut refs = ResourceRefs::new(crate::mcp::results::RefKey::from_bytes([3; 32]), "s");
        let s = summarize_resources(std::slice::from_ref(&r), &mut refs, 4);
        let text = serde_json::to_string(&s).unwrap();
        assert!(!text.contains("secret"), "{text}");
        assert_eq!(s[0].size, Some(12));
        assert_eq!(refs.resolve(4, &s[0].reference), Ok("file:///secret/path"));
    }

    #[test]
    fn prompt_arguments_are_checked() {
        let p: Prompt = serde_json::from_value(json!({"name": "review", "arguments": [
            {"name": "topic", "required": true}, {"name": "tone"}]}))
        .unwrap();
        let args = |pairs: &[(&str, &str)]| -> BTreeMap<String, String> {
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect()
        };
        assert_eq!(check_prompt_arguments(&p, &args(&[("topic", "x")])), Ok(()));
        assert_eq!(
            check_prompt_arguments(&p, &args(&[("tone", "x")])),
            Err(PromptArgumentError::Missing("topic".into()))
        );
        assert_eq!(
            check_prompt_arguments(&p, &args(&[("topic", "x"), ("mood", "y")])),
            Err(PromptArgumentError::Unknown("mood".into()))
        );
        let s = summarize_prompt(&p);
        assert!(s.arguments[0].required && !s.arguments[1].required);
    }
}
