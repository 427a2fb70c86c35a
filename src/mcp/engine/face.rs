//! What connecting a server needs from the engine, and the face's client side (who answers
//! servers' roots, sampling and elicitation requests) that every connection carries.

use std::path::PathBuf;

use tokio::sync::mpsc;

use crate::mcp::connection::ServerEvent;
use crate::mcp::results::RefKey;

/// What connecting needs from the engine.
pub(super) struct ConnectContext<'a> {
    /// Looks up environment variables for references.
    pub lookup: &'a (dyn Fn(&str) -> Option<String> + Send + Sync),
    /// Where connections send notifications.
    pub events: mpsc::Sender<ServerEvent>,
    /// Whether connections also report their JSON-RPC traffic.
    pub traffic: bool,
    /// The key for resource references.
    pub ref_key: &'a RefKey,
    /// Emergency cleanup registry.
    pub cleanup: &'a super::cleanup::Cleanup,
    /// The face's client side (None: declare nothing, refuse server requests).
    pub client: Option<&'a ClientFace>,
    /// Whether a 2026-07-28 connection listens for list changes once it is made.
    pub listen_lists: bool,
}

/// A face's answers to server requests and its roots choice, for every connection.
#[derive(Clone)]
pub(crate) struct ClientFace {
    /// Who answers.
    pub requests: std::sync::Arc<dyn crate::mcp::client::ClientRequests>,
    /// Roots that replace every server's (the CLI's `--root`).
    pub roots_override: Option<Vec<PathBuf>>,
    /// The project directory (the default root).
    pub project_root: PathBuf,
    /// The log level to ask every server for (the CLI's `--log-level`).
    pub log_level: Option<String>,
}

impl ClientFace {
    /// The roots a server defined in `file_dir` by `def` is offered (see
    /// [`crate::mcp::client::roots::roots_for`], the one place that decides them).
    pub(crate) fn roots_for(
        &self,
        file_dir: &std::path::Path,
        def: Option<&crate::mcp::config::ServerDef>,
    ) -> crate::mcp::client::OfferedRoots {
        crate::mcp::client::roots::roots_for(&crate::mcp::client::roots::RootsInput {
            overrides: self.roots_override.as_deref(),
            def,
            file_dir,
            project: &self.project_root,
        })
    }

    /// The client side of one server's connection, answering `roots/list` from `roots`.
    pub(crate) fn side_for(
        &self,
        roots: crate::mcp::client::SharedRoots,
    ) -> crate::mcp::client::ClientSide {
        crate::mcp::client::ClientSide {
            requests: self.requests.clone(),
            roots,
            log_level: self.log_level.clone(),
        }
    }
}
