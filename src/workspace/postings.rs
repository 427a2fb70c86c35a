//! The inverted index of one snapshot: per term, the passages holding it, so a question
//! touches only the passages of its own words.
//!
//! Passages are numbered across the snapshot in file order (a file's passages are consecutive),
//! so every term's list is sorted by passage number, and so by file, then passage. A term of a
//! file's path counts in every passage of that file: it is kept once per file, as one entry
//! flagged [`PATH`] at the file's first passage (before that passage's own entry), not once per
//! passage. The lists replace the files' own `(term id, count)` pairs: the index holds each
//! pair once. Pure; built from [`Terms`] in file order. When files change, the unchanged
//! files' entries are carried over renumbered and only the changed files' terms are made again.

use std::sync::Arc;

use super::record::{FileRecord, Terms};

/// The flag of an entry that counts for every passage of its file (a term of the path).
const PATH: u32 = 1 << 31;

/// One entry of a term's list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Entry {
    /// The passage's number in the snapshot (for a path entry, the file's first passage).
    passage: u32,
    /// The term's weighted count there, [`PATH`] set for a path entry. A file is at most 1 MiB,
    /// so a count never reaches the flag.
    count: u32,
}

/// The postings of a snapshot.
#[derive(Debug, Default)]
pub(super) struct Postings {
    /// Per term id, its entries sorted by passage (a path entry before the passage's own).
    lists: Vec<Vec<Entry>>,
    /// Per file, its first passage's number; one more at the end (the total).
    first: Vec<u32>,
    /// Per passage, its file's index.
    file_of: Vec<u32>,
    /// Per passage, its length in tokens (the path's included).
    lens: Vec<u32>,
}

impl Postings {
    /// An empty index, to which files are added in order.
    pub(super) fn new() -> Self {
        Self {
            first: vec![0],
            ..Self::default()
        }
    }

    /// Appends the next file (in snapshot order) with its terms.
    pub(super) fn add(&mut self, record: &FileRecord, terms: &Terms) {
        let file = narrow(self.first.len() - 1);
        let start = self.first.last().copied().unwrap_or(0);
        let count = record.passage_count();
        if count > 0 {
            for &(id, n) in &terms.path {
                self.list(id).push(Entry {
                    passage: start,
                    count: n | PATH,
                });
            }
        }
        for chunk in 0..count {
            let passage = start.saturating_add(narrow(chunk));
            for &(id, n) in terms.passage(chunk) {
                self.list(id).push(Entry { passage, count: n });
            }
            self.file_of.push(file);
            self.lens.push(record.passage_len(chunk));
        }
        self.first.push(start.saturating_add(narrow(count)));
    }

    /// The postings of `files` made from `old`, the postings of `old_files` (both sorted by
    /// path): a file in both (the same record) keeps its entries, its passages renumbered; only
    /// the others' terms are made (`terms`). Each old list is dropped as its new one is made,
    /// so the two generations are never held whole at once.
    pub(super) fn carried(
        old: Self,
        old_files: &[Arc<FileRecord>],
        files: &[Arc<FileRecord>],
        mut terms: impl FnMut(&FileRecord) -> Terms,
    ) -> Self {
        let Self {
            lists,
            first,
            file_of,
            lens,
        } = old;
        // Per old file, the new file it is, when it is unchanged.
        let mut to: Vec<Option<u32>> = vec![None; old_files.len()];
        let mut new = Self::new();
        let mut j = 0;
        for (i, record) in files.iter().enumerate() {
            while old_files.get(j).is_some_and(|o| o.rel < record.rel) {
                j += 1;
            }
            if old_files.get(j).is_some_and(|o| Arc::ptr_eq(o, record)) {
                to[j] = Some(narrow(i));
                let (a, b) = (first[j] as usize, first[j + 1] as usize);
                let start = new.first.last().copied().unwrap_or(0);
                new.lens.extend_from_slice(&lens[a..b]);
                new.file_of.resize(new.file_of.len() + (b - a), narrow(i));
                new.first.push(start.saturating_add(narrow(b - a)));
            } else {
                // `new.lists` gathers only the changed files' entries, in passage order.
                new.add(record, &terms(record));
            }
        }
        if new.lists.len() < lists.len() {
            new.lists.resize_with(lists.len(), Vec::new);
        }
        for (list, made) in lists.into_iter().zip(&mut new.lists) {
            let mut fresh = std::mem::take(made).into_iter().peekable();
            let mut merged = Vec::with_capacity(list.len() + fresh.len());
            for entry in list {
                let of = file_of[entry.passage as usize] as usize;
                let Some(file) = to[of] else {
                    continue;
                };
                let passage = entry.passage - first[of] + new.first[file as usize];
                while let Some(e) = fresh.next_if(|e| e.passage < passage) {
                    merged.push(e);
                }
                merged.push(Entry {
                    passage,
                    count: entry.count,
                });
            }
            merged.extend(fresh);
            *made = merged;
        }
        new
    }

    fn list(&mut self, id: u32) -> &mut Vec<Entry> {
        let at = id as usize;
        if at >= self.lists.len() {
            self.lists.resize_with(at + 1, Vec::new);
        }
        &mut self.lists[at]
    }

    /// Drops the spare capacity the appends left.
    pub(super) fn shrink(&mut self) {
        self.lists.shrink_to_fit();
        for list in &mut self.lists {
            list.shrink_to_fit();
        }
        self.first.shrink_to_fit();
        self.file_of.shrink_to_fit();
        self.lens.shrink_to_fit();
    }

    /// How many passages there are.
    pub(super) fn passages(&self) -> usize {
        self.lens.len()
    }

    /// Passage `passage`'s length in tokens.
    pub(super) fn len_of(&self, passage: usize) -> u32 {
        self.lens[passage]
    }

    /// The sum of every passage's length.
    pub(super) fn total_len(&self) -> u64 {
        self.lens.iter().map(|l| u64::from(*l)).sum()
    }

    /// Passage `passage`'s file and its index in that file.
    pub(super) fn place(&self, passage: usize) -> (usize, usize) {
        let file = self.file_of[passage] as usize;
        (file, passage - self.first[file] as usize)
    }

    /// Calls `each(passage, count)` for every passage holding term `id`, in passage order, its
    /// count there (the path's and the passage's own, summed) never 0.
    pub(super) fn each(&self, id: u32, mut each: impl FnMut(usize, u32)) {
        let list = self.lists.get(id as usize).map_or(&[][..], Vec::as_slice);
        let mut i = 0;
        while let Some(entry) = list.get(i) {
            i += 1;
            if entry.count & PATH == 0 {
                each(entry.passage as usize, entry.count);
                continue;
            }
            let path = entry.count & !PATH;
            let file = self.file_of[entry.passage as usize] as usize;
            for passage in self.first[file]..self.first[file + 1] {
                let mut count = path;
                if let Some(own) = list.get(i).filter(|e| e.passage == passage) {
                    count += own.count;
                    i += 1;
                }
                each(passage as usize, count);
            }
        }
    }
}

/// A count or index of an admitted workspace as `u32` (its text is held in memory, so it has
/// far fewer than 2³² passages).
fn narrow(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
