//! One server's tool catalog for one connection generation: the tools as listed, their name
//! flags, the search index and each tool's compiled argument types (on first use), built once
//! per listing, so list, search, describe and the
//! output-schema lookup for result shaping all read the same snapshot. Invalidation (on
//! `list_changed` or reconnect) is the engine's: it replaces the catalog.

use rmcp::model::{JsonObject, Tool};

use super::describe::{ToolDescription, describe_tool};
use super::search::{MatchRank, ToolIndex};
use super::summary::{NameFlag, ToolSummary, name_flags, summarize_tools};

/// A listed tool catalog with its index.
#[derive(Debug, Clone, Default)]
pub struct ToolCatalog {
    generation: u64,
    tools: Vec<Tool>,
    flags: Vec<Vec<NameFlag>>,
    summaries: Vec<ToolSummary>,
    index: ToolIndex,
    /// Each tool's input schema compiled for typing and checking arguments, on first use.
    arguments: Vec<std::sync::OnceLock<std::sync::Arc<crate::mcp::arguments::ToolArguments>>>,
}

impl ToolCatalog {
    /// Builds the catalog of a complete listing made on connection `generation`.
    pub fn new(generation: u64, tools: Vec<Tool>) -> Self {
        let flags = name_flags(tools.iter().map(|t| t.name.as_ref()));
        let summaries = summarize_tools(&tools);
        let index = ToolIndex::new(&tools);
        let arguments = tools.iter().map(|_| std::sync::OnceLock::new()).collect();
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

    /// The tools as listed, in the server's order.
    pub fn tools(&self) -> &[Tool] {
        &self.tools
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
        self.tools.iter().position(|t| t.name == name)
    }

    /// The first tool named exactly `name` (duplicates are flagged, and the first one wins).
    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.position(name).and_then(|i| self.tools.get(i))
    }

    /// The argument types and checks of the tool named `name`, compiled once per catalog.
    pub fn arguments(
        &self,
        name: &str,
    ) -> Option<std::sync::Arc<crate::mcp::arguments::ToolArguments>> {
        let at = self.position(name)?;
        let tool = self.tools.get(at)?;
        let cell = self.arguments.get(at)?;
        Some(
            cell.get_or_init(|| {
                std::sync::Arc::new(crate::mcp::arguments::ToolArguments::compile(
                    &serde_json::Value::Object((*tool.input_schema).clone()),
                ))
            })
            .clone(),
        )
    }

    /// The full description of the tool named `name`.
    pub fn describe(&self, name: &str) -> Option<ToolDescription> {
        let at = self.position(name)?;
        let flags = self.flags.get(at).cloned().unwrap_or_default();
        let mut description = describe_tool(self.tools.get(at)?, flags);
        description.arguments = self.arguments(name).map(crate::mcp::arguments::Compiled);
        Some(description)
    }

    /// The output schema of the tool named `name`, for shaping its results.
    pub fn output_schema(&self, name: &str) -> Option<&JsonObject> {
        self.get(name)?.output_schema.as_deref()
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
