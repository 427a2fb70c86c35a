//! The control socket's messages: newline-delimited JSON, one object a line.
//! They carry status snapshots, approval requests/decisions and audit-mode drift flags only — never tool arguments or
//! results.

use std::path::PathBuf;

use crate::mcp::pending::Settled;
use crate::mcp::policy::{ApprovalRequest, Decision};

/// Longest accepted line, in bytes: a peer that never sends a newline costs at most this
/// (plus [`READ_CHUNK`]), and its connection is closed.
pub(crate) const MAX_LINE: usize = 64 * 1024;

/// How much of the socket is read at a time.
pub(crate) const READ_CHUNK: usize = 8 * 1024;

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
    /// The session's state (answer to `hello`, `status` and `observe`).
    Snapshot {
        /// The snapshot.
        snapshot: SessionSnapshot,
    },
    /// A new approval request.
    Approval {
        /// The request.
        request: ApprovalRequest,
    },
    /// In audit mode, an operation ran without asking though its tool changed since its pins:
    /// the question enforce mode would have asked, to show (there is nothing to answer).
    Flagged {
        /// The request enforce mode would have put.
        request: ApprovalRequest,
    },
    /// An approval settled: answered (by anyone), timed out, cancelled, or abandoned. A console
    /// or watcher still showing it says so (it is withdrawn there).
    Resolved {
        /// Its ticket.
        ticket: u64,
        /// How it settled (absent from sessions older than this field).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        settled: Option<Settled<Decision>>,
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
    /// Follow the session's state without attaching: a snapshot now and another each time the
    /// number of operations waiting for a console changes. Like `status`, this is not a console:
    /// the session's waits for one are unchanged and no approvals are sent.
    Observe,
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
    use crate::mcp::line_reader::{Line, LineReader};

    #[tokio::test]
    async fn an_endless_line_is_too_long_without_being_held() {
        let mut endless = LineReader::new(tokio::io::repeat(b'a'), MAX_LINE, READ_CHUNK);
        let mut line = Vec::new();
        let read = endless.read_line(&mut line).await.expect("reads");
        assert_eq!(read, Some(Line::TooLong));
        assert!(
            line.capacity() <= MAX_LINE,
            "{} bytes held",
            line.capacity()
        );
    }
}
