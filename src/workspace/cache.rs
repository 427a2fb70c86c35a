//! The cache of one workspace's index: what the last walk admitted, kept current between calls.
//!
//! The first call walks the root and reads every candidate. After that, a call asks the
//! workspace's [`Changes`] what was heard since the last one: nothing (the snapshot is answered
//! as it is, without touching the disk), some files (only those are looked at again, and a new
//! file's directory listed to apply its ignore rules), or everything (the root is walked again,
//! re-reading only files whose size, modification time or inode changed). Without inotify the
//! cache re-checks every directory's and file's stamp on each call instead, as git checks its
//! index.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, PoisonError};

use super::admission::{self, Cancelled, Candidate, DirStamp};
use super::changes::{Changes, Heard};
use super::index::{Coverage, DEFAULT_MAX_FILES, FileRecord, MAX_MAX_FILES, Snapshot};
use super::postings::Postings;
use super::reading::{self, Known, Step};
use super::record::{SharedVocabulary, Stamp};

/// Stamps this close to (or after) the last walk's start are not trusted.
const RACY_MARGIN_NS: i128 = 100_000_000;

fn now_ns() -> i128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i128::try_from(d.as_nanos()).unwrap_or(i128::MAX))
}

/// How the cache learns of changes.
#[derive(Debug)]
enum Watch {
    /// Not started yet (before the first walk).
    Unstarted,
    /// inotify watches on every walked directory.
    Notified(Changes),
    /// No notification (unavailable, or the watch limit was reached): stamps are checked.
    Stamps,
}

/// The cache of one workspace.
#[derive(Debug)]
pub struct IndexCache {
    /// The admitted files of the last walk, sorted by path.
    records: Vec<Arc<FileRecord>>,
    /// Candidates whose content was not admitted (binary, not UTF-8…), as walked: they are
    /// not re-read until they change.
    rejected: HashMap<String, Candidate>,
    /// The directories (and out-of-tree ignore files) of the last walk.
    dirs: Vec<DirStamp>,
    /// When the last walk started (ns since the epoch).
    walk_started_ns: i128,
    vocabulary: SharedVocabulary,
    max_files: usize,
    snapshot: Option<Arc<Snapshot>>,
    watch: Watch,
    /// A walk was cut short: the next call walks again whatever was heard.
    must_walk: bool,
    /// Whole walks so far (tests tell a heard change from a walk by it).
    walks: usize,
}

/// What the last walk's `records` and `rejected` files say of `candidate` before it is read:
/// still rejected or still its record when it is unchanged and its stamp older than `settled`
/// (a stamp too close to the last walk proves nothing).
fn known(
    records: &[Arc<FileRecord>],
    rejected: &HashMap<String, Candidate>,
    settled: i128,
    candidate: &Candidate,
) -> Known {
    let settled = candidate.mtime_ns < settled;
    if !rejected.is_empty() && rejected.get(&candidate.rel) == Some(candidate) && settled {
        return Known::StillRejected;
    }
    let previous = records
        .binary_search_by(|r| r.rel.as_str().cmp(&candidate.rel))
        .ok()
        .map(|i| &records[i]);
    match previous {
        Some(r) if r.walked.matches(candidate) && settled => Known::Kept(Arc::clone(r)),
        _ => Known::Unknown,
    }
}

impl Default for IndexCache {
    fn default() -> Self {
        Self::new()
    }
}

impl IndexCache {
    /// An empty cache admitting [`DEFAULT_MAX_FILES`] files.
    pub fn new() -> Self {
        Self::with_max_files(DEFAULT_MAX_FILES)
    }

    /// An empty cache admitting at most `max_files` candidate files (capped at
    /// [`MAX_MAX_FILES`]).
    pub fn with_max_files(max_files: usize) -> Self {
        Self {
            records: Vec::new(),
            rejected: HashMap::new(),
            dirs: Vec::new(),
            walk_started_ns: 0,
            vocabulary: SharedVocabulary::default(),
            max_files: max_files.min(MAX_MAX_FILES),
            snapshot: None,
            watch: Watch::Unstarted,
            must_walk: false,
            walks: 0,
        }
    }

