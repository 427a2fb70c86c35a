//! One server's tool catalog for one connection generation: the tools as listed, their name
//! flags, the search index and each tool's compiled argument types (on first use), built once
//! per listing, so list, search, describe and the
//! output-schema lookup for result shaping all read the same snapshot. Invalidation (on
//! `list_changed` or reconnect) is the engine's: it replaces the catalog.
//!
//! A tool is held as the compact JSON text `serde_json` writes for rmcp's `Tool`, not as the
//! `Tool` itself: every schema of a `Tool` is a tree of `serde_json` maps, about 3 KiB for a
//! tool of 215 bytes on the wire, and a 10,000-tool catalog held that way was most of a
//! listing's memory. What listing, search and the pins read at every listing (names, summaries,
//! the index, each tool's pin) is computed once, as the tool arrives ([`ListedTool::new`]);
//! the rest (describe, call forms, output schemas, cost, the poisoning scan) parses the one
//! tool it needs from its text, which gives back the same `Tool` (`serde_json` round-trips).

use rmcp::model::{JsonObject, Tool};

use super::describe::{ToolDescription, describe_tool};
use super::pin::{ToolPin, pin_tool};
use super::search::{INDEXED_DESCRIPTION_BYTES, MatchRank, ToolIndex, truncate_at_boundary};
use super::summary::{NameFlag, ToolSummary, name_flags, summarize_tool, tool_title};

/// One listed tool in its compact form, made as its page arrives (so a listing never holds
/// every page's `Tool` values at once).
#[derive(Debug, Clone)]
pub struct ListedTool {
    /// The tool as compact JSON.
    json: Box<str>,
    /// Its name, raw (lookups are by the name the server gave).
    name: Box<str>,
    /// Its pin (see [`pin_tool`]).
    pin: ToolPin,
    /// Its summary, without name flags (they need the whole catalog).
    summary: ToolSummary,
    /// Its title and the searched part of its description, raw, until the index is built.
    searched: (Option<Box<str>>, Box<str>),
}

impl ListedTool {
    /// The compact form of `tool`.
    pub fn new(tool: &Tool) -> Self {
        let description = tool.description.as_deref().unwrap_or("");
        Self {
            json: serde_json::to_string(tool)
                .unwrap_or_default()
                .into_boxed_str(),
            name: Box::from(&*tool.name),
            pin: pin_tool(tool),
            summary: summarize_tool(tool, Vec::new()),
            searched: (
                tool_title(tool).map(Into::into),
                truncate_at_boundary(description, INDEXED_DESCRIPTION_BYTES).into(),
            ),
        }
    }
}

/// One tool as the catalog keeps it.
#[derive(Debug, Clone)]
struct Entry {
    json: Box<str>,
    name: Box<str>,
    pin: ToolPin,
}

/// A listed tool catalog with its index.
#[derive(Debug, Clone, Default)]
pub struct ToolCatalog {
    generation: u64,
    tools: Vec<Entry>,
    flags: Vec<Vec<NameFlag>>,
    summaries: Vec<ToolSummary>,
    index: ToolIndex,
    /// Each tool's input schema compiled for typing and checking arguments, on first use.
    arguments: Vec<std::sync::OnceLock<std::sync::Arc<crate::mcp::arguments::ToolArguments>>>,
}

impl ToolCatalog {
    /// Builds the catalog of a complete listing made on connection `generation`.
    pub fn new(generation: u64, tools: Vec<Tool>) -> Self {
        Self::from_listed(
            generation,
            tools.into_iter().map(|t| ListedTool::new(&t)).collect(),
        )
    }

