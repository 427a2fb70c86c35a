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
    // Ranked only as far as read: an answer quotes a few of what may be every passage.
    let mut hits = snap.ranked(question);
    let mut passages = Vec::new();
    let mut used = 0usize;
    let mut rank = 0;
    while passages.len() < limit
        && let Some(hit) = hits.get(rank)
    {
        rank += 1;
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use super::*;
    use crate::workspace::index::IndexCache;

    /// The paths of an answer's passages, in order.
    fn paths(answer: &Value) -> Vec<String> {
        answer["passages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["path"].as_str().unwrap().to_owned())
            .collect()
    }

    #[test]
    fn past_the_first_sorted_batch_ties_keep_path_order_and_the_limit_and_budget_hold() {
        let ws = tempfile::tempdir().unwrap();
        // 120 short notes that score the same, and every fifth one too long for the budget below.
        for i in 0..150 {
            let body = if i % 5 == 0 {
                "alpha beta. ".repeat(200)
            } else {
                "alpha beta gamma.".to_owned()
            };
            std::fs::write(ws.path().join(format!("n{i:03}.txt")), body).unwrap();
        }
        let snap = IndexCache::new()
            .refresh(ws.path(), &AtomicBool::new(false))
            .unwrap();
        let full: Vec<String> = snap
            .search("alpha")
            .iter()
            .map(|h| snap.files[h.file].rel.clone())
            .collect();
        assert_eq!(full.len(), 150);
        let long = |p: &String| p[1..4].parse::<usize>().unwrap() % 5 == 0;
        assert!(
            full[..30].iter().all(long),
            "the long notes rank first: {full:?}"
        );
        let short: Vec<String> = full.iter().filter(|p| !long(p)).cloned().collect();
        // Equal scores: path order among the short notes.
        assert!(short.windows(2).all(|w| w[0] < w[1]), "{short:?}");
        let answer = run(&snap, "alpha", 100, 300).unwrap();
        // The 30 long notes rank first and never fit: 130 ranks are read, past two batches.
        assert_eq!(
            paths(&answer),
            short[..100],
            "100 of the 120 that fit, in rank order"
        );
        assert_eq!(answer["matching_passages"], 150);
        assert_eq!(answer["words_used"], 300);
        let few = run(&snap, "alpha", 3, 10_000).unwrap();
        assert_eq!(paths(&few), full[..3], "the limit");
    }
}
