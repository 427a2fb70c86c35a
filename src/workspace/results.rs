//! The workspace tools' results as serde types: what the server serialises into the
//! `mcpdeck.workspace-result/v1` envelope and what the console's side panel reads back, so a
//! change to a result fails to compile on both sides instead of showing an empty panel.

use serde::{Deserialize, Serialize};
use serde_json::Value;

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

impl FindResult {
    /// As the envelope's `result`.
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
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
/// (typed by the tool: [`FindResult`] for `workspace_find`).
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
