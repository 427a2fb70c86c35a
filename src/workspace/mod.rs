//! `mcpdeck workspace-server`: the read-only workspace tools server.
//!
//! A read-only MCP server over stdio answering bounded questions about operator-bound
//! directories with four tools (`workspace_find`, `workspace_query`, `workspace_check`,
//! `workspace_capsule`). It owns: binding and the root identity anchor ([`binding`]), the
//! privacy policy ([`admission`]), the in-memory index ([`index`]) kept current by change
//! notification ([`cache`], [`changes`]), the tools, the envelope and
//! bounds ([`envelope`], [`slot`], [`frame`]) and sanitary stderr diagnostics ([`observe`]).
//! It never writes, repairs, executes, persists state, opens sockets or runs commands; stdout
//! carries only the protocol. It reads no configuration, trust store or environment value.

pub mod admission;
pub mod binding;
pub mod cache;
pub mod capsule;
pub mod changes;
pub mod check;
pub mod envelope;
pub mod find;
pub mod graph;
pub mod index;
pub mod observe;
pub mod packaged;
mod postings;
pub mod query;
pub mod rank;
mod reading;
pub mod record;
pub mod redact;
pub mod results;
pub mod schema;
pub mod server;
pub mod slot;
pub mod text;

use std::path::PathBuf;

use rmcp::ServiceExt as _;

pub use binding::{BindError, Binding, MAX_WORKSPACES, bind_all, is_valid_alias, sanitize_alias};
pub use envelope::{Envelope, Reason, SCHEMA, Status};
pub use index::{Coverage, DEFAULT_MAX_FILES, MAX_MAX_FILES};
pub use observe::{Event, Observability, Observer};
pub use server::{SERVER_NAME, WorkspaceServer};
pub use slot::Limits;

/// The largest request line the workspace server reads, newline excluded.
pub const MAX_FRAME_BYTES: usize = 65_536;

/// Why the server stopped with an error. Messages never name a workspace or a path.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The command line's workspaces could not be bound.
    #[error(transparent)]
    Bind(#[from] BindError),
    /// The runtime, the handshake or the transport failed.
    #[error("the MCP transport failed")]
    Transport,
}

/// Binds `workspaces` and serves on stdin/stdout until the client closes stdin, admitting at
/// most `max_files` files per workspace.
pub fn run(
    workspaces: &[(String, PathBuf)],
    observability: Observability,
    max_files: usize,
) -> Result<(), RunError> {
    let observer = Observer::new(observability);
    let bindings = bind_all(workspaces)?;
    let count = bindings.len();
    let server = WorkspaceServer::new(bindings, observer, Limits::default())
        .map_err(|_| RunError::Transport)?
        .with_max_files(max_files);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|_| RunError::Transport)?;
    let (transport, pump) = crate::mcp::server_stdio::transport(
        tokio::io::stdin(),
        tokio::io::stdout(),
        MAX_FRAME_BYTES,
        move |refusal| {
            if refusal == crate::mcp::server_stdio::Refusal::TooLong {
                observer.emit(&Event::FrameTooLarge);
            }
        },
    );
    observer.emit(&Event::Started { workspaces: count });
    let served = runtime.block_on(async move {
        tokio::spawn(pump);
        let service = match server.serve(transport).await {
            Ok(service) => service,
            // The client closed stdin before it started a session: a 2026-era client asks
            // without one (`server/discover`, then each request with its own `_meta`), and all
            // of it was answered. That is the end of its use, not a failure.
            Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => {
                return Ok::<(), RunError>(());
            }
            Err(_) => return Err(RunError::Transport),
        };
        service.waiting().await.map_err(|_| RunError::Transport)?;
        Ok::<(), RunError>(())
    });
    // A blocking stdin read may still be parked; do not wait for it.
    runtime.shutdown_background();
    observer.emit(&Event::Stopped);
    served
}
