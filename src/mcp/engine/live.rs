//! One established connection of a server and what was learned on it (its catalogs, its
//! resource references), and the catalogs a `list_changed` notification makes stale.

use std::sync::{Arc, Mutex};

use rmcp::model::{Prompt, Resource, ResourceTemplate};

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

pub(super) async fn close_live(live: &Arc<Live>, cleanup: &super::cleanup::Cleanup) {
    live.conn.write().await.close().await;
    if let Some(pgid) = live.pgid {
        cleanup.remove_group(pgid);
    }
}
