//! One admitted file as the index holds it, and the workspace's term vocabulary.
//!
//! A record keeps the file's text (with an MCP config file's literal credentials hidden, see
//! [`redact`]), its passages, and their term frequencies packed as `(term id, count)` pairs over
//! the workspace's interned [`Vocabulary`]. Records are immutable and shared between snapshots;
//! one is rebuilt only when its file changes. Pure; no IO.

use std::collections::BTreeSet;
use std::hash::BuildHasher as _;
use std::sync::{Arc, RwLock};

use sha2::{Digest as _, Sha256};

use super::admission::Candidate;
use super::graph;
use super::redact;
use super::text::{self, Chunk};

/// How many occurrences a word of a passage's section heading counts as.
const HEADING_WEIGHT: u32 = 3;

/// Every term seen in one workspace, interned to a dense id. Ids are stable for the life of the
/// cache (snapshots built earlier keep working); the vocabulary only grows. The terms' texts
/// are one string, and the table holds only ids (four bytes a slot, not a pointer and a length
/// and a heap block per term: a large workspace has hundreds of thousands of terms, numbers
/// mostly).
#[derive(Debug, Default)]
pub struct Vocabulary {
    /// Every term, one after another, in id order.
    text: String,
    /// Where each term ends in `text`, by id.
    ends: Vec<usize>,
    /// The ids, found by their term's hash.
    ids: hashbrown::HashTable<u32>,
    /// A seeded fast hash: interning every token of every file is a large part of a first
    /// walk, and `SipHash` cost twice as much there.
    hasher: foldhash::fast::RandomState,
}

/// Term `id` of `text` cut at `ends`.
fn term_of<'a>(text: &'a str, ends: &[usize], id: u32) -> &'a str {
    let at = id as usize;
    let start = at.checked_sub(1).map_or(0, |p| ends[p]);
    &text[start..ends[at]]
}

impl Vocabulary {
    pub(super) fn intern(&mut self, term: &str) -> u32 {
        let hash = self.hasher.hash_one(term);
        let Self {
            text,
            ends,
            ids,
            hasher,
        } = self;
        if let Some(id) = ids.find(hash, |id| term_of(text, ends, *id) == term) {
            return *id;
        }
        let id = u32::try_from(ends.len()).unwrap_or(u32::MAX);
        text.push_str(term);
        ends.push(text.len());
        ids.insert_unique(hash, id, |id| hasher.hash_one(term_of(text, ends, *id)));
        id
    }

