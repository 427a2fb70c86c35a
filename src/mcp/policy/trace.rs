//! The session trace: one metadata record per operation — time, server,
//! normalized operation, the policy decision, outcome and duration — and never arguments or
//! results. Bounded: the oldest records are dropped first.

use std::collections::VecDeque;
use std::sync::Mutex;

/// Most records kept.
pub(crate) const TRACE_CAPACITY: usize = 10_000;

/// One operation, metadata only.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TraceRecord {
    /// When it started (RFC 3339, UTC).
    pub at: String,
    /// The configured server (None for status).
    pub server: Option<String>,
    /// The normalized operation.
    pub operation: String,
    /// How policy let it through: `allowed`, `allowed_drifted` (audit mode ran a tool that
    /// changed since its pins), `approved_once`, `approved_session`, `session_approval`,
    /// `denied`, `approval_denied`, `approval_required`.
    pub decision: String,
    /// `ok` or the failure class.
    pub outcome: String,
    /// How long it took, in milliseconds.
    pub duration_ms: u64,
}

/// The bounded trace of this process.
#[derive(Debug, Default)]
pub(crate) struct Trace {
    records: Mutex<VecDeque<TraceRecord>>,
}

impl Trace {
    /// Appends a record, dropping the oldest past the capacity.
    pub(crate) fn push(&self, record: TraceRecord) {
        let mut records = self
            .records
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if records.len() == TRACE_CAPACITY {
            records.pop_front();
        }
        records.push_back(record);
    }

    /// Every record, oldest first.
    pub(crate) fn records(&self) -> Vec<TraceRecord> {
        self.records
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .cloned()
            .collect()
    }
}
