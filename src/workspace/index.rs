//! The in-memory index of one workspace: admitted files, their passages, BM25 postings and
//! graph edges, rebuilt incrementally.
//!
//! Every call re-walks the root (so new, removed and newly ignored files are seen) but re-reads
//! and re-tokenizes only files whose size, modification time or inode changed. A snapshot is
//! immutable and shared; a new one is built only when something changed. Nothing is persisted.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use sha2::{Digest as _, Sha256};

use super::admission::{self, Cancelled, Candidate, DirStamp};
use super::graph;
use super::text::{self, Chunk};

/// BM25 term-frequency saturation.
const K1: f64 = 1.2;
/// BM25 length normalisation.
const B: f64 = 0.75;
/// How many occurrences a word of a passage's section heading counts as.
const HEADING_WEIGHT: u32 = 3;

/// One admitted file.
#[derive(Debug)]
pub struct FileRecord {
    /// Workspace-relative path.
    pub rel: String,
    /// Its kind (node type).
    pub kind: &'static str,
    /// What it was read as (size, mtime, inode) for cache invalidation.
    walked: Candidate,
    /// The full text.
    pub text: String,
    /// The full text, lower-cased (for fast substring pre-filtering).
    pub lower: String,
    /// SHA-256 of the content, hex.
    pub sha256: String,
    /// Its passages.
    pub chunks: Vec<Chunk>,
    /// Per passage: term frequencies and length in tokens.
    terms: Vec<(HashMap<String, u32>, u32)>,
    /// Where a Rust file's test module starts (byte offset of `#[cfg(test)]`), if it has one.
    tests_from: Option<usize>,
    /// Resolved relative references (before filtering to admitted files).
    targets: BTreeSet<String>,
}

