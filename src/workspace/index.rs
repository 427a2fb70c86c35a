//! The in-memory index of one workspace: admitted files, their passages, BM25 postings and
//! graph edges, rebuilt incrementally.
//!
//! Every call re-walks the root (so new, removed and newly ignored files are seen) but re-reads
//! and re-tokenizes only files whose size, modification time or inode changed. A snapshot is
//! immutable and shared; a new one is built only when something changed. Nothing is persisted.
//!
//! The index is compact so that its memory follows the admitted text: terms are interned once
//! per workspace ([`super::record::Vocabulary`]), a file keeps its passages' term frequencies
//! as packed `(term id, count)` pairs sorted by id (eight bytes each, no per-passage map), and
//! edges are file indices. At most `max_files` candidate files (walk order) are admitted; the
//! rest are counted in [`Coverage`], never silently dropped.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, PoisonError};

use sha2::{Digest as _, Sha256};

use super::admission::{self, Cancelled, Candidate, DirStamp};
pub use super::record::FileRecord;
use super::record::{SharedVocabulary, Stamp};
use super::text;

/// BM25 term-frequency saturation.
const K1: f64 = 1.2;
/// BM25 length normalisation.
const B: f64 = 0.75;

/// The default number of files admitted per workspace.
pub const DEFAULT_MAX_FILES: usize = 50_000;
/// The largest `--max-files` accepted.
pub const MAX_MAX_FILES: usize = 200_000;

/// How much of a workspace the index holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Coverage {
    /// Files admitted into the index.
    pub admitted: usize,
    /// Candidate files left out because the workspace has more than `max_files`.
    pub skipped_over_limit: usize,
    /// The limit in force.
    pub max_files: usize,
}

impl Coverage {
    /// The envelope's `coverage` object.
    pub fn to_json(self) -> serde_json::Value {
        serde_json::json!({
            "admitted": self.admitted,
            "skipped_over_limit": self.skipped_over_limit,
            "max_files": self.max_files,
            "complete": self.skipped_over_limit == 0,
        })
    }
}

/// One scored passage.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// Index of the file in [`Snapshot::files`].
    pub file: usize,
    /// Index of the passage in that file's chunks.
    pub chunk: usize,
    /// BM25 score.
    pub score: f64,
}

/// An immutable view of the workspace at one moment.
///
/// Searching scans the files' packed `(term id, count)` pairs (a forward index, sorted by term
/// id within each passage) rather than keeping an inverted copy of them: a second copy of every
/// pair would double the index, and one linear pass over a few megabytes answers in
/// milliseconds.
#[derive(Debug)]
pub struct Snapshot {
    /// Admitted files, sorted by path.
    pub files: Vec<Arc<FileRecord>>,
    /// Outgoing edges per file (indices of admitted targets, ascending), parallel to `files`.
    edges: Vec<Box<[u32]>>,
    passages: usize,
    vocabulary: SharedVocabulary,
    avg_len: f64,
    /// How much of the workspace this snapshot holds.
    pub coverage: Coverage,
    /// SHA-256 over every admitted path and its content hash.
    pub fingerprint: String,
}

impl Snapshot {
    fn build(
        files: Vec<Arc<FileRecord>>,
        vocabulary: SharedVocabulary,
        coverage: Coverage,
        cancel: &AtomicBool,
    ) -> Result<Self, Cancelled> {
        let mut passages = 0usize;
        let mut total_len = 0u64;
        let mut hasher = Sha256::new();
        for f in &files {
            if cancel.load(Ordering::Relaxed) {
                return Err(Cancelled);
            }
            passages += f.ranges.len();
            total_len += f.ranges.iter().map(|r| u64::from(r.1)).sum::<u64>();
            hasher.update(f.rel.as_bytes());
            hasher.update([0]);
            hasher.update(f.sha256_hex().as_bytes());
            hasher.update([b'\n']);
        }
        let edges = files
            .iter()
            .map(|f| {
                f.targets
                    .iter()
                    .filter_map(|t| index_of(&files, t))
                    .filter_map(|i| u32::try_from(i).ok())
                    .collect::<BTreeSet<u32>>()
                    .into_iter()
                    .collect()
            })
            .collect();
        #[allow(clippy::cast_precision_loss)]
        let avg_len = if passages == 0 {
            1.0
        } else {
            total_len as f64 / passages as f64
        };
        Ok(Self {
            files,
            edges,
            passages,
            vocabulary,
            avg_len,
            coverage,
            fingerprint: hex::encode(hasher.finalize()),
        })
    }

    /// The file at `rel`.
    pub fn file(&self, rel: &str) -> Option<(usize, &FileRecord)> {
        index_of(&self.files, rel).map(|i| (i, &*self.files[i]))
    }

    /// Whether `rel` is an admitted file.
    pub fn has_file(&self, rel: &str) -> bool {
        index_of(&self.files, rel).is_some()
    }

    /// Whether some admitted file lies under the directory `rel`.
    pub fn has_dir(&self, rel: &str) -> bool {
        let prefix = format!("{rel}/");
        let at = self
            .files
            .partition_point(|f| f.rel.as_str() < prefix.as_str());
        self.files
            .get(at)
            .is_some_and(|f| f.rel.starts_with(&prefix))
    }