    /// The current snapshot of `root`: the last one when nothing changed, else one rebuilt
    /// from what changed.
    pub fn refresh(
        &mut self,
        root: &Path,
        cancel: &AtomicBool,
    ) -> Result<Arc<Snapshot>, Cancelled> {
        if let Some(snapshot) = self.snapshot.clone()
            && !self.must_walk
        {
            let heard = match &mut self.watch {
                Watch::Notified(changes) => Some(changes.take()),
                Watch::Stamps | Watch::Unstarted => None,
            };
            match heard {
                Some(Heard::Nothing) => return Ok(snapshot),
                Some(Heard::Files(paths)) => {
                    // Held here, the snapshot's postings could not carry over.
                    drop(snapshot);
                    let applied = self.apply(root, &paths, cancel);
                    if applied.is_err() {
                        self.must_walk = true;
                    }
                    if let Some(snapshot) = applied? {
                        return Ok(snapshot);
                    }
                }
                Some(Heard::Everything) => {}
                None => {
                    if self.still_valid(root, cancel)? {
                        return Ok(snapshot);
                    }
                }
            }
        }
        self.must_walk = true;
        let snapshot = self.walk(root, cancel)?;
        self.must_walk = false;
        Ok(snapshot)
    }

    /// Walks the whole root, re-reading only files whose stamp changed, and watches every
    /// directory walked.
    fn walk(&mut self, root: &Path, cancel: &AtomicBool) -> Result<Arc<Snapshot>, Cancelled> {
        self.walks += 1;
        let started = now_ns();
        // A record read within the racy margin of the previous walk is read again.
        let previous = self.walk_started_ns;
        let walk = admission::walk(root, cancel, self.max_files)?;
        self.dirs = walk.dirs;
        self.walk_started_ns = started;
        // Watch before reading: a file changed after this is heard, one changed before is read
        // as changed. A directory whose entries changed between its listing and its watch (or
        // too close to the walk to tell) makes the next call walk again.
        self.arm(root);
        let mut rejected = HashMap::new();
        let mut files = Vec::with_capacity(walk.candidates.len());
        let mut changed = false;
        // Without a snapshot to keep (the first walk) the postings are made as files are read,
        // so no file's terms are held until the end; otherwise they are made again only if
        // something changed.
        let mut postings = self.snapshot.is_none().then(Postings::new);
        {
            let mut vocabulary = self
                .vocabulary
                .write()
                .unwrap_or_else(PoisonError::into_inner);
            let (records, was_rejected) = (&self.records, &self.rejected);
            let known = |candidate: &Candidate| {
                known(records, was_rejected, previous - RACY_MARGIN_NS, candidate)
            };
            let read = |candidate: &Candidate| admission::read_admitted(root, candidate);
            // The files are read (and cut into passages) on a second thread, in walk order,
            // while this one indexes them.
            std::thread::scope(|scope| {
                let (to, from) = std::sync::mpsc::sync_channel(reading::IN_FLIGHT);
                let candidates = walk.candidates;
                scope.spawn(move || reading::feed(candidates, known, read, cancel, &to));
                for step in from.into_iter().flatten() {
                    if cancel.load(Ordering::Relaxed) {
                        return Err(Cancelled);
                    }
                    let (record, terms) = match step {
                        Step::StillRejected(candidate) => {
                            rejected.insert(candidate.rel.clone(), candidate);
                            continue;
                        }
                        Step::Rejected(candidate) => {
                            changed = true;
                            rejected.insert(candidate.rel.clone(), candidate);
                            continue;
                        }
                        Step::Kept(record) => (record, None),
                        Step::Read(prepared) => {
                            changed = true;
                            let (record, terms) = prepared.index(&mut vocabulary);
                            (Arc::new(record), Some(terms))
                        }
                    };
                    if let Some(postings) = &mut postings {
                        let terms = terms.unwrap_or_else(|| record.terms(&mut vocabulary));
                        postings.add(&record, &terms);
                    }
                    files.push(record);
                }
                // A cancelled reader stops early: what it sent is not the whole walk.
                if cancel.load(Ordering::Relaxed) {
                    return Err(Cancelled);
                }
                Ok(())
            })?;
        }
        changed |= files.len() != self.records.len();
        self.records = files;
        self.rejected = rejected;
        let coverage = Coverage {
            admitted: self.records.len(),
            skipped_over_limit: walk.skipped,
            max_files: self.max_files,
        };
        if let Some(snapshot) = &self.snapshot
            && !changed
            && snapshot.coverage == coverage
        {
            return Ok(Arc::clone(snapshot));
        }
        self.rebuild(coverage, postings, cancel)
    }

