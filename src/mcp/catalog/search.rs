//! Deterministic tool search. A [`ToolIndex`] lowercases each tool's name, title
//! and description once, so a query over 10,000 tools is a few substring scans per term. Rank:
//! exact name, name prefix, name substring, title, description; ties by name byte order. At most
//! [`MAX_SEARCH_RESULTS`] hits. Same input, same output. Search never sanitises or renders: hits
//! are indices into the caller's tool list.

use serde::Serialize;

/// Most hits a search returns.
pub(crate) const MAX_SEARCH_RESULTS: usize = 20;
/// How much of a description is searched, in bytes; keeps one hostile tool from dominating.
pub(crate) const INDEXED_DESCRIPTION_BYTES: usize = 8 * 1024;
/// Separates fields in an entry's haystack; never part of a term.
const SEP: u8 = 0;

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
pub(crate) struct SearchHit {
    /// Index into the tool list the index was built from.
    pub index: usize,
    /// Why it matched.
    pub rank: MatchRank,
}

#[derive(Debug, Clone)]
struct Entry {
    /// Position in the caller's list.
    index: usize,
    /// End of the name in the corpus (the name starts at `start`).
    name_end: usize,
    /// End of the title in the corpus.
    title_end: usize,
    /// Start of this entry in the corpus.
    start: usize,
    /// End of this entry (its description) in the corpus.
    end: usize,
}

/// A precomputed, name-ordered search index over one server's tools.
///
/// All entries live in one lowercased corpus, `name SEP title SEP description SEP` each, in
/// name order. A term is found with one SIMD substring scan over the corpus, jumping to the
/// next entry after a hit; the first hit inside an entry is also its best field, because
/// fields are laid out name, title, description.
#[derive(Debug, Clone, Default)]
pub(crate) struct ToolIndex {
    corpus: Vec<u8>,
    entries: Vec<Entry>,
}

pub(crate) fn truncate_at_boundary(text: &str, max: usize) -> &str {
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
pub(crate) fn query_terms(query: &str) -> Vec<String> {
    let mut terms: Vec<String> = query
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|t| !t.is_empty())
        .map(str::to_lowercase)
        .collect();
    let mut seen = std::collections::HashSet::new();
    terms.retain(|t| seen.insert(t.clone()));
    terms
}

/// Which field of an entry a term was first found in.
const IN_NAME: u8 = 0;
const IN_TITLE: u8 = 1;
const IN_DESCRIPTION: u8 = 2;
const NOWHERE: u8 = 3;

impl ToolIndex {
    /// Indexes `(name, title, description)` triples; hit indices refer to their order.
    pub(crate) fn from_fields<'a>(
        fields: impl IntoIterator<Item = (&'a str, Option<&'a str>, Option<&'a str>)>,
    ) -> Self {
        let mut items: Vec<(usize, &str, &str, &str)> = fields
            .into_iter()
            .enumerate()
            .map(|(index, (name, title, description))| {
                let description =
                    truncate_at_boundary(description.unwrap_or(""), INDEXED_DESCRIPTION_BYTES);
                (index, name, title.unwrap_or(""), description)
            })
            .collect();
        items.sort_by(|a, b| a.1.as_bytes().cmp(b.1.as_bytes()).then(a.0.cmp(&b.0)));
        let mut corpus = Vec::new();
        let push = |corpus: &mut Vec<u8>, text: &str| {
            let lower = text.to_lowercase().replace('\0', " ");
            corpus.extend_from_slice(lower.as_bytes());
            let end = corpus.len();
            corpus.push(SEP);
            end
        };
        let entries = items
            .into_iter()
            .map(|(index, name, title, description)| {
                let start = corpus.len();
                let name_end = push(&mut corpus, name);
                let title_end = push(&mut corpus, title);
                let end = push(&mut corpus, description);
                Entry {
                    index,
                    name_end,
                    title_end,
                    start,
                    end,
                }
            })
            .collect();
        Self { corpus, entries }
    }

    /// How many tools are indexed.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// For each entry, the first field `term` occurs in ([`NOWHERE`] if none).
    fn locate(&self, term: &str, found: &mut [u8]) {
        let finder = memchr::memmem::Finder::new(term.as_bytes());
        let mut entry = 0;
        let mut from = 0;
        while let Some(offset) = finder.find(&self.corpus[from..]) {
            let at = from + offset;
            while self.entries.get(entry).is_some_and(|e| e.end <= at) {
                entry += 1;
            }
            let Some(e) = self.entries.get(entry) else {
                break;
            };
            found[entry] = if at < e.name_end {
                IN_NAME
            } else if at < e.title_end {
                IN_TITLE
            } else {
                IN_DESCRIPTION
            };
            let Some(next) = self.entries.get(entry + 1) else {
                break;
            };
            from = next.start;
            entry += 1;
        }
    }

    /// The best [`MAX_SEARCH_RESULTS`] matches of `query`, best first, ties by name.
    #[cfg(test)]
    pub(crate) fn search(&self, query: &str) -> Vec<SearchHit> {
        self.search_counted(query).0
    }

    /// The best [`MAX_SEARCH_RESULTS`] matches of `query`, best first, ties by name, and how
    /// many entries match in all, so a face can say "20 of 103".
    pub(crate) fn search_counted(&self, query: &str) -> (Vec<SearchHit>, usize) {
        let terms = query_terms(query);
        if terms.is_empty() || self.entries.is_empty() {
            return (Vec::new(), 0);
        }
        // worst[e]: the worst field any term was found in for entry e, so far.
        let mut worst = vec![IN_NAME; self.entries.len()];
        let mut found = vec![NOWHERE; self.entries.len()];
        for term in &terms {
            found.fill(NOWHERE);
            self.locate(term, &mut found);
            for (w, f) in worst.iter_mut().zip(&found) {
                *w = (*w).max(*f);
            }
        }
        let joined = terms.join(" ");
        // Entries are in name order, so filling one bucket per rank keeps ties by name.
        let mut buckets: [Vec<SearchHit>; 5] = Default::default();
        let mut total = 0;
        for (entry, worst) in self.entries.iter().zip(&worst) {
            let rank = match *worst {
                IN_NAME => self.name_rank(entry, &terms, &joined),
                IN_TITLE => MatchRank::Title,
                IN_DESCRIPTION => MatchRank::Description,
                _ => continue,
            };
            total += 1;
            let bucket = &mut buckets[rank as usize];
            if bucket.len() < MAX_SEARCH_RESULTS {
                bucket.push(SearchHit {
                    index: entry.index,
                    rank,
                });
            }
        }
        let hits = buckets
            .into_iter()
            .flatten()
            .take(MAX_SEARCH_RESULTS)
            .collect();
        (hits, total)
    }

    /// Exact, prefix or substring, for an entry whose name holds every term.
    fn name_rank(&self, entry: &Entry, terms: &[String], joined: &str) -> MatchRank {
        let name = &self.corpus[entry.start..entry.name_end];
        if name == joined.as_bytes() {
            MatchRank::ExactName
        } else if name.starts_with(terms[0].as_bytes()) {
            MatchRank::NamePrefix
        } else {
            MatchRank::NameSubstring
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests;