    /// The admitted files file `fi` links to, by path.
    pub fn links(&self, fi: usize) -> Vec<&str> {
        self.edges
            .get(fi)
            .map(|e| {
                e.iter()
                    .map(|t| self.files[*t as usize].rel.as_str())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Whether file `fi` links to the admitted file `rel`.
    pub fn links_to(&self, fi: usize, rel: &str) -> bool {
        let Some(target) = index_of(&self.files, rel).and_then(|t| u32::try_from(t).ok()) else {
            return false;
        };
        self.edges
            .get(fi)
            .is_some_and(|e| e.binary_search(&target).is_ok())
    }

    /// Passages ranked by BM25 for `question`, best first (ties by path, then line).
    pub fn search(&self, question: &str) -> Vec<Hit> {
        let ids: Vec<u32> = {
            let vocabulary = self
                .vocabulary
                .read()
                .unwrap_or_else(PoisonError::into_inner);
            let set: BTreeSet<u32> = text::tokens(question)
                .filter_map(|t| vocabulary.get(&t))
                .collect();
            set.into_iter().collect()
        };
        if ids.is_empty() {
            return Vec::new();
        }
        // One pass: every passage holding a query term, with the counts of each term.
        let mut found: Vec<(u32, u32, u32)> = Vec::new(); // (file, passage, first pair index)
        let mut counts: Vec<u32> = Vec::new(); // per found passage, one count per query term
        let mut df = vec![0u32; ids.len()];
        for (fi, f) in self.files.iter().enumerate() {
            for ci in 0..f.ranges.len() {
                let pairs = f.chunk_terms(ci);
                let mut any = false;
                let at = counts.len();
                for (k, id) in ids.iter().enumerate() {
                    let n = pairs
                        .binary_search_by_key(id, |p| p.0)
                        .map_or(0, |i| pairs[i].1);
                    if n > 0 {
                        if !any {
                            counts.resize(at + ids.len(), 0);
                            any = true;
                        }
                        counts[at + k] = n;
                        df[k] += 1;
                    }
                }
                if any {
                    let fi = u32::try_from(fi).unwrap_or(u32::MAX);
                    let ci = u32::try_from(ci).unwrap_or(u32::MAX);
                    found.push((fi, ci, u32::try_from(at).unwrap_or(u32::MAX)));
                }
            }
        }
        #[allow(clippy::cast_precision_loss)]
        let n = self.passages as f64;
        let idf: Vec<f64> = df
            .iter()
            .map(|d| {
                let d = f64::from(*d);
                (1.0 + (n - d + 0.5) / (d + 0.5)).ln()
            })
            .collect();
        let mut hits: Vec<Hit> = found
            .into_iter()
            .map(|(fi, ci, at)| {
                let file = &self.files[fi as usize];
                let len = f64::from(file.ranges[ci as usize].1);
                let norm = K1 * (1.0 - B + B * len / self.avg_len);
                let score: f64 = (0..ids.len())
                    .map(|k| f64::from(counts[at as usize + k]))
                    .zip(&idf)
                    .filter(|(tf, _)| *tf > 0.0)
                    .map(|(tf, idf)| idf * tf * (K1 + 1.0) / (tf + norm))
                    .sum();
                Hit {
                    file: fi as usize,
                    chunk: ci as usize,
                    score: score * weight(file, ci as usize),
                }
            })
            .collect();
        hits.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then(a.file.cmp(&b.file))
                .then(a.chunk.cmp(&b.chunk))
        });
        hits
    }
}

fn index_of(files: &[Arc<FileRecord>], rel: &str) -> Option<usize> {
    files.binary_search_by(|f| f.rel.as_str().cmp(rel)).ok()
}

/// Stamps this close to (or after) the last walk's start are not trusted.
const RACY_MARGIN_NS: i128 = 100_000_000;

fn now_ns() -> i128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i128::try_from(d.as_nanos()).unwrap_or(i128::MAX))
}

/// Questions are usually answered by prose: documentation passages outrank code, and tests,
/// fixtures and recorded snapshots (which quote the same words without explaining them) rank
/// below the code they test.
fn weight(file: &FileRecord, chunk: usize) -> f64 {
    let kind = match file.kind {
        "markdown" => 1.0,
        "text" => 0.9,
        "json" | "toml" | "yaml" | "mcp-config" => 0.8,
        _ => 0.5,
    };
    let in_test_module = file
        .tests_from
        .zip(file.chunks.get(chunk))
        .is_some_and(|(from, c)| c.bytes.0 >= from);
    if in_test_module || is_test_material(&file.rel) {
        kind * 0.5
    } else {
        kind
    }
}

