//! The workspace tools' results as serde types: what the server serialises into the
//! `mcpdeck.workspace-result/v1` envelope and what the console's side panel reads back, so a
//! change to a result fails to compile on both sides instead of showing an empty panel.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::mcp::config::Severity;

/// A passage's line span, 1-based and inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineSpan {
    /// The first line.
    pub start: u32,
    /// The last line.
    pub end: u32,
}

/// One ranked passage of `workspace_find`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Passage {
    /// The file, relative to the workspace root.
    pub path: String,
    /// The file's kind (`markdown`, `json`, ...).
    pub kind: String,
    /// Where the passage lies in the file.
    pub lines: LineSpan,
    /// Its heading, when the file has sections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub section: Option<String>,
    /// The ranking score, rounded to four decimals.
    pub score: f64,
    /// Its words, counted against the budget.
    pub words: usize,
    /// The passage, whole.
    pub text: String,
}

/// `workspace_find`'s result: whole passages best first, until the word budget is used.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FindResult {
    /// The passages given.
    pub passages: Vec<Passage>,
    /// The words they use.
    pub words_used: usize,
    /// The word budget asked for.
    pub budget: usize,
    /// How many passages matched before the limit and the budget.
    pub matching_passages: usize,
}

/// One match of `workspace_query`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueryMatch {
    /// The file, relative to the workspace root.
    pub path: String,
    /// The file's kind.
    pub kind: String,
    /// The best line, 1-based (the one with the most terms).
    pub line: usize,
    /// That line, trimmed, at most the snippet length.
    pub snippet: String,
    /// Whether the snippet is the whole line.
    pub snippet_complete: bool,
    /// Why it matched, when the query asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explain: Option<MatchExplain>,
}

/// Why a node matched, and what it is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatchExplain {
    /// The terms found, or the wildcard.
    pub why: MatchWhy,
    /// The node's kind.
    pub node_type: String,
    /// The files it links to.
    pub links_to: Vec<String>,
    /// Which kinds of filter the query used.
    pub filters: FiltersUsed,
}

/// Why a node matched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum MatchWhy {
    /// Terms found in its path and its best line.
    Terms {
        /// The terms found in the path.
        terms_in_path: Vec<String>,
        /// The terms found in the best line.
        terms_in_line: Vec<String>,
        /// How many lines have a term.
        matching_lines: usize,
        /// The ranking score.
        score: usize,
    },
    /// `*` matches every node: `{"matched": "wildcard"}`.
    Wildcard {
        /// Always [`Wildcard::Wildcard`].
        matched: Wildcard,
    },
}

/// The wildcard's one name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Wildcard {
    /// `"wildcard"`.
    Wildcard,
}

/// Which kinds of filter a query used.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FiltersUsed {
    /// A type filter.
    #[serde(rename = "type")]
    pub types: bool,
    /// A path filter.
    pub path: bool,
    /// An edge filter.
    pub edge: bool,
}

/// `workspace_query`'s result: the best matches, and how many there were.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QueryResult {
    /// The matches returned, best first.
    pub matches: Vec<QueryMatch>,
    /// How many nodes matched before the limit.
    pub total_matches: usize,
}

/// One finding of `workspace_check`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Finding {
    /// Workspace-relative file.
    pub path: String,
    /// `error` or `warning`.
    pub severity: Severity,
    /// Stable kind, e.g. `unknown_field`, `syntax`, `broken_link`, `unpinned_npx`.
    pub code: String,
    /// JSON path inside the file, where one applies.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub json_path: String,
    /// 1-based line, where known.
    pub line: Option<u32>,
    /// 1-based column, where known.
    pub column: Option<u32>,
    /// One line saying what is wrong.
    pub message: String,
    /// What to write instead, where there is an answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggestion: Option<String>,
}

/// Findings counted by severity.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// Errors.
    pub errors: usize,
    /// Warnings.
    pub warnings: usize,
}

/// `workspace_check`'s result: every finding in the files checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckResult {
    /// The findings, file by file.
    pub findings: Vec<Finding>,
    /// How many admitted files were checked.
    pub files_checked: usize,
    /// How many named paths are not admitted files (counted, never echoed).
    pub paths_not_checked: usize,
    /// The findings by severity.
    pub counts: Counts,
    /// Whether the strict warnings were asked for.
    pub strict: bool,
}

/// One claim of a capsule: a sentence bound to the passage it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claim {
    /// The sentence.
    pub statement: String,
    /// The file, relative to the workspace root.
    pub path: String,
    /// The passage's lines.
    pub lines: LineSpan,
    /// SHA-256 (hex) of the passage.
    pub passage_sha256: String,
}

/// A task capsule: claims and what they were drawn from, never the passages.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capsule {
    /// `mcpdeck.workspace-capsule/v1`.
    pub schema: String,
    /// The workspace's alias.
    pub workspace: String,
    /// SHA-256 (hex) of the question.
    pub question_sha256: String,
    /// The claims, best passage first.
    pub claims: Vec<Claim>,
    /// The workspace's fingerprint when the capsule was made.
    pub workspace_fingerprint: String,
    /// How many files were admitted.
    pub admitted_files: usize,
}

/// How a capsule's integrity is checked.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Integrity {
    /// `sha256`.
    pub algorithm: String,
    /// How the capsule is written before hashing.
    pub canonicalization: String,
    /// The hash (hex) of the capsule's canonical JSON.
    pub hash: String,
}

/// `workspace_capsule`'s result: the capsule and its integrity hash.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CapsuleResult {
    /// The capsule.
    pub capsule: Capsule,
    /// Its hash.
    pub integrity: Integrity,
}

/// A tool's result as the envelope's `result`.
pub fn to_value(result: &impl Serialize) -> Value {
    serde_json::to_value(result).unwrap_or(Value::Null)
}

/// How a call was answered, as the envelope's `status` reads back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReplyStatus {
    /// An answer.
    Known,
    /// No answer in the workspace.
    Unknown,
    /// Not answered; the reason says why.
    Refused,
}

/// An envelope as a client reads it back: the status, the reason's code and the tool's result
/// (typed by the tool: [`FindResult`], [`QueryResult`], [`CheckResult`], [`CapsuleResult`]).
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Reply {
    /// Known, unknown or refused.
    pub status: ReplyStatus,
    /// The reason's code, when there is one.
    #[serde(default)]
    pub reason: Option<String>,
    /// The tool's result (or a refusal's details).
    #[serde(default)]
    pub result: Value,
}
