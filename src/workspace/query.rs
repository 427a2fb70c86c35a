//! `workspace_query`: matches in the workspace's typed graph.
//!
//! Nodes are admitted files with a kind; edges are their relative links and includes. Type
//! filters keep some kinds, path filters keep paths under a prefix or matching a glob (any
//! filter), edge filters keep nodes that link to / are linked from a path (every filter). Text
//! terms are matched in the path and in each line; `*` matches every node. Pure over a
//! [`Snapshot`].

use std::collections::BTreeSet;

use serde_json::Value;

use super::envelope::Reason;
use super::index::{FileRecord, Snapshot};
use super::results::{
    FiltersUsed, MatchExplain, MatchWhy, QueryMatch, QueryResult, Wildcard, to_value,
};
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

/// One returned match.
fn render(
    snap: &Snapshot,
    args: &QueryArgs,
    terms: &[String],
    wildcard: bool,
    filters: FiltersUsed,
    m: &Match,
) -> QueryMatch {
    let file = &snap.files[m.file];
    let line_text = file.text.lines().nth(m.line_index).unwrap_or("").trim();
    let snippet: String = line_text.chars().take(args.snippet_chars).collect();
    let explain = args.explain.then(|| {
        let named = |ids: &[usize]| ids.iter().map(|t| terms[*t].clone()).collect::<Vec<_>>();
        let why = if wildcard {
            MatchWhy::Wildcard {
                matched: Wildcard::Wildcard,
            }
        } else {
            MatchWhy::Terms {
                terms_in_path: named(&m.in_path),
                terms_in_line: named(&m.in_line),
                matching_lines: m.matching_lines,
                score: m.score,
            }
        };
        MatchExplain {
            why,
            node_type: file.kind.to_owned(),
            links_to: snap.links(m.file).into_iter().map(str::to_owned).collect(),
            filters,
        }
    });
    QueryMatch {
        path: file.rel.clone(),
        kind: file.kind.to_owned(),
        line: m.line_index + 1,
        snippet_complete: snippet.chars().count() == line_text.chars().count(),
        snippet,
        explain,
    }
}

/// The type, path and edge filters of one query.
struct Filters<'a> {
    /// Kinds to keep (empty: all).
    types: &'a [String],
    /// Any of these (empty: all).
    paths: Vec<PathFilter>,
    /// Every one of these: (`links_to` rather than `linked_from`, the other end's path).
    edges: Vec<(bool, String)>,
}

impl<'a> Filters<'a> {
    fn new(args: &'a QueryArgs) -> Self {
        let edges = args
            .edges
            .iter()
            .map(|e| {
                let (kind, target) = e.split_once(':').unwrap_or(("", e));
                (
                    kind == "links_to",
                    target.trim_start_matches("./").to_owned(),
                )
            })
            .collect();
        Self {
            types: &args.types,
            paths: args.paths.iter().map(|p| PathFilter::new(p)).collect(),
            edges,
        }
    }

    /// Whether file `fi` passes every filter.
    fn admit(&self, snap: &Snapshot, fi: usize, file: &FileRecord) -> bool {
        let rel = file.rel.as_str();
        if !self.types.is_empty() && !self.types.iter().any(|t| t == file.kind) {
            return false;
        }
        if !self.paths.is_empty() && !self.paths.iter().any(|p| p.matches(rel)) {
            return false;
        }
        self.edges.iter().all(|(links_to, target)| {
            if *links_to {
                snap.links_to(fi, target)
            } else {
                snap.file(target)
                    .is_some_and(|(ti, _)| snap.links_to(ti, rel))
            }
        })
    }

    /// Which kinds of filter the query used (for `explain`).
    fn used(&self) -> FiltersUsed {
        FiltersUsed {
            types: !self.types.is_empty(),
            path: !self.paths.is_empty(),
            edge: !self.edges.is_empty(),
        }
    }
}

/// How file `fi` matches the terms: found in its path, and in its best line (the one with the
/// most terms, the first of equals). `None` when no term is found (a wildcard matches all).
fn match_file(terms: &[String], wildcard: bool, fi: usize, file: &FileRecord) -> Option<Match> {
    let rel_lower = file.rel.to_lowercase();
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
        return None;
    }
    let distinct: BTreeSet<usize> = in_path.iter().chain(&in_line).copied().collect();
    let score = distinct.len() * 4 + in_path.len() * 2 + in_line.len();
    Some(Match {
        score,
        file: fi,
        line_index,
        in_path,
        in_line,
        matching_lines,
    })
}

/// Runs the query.
pub fn run(snap: &Snapshot, args: &QueryArgs) -> Result<Value, (Reason, Value)> {
    let wildcard = args.text.trim() == "*";
    let terms = terms_of(&args.text);
    let filters = Filters::new(args);
    // Only what ranks a match is kept; the JSON is built for the few that are returned.
    let mut matches: Vec<Match> = snap
        .files
        .iter()
        .enumerate()
        .filter(|(fi, file)| filters.admit(snap, *fi, file))
        .filter_map(|(fi, file)| match_file(&terms, wildcard, fi, file))
        .collect();
    let total = matches.len();
    // Only the returned few are sorted (file indices are unique, so the order is total and the
    // same as a full sort's).
    let best_first = |a: &Match, b: &Match| b.score.cmp(&a.score).then(a.file.cmp(&b.file));
    if args.limit < matches.len() {
        if args.limit == 0 {
            matches.clear();
        } else {
            matches.select_nth_unstable_by(args.limit - 1, best_first);
            matches.truncate(args.limit);
        }
    }
    matches.sort_unstable_by(best_first);
    let used = filters.used();
    let matches = matches
        .into_iter()
        .map(|m| render(snap, args, &terms, wildcard, used, &m))
        .collect();
    let result = to_value(&QueryResult {
        matches,
        total_matches: total,
    });
    if total == 0 {
        Err((Reason::NoMatch, result))
    } else {
        Ok(result)
    }
}
