//! `workspace_find`: ranked whole passages until the word budget is used.
//!
//! Passages are taken best first; one that does not fit the remaining budget whole is skipped,
//! never cut. Pure over a [`Snapshot`].

use serde_json::Value;

use super::envelope::Reason;
use super::index::Snapshot;
use super::results::{FindResult, LineSpan, Passage, to_value};
use super::text::word_count;

/// A score rounded for display (four decimals).
pub fn round(score: f64) -> f64 {
    (score * 10_000.0).round() / 10_000.0
}

/// The passages answering `question`, or why there are none.
pub fn run(
    snap: &Snapshot,
    question: &str,
    limit: usize,
    budget: usize,
) -> Result<Value, (Reason, Value)> {
    let hits = snap.search(question);
    let mut passages = Vec::new();
    let mut used = 0usize;
    for hit in &hits {
        if passages.len() >= limit {
            break;
        }
        let file = &snap.files[hit.file];
        let Some(text) = file.passage_text(hit.chunk) else {
            continue;
        };
        let words = word_count(text);
        if used + words > budget {
            continue;
        }
        let Some(chunk) = file.chunk(hit.chunk) else {
            continue;
        };
        used += words;
        passages.push(Passage {
            path: file.rel.clone(),
            kind: file.kind.to_owned(),
            lines: LineSpan {
                start: chunk.start,
                end: chunk.end,
            },
            section: chunk.section.as_deref().map(str::to_owned),
            score: round(hit.score),
            words,
            text: text.to_owned(),
        });
    }
    let none_fit = passages.is_empty();
    let result = to_value(&FindResult {
        passages,
        words_used: used,
        budget,
        matching_passages: hits.len(),
    });
    if hits.is_empty() {
        Err((Reason::NoMatch, result))
    } else if none_fit {
        Err((Reason::BudgetTooSmall, result))
    } else {
        Ok(result)
    }
}