    /// Builds the catalog of a complete listing from its tools' compact forms.
    pub fn from_listed(generation: u64, listed: Vec<ListedTool>) -> Self {
        let flags = name_flags(listed.iter().map(|t| &*t.name));
        let index = ToolIndex::from_fields(
            listed
                .iter()
                .map(|t| (&*t.name, t.searched.0.as_deref(), Some(&*t.searched.1))),
        );
        let arguments = listed.iter().map(|_| std::sync::OnceLock::new()).collect();
        let mut summaries = Vec::with_capacity(listed.len());
        let mut tools = Vec::with_capacity(listed.len());
        for (tool, flags) in listed.into_iter().zip(&flags) {
            let mut summary = tool.summary;
            summary.flags.clone_from(flags);
            summaries.push(summary);
            tools.push(Entry {
                json: tool.json,
                name: tool.name,
                pin: tool.pin,
            });
        }
        Self {
            generation,
            tools,
            flags,
            summaries,
            index,
            arguments,
        }
    }

    /// The connection generation the listing was made on.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// The tools as listed, in the server's order, each parsed from its text as it is read.
    pub fn tools(&self) -> impl Iterator<Item = Tool> + '_ {
        self.tools.iter().filter_map(|t| parse(&t.json))
    }

    /// The tools as listed, in the server's order, each as its JSON value (what the pins and
    /// the poisoning scan read), parsed from its text as it is read.
    pub fn tool_values(&self) -> impl Iterator<Item = serde_json::Value> + '_ {
        self.tools
            .iter()
            .filter_map(|t| serde_json::from_str(&t.json).ok())
    }

    /// Each tool's raw name and pin, in the server's order.
    pub(crate) fn pins(&self) -> impl Iterator<Item = (&str, ToolPin)> + '_ {
        self.tools.iter().map(|t| (&*t.name, t.pin))
    }

    /// How many tools were listed.
    pub fn len(&self) -> usize {
        self.tools.len()
    }

    /// Whether the server listed no tools.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// Compact summaries, in the server's order.
    pub fn summaries(&self) -> &[ToolSummary] {
        &self.summaries
    }

    /// The best matches of `query` with why each matched (at most 20, deterministic).
    pub fn search(&self, query: &str) -> Vec<(&ToolSummary, MatchRank)> {
        self.search_counted(query).0
    }

    /// The best matches of `query` (as [`ToolCatalog::search`]) and how many tools match in all.
    pub fn search_counted(&self, query: &str) -> (Vec<(&ToolSummary, MatchRank)>, usize) {
        let (hits, total) = self.index.search_counted(query);
        let hits = hits
            .into_iter()
            .filter_map(|hit| self.summaries.get(hit.index).map(|s| (s, hit.rank)))
            .collect();
        (hits, total)
    }

    /// The position of the first tool named exactly `name`.
    fn position(&self, name: &str) -> Option<usize> {
        self.tools.iter().position(|t| &*t.name == name)
    }

    /// Whether a tool is named exactly `name`.
    pub fn contains(&self, name: &str) -> bool {
        self.position(name).is_some()
    }

    /// The first tool named exactly `name` (duplicates are flagged, and the first one wins).
    pub fn get(&self, name: &str) -> Option<Tool> {
        self.position(name)
            .and_then(|i| self.tools.get(i))
            .and_then(|t| parse(&t.json))
    }

    /// The argument types and checks of the tool named `name`, compiled once per catalog.
    pub fn arguments(
        &self,
        name: &str,
    ) -> Option<std::sync::Arc<crate::mcp::arguments::ToolArguments>> {
        let at = self.position(name)?;
        let cell = self.arguments.get(at)?;
        if let Some(compiled) = cell.get() {
            return Some(compiled.clone());
        }
        let tool = parse(&self.tools.get(at)?.json)?;
        Some(
            cell.get_or_init(|| {
                let schema = std::sync::Arc::unwrap_or_clone(tool.input_schema);
                std::sync::Arc::new(crate::mcp::arguments::ToolArguments::compile(
                    &serde_json::Value::Object(schema),
                ))
            })
            .clone(),
        )
    }

    /// The full description of the tool named `name`.
    pub fn describe(&self, name: &str) -> Option<ToolDescription> {
        let at = self.position(name)?;
        let flags = self.flags.get(at).cloned().unwrap_or_default();
        let mut description = describe_tool(&parse(&self.tools.get(at)?.json)?, flags);
        description.arguments = self.arguments(name).map(crate::mcp::arguments::Compiled);
        Some(description)
    }

    /// The output schema of the tool named `name`, for shaping its results.
    pub fn output_schema(&self, name: &str) -> Option<JsonObject> {
        self.get(name)?
            .output_schema
            .map(std::sync::Arc::unwrap_or_clone)
    }

    /// Names of tools that resemble `name` (for "no such tool" errors), best first, at most 5.
    pub fn similar_names(&self, name: &str) -> Vec<&ToolSummary> {
        let lower = name.to_lowercase();
        let mut scored: Vec<(f64, &ToolSummary)> = self
            .summaries
            .iter()
            .map(|s| (strsim::jaro_winkler(&lower, &s.name.to_lowercase()), s))
            .filter(|(score, _)| *score >= 0.8)
            .collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.name.cmp(&b.1.name)));
        scored.into_iter().take(5).map(|(_, s)| s).collect()
    }
}

