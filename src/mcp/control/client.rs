//! The console side of the control socket: find live serve sessions and talk to one.

use std::path::{Path, PathBuf};

use tokio::io::AsyncWriteExt as _;
use tokio::net::UnixStream;
use tokio::net::unix::{OwnedReadHalf, OwnedWriteHalf};

use super::protocol::{FromConsole, MAX_LINE, READ_CHUNK, SessionSnapshot, ToConsole};
use crate::mcp::line_reader::{Line, LineReader};
use crate::mcp::policy::Decision;

/// The directory serve sessions publish their sockets in.
pub(crate) fn socket_dir() -> std::io::Result<PathBuf> {
    crate::mcp::results::spill::parent_dir(&crate::mcp::results::default_base())
}

/// Every `serve-<pid>.sock` in `dir`, sorted.
pub fn list_sockets(dir: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let named = p
                .file_stem()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("serve-"));
            named && p.extension().is_some_and(|e| e == "sock")
        })
        .collect();
    found.sort();
    found
}

/// A connection to one serve session.
pub struct ControlClient {
    reader: LineReader<OwnedReadHalf>,
    line: Vec<u8>,
    write: OwnedWriteHalf,
}

impl ControlClient {
    /// Connects and attaches; returns the session's first snapshot.
    pub async fn attach(path: &Path) -> std::io::Result<(Self, SessionSnapshot)> {
        let mut client = Self::open(path, &FromConsole::Hello).await?;
        let snapshot = client.snapshot().await?;
        Ok((client, snapshot))
    }

    /// The session's snapshot without attaching: a look does not count as a console (the
    /// session's waits for one are unchanged) and receives no approvals.
    pub async fn peek(path: &Path) -> std::io::Result<SessionSnapshot> {
        Self::open(path, &FromConsole::Status)
            .await?
            .snapshot()
            .await
    }

    /// Follows the session's state without attaching: [`ControlClient::next`] yields a snapshot
    /// now and another each time the number of operations waiting for a console changes. Like
    /// [`ControlClient::peek`], this does not count as a console and receives no approvals.
    pub async fn observe(path: &Path) -> std::io::Result<Self> {
        Self::open(path, &FromConsole::Observe).await
    }

    /// Connects and sends the first message, which says what kind of client this is.
    async fn open(path: &Path, first: &FromConsole) -> std::io::Result<Self> {
        let stream = UnixStream::connect(path).await?;
        let (read, write) = stream.into_split();
        let mut client = Self {
            reader: LineReader::new(read, MAX_LINE, READ_CHUNK),
            line: Vec::new(),
            write,
        };
        client.send(first).await?;
        Ok(client)
    }

    /// The next snapshot, skipping whatever else arrives first.
    async fn snapshot(&mut self) -> std::io::Result<SessionSnapshot> {
        loop {
            match self.next().await? {
                Some(ToConsole::Snapshot { snapshot }) => return Ok(snapshot),
                Some(_) => {}
                None => {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::UnexpectedEof,
                        "the session closed before sending a snapshot",
                    ));
                }
            }
        }
    }

    async fn send(&mut self, message: &FromConsole) -> std::io::Result<()> {
        let mut line = serde_json::to_vec(message).map_err(std::io::Error::other)?;
        line.push(b'\n');
        self.write.write_all(&line).await?;
        #[cfg(test)]
        crate::mcp::pending::hops::count();
        Ok(())
    }

    /// The next message from the session (None when it closed).
    pub async fn next(&mut self) -> std::io::Result<Option<ToConsole>> {
        loop {
            match self.reader.read_line(&mut self.line).await? {
                Some(Line::Complete) => {}
                None => return Ok(None),
                Some(Line::TooLong) => {
                    return Err(std::io::Error::new(
                        std::io::ErrorKind::InvalidData,
                        "control line too long",
                    ));
                }
            }
            if let Ok(message) = serde_json::from_slice(&self.line) {
                return Ok(Some(message));
            }
        }
    }

    /// Answers a pending approval.
    pub async fn decide(&mut self, ticket: u64, decision: Decision) -> std::io::Result<()> {
        self.send(&FromConsole::Decide { ticket, decision }).await
    }

    /// Asks for a fresh snapshot (it arrives through [`ControlClient::next`]).
    pub async fn request_status(&mut self) -> std::io::Result<()> {
        self.send(&FromConsole::Status).await
    }
}
