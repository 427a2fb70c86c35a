//! The control socket's messages: newline-delimited JSON, one object a line.
//! They carry status snapshots and approval requests/decisions only — never tool arguments or
//! results.

use std::path::PathBuf;

use crate::mcp::policy::{ApprovalRequest, Decision};

/// Longest accepted line, in bytes.
pub const MAX_LINE: usize = 64 * 1024;

/// What [`read_line`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineRead {
    /// A line (without its newline) is in the buffer; a last line without newline counts too.
    Line,
    /// The peer closed with nothing left to read.
    End,
    /// The line passed `max` bytes; the connection should be closed. What was read is dropped.
    TooLong,
}

/// Reads one newline-terminated line into `line` (cleared first), never holding more than `max`
/// bytes of it: a peer that never sends a newline costs at most `max` bytes plus the reader's
/// buffer, not whatever it writes.
pub async fn read_line<R>(
    reader: &mut R,
    line: &mut Vec<u8>,
    max: usize,
) -> std::io::Result<LineRead>
where
    R: tokio::io::AsyncBufRead + Unpin,
{
    use tokio::io::AsyncBufReadExt as _;
    line.clear();
    loop {
        let available = reader.fill_buf().await?;
        if available.is_empty() {
            return Ok(if line.is_empty() {
                LineRead::End
            } else {
                LineRead::Line
            });
        }
        let (chunk, used, done) = match memchr::memchr(b'\n', available) {
            Some(at) => (&available[..at], at + 1, true),
            None => (available, available.len(), false),
        };
        if line.len() + chunk.len() > max {
            line.clear();
            line.shrink_to(max);
            return Ok(LineRead::TooLong);
        }
        line.extend_from_slice(chunk);
        reader.consume(used);
        if done {
            return Ok(LineRead::Line);
        }
    }
}

/// One server in a snapshot.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ServerSnapshot {
    /// The configured name (sanitised).
    pub name: String,
    /// Its state (`connected`, `failed`, ...).
    pub state: String,
}

/// What a serve session reports about itself.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionSnapshot {
    /// The serve process's pid.
    pub pid: u32,
    /// The project root.
    pub project: PathBuf,
    /// `audit` or `enforce`.
    pub mode: String,
    /// Its servers.
    pub servers: Vec<ServerSnapshot>,
    /// How many spills it holds.
    pub spills: usize,
    /// Approvals waiting for an answer.
    pub pending: Vec<ApprovalRequest>,
    /// Operations waiting for a console or watcher to attach (or re-attach) before they can
    /// be put to one; each fails closed when the grace ends with nobody attached.
    #[serde(default)]
    pub awaiting_console: usize,
}

/// From the serve session to a console.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToConsole {
    /// The session's state (answer to `hello` and `status`).
    Snapshot {
        /// The snapshot.
        snapshot: SessionSnapshot,
    },
    /// A new approval request.
    Approval {
        /// The request.
        request: ApprovalRequest,
    },
    /// An approval was answered (by anyone) or timed out.
    Resolved {
        /// Its ticket.
        ticket: u64,
    },
}

/// From a console to the serve session.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FromConsole {
    /// Attach: the session answers with a snapshot, then streams approvals.
    Hello,
    /// Ask for a fresh snapshot.
    Status,
    /// Answer a pending approval.
    Decide {
        /// The request's ticket.
        ticket: u64,
        /// The answer.
        decision: Decision,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_endless_line_is_too_long_without_being_held() {
        let mut endless = tokio::io::BufReader::new(tokio::io::repeat(b'a'));
        let mut line = Vec::new();
        let read = read_line(&mut endless, &mut line, MAX_LINE)
            .await
            .expect("reads");
        assert_eq!(read, LineRead::TooLong);
        assert!(
            line.capacity() <= MAX_LINE,
            "{} bytes held",
            line.capacity()
        );
    }

    #[tokio::test]
    async fn lines_up_to_the_limit_are_read_and_the_last_needs_no_newline() {
        let exact = "b".repeat(MAX_LINE);
        let input = format!("{{}}\n{exact}\n{exact}b\nlast");
        let mut reader = tokio::io::BufReader::with_capacity(1000, input.as_bytes());
        let mut line = Vec::new();
        let mut seen = Vec::new();
        for _ in 0..3 {
            let read = read_line(&mut reader, &mut line, MAX_LINE)
                .await
                .expect("reads");
            seen.push((read, line.len()));
        }
        assert_eq!(
            seen,
            [
                (LineRead::Line, 2),
                (LineRead::Line, MAX_LINE),
                (LineRead::TooLong, 0)
            ]
        );
        let mut last = tokio::io::BufReader::new("last".as_bytes());
        assert_eq!(
            read_line(&mut last, &mut line, MAX_LINE)
                .await
                .expect("reads"),
            LineRead::Line
        );
        assert_eq!(line, b"last");
        assert_eq!(
            read_line(&mut last, &mut line, MAX_LINE)
                .await
                .expect("reads"),
            LineRead::End
        );
    }
}
