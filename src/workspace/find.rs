//! `workspace_find`: ranked whole passages until the word budget is used.
//!
//! Passages are taken best first; one that does not fit the remaining budget whole is skipped,
//! never cut. Pure over a [`Snapshot`].

use serde_json::{Value, json};

use super::envelope::Reason;
use super::index::Snapshot;
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
        let chunk = &file.chunks[hit.chunk];
        let text = chunk.text(&file.text);
        let words = word_count(text);
        if used + words > budget {
            continue;
        }
        used += words;
        let mut p = json!({
            "path": file.rel,
            "kind": file.kind,
            "lines": {"start": chunk.start, "end": chunk.end},
            "score": round(hit.score),
            "words": words,
            "text": text,
        });
        if let (Some(section), Some(o)) = (chunk.section.as_deref(), p.as_object_mut()) {
            o.insert("section".into(), json!(section));
        }
        passages.push(p);
    }
    let result = json!({
        "passages": passages,
        "words_used": used,
        "budget": budget,
        "matching_passages": hits.len(),
    });
    if hits.is_empty() {
        Err((Reason::NoMatch, result))
    } else if passages.is_empty() {
        Err((Reason::BudgetTooSmall, result))
    } else {
        Ok(result)
    }
}
