//! The in-memory index of one workspace at one moment: admitted files, their passages, BM25
//! postings and graph edges. [`IndexCache`] (in [`super::cache`]) keeps it current. A snapshot
//! is immutable and shared; a new one is built only when something changed. Nothing is
//! persisted.
//!
//! The index is compact so that its memory follows the admitted text: terms are interned once
//! per workspace ([`super::record::Vocabulary`]), a file keeps its passages' term frequencies
//! as packed `(term id, count)` pairs sorted by id (eight bytes each, no per-passage map), and
//! edges are file indices. At most `max_files` candidate files (walk order) are admitted; the
//! rest are counted in [`Coverage`], never silently dropped.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock, PoisonError};

use sha2::{Digest as _, Sha256};

use super::admission::Cancelled;
pub use super::cache::IndexCache;
pub use super::rank::Ranked;
pub use super::record::FileRecord;
use super::record::SharedVocabulary;
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
#[derive(Debug, Clone, Copy, PartialEq)]
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
    /// SHA-256 over every admitted path and its content hash, made when first asked for (only
    /// the capsule quotes it).
    fingerprint: OnceLock<String>,
}

impl Snapshot {
    pub(super) fn build(
        files: Vec<Arc<FileRecord>>,
        vocabulary: SharedVocabulary,
        coverage: Coverage,
        cancel: &AtomicBool,
    ) -> Result<Self, Cancelled> {
        let mut passages = 0usize;
        let mut total_len = 0u64;
        for f in &files {
            if cancel.load(Ordering::Relaxed) {
                return Err(Cancelled);
            }
            passages += f.passage_count();
            total_len += (0..f.passage_count())
                .map(|i| u64::from(f.passage_len(i)))
                .sum::<u64>();
        }
        let edges = files
            .iter()
            .map(|f| {
                f.targets()
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
            fingerprint: OnceLock::new(),
        })
    }

    /// SHA-256 over every admitted path and its content hash.
    pub fn fingerprint(&self) -> &str {
        self.fingerprint.get_or_init(|| {
            let mut hasher = Sha256::new();
            for f in &self.files {
                hasher.update(f.rel.as_bytes());
                hasher.update([0]);
                hasher.update(f.sha256_hex().as_bytes());
                hasher.update([b'\n']);
            }
            hex::encode(hasher.finalize())
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
        self.ranked(question).into_sorted()
    }

    /// The passages matching `question`, scored and ranked as far as the caller reads them
    /// (the same order as [`Snapshot::search`]).
    pub fn ranked(&self, question: &str) -> Ranked {
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
            return Ranked::default();
        }
        let Found {
            mut hits,
            counts,
            df,
        } = self.scan(&ids);
        #[allow(clippy::cast_precision_loss)]
        let n = self.passages as f64;
        let idf: Vec<f64> = df
            .iter()
            .map(|d| {
                let d = f64::from(*d);
                (1.0 + (n - d + 0.5) / (d + 0.5)).ln()
            })
            .collect();
        for (hit, counts) in hits.iter_mut().zip(counts.chunks_exact(ids.len())) {
            let file = &self.files[hit.file];
            let len = f64::from(file.passage_len(hit.chunk));
            let norm = K1 * (1.0 - B + B * len / self.avg_len);
            let score: f64 = counts
                .iter()
                .zip(&idf)
                .filter(|(tf, _)| **tf > 0)
                .map(|(tf, idf)| {
                    let tf = f64::from(*tf);
                    idf * tf * (K1 + 1.0) / (tf + norm)
                })
                .sum();
            hit.score = score * weight(file, hit.chunk);
        }
        Ranked::new(hits)
    }

    /// One pass over every passage: those holding a term of `ids` (not scored yet), with the
    /// count of each.
    fn scan(&self, ids: &[u32]) -> Found {
        let mut found = Found {
            hits: Vec::new(),
            counts: Vec::new(),
            df: vec![0u32; ids.len()],
        };
        // The path's terms count in every passage of its file.
        let mut in_path = vec![0u32; ids.len()];
        let mut here = vec![0u32; ids.len()];
        for (fi, f) in self.files.iter().enumerate() {
            in_path
                .iter_mut()
                .zip(ids)
                .for_each(|(n, id)| *n = count_of(f.path_terms(), *id));
            for ci in 0..f.passage_count() {
                let pairs = f.chunk_terms(ci);
                let mut any = false;
                for (k, id) in ids.iter().enumerate() {
                    here[k] = count_of(pairs, *id) + in_path[k];
                    if here[k] > 0 {
                        any = true;
                        found.df[k] += 1;
                    }
                }
                if any {
                    found.hits.push(Hit {
                        file: fi,
                        chunk: ci,
                        score: 0.0,
                    });
                    found.counts.extend_from_slice(&here);
                }
            }
        }
        found
    }
}

/// What [`Snapshot::scan`] found.
struct Found {
    /// Every passage holding a query term, its score still 0.
    hits: Vec<Hit>,
    /// Per found passage, one count per query term.
    counts: Vec<u32>,
    /// Per query term, how many passages hold it.
    df: Vec<u32>,
}

/// The count of term `id` in sorted `(term id, count)` pairs.
fn count_of(pairs: &[(u32, u32)], id: u32) -> u32 {
    pairs
        .binary_search_by_key(&id, |p| p.0)
        .map_or(0, |i| pairs[i].1)
}

fn index_of(files: &[Arc<FileRecord>], rel: &str) -> Option<usize> {
    files.binary_search_by(|f| f.rel.as_str().cmp(rel)).ok()
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
    if file.in_test_module(chunk) || is_test_material(&file.rel) {
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

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
}
