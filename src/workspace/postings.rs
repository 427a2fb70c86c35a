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

/// One term's entries, packed: each is its passage's distance from the entry before (the
/// first's from 0), then its count shifted left once with the path flag in the low bit, both
/// as LEB128 varints. Entries are mostly a byte or two each, not the eight of two `u32`s; a
/// list is only ever read from the start, as a search and a carry-over read it.
#[derive(Debug, Default)]
struct List {
    bytes: Vec<u8>,
    /// The last entry's passage (what the next entry's distance is from).
    last: u32,
}

impl List {
    fn push(&mut self, entry: Entry) {
        let delta = entry.passage - self.last;
        self.last = entry.passage;
        let flag = u32::from(entry.count & PATH != 0);
        put(&mut self.bytes, delta);
        put(&mut self.bytes, ((entry.count & !PATH) << 1) | flag);
    }

    fn iter(&self) -> Entries<'_> {
        Entries {
            bytes: &self.bytes,
            at: 0,
            passage: 0,
        }
    }
}

/// `list` (old passages) moved by `runs`, merged with `fresh` (new passages, the changed
/// files' entries).
fn carry(list: &List, fresh: &List, runs: &[Run]) -> List {
    let mut merged = List {
        bytes: Vec::with_capacity(list.bytes.len() + fresh.bytes.len()),
        last: 0,
    };
    let mut fresh = fresh.iter().peekable();
    let mut run = 0;
    // The shift of the old entry just before, when it was the last one put in `merged`: an
    // entry moved by the same amount keeps its distance, so its bytes are copied.
    let mut follows = None;
    let mut entries = list.iter();
    loop {
        let at = entries.at;
        let Some(entry) = entries.next() else {
            break;
        };
        while runs.get(run).is_some_and(|r| r.end <= entry.passage) {
            run += 1;
        }
        let Some(shift) = runs.get(run).and_then(|r| r.shift) else {
            follows = None;
            continue;
        };
        let passage = u32::try_from(i64::from(entry.passage) + shift).unwrap_or(u32::MAX);
        while let Some(e) = fresh.next_if(|e| e.passage < passage) {
            merged.push(e);
            follows = None;
        }
        if follows == Some(shift) {
            merged.bytes.extend_from_slice(&list.bytes[at..entries.at]);
            merged.last = passage;
        } else {
            merged.push(Entry {
                passage,
                count: entry.count,
            });
        }
        follows = Some(shift);
    }
    fresh.for_each(|e| merged.push(e));
    merged
}

/// Appends `n` as a LEB128 varint.
fn put(out: &mut Vec<u8>, mut n: u32) {
    while n >= 0x80 {
        out.push(u8::try_from(n & 0x7f).unwrap_or(0) | 0x80);
        n >>= 7;
    }
    out.push(u8::try_from(n).unwrap_or(0));
}

/// The entries of a [`List`], in order.
#[derive(Debug, Clone)]
struct Entries<'a> {
    bytes: &'a [u8],
    at: usize,
    passage: u32,
}

impl Entries<'_> {
    fn take(&mut self) -> u32 {
        let mut n = 0u32;
        let mut shift = 0;
        while let Some(&b) = self.bytes.get(self.at) {
            self.at += 1;
            n |= u32::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                break;
            }
            shift += 7;
        }
        n
    }

    /// The next entry when it is at `passage`, consumed; otherwise nothing is consumed.
    fn next_at(&mut self, passage: u32) -> Option<Entry> {
        let mut ahead = self.clone();
        let entry = ahead.next().filter(|e| e.passage == passage)?;
        *self = ahead;
        Some(entry)
    }
}

impl Iterator for Entries<'_> {
    type Item = Entry;

    fn next(&mut self) -> Option<Entry> {
        if self.at >= self.bytes.len() {
            return None;
        }
        self.passage += self.take();
        let packed = self.take();
        let flag = if packed & 1 == 1 { PATH } else { 0 };
        Some(Entry {
            passage: self.passage,
            count: (packed >> 1) | flag,
        })
    }
}

/// Old passages up to `end` (from the run before's end) that move by `shift` when carried
/// over (`None`: their file changed or went).
#[derive(Debug)]
struct Run {
    end: u32,
    shift: Option<i64>,
}

/// The postings of a snapshot.
#[derive(Debug, Default)]
pub(super) struct Postings {
    /// Per term id, its entries sorted by passage (a path entry before the passage's own).
    lists: Vec<List>,
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
            new.lists.resize_with(lists.len(), List::default);
        }
        // The old passages in runs that each move by one amount (`None`: dropped); an edit
        // makes a few (before it, the edited file, after it), whatever the workspace's size.
        let mut runs: Vec<Run> = Vec::new();
        for (j, file) in to.iter().enumerate() {
            let end = first[j + 1];
            if first[j] == end {
                continue;
            }
            let shift = file.map(|f| i64::from(new.first[f as usize]) - i64::from(first[j]));
            match runs.last_mut() {
                Some(run) if run.shift == shift => run.end = end,
                _ => runs.push(Run { end, shift }),
            }
        }
        drop((first, file_of));
        for (list, made) in lists.into_iter().zip(&mut new.lists) {
            let fresh = std::mem::take(made);
            *made = carry(&list, &fresh, &runs);
        }
        new
    }

    fn list(&mut self, id: u32) -> &mut List {
        let at = id as usize;
        if at >= self.lists.len() {
            self.lists.resize_with(at + 1, List::default);
        }
        &mut self.lists[at]
    }

    /// Drops the spare capacity the appends left.
    pub(super) fn shrink(&mut self) {
        self.lists.shrink_to_fit();
        for list in &mut self.lists {
            list.bytes.shrink_to_fit();
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
        let Some(list) = self.lists.get(id as usize) else {
            return;
        };
        let mut entries = list.iter();
        while let Some(entry) = entries.next() {
            if entry.count & PATH == 0 {
                each(entry.passage as usize, entry.count);
                continue;
            }
            let path = entry.count & !PATH;
            let file = self.file_of[entry.passage as usize] as usize;
            for passage in self.first[file]..self.first[file + 1] {
                let own = entries.next_at(passage).map_or(0, |e| e.count);
                each(passage as usize, path + own);
            }
        }
    }
}

/// A count or index of an admitted workspace as `u32` (its text is held in memory, so it has
/// far fewer than 2³² passages).
fn narrow(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Passages and counts far past one varint byte come back as they went in, path flags kept.
    #[test]
    fn a_list_gives_back_every_entry_it_was_given() {
        let e = |passage, count| Entry { passage, count };
        let entries = [
            e(0, 1),
            e(0, 3 | PATH),
            e(127, 127),
            e(128, 128),
            e(300_000, (1 << 20) | PATH),
            e(300_000, 64),
            e(u32::MAX >> 1, (PATH - 1) | PATH),
            e(u32::MAX, PATH - 1),
        ];
        let mut list = List::default();
        for e in entries {
            list.push(e);
        }
        assert_eq!(list.iter().collect::<Vec<_>>(), entries);
        let mut it = list.iter();
        assert_eq!(it.next_at(1), None, "nothing consumed");
        assert_eq!(it.next_at(0), Some(entries[0]));
    }
}
