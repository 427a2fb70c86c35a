//! The per-server stderr ring buffer.
//!
//! Holds the last [`STDERR_RING_BYTES`] bytes a stdio server wrote to stderr, as raw bytes. Text
//! is decoded and sanitised only when it is read for display; nothing here ever writes to a
//! terminal, and memory stays bounded however much the server writes.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncRead, AsyncReadExt};

use crate::mcp::sanitize::sanitize;

/// How many bytes of stderr are kept per server.
pub const STDERR_RING_BYTES: usize = 64 * 1024;

/// The last bytes of a server's stderr.
#[derive(Debug, Default)]
pub(crate) struct StderrRing {
    /// At most [`STDERR_RING_BYTES`] bytes, oldest first.
    bytes: VecDeque<u8>,
    /// Every byte ever written, including those dropped from the ring.
    total: u64,
}

impl StderrRing {
    /// Appends bytes, dropping the oldest beyond the bound.
    pub(crate) fn push(&mut self, chunk: &[u8]) {
        self.total += chunk.len() as u64;
        let chunk = if chunk.len() > STDERR_RING_BYTES {
            &chunk[chunk.len() - STDERR_RING_BYTES..]
        } else {
            chunk
        };
        let overflow = (self.bytes.len() + chunk.len()).saturating_sub(STDERR_RING_BYTES);
        self.bytes.drain(..overflow);
        self.bytes.extend(chunk);
    }

    /// How many bytes the ring holds now (≤ [`STDERR_RING_BYTES`]).
    pub(crate) fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Every byte the server wrote, including dropped ones.
    pub(crate) fn total_bytes(&self) -> u64 {
        self.total
    }

    /// The kept text, lossily decoded and sanitised.
    pub(crate) fn text(&self) -> String {
        let (a, b) = self.bytes.as_slices();
        let mut raw = Vec::with_capacity(a.len() + b.len());
        raw.extend_from_slice(a);
        raw.extend_from_slice(b);
        sanitize(&String::from_utf8_lossy(&raw)).into_owned()
    }

    /// The last `n` non-empty lines, sanitised.
    pub(crate) fn tail_lines(&self, n: usize) -> Vec<String> {
        let text = self.text();
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        lines[lines.len().saturating_sub(n)..]
            .iter()
            .map(|l| (*l).to_owned())
            .collect()
    }
}

/// A ring shared between the draining task and readers.
pub(crate) type SharedRing = Arc<Mutex<StderrRing>>;

/// Reads `stderr` to EOF into `ring`, telling `written` the running byte total after each read.
/// Returns when the pipe closes.
pub(crate) async fn drain<R: AsyncRead + Unpin>(
    mut stderr: R,
    ring: SharedRing,
    written: tokio::sync::watch::Sender<u64>,
) {
    let mut buf = vec![0u8; 8192];
    loop {
        match stderr.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if let Ok(mut ring) = ring.lock() {
                    ring.push(&buf[..n]);
                    written.send_replace(ring.total_bytes());
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ring_keeps_only_the_last_bytes() {
        let mut ring = StderrRing::default();
        for i in 0..100 {
            ring.push(format!("line {i}\n").repeat(200).as_bytes());
        }
        assert_eq!(ring.len(), STDERR_RING_BYTES);
        assert!(ring.total_bytes() > STDERR_RING_BYTES as u64);
        assert_eq!(ring.tail_lines(2), vec!["line 99", "line 99"]);
        ring.push(&vec![b'x'; STDERR_RING_BYTES * 2]);
        assert_eq!(ring.len(), STDERR_RING_BYTES);
    }

    #[test]
    fn tail_is_sanitised() {
        let mut ring = StderrRing::default();
        ring.push(b"ok\n\x1b[2Jbad\n");
        assert_eq!(ring.tail_lines(20), vec!["ok", "␛[2Jbad"]);
    }
}
