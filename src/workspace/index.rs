//! The in-memory index of one workspace at one moment: admitted files, their passages, BM25
//! postings and graph edges. [`IndexCache`] (in [`super::cache`]) keeps it current. A snapshot
//! is immutable and shared; a new one is built only when something changed. Nothing is
//! persisted.
//!
//! The index is compact so that its memory follows the admitted text: terms are interned once
//! per workspace ([`super::record::Vocabulary`]), each term's passages are one list of packed
//! `(passage, count)` entries (varints, a byte or two each, [`super::postings`]; a file keeps no copy of
//! its own terms), and edges are file indices. At most `max_files` candidate files (walk order) are admitted; the
//! rest are counted in [`Coverage`], never silently dropped.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock, PoisonError};

use sha2::{Digest as _, Sha256};

use super::admission::Cancelled;
pub use super::cache::IndexCache;
use super::postings::Postings;
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
/// Searching reads only the postings of the question's terms ([`Postings`]): a question's cost
/// follows how many passages hold its words, not the size of the workspace.
#[derive(Debug)]
pub struct Snapshot {
    /// Admitted files, sorted by path.
    pub files: Vec<Arc<FileRecord>>,
    /// Outgoing edges per file (indices of admitted targets, ascending), parallel to `files`.
    edges: Vec<Box<[u32]>>,
    postings: Postings,
    /// Per file, whether it is test material by its path ([`is_test_material`]), parallel to
    /// `files`: worked out once, not for every hit.
    test_material: Vec<bool>,
    vocabulary: SharedVocabulary,
    avg_len: f64,
    /// How much of the workspace this snapshot holds.
    pub coverage: Coverage,
    /// SHA-256 over every admitted path and its content hash, made when first asked for (only
    /// the capsule quotes it).
    fingerprint: OnceLock<String>,
}

impl Snapshot {
    /// Its files and postings, for the next snapshot to carry over.
    pub(super) fn into_parts(self) -> (Vec<Arc<FileRecord>>, Postings) {
        (self.files, self.postings)
    }

    /// The snapshot of `files` (sorted by path) whose postings were added in that order.
    pub(super) fn build(
        files: Vec<Arc<FileRecord>>,
        mut postings: Postings,
        vocabulary: SharedVocabulary,
        coverage: Coverage,
        cancel: &AtomicBool,
    ) -> Result<Self, Cancelled> {
        if cancel.load(Ordering::Relaxed) {
            return Err(Cancelled);
        }
        postings.shrink();
        let passages = postings.passages();
        let total_len = postings.total_len();
        let test_material = files.iter().map(|f| is_test_material(&f.rel)).collect();
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
            postings,
            test_material,
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
        #[allow(clippy::cast_precision_loss)]
        let n = self.postings.passages() as f64;
        // Each passage's score, summed term by term in id order (the order a per-passage sum
        // over the sorted ids takes, so the floating-point result is the same), and whether any
        // term was found there.
        let mut scores = vec![0.0f64; self.postings.passages()];
        let mut found = vec![false; self.postings.passages()];
        for id in ids {
            let mut df = 0u32;
            self.postings.each(id, |_, _| df += 1);
            let d = f64::from(df);
            let idf = (1.0 + (n - d + 0.5) / (d + 0.5)).ln();
            self.postings.each(id, |passage, tf| {
                let len = f64::from(self.postings.len_of(passage));
                let norm = K1 * (1.0 - B + B * len / self.avg_len);
                let tf = f64::from(tf);
                scores[passage] += idf * tf * (K1 + 1.0) / (tf + norm);
                found[passage] = true;
            });
        }
        // Sized once, not grown by doubling (each doubling copies the list and frees the old).
        let mut hits = Vec::with_capacity(found.iter().filter(|f| **f).count());
        hits.extend(
            found
                .iter()
                .enumerate()
                .filter(|(_, f)| **f)
                .map(|(passage, _)| {
                    let (file, chunk) = self.postings.place(passage);
                    let weight = weight(&self.files[file], self.test_material[file], chunk);
                    Hit {
                        file,
                        chunk,
                        score: scores[passage] * weight,
                    }
                }),
        );
        Ranked::new(hits)
    }
}

