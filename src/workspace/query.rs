//! `workspace_query`: matches in the workspace's typed graph.
//!
//! Nodes are admitted files with a kind; edges are their relative links and includes. Type
//! filters keep some kinds, path filters keep paths under a prefix or matching a glob (any
//! filter), edge filters keep nodes that link to / are linked from a path (every filter). Text
//! terms are matched in the path and in each line; `*` matches every node. Pure over a
//! [`Snapshot`].

use std::collections::BTreeSet;

use serde_json::{Value, json};

use super::envelope::Reason;
use super::index::Snapshot;
use super::text;

/// The validated arguments of one query.
#[derive(Debug, Clone, Default)]
pub struct QueryArgs {
    /// The query text.
    pub text: String,
    /// Most matches returned.
    pub limit: usize,
    /// Kinds to keep (empty: all).
    pub types: Vec<String>,
    /// Path prefixes or globs (empty: all).
    pub paths: Vec<String>,
    /// `links_to:P` / `linked_from:P` filters.
    pub edges: Vec<String>,
    /// Snippet length in characters.
    pub snippet_chars: usize,
    /// Whether to say why each node matched.
    pub explain: bool,
}

enum PathFilter {
    Prefix(String),
    Glob(globset::GlobMatcher),
}

impl PathFilter {
    fn new(raw: &str) -> Self {
        let raw = raw.trim_start_matches("./");
        if raw.contains(['*', '?', '[', '{']) {
            match globset::GlobBuilder::new(raw)
                .literal_separator(false)
                .build()
            {
                Ok(g) => return Self::Glob(g.compile_matcher()),
                Err(_) => return Self::Prefix(raw.to_owned()),
            }
        }
        Self::Prefix(raw.to_owned())
    }

    fn matches(&self, rel: &str) -> bool {
        match self {
            Self::Prefix(p) => rel.starts_with(p.as_str()),
            Self::Glob(g) => g.is_match(rel),
        }
    }
}

/// The query terms: word tokens, or the whole text lower-cased when it has none.
fn terms_of(text: &str) -> Vec<String> {
    let set: BTreeSet<String> = text::tokens(text).collect();
    if set.is_empty() {
        vec![text.trim().to_lowercase()]
    } else {
        set.into_iter().collect()
    }
}

/// Runs the query.
pub fn run(snap: &Snapshot, args: &QueryArgs) -> Result<Value, (Reason, Value)> {
    let wildcard = args.text.trim() == "*";
    let terms = terms_of(&args.text);
    let path_filters: Vec<PathFilter> = args.paths.iter().map(|p| PathFilter::new(p)).collect();
    let mut edge_filters = Vec::new();
    for e in &args.edges {
        let (kind, target) = e.split_once(':').unwrap_or(("", e));
        edge_filters.push((
            kind == "links_to",
            target.trim_start_matches("./").to_owned(),
        ));
    }
    let mut matches = Vec::new();
    for (fi, file) in snap.files.iter().enumerate() {
        let rel = file.rel.as_str();
        if !args.types.is_empty() && !args.types.iter().any(|t| t == file.kind) {
            continue;
        }
        if !path_filters.is_empty() && !path_filters.iter().any(|p| p.matches(rel)) {
            continue;
        }
        let edges_ok = edge_filters.iter().all(|(links_to, target)| {
            if *links_to {
                snap.edges[fi].contains(target)
            } else {
                snap.file(target)
                    .is_some_and(|(ti, _)| snap.edges[ti].contains(rel))
            }
        });
        if !edges_ok {
            continue;
        }
        let rel_lower = rel.to_lowercase();
        let in_path: Vec<&String> = terms
            .iter()
            .filter(|t| !wildcard && rel_lower.contains(t.as_str()))
            .collect();
        let mut best: Option<(usize, usize, Vec<&String>)> = None; // (count, line index, terms)
        let mut matching_lines = 0usize;
        let in_text = !wildcard && terms.iter().any(|t| file.lower.contains(t.as_str()));
        if in_text {
            for (li, line) in file.text.lines().enumerate() {
                let lower = line.to_lowercase();
                let found: Vec<&String> = terms
                    .iter()
                    .filter(|t| lower.contains(t.as_str()))
                    .collect();
                if found.is_empty() {
                    continue;
                }
                matching_lines += 1;
                if best.as_ref().is_none_or(|b| found.len() > b.0) {
                    best = Some((found.len(), li, found));
                }
            }
        }
        let line_terms = best.as_ref().map_or(0, |b| b.0);
        if !wildcard && in_path.is_empty() && line_terms == 0 {
            continue;
        }
        let distinct: BTreeSet<&String> = in_path
            .iter()
            .copied()
            .chain(best.iter().flat_map(|b| b.2.iter().copied()))
            .collect();
        let score = distinct.len() * 4 + in_path.len() * 2 + line_terms;
        let line_index = best.as_ref().map_or(0, |b| b.1);
        let line_text = file.text.lines().nth(line_index).unwrap_or("").trim();
        let snippet: String = line_text.chars().take(args.snippet_chars).collect();
        let mut m = json!({
            "path": rel,
            "kind": file.kind,
            "line": line_index + 1,
            "snippet": snippet,
            "snippet_complete": snippet.chars().count() == line_text.chars().count(),
        });
        if args.explain
            && let Some(o) = m.as_object_mut()
        {
            let why = if wildcard {
                json!({"matched": "wildcard"})
            } else {
                json!({
                    "terms_in_path": in_path,
                    "terms_in_line": best.as_ref().map(|b| b.2.clone()).unwrap_or_default(),
                    "matching_lines": matching_lines,
                    "score": score,
                })
            };
            o.insert("explain".into(), json!({
                "why": why,
                "node_type": file.kind,
                "links_to": snap.edges[fi],
                "filters": {"type": !args.types.is_empty(), "path": !path_filters.is_empty(), "edge": !edge_filters.is_empty()},
            }));
        }
        matches.push((score, fi, m));
    }
    let total = matches.len();
    matches.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let matches: Vec<Value> = matches
        .into_iter()
        .take(args.limit)
        .map(|(_, _, m)| m)
        .collect();
    let result = json!({
        "matches": matches,
        "total_matches": total,
    });
    if total == 0 {
        Err((Reason::NoMatch, result))
    } else {
        Ok(result)
    }
}
