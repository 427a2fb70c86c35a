//! One live connection to one configured server.
//!
//! Owns the transport (an owned child process or a Streamable HTTP client), the rmcp client
//! session on top of it, the secrets that were resolved for it (for the redactor), and the
//! request helpers that put a deadline on every request, send `notifications/cancelled` on
//! timeout or cancellation, and never retry or replay. References in the definition are resolved
//! here and only here, at connect time. This module knows nothing about terminals, catalogs or
//! policy.

mod client_meta;
mod connect;
pub(crate) mod declare;
pub(crate) mod decoded;
pub(crate) mod discover;
mod era;
pub(crate) mod error;
pub(crate) mod error_class;
pub(crate) mod events;
pub(crate) mod faults;
pub(crate) mod frames;
mod handshake;
pub(crate) mod http;
pub(crate) mod http_guard;
pub(crate) mod http_layer;
mod http_post;
mod listen;
mod negotiation;
pub(crate) mod orphans;
mod probe_guard;
pub(crate) mod raw;
mod request;
pub(crate) mod retry;
mod rounds;
mod session_controls;
pub(crate) mod stderr_ring;
pub(crate) mod stdio;
mod task_asks;
mod task_handle;
mod tasks;
pub(crate) use tasks::task_cancelled;
pub(crate) mod traffic;

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::ServerCapabilities;
use rmcp::service::{Peer, RoleClient, RunningService};

pub(crate) use connect::connect_client;
pub use connect::{connect, connect_observed, connect_with_events};
pub use error::{ConnectError, ErrorClass, REDACTED, Redactor, RequestError};
pub(crate) use events::EventSink;
pub use events::{ConnectionEvent, ProgressUpdate, ServerEvent};
pub use faults::{Faults, Listing};
pub use frames::{FrameStats, channel as frame_channel, pump as pump_frames};
pub use http::install_crypto_provider;
pub use retry::connect_series;
pub use rounds::MAX_INPUT_ROUNDS;
pub use stderr_ring::STDERR_RING_BYTES;
pub use stdio::{ExitInfo, MINIMAL_ENV, StdioProcess};
pub use traffic::Traffic;

use events::ClientEvents;

/// Upper bound on any request's total time, however much progress it reports.
pub const MAX_TOTAL_CAP: Duration = Duration::from_secs(30 * 60);

/// How long a closed stream waits for the process exit that explains it.
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// The default maximum total time for a request with this idle `timeout`:
/// 10× the timeout, at most 30 minutes.
pub fn max_total_for(timeout: Duration) -> Duration {
    timeout.saturating_mul(10).min(MAX_TOTAL_CAP)
}

/// What the server said about itself in the handshake.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerIdentity {
    /// The negotiated protocol version (always one of `ProtocolVersion::KNOWN_VERSIONS`).
    pub protocol_version: String,
    /// `serverInfo.name`, raw (None is possible with `server/discover`).
    pub name: Option<String>,
    /// `serverInfo.version`, raw.
    pub version: Option<String>,
    /// `serverInfo.title`, raw.
    pub title: Option<String>,
    /// The server's instructions, raw.
    pub instructions: Option<String>,
    /// What the server can do.
    pub capabilities: ServerCapabilities,
}

/// A live connection. Close it with [`Connection::close`]; dropping it also tears everything
/// down (the stdio process group gets SIGKILL at once).
pub struct Connection {
    name: Arc<str>,
    transport_kind: &'static str,
    service: RunningService<RoleClient, ClientEvents>,
    identity: ServerIdentity,
    redactor: Redactor,
    secrets: Vec<String>,
    stdio: Option<StdioProcess>,
    request_timeout: Duration,
    sink: EventSink,
    /// How the server's OAuth tokens are obtained, when it signs in with OAuth (its refusals
    /// then say what to do: `mcpdeck auth login`, or the headless grant's settings to check).
    oauth: Option<crate::mcp::config::Grant>,
    faults: Arc<faults::Faults>,
    routes: events::ProgressRoutes,
    /// The sandbox a stdio server runs in: a failure after the start says so too.
    sandbox: Option<Box<crate::mcp::sandbox::SandboxDef>>,
    /// The resources a 2026 session listens for (`subscriptions/listen`).
    listening: tokio::sync::Mutex<listen::Listening>,
    /// The log level asked for on a 2026 session, sent in every request's `_meta` (the
    /// protocol has no `logging/setLevel` there: each request opts in to its own messages).
    #[allow(deprecated)]
    log_level: std::sync::Mutex<Option<rmcp::model::LoggingLevel>>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("name", &self.name)
            .field("transport", &self.transport_kind)
            .field("protocol_version", &self.identity.protocol_version)
            .finish_non_exhaustive()
    }
}

impl Connection {
    /// The configured server name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// `stdio` or `http`.
    pub fn transport_kind(&self) -> &'static str {
        self.transport_kind
    }

    /// The rmcp peer, for typed requests. Prefer [`Connection::request`], which bounds them.
    pub fn peer(&self) -> &Peer<RoleClient> {
        self.service.peer()
    }

    /// What the server said about itself, and the negotiated version.
    pub fn identity(&self) -> &ServerIdentity {
        &self.identity
    }

    /// The negotiated protocol version.
    pub fn protocol_version(&self) -> &str {
        &self.identity.protocol_version
    }

    /// The resolved values of every reference, for the redactor. Never display them.
    pub fn secrets(&self) -> &[String] {
        &self.secrets
    }

    /// The redactor for this connection's secrets.
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// The per-request timeout of the definition.
    pub fn request_timeout(&self) -> Duration {
        self.request_timeout
    }

    /// The stdio process, for stderr, counters and exit status (None for HTTP).
    pub fn process(&self) -> Option<&StdioProcess> {
        self.stdio.as_ref()
    }

    /// Undecodable frames skipped because they answered no pending request.
    pub fn undecodable_frames(&self) -> u64 {
        self.faults.skipped()
    }

    /// Notifications that did not fit the event channel.
    pub fn dropped_events(&self) -> u64 {
        self.sink.dropped()
    }

    /// Whether the transport is still usable (rmcp's `is_closed()` is not a liveness check).
    pub fn is_alive(&self) -> bool {
        !self.service.is_transport_closed()
            && self
                .stdio
                .as_ref()
                .is_none_or(|p| p.exit_info().is_none() && !p.frame_limit_hit())
    }

    /// Closes the session and the transport: for stdio, closes stdin, then SIGTERM and SIGKILL
    /// the process group as needed, and reaps. Returns how the process ended (stdio only).
    pub async fn close(&mut self) -> Option<ExitInfo> {
        if let Some(process) = &self.stdio {
            process.begin_close();
        }
        let _ = self.service.close_with_timeout(stdio::SHUTDOWN_STEP).await;
        match &mut self.stdio {
            Some(process) => process.shutdown().await,
            None => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn connection_can_be_shared_across_tasks() {
        assert_send_sync::<Connection>();
        assert_send_sync::<ConnectError>();
    }

    #[test]
    fn max_total_is_ten_times_capped_at_thirty_minutes() {
        assert_eq!(
            max_total_for(Duration::from_secs(60)),
            Duration::from_secs(600)
        );
        assert_eq!(max_total_for(Duration::from_secs(600)), MAX_TOTAL_CAP);
    }
}
