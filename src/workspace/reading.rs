//! A walk's reads on a second thread: while the walking thread tokenises one batch of files
//! into the index (which needs the one vocabulary), this one opens, reads and cuts up the next
//! (the system calls and everything of a record that needs no vocabulary), so a first walk
//! uses two cores. Batches are small and few are in flight, so the texts read ahead are a
//! bounded few.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::SyncSender;

use super::admission::Candidate;
use super::record::{FileRecord, Prepared};

/// Files to a batch at most.
const BATCH: usize = 64;
/// Text bytes to a batch at most (the file that crosses it ends the batch).
const BATCH_BYTES: usize = 256 * 1024;
/// Batches waiting in the channel at most.
pub(super) const IN_FLIGHT: usize = 2;

/// What became of one candidate, in walk order.
#[derive(Debug)]
pub(super) enum Step {
    /// Not admitted last time and unchanged: not read again.
    StillRejected(Candidate),
    /// Its record is still the file's.
    Kept(Arc<FileRecord>),
    /// Read now and made a record, but for its terms.
    Read(Box<Prepared>),
    /// Read now and not admitted (binary, not UTF-8, gone…).
    Rejected(Candidate),
}

/// What the walk knows of a candidate before reading it.
#[derive(Debug)]
pub(super) enum Known {
    StillRejected,
    Kept(Arc<FileRecord>),
    Unknown,
}

/// Sends every candidate's [`Step`] to `to` in order, batched; `known` says which need no
/// read, `read` reads one. Stops early when `cancel` is set or nobody receives.
pub(super) fn feed(
    candidates: Vec<Candidate>,
    known: impl Fn(&Candidate) -> Known,
    read: impl Fn(&Candidate) -> Option<String>,
    cancel: &AtomicBool,
    to: &SyncSender<Vec<Step>>,
) {
    // Taken from the end of a reversed list, which is shrunk as it empties: the candidates'
    // own memory is given back while the records are made, not held until the last one is.
    let mut candidates = candidates;
    candidates.reverse();
    let mut batch = Vec::with_capacity(BATCH);
    let mut bytes = 0usize;
    while let Some(candidate) = candidates.pop() {
        if candidates.len().is_multiple_of(4096) {
            candidates.shrink_to_fit();
        }
        if cancel.load(Ordering::Relaxed) {
            return;
        }
        let step = match known(&candidate) {
            Known::StillRejected => Step::StillRejected(candidate),
            Known::Kept(record) => Step::Kept(record),
            Known::Unknown => match read(&candidate) {
                Some(text) => {
                    bytes += text.len();
                    Step::Read(Box::new(FileRecord::prepare(&candidate, text)))
                }
                None => Step::Rejected(candidate),
            },
        };
        batch.push(step);
        if batch.len() >= BATCH || bytes >= BATCH_BYTES {
            bytes = 0;
            let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
            if to.send(full).is_err() {
                return;
            }
        }
    }
    if !batch.is_empty() {
        // Nobody receiving is the walk already over: nothing to do.
        let _ = to.send(batch);
    }
}
