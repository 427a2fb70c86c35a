//! Deterministic tool search (SPEC.md §5.3). A [`ToolIndex`] lowercases each tool's name, title
//! and description once, so a query over 10,000 tools is a few substring scans per term. Rank:
//! exact name, name prefix, name substring, title, description; ties by name byte order. At most
//! [`MAX_SEARCH_RESULTS`] hits. Same input, same output. Search never sanitises or renders: hits
//! are indices into the caller's tool list.

use rmcp::model::Tool;
use serde::Serialize;

use super::summary::tool_title;

/// Most hits a search returns.
pub const MAX_SEARCH_RESULTS: usize = 20;
/// How much of a description is searched, in bytes; keeps one hostile tool from dominating.
pub const INDEXED_DESCRIPTION_BYTES: usize = 8 * 1024;
/// Separates fields in an entry's haystack; never part of a term.
const SEP: char = '\u{0}';

/// Why a tool matched, best first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum MatchRank {
    /// The name equals the query.
    ExactName,
    /// Every term is in the name, which starts with the first term.
    NamePrefix,
    /// Every term is in the name.
    NameSubstring,
    /// Every term is in the name or the title.
    Title,
    /// Every term is in the name, title or description.
    Description,
}

/// One search result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct SearchHit {
    /// Index into the tool list the index was built from.
    pub index: usize,
    /// Why it matched.
    pub rank: MatchRank,
}

#[derive(Debug, Clone)]
struct Entry {
    index: usize,
    name: String,
    /// `name SEP title SEP description`, lowercased.
    haystack: String,
    /// End of the name in `haystack`.
    name_end: usize,
    /// End of the title in `haystack`.
    title_end: usize,
}

/// A precomputed, name-ordered search index over one server's tools.
#[derive(Debug, Clone, Default)]
pub struct ToolIndex {
    entries: Vec<Entry>,
}

fn truncate_at_boundary(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// The lowercased terms of a query, split on whitespace and controls, deduplicated.
pub fn query_terms(query: &str) -> Vec<String> {
    let mut terms: Vec<String> = query
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|t| !t.is_empty())
        .map(str::to_lowercase)
        .collect();
    let mut seen = std::collections::HashSet::new();
    terms.retain(|t| seen.insert(t.clone()));
    terms
}

impl ToolIndex {
    /// Indexes `tools` (name, title or annotation title, description).
    pub fn new(tools: &[Tool]) -> Self {
        Self::from_fields(
            tools
                .iter()
                .map(|t| (t.name.as_ref(), tool_title(t), t.description.as_deref())),
        )
    }

    /// Indexes `(name, title, description)` triples; hit indices refer to their order.
    pub fn from_fields<'a>(
        fields: impl IntoIterator<Item = (&'a str, Option<&'a str>, Option<&'a str>)>,
    ) -> Self {
        let mut entries: Vec<Entry> = fields
            .into_iter()
            .enumerate()
            .map(|(index, (name, title, description))| {
                let clean = |s: &str| s.to_lowercase().replace(SEP, " ");
                let mut haystack = clean(name);
                let name_end = haystack.len();
                haystack.push(SEP);
                haystack.push_str(&clean(title.unwrap_or("")));
                let title_end = haystack.len();
                haystack.push(SEP);
                let description = description.unwrap_or("");
                haystack.push_str(&clean(truncate_at_boundary(
                    description,
                    INDEXED_DESCRIPTION_BYTES,
                )));
                Entry {
                    index,
                    name: name.to_owned(),
                    haystack,
                    name_end,
                    title_end,
                }
            })
            .collect();
        entries.sort_by(|a, b| {
            a.name
                .as_bytes()
                .cmp(b.name.as_bytes())
                .then(a.index.cmp(&b.index))
        });
        Self { entries }
    }

    /// How many tools are indexed.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no tool is indexed.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The best [`MAX_SEARCH_RESULTS`] matches of `query`, best first, ties by name.
    pub fn search(&self, query: &str) -> Vec<SearchHit> {
        let terms = query_terms(query);
        if terms.is_empty() {
            return Vec::new();
        }
        let joined = terms.join(" ");
        // Entries are already in name order, so a stable sort by rank keeps ties by name.
        let mut hits: Vec<SearchHit> = self
            .entries
            .iter()
            .filter(|e| terms.iter().all(|t| e.haystack.contains(t.as_str())))
            .map(|e| SearchHit {
                index: e.index,
                rank: rank(e, &terms, &joined),
            })
            .collect();
        hits.sort_by_key(|h| h.rank);
        hits.truncate(MAX_SEARCH_RESULTS);
        hits
    }
}

fn rank(entry: &Entry, terms: &[String], joined: &str) -> MatchRank {
    let name = &entry.haystack[..entry.name_end];
    if name == joined {
        return MatchRank::ExactName;
    }
    if terms.iter().all(|t| name.contains(t.as_str())) {
        return if name.starts_with(terms[0].as_str()) {
            MatchRank::NamePrefix
        } else {
            MatchRank::NameSubstring
        };
    }
    let title = &entry.haystack[entry.name_end + 1..entry.title_end];
    if terms
        .iter()
        .all(|t| name.contains(t.as_str()) || title.contains(t.as_str()))
    {
        return MatchRank::Title;
    }
    MatchRank::Description
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
