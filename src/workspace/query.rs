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

/// One matching file, before rendering.
struct Match {
    score: usize,
    file: usize,
    line_index: usize,
    /// Indices of the terms found in the path.
    in_path: Vec<usize>,
    /// Indices of the terms found in the best line.
    in_line: Vec<usize>,
    matching_lines: usize,
}

/// The JSON of one returned match.
fn render(
    snap: &Snapshot,
    args: &QueryArgs,
    terms: &[String],
    wildcard: bool,
    filters: &Value,
    m: &Match,
) -> Value {
    let file = &snap.files[m.file];
    let line_text = file.text.lines().nth(m.line_index).unwrap_or("").trim();
    let snippet: String = line_text.chars().take(args.snippet_chars).collect();
    let mut out = json!({
        "path": file.rel,
        "kind": file.kind,
        "line": m.line_index + 1,
        "snippet": snippet,
        "snippet_complete": snippet.chars().count() == line_text.chars().count(),
    });
    if args.explain
        && let Some(o) = out.as_object_mut()
    {
        let named = |ids: &[usize]| ids.iter().map(|t| terms[*t].clone()).collect::<Vec<_>>();
        let why = if wildcard {
            json!({"matched": "wildcard"})
        } else {
            json!({
                "terms_in_path": named(&m.in_path),
                "terms_in_line": named(&m.in_line),
                "matching_lines": m.matching_lines,
                "score": m.score,
            })
        };
        o.insert(
            "explain".into(),
            json!({
                "why": why,
                "node_type": file.kind,
                "links_to": snap.links(m.file),
                "filters": filters,
            }),
        );
    }
    out
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
                snap.links_to(fi, target)
            } else {
                snap.file(target)
                    .is_some_and(|(ti, _)| snap.links_to(ti, rel))
            }
        });
        if !edges_ok {
            continue;
        }
        let rel_lower = rel.to_lowercase();
        let in_path: Vec<usize> = (0..terms.len())
            .filter(|t| !wildcard && rel_lower.contains(terms[*t].as_str()))
            .collect();
        let mut best: Option<(usize, Vec<usize>)> = None; // (line index, terms found there)
        let mut matching_lines = 0usize;
        let in_text = !wildcard && terms.iter().any(|t| text::contains_folded(&file.text, t));
        if in_text {
            for (li, line) in file.text.lines().enumerate() {
                let found: Vec<usize> = (0..terms.len())
                    .filter(|t| text::contains_folded(line, &terms[*t]))
                    .collect();
                if found.is_empty() {
                    continue;
                }
                matching_lines += 1;
                if best.as_ref().is_none_or(|b| found.len() > b.1.len()) {
                    best = Some((li, found));
                }
            }
        }
        let (line_index, in_line) = best.unwrap_or_default();
        if !wildcard && in_path.is_empty() && in_line.is_empty() {
            continue;
        }
        let distinct: BTreeSet<usize> = in_path.iter().chain(&in_line).copied().collect();
        let score = distinct.len() * 4 + in_path.len() * 2 + in_line.len();
        // Only what ranks a match is kept; the JSON is built for the few that are returned.
        matches.push(Match {
            score,
            file: fi,
            line_index,
            in_path,
            in_line,
            matching_lines,
        });
    }
    let total = matches.len();
    matches.sort_by(|a, b| b.score.cmp(&a.score).then(a.file.cmp(&b.file)));
    matches.truncate(args.limit);
    let filters = json!({"type": !args.types.is_empty(), "path": !path_filters.is_empty(), "edge": !edge_filters.is_empty()});
    let matches: Vec<Value> = matches
        .into_iter()
        .map(|m| render(snap, args, &terms, wildcard, &filters, &m))
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
