//! One established connection of a server and what was learned on it (its catalogs, its
//! resource references), and the catalogs a `list_changed` notification makes stale.
//!
//! Closing never waits on a request: every request on a connection runs under its `closing`
//! token, which closing cancels first, so the requests in flight give the connection back at
//! once; one that still holds it after [`RELEASE_GRACE`] does not hold the close up (the
//! server's process group is killed, and the orderly close finishes when it lets go).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{Prompt, Resource, ResourceTemplate};
use tokio_util::sync::CancellationToken;

use crate::mcp::catalog::ToolCatalog;
use crate::mcp::connection::Connection;
use crate::mcp::results::{Redactor, ResourceRefs};

/// Resources and templates as listed on one generation.
#[derive(Debug, Default)]
pub(super) struct ResourceListing {
    /// The listed resources.
    pub resources: Vec<Resource>,
    /// The listed templates (empty when the server has none or does not support them).
    pub templates: Vec<ResourceTemplate>,
}

/// One established connection and what was learned on it.
pub(super) struct Live {
    /// The connection. Requests hold a read guard; closing takes the write guard.
    pub conn: tokio::sync::RwLock<Connection>,
    /// This connection's generation (1 for the first connection of the process).
    pub generation: u64,
    /// Redacts this connection's resolved secrets from everything it returns.
    pub redactor: Redactor,
    /// The tool catalog of this generation, once listed.
    pub tools: tokio::sync::Mutex<Option<Arc<ToolCatalog>>>,
    /// The resource listing of this generation, once listed.
    pub resources: tokio::sync::Mutex<Option<Arc<ResourceListing>>>,
    /// The prompts of this generation, once listed.
    pub prompts: tokio::sync::Mutex<Option<Arc<Vec<Prompt>>>>,
    /// The opaque references handed out for this server's resources.
    pub refs: Mutex<ResourceRefs>,
    /// The stdio process group, for emergency cleanup (None for HTTP).
    pub pgid: Option<u32>,
    /// Cancelled when the connection closes; every request on it runs under it too.
    pub closing: CancellationToken,
}

/// Which catalog a notification concerns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Catalog {
    /// Tools.
    Tools,
    /// Resources and templates.
    Resources,
    /// Prompts.
    Prompts,
}

/// How long closing waits for the requests it cancelled to give the connection back.
/// Cancelled requests return at once (they wait on nothing else while they hold it), so this
/// bound only matters for one that does not; it is never what a close normally waits.
const RELEASE_GRACE: Duration = Duration::from_secs(2);

/// Closes `live`: cancels its requests, then closes the connection in order (stdin, then the
/// process group's signals). A request that still holds the connection after the grace gets
/// the close done without it: the process group is killed now, and the orderly close runs
/// once the request lets go.
pub(super) async fn close_live(live: &Arc<Live>, cleanup: &super::cleanup::Cleanup) {
    live.closing.cancel();
    if let Ok(mut conn) = tokio::time::timeout(RELEASE_GRACE, live.conn.write()).await {
        conn.close().await;
    } else {
        if let Some(pgid) = live.pgid {
            super::cleanup::kill_group(pgid);
        }
        let late = live.clone();
        tokio::spawn(async move {
            late.conn.write().await.close().await;
        });
    }
    if let Some(pgid) = live.pgid {
        cleanup.remove_group(pgid);
    }
}