    /// Watches the last walk's directories; falls back to stamps when that fails.
    fn arm(&mut self, root: &Path) {
        if matches!(self.watch, Watch::Unstarted) {
            self.watch = Changes::start().map_or(Watch::Stamps, Watch::Notified);
        }
        let Watch::Notified(changes) = &mut self.watch else {
            return;
        };
        if !changes.arm(root, &self.dirs) {
            self.watch = Watch::Stamps;
            return;
        }
        let racy = |mtime: i128| mtime >= self.walk_started_ns - RACY_MARGIN_NS;
        if self
            .dirs
            .iter()
            .any(|d| racy(d.stamp.0) || admission::stamp_of(&d.path) != Some(d.stamp))
        {
            changes.distrust();
        }
    }

    /// A new snapshot of the current records, with `postings` made of them in order (or, when
    /// none are given, carried over from the last snapshot, or made again from the texts).
    fn rebuild(
        &mut self,
        coverage: Coverage,
        postings: Option<Postings>,
        cancel: &AtomicBool,
    ) -> Result<Arc<Snapshot>, Cancelled> {
        // The last snapshot's postings carry over to the new one when nothing else holds it;
        // never two whole generations of postings at once.
        let last = self.snapshot.take().and_then(|s| Arc::try_unwrap(s).ok());
        let postings = match (postings, last) {
            (Some(postings), _) => postings,
            (None, Some(last)) => self.postings_carried(last, cancel)?,
            (None, None) => self.postings_again(cancel)?,
        };
        let snapshot = Arc::new(Snapshot::build(
            self.records.clone(),
            postings,
            Arc::clone(&self.vocabulary),
            coverage,
            cancel,
        )?);
        self.snapshot = Some(Arc::clone(&snapshot));
        Ok(snapshot)
    }

    /// The postings of the current records from `last`'s: only the records not in `last`
    /// have their terms made again from their texts.
    fn postings_carried(&self, last: Snapshot, cancel: &AtomicBool) -> Result<Postings, Cancelled> {
        if cancel.load(Ordering::Relaxed) {
            return Err(Cancelled);
        }
        let (files, postings) = last.into_parts();
        let mut vocabulary = self
            .vocabulary
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        Ok(Postings::carried(postings, &files, &self.records, |r| {
            r.terms(&mut vocabulary)
        }))
    }

    /// The postings of the current records, their terms made again from their texts.
    fn postings_again(&self, cancel: &AtomicBool) -> Result<Postings, Cancelled> {
        let mut postings = Postings::new();
        let mut vocabulary = self
            .vocabulary
            .write()
            .unwrap_or_else(PoisonError::into_inner);
        for (i, record) in self.records.iter().enumerate() {
            if i % 256 == 0 && cancel.load(Ordering::Relaxed) {
                return Err(Cancelled);
            }
            postings.add(record, &record.terms(&mut vocabulary));
        }
        Ok(postings)
    }

    /// Brings the records up to date with the files heard changing. `None` when only a walk
    /// can tell (a path became a directory, or the workspace is over its file limit, where
    /// which files are admitted depends on all of them).
    fn apply(
        &mut self,
        root: &Path,
        paths: &BTreeSet<PathBuf>,
        cancel: &AtomicBool,
    ) -> Result<Option<Arc<Snapshot>>, Cancelled> {
        let Some(coverage) = self.snapshot.as_ref().map(|s| s.coverage) else {
            return Ok(None);
        };
        if coverage.skipped_over_limit > 0 {
            return Ok(None);
        }
        // Each directory holding a new file is listed once, with its ignore rules.
        let mut listed: HashMap<PathBuf, Option<BTreeSet<String>>> = HashMap::new();
        let mut changed = false;
        let shared = Arc::clone(&self.vocabulary);
        let mut vocabulary = shared.write().unwrap_or_else(PoisonError::into_inner);
        for path in paths {
            if cancel.load(Ordering::Relaxed) {
                return Err(Cancelled);
            }
            let Some(rel) = path
                .strip_prefix(root)
                .ok()
                .and_then(admission::relative_string)
            else {
                continue;
            };
            let Ok(now) = admission::candidate_now(root, &rel) else {
                return Ok(None);
            };
            let at = self.records.binary_search_by(|r| r.rel.as_str().cmp(&rel));
            let known = at.is_ok() || self.rejected.contains_key(&rel);
            let Some(candidate) = now else {
                changed |= known;
                self.forget(&rel, at);
                continue;
            };
            // Read again even when the stamp is the same: the event says it was written, and a
            // write within the timestamp's granularity keeps the stamp.
            if !known {
                let dir = path.parent().map_or_else(PathBuf::new, Path::to_path_buf);
                let names = listed
                    .entry(dir)
                    .or_insert_with_key(|dir| admission::candidates_in(root, dir));
                if !names.as_ref().is_some_and(|n| n.contains(&rel)) {
                    continue;
                }
                if self.records.len() + self.rejected.len() >= self.max_files {
                    return Ok(None);
                }
            }
            changed = true;
            self.forget(&rel, at);
            match admission::read_admitted(root, &candidate) {
                Some(text) => {
                    let record = Arc::new(FileRecord::build(&candidate, text, &mut vocabulary).0);
                    let at = self
                        .records
                        .binary_search_by(|r| r.rel.as_str().cmp(&rel))
                        .unwrap_or_else(|i| i);
                    self.records.insert(at, record);
                }
                None => {
                    self.rejected.insert(rel, candidate);
                }
            }
        }
        drop(vocabulary);
        if let Some(snapshot) = self.snapshot.as_ref().filter(|_| !changed) {
            return Ok(Some(Arc::clone(snapshot)));
        }
        let admitted = self.records.len();
        self.rebuild(
            Coverage {
                admitted,
                ..coverage
            },
            None,
            cancel,
        )
        .map(Some)
    }