    pub(super) fn get(&self, term: &str) -> Option<u32> {
        let hash = self.hasher.hash_one(term);
        self.ids
            .find(hash, |id| term_of(&self.text, &self.ends, *id) == term)
            .copied()
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

/// Where one passage is, compactly (a file is at most 1 MiB, so `u32` holds every offset).
#[derive(Debug, Clone, Copy)]
struct Place {
    /// Its length in tokens (the path's included).
    len: u32,
    /// First and last line, 1-based.
    lines: (u32, u32),
    /// Byte range in the text.
    bytes: (u32, u32),
}

/// A file's term counts as the index takes them: made when the file is read (and again from
/// its text when a snapshot is rebuilt), never kept in the record, whose terms the snapshot's
/// postings hold.
#[derive(Debug, Default)]
pub(super) struct Terms {
    /// The path's `(term id, count)` pairs, sorted by id: they count in every passage.
    pub(super) path: Vec<(u32, u32)>,
    /// Every passage's weighted `(term id, count)` pairs, passage after passage, each sorted by
    /// id, the path's terms left out.
    pairs: Vec<(u32, u32)>,
    /// Where each passage's pairs end in `pairs`.
    ends: Vec<u32>,
}

impl Terms {
    /// Passage `chunk`'s pairs.
    pub(super) fn passage(&self, chunk: usize) -> &[(u32, u32)] {
        let start = chunk
            .checked_sub(1)
            .and_then(|p| self.ends.get(p))
            .map_or(0, |e| *e as usize);
        let end = self.ends.get(chunk).map_or(start, |e| *e as usize);
        self.pairs.get(start..end).unwrap_or(&[])
    }
}

/// A record made but for its terms ([`FileRecord::prepare`]), with its passages.
#[derive(Debug)]
pub(super) struct Prepared {
    record: FileRecord,
    chunks: Vec<Chunk>,
}

impl Prepared {
    /// The record with its passages' lengths, and its terms (interned in `vocabulary`).
    pub(super) fn index(self, vocabulary: &mut Vocabulary) -> (FileRecord, Terms) {
        let Self { mut record, chunks } = self;
        let (terms, lens) = tokenise(&record.rel, &record.text, &chunks, vocabulary);
        for (place, len) in record.passages.iter_mut().zip(lens) {
            place.len = len;
        }
        (record, terms)
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
    /// Its passages and where they are (their sections are found again from the text when an
    /// answer quotes one: [`FileRecord::chunk`]).
    passages: Box<[Place]>,
    /// The first passage of a Rust file's test module (from `#[cfg(test)]`), if it has one.
    tests_from: Option<u32>,
    /// Resolved relative references (before filtering to admitted files), sorted, each ended
    /// by a NUL (no path holds one): one allocation, none when there are none.
    targets: Box<str>,
}

impl FileRecord {
    /// The record of `candidate` read as `content`, and its terms (interned in `vocabulary`).
    pub(super) fn build(
        candidate: &Candidate,
        content: String,
        vocabulary: &mut Vocabulary,
    ) -> (Self, Terms) {
        Self::prepare(candidate, content).index(vocabulary)
    }

    /// The record of `candidate` read as `content` but for its terms and passage lengths:
    /// everything that needs no vocabulary, so it can be made on another thread.
    pub(super) fn prepare(candidate: &Candidate, content: String) -> Prepared {
        let rel = candidate.rel.clone();
        let kind = graph::kind_of(&rel);
        let markdown = kind == "markdown";
        let (text, original) = if kind == "mcp-config" {
            match redact::hide_credentials(&content) {
                Some(hidden) => (hidden, Some(content.into_boxed_str())),
                None => (content, None),
            }
        } else {
            (content, None)
        };
        let chunks = text::chunks(&text, markdown);
        let passages = chunks
            .iter()
            .map(|c| Place {
                len: 0,
                lines: (c.start, c.end),
                bytes: (narrow(c.bytes.0), narrow(c.bytes.1)),
            })
            .collect();
        let tests_from = (kind == "rust")
            .then(|| text.find("#[cfg(test)]"))
            .flatten()
            .map(|at| {
                let first = chunks.partition_point(|c| c.bytes.0 < at);
                u32::try_from(first).unwrap_or(u32::MAX)
            });
        let refs = if markdown {
            graph::markdown_links(&text)
        } else {
            graph::includes(kind, &text)
        };
        let targets: BTreeSet<String> = refs
            .iter()
            .filter_map(|r| graph::resolve(&rel, &r.target))
            .filter(|t| *t != rel && !t.contains('\0'))
            .collect();
        let targets: String = targets.iter().flat_map(|t| [t.as_str(), "\0"]).collect();
        let record = Self {
            rel,
            kind,
            walked: Stamp::of(candidate),
            text,
            original,
            passages,
            tests_from,
            targets: targets.into_boxed_str(),
        };
        Prepared { record, chunks }
    }

    /// Its terms again, from its text (the same as [`FileRecord::build`] made).
    pub(super) fn terms(&self, vocabulary: &mut Vocabulary) -> Terms {
        let chunks = text::chunks(&self.text, self.kind == "markdown");
        tokenise(&self.rel, &self.text, &chunks, vocabulary).0
    }

    /// The content as read from disk (what `workspace_check` diagnoses).
    pub fn content(&self) -> &str {
        self.original.as_deref().unwrap_or(&self.text)
    }

    /// The number of passages.
    pub fn passage_count(&self) -> usize {
        self.passages.len()
    }

    /// Passage `i`'s length in tokens.
    pub(super) fn passage_len(&self, i: usize) -> u32 {
        self.passages.get(i).map_or(0, |p| p.len)
    }

    /// Resolved relative references (before filtering to admitted files), sorted.
    pub(super) fn targets(&self) -> impl Iterator<Item = &str> {
        self.targets.split_terminator('\0')
    }

    /// Passage `i`'s text.
    pub fn passage_text(&self, i: usize) -> Option<&str> {
        let p = self.passages.get(i)?;
        self.text.get(p.bytes.0 as usize..p.bytes.1 as usize)
    }

    /// Passage `i` with its section (found again from the text).
    pub fn chunk(&self, i: usize) -> Option<Chunk> {
        let p = self.passages.get(i)?;
        let section = text::chunks(&self.text, self.kind == "markdown")
            .into_iter()
            .nth(i)
            .and_then(|c| c.section);
        Some(Chunk {
            start: p.lines.0,
            end: p.lines.1,
            bytes: (p.bytes.0 as usize, p.bytes.1 as usize),
            section,
        })
    }

    /// Whether passage `i` lies in a Rust file's test module.
    pub(super) fn in_test_module(&self, i: usize) -> bool {
        self.tests_from
            .is_some_and(|from| u32::try_from(i).is_ok_and(|i| i >= from))
    }

    /// SHA-256 of the content as read, hex, computed when asked (only the capsule's workspace
    /// fingerprint needs it, once per snapshot).
    pub fn sha256_hex(&self) -> String {
        hex::encode(Sha256::digest(self.content().as_bytes()))
    }
}

/// The terms of a file at `rel` with `text` cut into `chunks`, and each passage's length in
/// tokens (the path's included).
fn tokenise(
    rel: &str,
    text: &str,
    chunks: &[Chunk],
    vocabulary: &mut Vocabulary,
) -> (Terms, Vec<u32>) {
    let mut words = String::new();
    let mut scratch: Vec<(u32, u32)> = Vec::new();
    text::each_token(rel, &mut words, |t| {
        scratch.push((vocabulary.intern(t), 1));
    });
    let path_len = narrow(scratch.len());
    let mut terms = Terms {
        ends: Vec::with_capacity(chunks.len()),
        ..Terms::default()
    };
    merge_into(&mut scratch, &mut terms.path);
    let mut lens = Vec::with_capacity(chunks.len());
    for c in chunks {
        scratch.clear();
        text::each_token(c.text(text), &mut words, |t| {
            scratch.push((vocabulary.intern(t), 1));
        });
        // A word of the section's heading says what the whole passage is about.
        let heading = c.section.as_deref().unwrap_or("");
        text::each_token(heading, &mut words, |t| {
            scratch.push((vocabulary.intern(t), HEADING_WEIGHT));
        });
        lens.push(narrow(scratch.len()).saturating_add(path_len));
        merge_into(&mut scratch, &mut terms.pairs);
        terms.ends.push(narrow(terms.pairs.len()));
    }
    (terms, lens)
}

/// Appends `pairs` to `out` sorted by term id, the counts of one id summed (never merging
/// into a pair already in `out`).
fn merge_into(pairs: &mut [(u32, u32)], out: &mut Vec<(u32, u32)>) {
    pairs.sort_unstable_by_key(|p| p.0);
    let begin = out.len();
    for &(id, n) in &*pairs {
        let open = out.len() > begin;
        match out.last_mut() {
            Some((last, count)) if open && *last == id => *count += n,
            _ => out.push((id, n)),
        }
    }
}

/// A byte offset of an admitted file (at most 1 MiB) as `u32`.
fn narrow(at: usize) -> u32 {
    u32::try_from(at).unwrap_or(u32::MAX)
}
