//! `workspace_capsule`: a privacy-projected task capsule.
//!
//! Claims are single sentences drawn from the most relevant passages, each bound to its source
//! by path, line range and the SHA-256 of the passage; the passage itself is never included.
//! The capsule carries the workspace fingerprint and its own integrity hash: SHA-256 of its
//! canonical JSON (sorted keys, no whitespace; [`crate::mcp::trust::write_canonical`]).

use std::collections::BTreeSet;

use serde_json::Value;
use sha2::{Digest as _, Sha256};

use super::envelope::Reason;
use super::index::Snapshot;
use super::results::{Capsule, CapsuleResult, Claim, Integrity, LineSpan, to_value};
use super::text;

/// The capsule's schema identifier.
pub const CAPSULE_SCHEMA: &str = "mcpdeck.workspace-capsule/v1";
/// A claim is one sentence of at most this many characters.
pub const MAX_CLAIM_CHARS: usize = 400;

/// SHA-256 (hex) of the canonical JSON of `value`.
pub fn canonical_hash(value: &Value) -> String {
    let out = crate::mcp::canonical::canonical_json(value);
    hex::encode(Sha256::digest(out.as_bytes()))
}

/// The capsule for `question`, or why there is none.
pub fn run(
    snap: &Snapshot,
    alias: &str,
    question: &str,
    max_claims: usize,
) -> Result<Value, (Reason, Value)> {
    let terms: BTreeSet<String> = text::tokens(question).collect();
    let mut claims = Vec::new();
    let mut hits = snap.ranked(question);
    let mut rank = 0;
    while claims.len() < max_claims
        && let Some(hit) = hits.get(rank)
    {
        rank += 1;
        let file = &snap.files[hit.file];
        let Some(passage) = file.passage_text(hit.chunk) else {
            continue;
        };
        let best = text::sentences(passage)
            .into_iter()
            .filter(|s| s.chars().count() <= MAX_CLAIM_CHARS)
            .map(|s| {
                let words: BTreeSet<String> = text::tokens(&s).collect();
                (words.intersection(&terms).count(), s)
            })
            .filter(|(n, _)| *n > 0)
            .max_by(|a, b| a.0.cmp(&b.0).then(b.1.len().cmp(&a.1.len())));
        let Some((_, statement)) = best else { continue };
        let Some(chunk) = file.chunk(hit.chunk) else {
            continue;
        };
        claims.push(Claim {
            statement,
            path: file.rel.clone(),
            lines: LineSpan {
                start: chunk.start,
                end: chunk.end,
            },
            passage_sha256: hex::encode(Sha256::digest(passage.as_bytes())),
        });
    }
    let no_claims = claims.is_empty();
    let capsule = Capsule {
        schema: CAPSULE_SCHEMA.to_owned(),
        workspace: alias.to_owned(),
        question_sha256: hex::encode(Sha256::digest(question.as_bytes())),
        claims,
        workspace_fingerprint: snap.fingerprint().to_owned(),
        admitted_files: snap.files.len(),
    };
    let integrity = Integrity {
        algorithm: "sha256".to_owned(),
        canonicalization: "JSON with sorted object keys and no insignificant whitespace".to_owned(),
        hash: canonical_hash(&to_value(&capsule)),
    };
    let result = to_value(&CapsuleResult { capsule, integrity });
    if no_claims && max_claims > 0 {
        Err((Reason::NoMatch, result))
    } else {
        Ok(result)
    }
}