fn index_of(files: &[Arc<FileRecord>], rel: &str) -> Option<usize> {
    files.binary_search_by(|f| f.rel.as_str().cmp(rel)).ok()
}

/// Questions are usually answered by prose: documentation passages outrank code, and tests,
/// fixtures and recorded snapshots (which quote the same words without explaining them) rank
/// below the code they test.
fn weight(file: &FileRecord, test_material: bool, chunk: usize) -> f64 {
    let kind = match file.kind {
        "markdown" => 1.0,
        "text" => 0.9,
        "json" | "toml" | "yaml" | "mcp-config" => 0.8,
        _ => 0.5,
    };
    if file.in_test_module(chunk) || test_material {
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
    use std::fmt::Write as _;
    use std::path::Path;

    use super::super::rank::best_first;
    use super::super::record::Terms;
    use super::*;

    /// The scorer the postings replaced: every passage of every file, its terms made again from
    /// the text, each query term's count looked up in the passage's and the path's pairs.
    fn exhaustive(snap: &Snapshot, question: &str) -> Vec<Hit> {
        let mut vocabulary = snap.vocabulary.write().unwrap();
        let ids: Vec<u32> = text::tokens(question)
            .filter_map(|t| vocabulary.get(&t))
            .collect::<BTreeSet<u32>>()
            .into_iter()
            .collect();
        let terms: Vec<Terms> = snap
            .files
            .iter()
            .map(|f| f.terms(&mut vocabulary))
            .collect();
        drop(vocabulary);
        let count_of = |pairs: &[(u32, u32)], id: u32| {
            pairs
                .binary_search_by_key(&id, |p| p.0)
                .map_or(0, |i| pairs[i].1)
        };
        let mut found: Vec<(usize, usize, Vec<u32>)> = Vec::new();
        let mut df = vec![0u32; ids.len()];
        for (fi, t) in terms.iter().enumerate() {
            for ci in 0..snap.files[fi].passage_count() {
                let counts: Vec<u32> = ids
                    .iter()
                    .map(|id| count_of(t.passage(ci), *id) + count_of(&t.path, *id))
                    .collect();
                for (d, c) in df.iter_mut().zip(&counts) {
                    *d += u32::from(*c > 0);
                }
                if counts.iter().any(|c| *c > 0) {
                    found.push((fi, ci, counts));
                }
            }
        }
        #[allow(clippy::cast_precision_loss)]
        let n = snap.files.iter().map(|f| f.passage_count()).sum::<usize>() as f64;
        let idf: Vec<f64> = df
            .iter()
            .map(|d| {
                let d = f64::from(*d);
                (1.0 + (n - d + 0.5) / (d + 0.5)).ln()
            })
            .collect();
        let mut hits: Vec<Hit> = found
            .into_iter()
            .map(|(fi, ci, counts)| {
                let file = &snap.files[fi];
                let len = f64::from(file.passage_len(ci));
                let norm = K1 * (1.0 - B + B * len / snap.avg_len);
                let score: f64 = counts
                    .iter()
                    .zip(&idf)
                    .filter(|(tf, _)| **tf > 0)
                    .map(|(tf, idf)| {
                        let tf = f64::from(*tf);
                        idf * tf * (K1 + 1.0) / (tf + norm)
                    })
                    .sum();
                Hit {
                    file: fi,
                    chunk: ci,
                    score: score * weight(file, is_test_material(&file.rel), ci),
                }
            })
            .collect();
        hits.sort_by(best_first);
        hits
    }

    /// A tree of many kinds of file: Markdown with headings, Rust with a test module, tests and
    /// fixtures by path, words in paths, empty files, words repeated a varying number of times.
    fn generated_tree(root: &Path, seed: u64) {
        const WORDS: &[&str] = &[
            "alpha",
            "bravo",
            "config",
            "precedence",
            "server",
            "docs",
            "token",
            "cache",
            "walk",
            "index",
            "42",
            "Zulu",
            "überall",
        ];
        let mut state = seed;
        let mut next = move |n: usize| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            usize::try_from(state >> 33).unwrap() % n
        };
        let dirs = [
            "docs",
            "src",
            "src/config",
            "tests",
            "tests/fixtures",
            "alpha",
        ];
        for d in dirs {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        for i in 0..240 {
            let dir = dirs[next(dirs.len())];
            let ext = ["md", "rs", "txt", "json"][next(4)];
            let name = match next(5) {
                0 => format!("{}_{i}.{ext}", WORDS[next(WORDS.len())].to_lowercase()),
                _ => format!("f{i}.{ext}"),
            };
            let mut body = String::new();
            for p in 0..next(6) {
                if ext == "md" && next(2) == 0 {
                    write!(body, "## {} {p}\n\n", WORDS[next(WORDS.len())]).unwrap();
                }
                if ext == "rs" && next(4) == 0 {
                    body.push_str("#[cfg(test)]\nmod tests {}\n\n");
                }
                for _ in 0..=next(12) {
                    body.push_str(WORDS[next(WORDS.len())]);
                    body.push(' ');
                }
                body.push_str("\n\n");
            }
            std::fs::write(root.join(dir).join(name), body).unwrap();
        }
    }

    const QUESTIONS: &[&str] = &[
        "alpha",
        "config precedence",
        "how does the server cache a walk",
        "docs",
        "tests fixtures",
        "42 zulu überall",
        "nothing matches this",
        "md rs txt json alpha bravo config precedence server docs token cache walk index",
    ];

    fn assert_same_as_exhaustive(snap: &Snapshot) {
        for q in QUESTIONS {
            let want = exhaustive(snap, q);
            assert_eq!(snap.ranked(q).len(), want.len(), "{q}: how many match");
            assert_eq!(
                snap.search(q),
                want,
                "{q}: the hits, their scores and order"
            );
        }
    }

    #[test]
    fn the_postings_find_every_hit_the_exhaustive_scorer_finds_scored_and_ordered_the_same() {
        for seed in [1, 7, 2026] {
            let ws = tempfile::tempdir().unwrap();
            generated_tree(ws.path(), seed);
            // Settled, as a checkout is: the files a change leaves alone keep their records.
            crate::workspace::cache::tests::settle(ws.path());
            let mut cache = IndexCache::new();
            let stop = AtomicBool::new(false);
            let snap = cache.refresh(ws.path(), &stop).unwrap();
            assert!(snap.files.len() > 150, "{}", snap.files.len());
            assert!(!exhaustive(&snap, "alpha").is_empty());
            assert_same_as_exhaustive(&snap);
            // Changed, added and removed files: the unchanged files' postings carried over
            // (nothing else holds the snapshot) or, for one seed, made again (a held snapshot).
            std::fs::write(ws.path().join("docs/new.md"), "# Alpha\n\nalpha config\n").unwrap();
            std::fs::write(ws.path().join("alpha/more.txt"), "zulu zulu 42\n").unwrap();
            // Last in path order: its entries follow every carried one.
            std::fs::write(ws.path().join("zz-last.md"), "# Alpha config\n\nbravo\n").unwrap();
            let gone = snap.files[3].rel.clone();
            std::fs::remove_file(ws.path().join(&gone)).unwrap();
            let held = (seed == 7).then_some(snap);
            let again = cache.refresh(ws.path(), &stop).unwrap();
            drop(held);
            assert!(again.has_file("docs/new.md") && again.has_file("zz-last.md"));
            assert!(!again.has_file(&gone));
            assert_same_as_exhaustive(&again);
        }
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
}