/// A tool back from the text [`ListedTool::new`] wrote (which `serde_json` always parses).
fn parse(json: &str) -> Option<Tool> {
    serde_json::from_str(json).ok()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    fn catalog() -> ToolCatalog {
        let tools: Vec<Tool> = serde_json::from_value(json!([
            {"name": "search_issues", "description": "Search issues", "inputSchema": {}},
            {"name": "weather", "inputSchema": {}, "outputSchema": {"type": "object"}},
            {"name": "weather", "description": "second", "inputSchema": {}},
        ]))
        .unwrap();
        ToolCatalog::new(7, tools)
    }

    #[test]
    fn a_tool_read_back_from_its_compact_form_is_the_tool_listed() {
        let tools: Vec<Tool> = serde_json::from_value(json!([
            {"name": "t", "title": "T", "description": "d\u{2028}\"q\"",
             "inputSchema": {"type": "object", "required": ["n"],
                 "properties": {"n": {"type": "number", "minimum": 0.1, "maximum": 1e300}}},
             "outputSchema": {"type": "object"}, "annotations": {"readOnlyHint": true},
             "icons": [{"src": "https://example.com/icon.png", "sizes": ["48x48"]}],
             "_meta": {"k": [1, -2, 3.5, null]}},
            {"name": "u", "inputSchema": {}},
        ]))
        .unwrap();
        let c = ToolCatalog::new(1, tools.clone());
        assert_eq!(c.tools().collect::<Vec<_>>(), tools);
        assert_eq!(c.get("t").as_ref(), Some(&tools[0]));
        let values: Vec<serde_json::Value> = c.tool_values().collect();
        assert_eq!(values, [json!(tools[0]), json!(tools[1])]);
        let pins: Vec<(&str, super::ToolPin)> = c.pins().collect();
        assert_eq!(
            pins,
            [("t", pin_tool(&tools[0])), ("u", pin_tool(&tools[1]))]
        );
        assert!(c.contains("u") && !c.contains("v"));
        assert_eq!(
            c.output_schema("t"),
            tools[0].output_schema.as_deref().cloned()
        );
        assert_eq!(c.output_schema("u"), None);
    }

    #[test]
    fn one_snapshot_serves_list_search_describe_and_schemas() {
        let c = catalog();
        assert_eq!(c.generation(), 7);
        assert_eq!(c.len(), 3);
        assert_eq!(c.summaries()[0].name, "search_issues");
        let hits = c.search("issue");
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].0.name, "search_issues");
        assert_eq!(hits[0].1, MatchRank::NameSubstring);
        let d = c.describe("weather").unwrap();
        assert_eq!(d.flags, vec![NameFlag::Duplicate]);
        assert!(
            c.output_schema("weather").is_some(),
            "the first duplicate wins"
        );
        assert!(c.describe("nope").is_none());
        let similar: Vec<&str> = c
            .similar_names("wether")
            .iter()
            .map(|s| s.name.as_str())
            .collect();
        assert_eq!(similar, vec!["weather", "weather"]);
    }
}