impl FileRecord {
    fn build(candidate: Candidate, text: String) -> Self {
        let kind = graph::kind_of(&candidate.rel);
        let markdown = kind == "markdown";
        let chunks = text::chunks(&text, markdown);
        let terms = chunks
            .iter()
            .map(|c| {
                let mut tf: HashMap<String, u32> = HashMap::new();
                let mut len = 0u32;
                for t in text::tokens(c.text(&text)) {
                    *tf.entry(t).or_default() += 1;
                    len += 1;
                }
                // A word of the section's heading says what the whole passage is about.
                let heading = c.section.as_deref().unwrap_or("");
                for t in text::tokens(heading) {
                    *tf.entry(t).or_default() += HEADING_WEIGHT;
                    len += 1;
                }
                for t in text::tokens(&candidate.rel) {
                    *tf.entry(t).or_default() += 1;
                    len += 1;
                }
                (tf, len)
            })
            .collect();
        let tests_from = (kind == "rust")
            .then(|| text.find("#[cfg(test)]"))
            .flatten();
        let refs = if markdown {
            graph::markdown_links(&text)
        } else {
            graph::includes(kind, &text)
        };
        let targets = refs
            .iter()
            .filter_map(|r| graph::resolve(&candidate.rel, &r.target))
            .filter(|t| *t != candidate.rel)
            .collect();
        let sha256 = hex::encode(Sha256::digest(text.as_bytes()));
        Self {
            rel: candidate.rel.clone(),
            kind,
            walked: candidate,
            lower: text.to_lowercase(),
            text,
            sha256,
            chunks,
            terms,
            tests_from,
            targets,
        }
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
#[derive(Debug)]
pub struct Snapshot {
    /// Admitted files, sorted by path.
    pub files: Vec<Arc<FileRecord>>,
    /// Outgoing edges per file (admitted targets only), parallel to `files`.
    pub edges: Vec<BTreeSet<String>>,
    /// Every admitted path.
    pub paths: BTreeSet<String>,
    /// term → (file, chunk, tf).
    postings: HashMap<String, Vec<(u32, u32, u32)>>,
    chunk_count: usize,
    avg_len: f64,
    /// SHA-256 over every admitted path and its content hash.
    pub fingerprint: String,
}

impl Snapshot {
    fn build(files: Vec<Arc<FileRecord>>, cancel: &AtomicBool) -> Result<Self, Cancelled> {
        let paths: BTreeSet<String> = files.iter().map(|f| f.rel.clone()).collect();
        let mut postings: HashMap<String, Vec<(u32, u32, u32)>> = HashMap::new();
        let mut chunk_count = 0usize;
        let mut total_len = 0u64;
        let mut hasher = Sha256::new();
        let mut edges = Vec::with_capacity(files.len());
        for (fi, f) in files.iter().enumerate() {
            if cancel.load(Ordering::Relaxed) {
                return Err(Cancelled);
            }
            let fi = u32::try_from(fi).unwrap_or(u32::MAX);
            for (ci, (tf, len)) in f.terms.iter().enumerate() {
                let ci = u32::try_from(ci).unwrap_or(u32::MAX);
                chunk_count += 1;
                total_len += u64::from(*len);
                for (term, n) in tf {
                    postings.entry(term.clone()).or_default().push((fi, ci, *n));
                }
            }
            hasher.update(f.rel.as_bytes());
            hasher.update([0]);
            hasher.update(f.sha256.as_bytes());
            hasher.update([b'\n']);
            edges.push(
                f.targets
                    .iter()
                    .filter(|t| paths.contains(*t))
                    .cloned()
                    .collect(),
            );
        }
        #[allow(clippy::cast_precision_loss)]
        let avg_len = if chunk_count == 0 {
            1.0
        } else {
            total_len as f64 / chunk_count as f64
        };
        Ok(Self {
            files,
            edges,
            paths,
            postings,
            chunk_count,
            avg_len,
            fingerprint: hex::encode(hasher.finalize()),
        })
    }

    /// The file at `rel`.
    pub fn file(&self, rel: &str) -> Option<(usize, &FileRecord)> {
        self.files
            .binary_search_by(|f| f.rel.as_str().cmp(rel))
            .ok()
            .map(|i| (i, &*self.files[i]))
    }

    /// Passages ranked by BM25 for `question`, best first (ties by path, then line).
    pub fn search(&self, question: &str) -> Vec<Hit> {
        let terms: BTreeSet<String> = text::tokens(question).collect();
        let mut scores: HashMap<(u32, u32), f64> = HashMap::new();
        #[allow(clippy::cast_precision_loss)]
        let n = self.chunk_count as f64;
        for term in &terms {
            let Some(list) = self.postings.get(term) else {
                continue;
            };
            #[allow(clippy::cast_precision_loss)]
            let df = list.len() as f64;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            for &(fi, ci, tf) in list {
                let len = self.files[fi as usize].terms[ci as usize].1;
                let tf = f64::from(tf);
                let norm = K1 * (1.0 - B + B * f64::from(len) / self.avg_len);
                *scores.entry((fi, ci)).or_default() += idf * tf * (K1 + 1.0) / (tf + norm);
            }
        }
        let mut hits: Vec<Hit> = scores
            .into_iter()
            .map(|((fi, ci), score)| Hit {
                file: fi as usize,
                chunk: ci as usize,
                score: score * weight(&self.files[fi as usize], ci as usize),
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
#[derive(Debug, Default)]
pub struct IndexCache {
    records: HashMap<String, Arc<FileRecord>>,
    /// Candidates whose content was not admitted (binary, not UTF-8…), as walked: they are
    /// not re-read until they change.
    rejected: HashMap<String, Candidate>,
    /// The directories (and out-of-tree ignore files) of the last walk.
    dirs: Vec<DirStamp>,
    /// When the last walk started (ns since the epoch).
    walk_started_ns: i128,
    snapshot: Option<Arc<Snapshot>>,
}

impl IndexCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self::default()
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
        let (candidates, dirs) = admission::walk(root, cancel)?;
        self.dirs = dirs;
        self.walk_started_ns = started;
        let mut records = HashMap::with_capacity(candidates.len());
        let mut rejected = HashMap::new();
        let mut files = Vec::with_capacity(candidates.len());
        let mut changed = false;
        for candidate in candidates {
            if cancel.load(Ordering::Relaxed) {
                return Err(Cancelled);
            }
            if self.rejected.get(&candidate.rel) == Some(&candidate) && settled(&candidate) {
                rejected.insert(candidate.rel.clone(), candidate);
                continue;
            }
            let record = match self.records.get(&candidate.rel) {
                Some(r) if r.walked == candidate && settled(&candidate) => Arc::clone(r),
                _ => {
                    changed = true;
                    let Some(text) = admission::read_admitted(root, &candidate) else {
                        rejected.insert(candidate.rel.clone(), candidate);
                        continue;
                    };
                    Arc::new(FileRecord::build(candidate, text))
                }
            };
            files.push(Arc::clone(&record));
            records.insert(record.rel.clone(), record);
        }
        changed |= records.len() != self.records.len();
        self.records = records;
        self.rejected = rejected;
        if let Some(snapshot) = &self.snapshot
            && !changed
        {
            return Ok(Arc::clone(snapshot));
        }
        let snapshot = Arc::new(Snapshot::build(files, cancel)?);
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
        for (i, candidate) in self
            .records
            .values()
            .map(|r| &r.walked)
            .chain(self.rejected.values())
            .enumerate()
        {
            if i % 256 == 0 && cancel.load(Ordering::Relaxed) {
                return Err(Cancelled);
            }
            if racy(candidate.mtime_ns) || !admission::unchanged(root, candidate) {
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
