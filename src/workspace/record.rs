//! One admitted file as the index holds it, and the workspace's term vocabulary.
//!
//! A record keeps the file's text (with an MCP config file's literal credentials hidden, see
//! [`redact`]), its passages, and their term frequencies packed as `(term id, count)` pairs over
//! the workspace's interned [`Vocabulary`]. Records are immutable and shared between snapshots;
//! one is rebuilt only when its file changes. Pure; no IO.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, RwLock};

use sha2::{Digest as _, Sha256};

use super::admission::Candidate;
use super::graph;
use super::redact;
use super::text::{self, Chunk};

/// How many occurrences a word of a passage's section heading counts as.
const HEADING_WEIGHT: u32 = 3;

/// Every term seen in one workspace, interned to a dense id. Ids are stable for the life of the
/// cache (snapshots built earlier keep working); the vocabulary only grows.
#[derive(Debug, Default)]
pub struct Vocabulary {
    ids: HashMap<Box<str>, u32>,
}

impl Vocabulary {
    pub(super) fn intern(&mut self, term: &str) -> u32 {
        if let Some(id) = self.ids.get(term) {
            return *id;
        }
        let id = u32::try_from(self.ids.len()).unwrap_or(u32::MAX);
        self.ids.insert(term.into(), id);
        id
    }

    pub(super) fn get(&self, term: &str) -> Option<u32> {
        self.ids.get(term).copied()
    }
}

/// The shared vocabulary of a workspace (written while a snapshot is built, read by searches).
pub(super) type SharedVocabulary = Arc<RwLock<Vocabulary>>;

/// What a file was when walked, for cache invalidation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Stamp {
    pub(super) size: u64,
    /// Nanoseconds since the epoch (an `i64` holds them until 2262).
    pub(super) mtime_ns: i64,
    pub(super) inode: u64,
}

impl Stamp {
    pub(super) fn of(c: &Candidate) -> Self {
        Self {
            size: c.size,
            mtime_ns: i64::try_from(c.mtime_ns).unwrap_or(i64::MAX),
            inode: c.inode,
        }
    }

    pub(super) fn matches(self, c: &Candidate) -> bool {
        self == Self::of(c)
    }
}

/// One admitted file.
#[derive(Debug)]
pub struct FileRecord {
    /// Workspace-relative path.
    pub rel: String,
    /// Its kind (node type).
    pub kind: &'static str,
    /// What it was read as (size, mtime, inode) for cache invalidation.
    pub(super) walked: Stamp,
    /// The text every answer quotes: the file's content, with literal credentials of an MCP
    /// config file replaced by [`redact::HIDDEN`].
    pub text: String,
    /// The content as read, kept only when it differs from `text` (an MCP config file with a
    /// hidden credential); `workspace_check` reads it so its positions are the file's own.
    original: Option<Box<str>>,
    /// SHA-256 of the content as read.
    sha256: [u8; 32],
    /// Its passages.
    pub chunks: Vec<Chunk>,
    /// Packed `(term id, weighted count)` pairs of every passage, passage after passage.
    pub(super) terms: Box<[(u32, u32)]>,
    /// Per passage: where its pairs end in `terms`, and its length in tokens.
    pub(super) ranges: Box<[(u32, u32)]>,
    /// Where a Rust file's test module starts (byte offset of `#[cfg(test)]`), if it has one.
    pub(super) tests_from: Option<usize>,
    /// Resolved relative references (before filtering to admitted files), sorted.
    pub(super) targets: Box<[Box<str>]>,
}

impl FileRecord {
    pub(super) fn build(
        candidate: &Candidate,
        content: String,
        vocabulary: &mut Vocabulary,
    ) -> Self {
        let rel = candidate.rel.clone();
        let kind = graph::kind_of(&rel);
        let markdown = kind == "markdown";
        let sha256: [u8; 32] = Sha256::digest(content.as_bytes()).into();
        let (text, original) = if kind == "mcp-config" {
            match redact::hide_credentials(&content) {
                Some(hidden) => (hidden, Some(content.into_boxed_str())),
                None => (content, None),
            }
        } else {
            (content, None)
        };
        let chunks = text::chunks(&text, markdown);
        let mut terms = Vec::new();
        let mut ranges = Vec::with_capacity(chunks.len());
        let mut scratch: Vec<(u32, u32)> = Vec::new();
        let path_terms: Vec<u32> = text::tokens(&rel).map(|t| vocabulary.intern(&t)).collect();
        for c in &chunks {
            scratch.clear();
            for t in text::tokens(c.text(&text)) {
                scratch.push((vocabulary.intern(&t), 1));
            }
            // A word of the section's heading says what the whole passage is about.
            let heading = c.section.as_deref().unwrap_or("");
            for t in text::tokens(heading) {
                scratch.push((vocabulary.intern(&t), HEADING_WEIGHT));
            }
            scratch.extend(path_terms.iter().map(|id| (*id, 1)));
            let len = u32::try_from(scratch.len()).unwrap_or(u32::MAX);
            scratch.sort_unstable_by_key(|p| p.0);
            let begin = ranges_end(&ranges);
            for &(id, n) in &scratch {
                let open = terms.len() > begin;
                match terms.last_mut() {
                    Some((last, count)) if open && *last == id => *count += n,
                    _ => terms.push((id, n)),
                }
            }
            ranges.push((u32::try_from(terms.len()).unwrap_or(u32::MAX), len));
        }
        let tests_from = (kind == "rust")
            .then(|| text.find("#[cfg(test)]"))
            .flatten();
        let refs = if markdown {
            graph::markdown_links(&text)
        } else {
            graph::includes(kind, &text)
        };
        let targets: BTreeSet<String> = refs
            .iter()
            .filter_map(|r| graph::resolve(&rel, &r.target))
            .filter(|t| *t != rel)
            .collect();
        Self {
            rel,
            kind,
            walked: Stamp::of(candidate),
            text,
            original,
            sha256,
            chunks,
            terms: terms.into_boxed_slice(),
            ranges: ranges.into_boxed_slice(),
            tests_from,
            targets: targets.into_iter().map(String::into_boxed_str).collect(),
        }
    }

    /// The content as read from disk (what `workspace_check` diagnoses).
    pub fn content(&self) -> &str {
        self.original.as_deref().unwrap_or(&self.text)
    }

    /// The `(term id, count)` pairs of passage `chunk`.
    pub(super) fn chunk_terms(&self, chunk: usize) -> &[(u32, u32)] {
        let start = chunk
            .checked_sub(1)
            .and_then(|p| self.ranges.get(p))
            .map_or(0, |r| r.0 as usize);
        let end = self.ranges.get(chunk).map_or(start, |r| r.0 as usize);
        self.terms.get(start..end).unwrap_or(&[])
    }

    /// SHA-256 of the content as read, hex.
    pub fn sha256_hex(&self) -> String {
        hex::encode(self.sha256)
    }
}

/// Where the pairs of the passages already finished end (a new passage never merges into the
/// last pair of the previous one).
fn ranges_end(ranges: &[(u32, u32)]) -> usize {
    ranges.last().map_or(0, |r| r.0 as usize)
}
