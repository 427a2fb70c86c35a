//! Lending a server's live connection to code that speaks the protocol itself: `status
//! --live`'s probe (`probe.rs`), and the lint (`mcp::lint`), which sends requests no operation
//! sends — listings without the capability, page by page, unknown names — and looks at the raw
//! answers. Trust, `disabled` and invalid definitions stop it as they stop any operation; it
//! never calls a tool (the lint checks a tool is marked read-only before it calls it).

use crate::mcp::connection::ErrorClass;
use tokio_util::sync::CancellationToken;

use super::Engine;
use super::face::ConnectContext;
use super::outcome::Failure;
use crate::mcp::connection::Connection;
use crate::mcp::sanitize::sanitize_capped;

impl Engine {
    /// How long a tool call run as a task on `server` is followed (see `task_timeout_of`);
    /// the default for a server not configured.
    pub fn task_timeout(&self, server: &str) -> std::time::Duration {
        self.slots.get(server).map_or(
            crate::mcp::config::ServerDef::DEFAULT_TASK_TIMEOUT,
            |slot| self.task_timeout_of(slot),
        )
    }

    /// Connects to `server` (or uses its live connection) and runs `f` on the connection.
    pub async fn with_connection<T>(
        &self,
        server: &str,
        cancel: &CancellationToken,
        f: impl AsyncFnOnce(&Connection, &CancellationToken) -> T,
    ) -> Result<T, Failure> {
        let Some(slot) = self.slots.get(server) else {
            return Err(Failure::new(
                ErrorClass::UnknownServer,
                format!("no server `{}`", sanitize_capped(server, 128)),
            ));
        };
        let ticket = slot.ticket();
        let cancel = super::dispatch::combine(cancel, &self.shutdown);
        let cancel = super::dispatch::combine(&cancel, &ticket.cancel);
        let connect = ConnectContext {
            lookup: &*self.lookup,
            events: self.events_tx.clone(),
            traffic: self.traffic,
            ref_key: &self.ref_key,
            cleanup: &self.cleanup,
            client: self.client.as_ref(),
            listen_lists: self.listen_lists,
        };
        let live = slot.ensure(&connect, &cancel, ticket.epoch).await?;
        let cancel = super::dispatch::combine(&cancel, &live.closing);
        let conn = live.conn.read().await;
        Ok(f(&conn, &cancel).await)
    }
}
