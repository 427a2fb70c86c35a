//! Stable exit codes of mcpdeck: the headless CLI and the console both end with one.

/// What a command's exit status means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Exit {
    /// Success.
    Ok = 0,
    /// Usage or configuration error.
    Usage = 1,
    /// Refused: trust, policy or approval.
    Refused = 2,
    /// The server needs authentication.
    AuthRequired = 3,
    /// The connection failed: spawn, unreachable, not MCP.
    Connection = 4,
    /// The server reported an error.
    ServerError = 5,
    /// Timed out or cancelled.
    Timeout = 6,
    /// A bound was hit.
    Limit = 7,
}

impl From<Exit> for std::process::ExitCode {
    fn from(e: Exit) -> Self {
        Self::from(e as u8)
    }
}