/// Whether `rel` is test code, a fixture or a recorded snapshot (by path convention).
fn is_test_material(rel: &str) -> bool {
    let mut parts = rel.split('/');
    let name = parts.next_back().unwrap_or(rel);
    parts.any(|dir| {
        matches!(
            dir,
            "test" | "tests" | "fixtures" | "fixture" | "snapshots" | "__snapshots__" | "testdata"
        )
    }) || std::path::Path::new(name)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("snap"))
        || name.contains("_test.")
        || name.contains(".test.")
        || name.contains("_tests.")
        || name.starts_with("test_")
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
        }
    }

    /// The current snapshot of `root`, re-reading only what changed since the last call.
    pub fn refresh(
        &mut self,
        root: &Path,
        cancel: &AtomicBool,
    ) -> Result<Arc<Snapshot>, Cancelled> {
        if let Some(snapshot) = &self.snapshot
            && self.still_valid(root, cancel)?
        {
            return Ok(Arc::clone(snapshot));
        }
        let started = now_ns();
        // A record read within the racy margin of the previous walk is read again.
        let previous = self.walk_started_ns;
        let settled = |c: &Candidate| c.mtime_ns < previous - RACY_MARGIN_NS;
        let walk = admission::walk(root, cancel, self.max_files)?;
        self.dirs = walk.dirs;
        self.walk_started_ns = started;
        let mut rejected = HashMap::new();
        let mut files = Vec::with_capacity(walk.candidates.len());
        let mut changed = false;
        {
            let mut vocabulary = self
                .vocabulary
                .write()
                .unwrap_or_else(PoisonError::into_inner);
            for candidate in walk.candidates {
                if cancel.load(Ordering::Relaxed) {
                    return Err(Cancelled);
                }
                if self.rejected.get(&candidate.rel) == Some(&candidate) && settled(&candidate) {
                    rejected.insert(candidate.rel.clone(), candidate);
                    continue;
                }
                let previous = self
                    .records
                    .binary_search_by(|r| r.rel.as_str().cmp(&candidate.rel))
                    .ok()
                    .map(|i| &self.records[i]);
                let record = match previous {
                    Some(r) if r.walked.matches(&candidate) && settled(&candidate) => Arc::clone(r),
                    _ => {
                        changed = true;
                        let Some(text) = admission::read_admitted(root, &candidate) else {
                            rejected.insert(candidate.rel.clone(), candidate);
                            continue;
                        };
                        Arc::new(FileRecord::build(&candidate, text, &mut vocabulary))
                    }
                };
                files.push(record);
            }
        }
        changed |= files.len() != self.records.len();
        self.records.clone_from(&files);
        self.rejected = rejected;
        let coverage = Coverage {
            admitted: files.len(),
            skipped_over_limit: walk.skipped,
            max_files: self.max_files,
        };
        if let Some(snapshot) = &self.snapshot
            && !changed
            && snapshot.coverage == coverage
        {
            return Ok(Arc::clone(snapshot));
        }
        // Never hold two generations of postings at once.
        self.snapshot = None;
        let snapshot = Arc::new(Snapshot::build(
            files,
            Arc::clone(&self.vocabulary),
            coverage,
            cancel,
        )?);
        self.snapshot = Some(Arc::clone(&snapshot));
        Ok(snapshot)
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
mod tests {
    use super::*;

    fn paths(snap: &Snapshot) -> Vec<&str> {
        snap.files.iter().map(|f| f.rel.as_str()).collect()
    }

    #[test]
    fn documentation_outranks_tests_that_quote_the_question() {
        let ws = tempfile::tempdir().unwrap();
        let root = ws.path();
        let q = "how does configuration precedence work";
        std::fs::write(
            root.join("README.md"),
            "# Tool\n\n## Configuration\n\nFiles are read lowest precedence first.\n\n\
             ### Precedence\n\nA higher file replaces the whole lower definition.\n",
        )
        .unwrap();
        std::fs::write(
            root.join("lib.rs"),
            format!(
                "fn f() {{}}\n\n#[cfg(test)]\nmod tests {{\n    // {q}?\n    fn t() {{}}\n}}\n"
            ),
        )
        .unwrap();
        std::fs::create_dir_all(root.join("tests/snapshots")).unwrap();
        std::fs::write(
            root.join("tests/config.rs"),
            "#[test]\nfn configuration_precedence_works() {\n    check(\"precedence\");\n}\n",
        )
        .unwrap();
        std::fs::write(
            root.join("tests/snapshots/doctor.snap"),
            "| Config doctor: files in precedence order |\n| 1 user  mcp.json  ok |\n\
             | 2 project  .mcp.json  1 error |\n",
        )
        .unwrap();
        let snap = IndexCache::new()
            .refresh(root, &AtomicBool::new(false))
            .unwrap();
        let hits = snap.search(q);
        let top: Vec<&str> = hits
            .iter()
            .take(2)
            .map(|h| snap.files[h.file].rel.as_str())
            .collect();
        assert_eq!(top, ["README.md", "README.md"], "{hits:?}");
        for quoting in ["lib.rs", "tests/config.rs", "tests/snapshots/doctor.snap"] {
            assert!(
                hits.iter().any(|h| snap.files[h.file].rel == quoting),
                "{quoting} still matches, lower: {hits:?}"
            );
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
        assert_eq!(s2.fingerprint, s1.fingerprint);
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
        assert_ne!(s6.fingerprint, s5.fingerprint);
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