    /// Drops `rel` from the records (at `at`, its search result) and the rejected files.
    fn forget(&mut self, rel: &str, at: Result<usize, usize>) {
        if let Ok(i) = at {
            self.records.remove(i);
        }
        self.rejected.remove(rel);
    }

    /// Whether nothing the last walk saw has changed: no directory's entries (a created,
    /// removed or renamed entry changes its directory's mtime) and no file's size, mtime or
    /// inode. Ignore files are files of the walk (or stamped), so rule changes are seen too.
    ///
    /// Timestamps have a coarse granularity on some filesystems, so a stamp taken within
    /// [`RACY_MARGIN_NS`] of the last walk's start proves nothing (a later change could keep
    /// it): such a cache is never trusted, as git treats "racily clean" index entries.
    fn still_valid(&self, root: &Path, cancel: &AtomicBool) -> Result<bool, Cancelled> {
        let racy = |mtime: i128| mtime >= self.walk_started_ns - RACY_MARGIN_NS;
        for dir in &self.dirs {
            if racy(dir.stamp.0) || admission::stamp_of(&dir.path) != Some(dir.stamp) {
                return Ok(false);
            }
        }
        let walked = self
            .records
            .iter()
            .map(|r| (r.rel.as_str(), r.walked))
            .chain(
                self.rejected
                    .values()
                    .map(|c| (c.rel.as_str(), Stamp::of(c))),
            );
        for (i, (rel, stamp)) in walked.enumerate() {
            if i % 256 == 0 && cancel.load(Ordering::Relaxed) {
                return Err(Cancelled);
            }
            if racy(i128::from(stamp.mtime_ns))
                || !admission::unchanged(
                    root,
                    rel,
                    stamp.size,
                    i128::from(stamp.mtime_ns),
                    stamp.inode,
                )
            {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(super) mod tests {
    use super::*;

    fn paths(snap: &Snapshot) -> Vec<&str> {
        snap.files.iter().map(|f| f.rel.as_str()).collect()
    }

    /// Dates every entry under `root` (and `root`) an hour back, as a settled checkout is.
    pub(in crate::workspace) fn settle(root: &Path) {
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
        let mut stack = vec![root.to_path_buf()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    std::fs::File::options()
                        .write(true)
                        .open(&path)
                        .unwrap()
                        .set_modified(old)
                        .unwrap();
                }
            }
            std::fs::File::open(&dir)
                .unwrap()
                .set_modified(old)
                .unwrap();
        }
    }

    #[test]
    fn changes_are_seen_on_the_next_refresh() {
        let ws = tempfile::tempdir().unwrap();
        let root = ws.path();
        let stop = AtomicBool::new(false);
        std::fs::write(root.join("a.md"), "alpha\n").unwrap();
        let mut cache = IndexCache::new();
        let s1 = cache.refresh(root, &stop).unwrap();
        assert_eq!(paths(&s1), ["a.md"]);
        // Unchanged (and racy, so re-walked): the same content.
        let s2 = cache.refresh(root, &stop).unwrap();
        assert_eq!(s2.fingerprint(), s1.fingerprint());
        std::fs::write(root.join("a.md"), "alpha beta gamma\n").unwrap();
        let s3 = cache.refresh(root, &stop).unwrap();
        assert!(!s3.search("gamma").is_empty());
        std::fs::write(root.join("b.md"), "delta\n").unwrap();
        let s4 = cache.refresh(root, &stop).unwrap();
        assert_eq!(paths(&s4), ["a.md", "b.md"]);
        std::fs::write(root.join(".gitignore"), "b.md\n").unwrap();
        let s5 = cache.refresh(root, &stop).unwrap();
        assert_eq!(paths(&s5), [".gitignore", "a.md"]);
        std::fs::remove_file(root.join("a.md")).unwrap();
        let s6 = cache.refresh(root, &stop).unwrap();
        assert_eq!(paths(&s6), [".gitignore"]);
        assert_ne!(s6.fingerprint(), s5.fingerprint());
    }

    /// On a settled tree a change is heard, not found by a walk: the kernel queues the event
    /// during the write itself, so the next call sees it without waiting, and only the files
    /// named are looked at again.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_changed_added_and_deleted_file_are_heard_by_the_next_call_without_a_walk() {
        let ws = tempfile::tempdir().unwrap();
        let root = ws.path();
        let stop = AtomicBool::new(false);
        std::fs::create_dir(root.join("docs")).unwrap();
        std::fs::write(root.join("docs/a.md"), "alpha\n").unwrap();
        std::fs::write(root.join("docs/b.md"), "bravo\n").unwrap();
        std::fs::write(root.join(".gitignore"), "*.log\n").unwrap();
        settle(root);
        let mut cache = IndexCache::new();
        let first = cache.refresh(root, &stop).unwrap();
        assert_eq!(paths(&first), [".gitignore", "docs/a.md", "docs/b.md"]);
        assert!(
            matches!(cache.watch, Watch::Notified(_)),
            "{:?}",
            cache.watch
        );
        assert_eq!(cache.walks, 1);
        // Nothing changed: the same snapshot, not a copy.
        assert!(Arc::ptr_eq(&cache.refresh(root, &stop).unwrap(), &first));

        std::fs::write(root.join("docs/a.md"), "alpha changed zulu\n").unwrap();
        let changed = cache.refresh(root, &stop).unwrap();
        assert_eq!(changed.search("zulu").len(), 1);
        assert!(changed.search("alpha").len() == 1 && changed.search("bravo").len() == 1);

        std::fs::write(root.join("docs/c.md"), "charlie\n").unwrap();
        // An ignored new file and a private one are heard and left out.
        std::fs::write(root.join("docs/build.log"), "charlie log\n").unwrap();
        std::fs::write(root.join("docs/.env"), "TOKEN=charlie\n").unwrap();
        let added = cache.refresh(root, &stop).unwrap();
        assert_eq!(
            paths(&added),
            [".gitignore", "docs/a.md", "docs/b.md", "docs/c.md"]
        );
        assert_eq!(added.search("charlie").len(), 1);

        std::fs::remove_file(root.join("docs/b.md")).unwrap();
        let deleted = cache.refresh(root, &stop).unwrap();
        assert_eq!(paths(&deleted), [".gitignore", "docs/a.md", "docs/c.md"]);
        assert!(deleted.search("bravo").is_empty());
        assert_eq!(cache.walks, 1, "each change was heard, none needed a walk");

        // A new directory, or a changed ignore file, is walked again.
        std::fs::create_dir(root.join("more")).unwrap();
        std::fs::write(root.join("more/d.md"), "delta\n").unwrap();
        assert_eq!(cache.refresh(root, &stop).unwrap().search("delta").len(), 1);
        assert_eq!(cache.walks, 2);
        std::fs::write(root.join(".gitignore"), "*.log\nc.md\n").unwrap();
        let ignored = cache.refresh(root, &stop).unwrap();
        assert!(ignored.search("charlie").is_empty());
        assert_eq!(cache.walks, 3);
    }

    #[test]
    fn an_old_untouched_tree_is_served_from_the_cache() {
        let ws = tempfile::tempdir().unwrap();
        let root = ws.path();
        let stop = AtomicBool::new(false);
        std::fs::write(root.join("a.md"), "alpha\n").unwrap();
        let mut cache = IndexCache::new();
        cache.refresh(root, &stop).unwrap();
        // Pretend the walk happened long after every stamp.
        cache.walk_started_ns += 10 * RACY_MARGIN_NS;
        assert!(cache.still_valid(root, &stop).unwrap());
        std::fs::write(root.join("a.md"), "alpha two\n").unwrap();
        assert!(!cache.still_valid(root, &stop).unwrap());
        // A cancelled check stops (the first file is checked only after the flag is read).
        cache.refresh(root, &stop).unwrap();
        cache.walk_started_ns += 10 * RACY_MARGIN_NS;
        assert!(cache.still_valid(root, &AtomicBool::new(true)).is_err());
    }
}
