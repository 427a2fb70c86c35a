//! `mcpdeck demo-server`: a small but real MCP server over stdio, so a first run
//! always has something live to operate.
//!
//! It offers a few tools (text, arithmetic, a long task with progress and cancellation,
//! structured output with an output schema, an image), two resources, one resource template and
//! one prompt with arguments. It owns its own tokio runtime. Stdout carries the protocol and
//! nothing else: diagnostics go to stderr. It must never read configuration, the trust store or
//! anything outside the process.

mod content;
mod server;
mod tools;

pub use content::{DEMO_PNG_BASE64, NOTE_TEMPLATE, PROMPT_NAME, README_URI, STATUS_URI};
pub use server::{DemoServer, INSTRUCTIONS, SERVER_NAME};

use rmcp::ServiceExt as _;

/// Runs the demo server on stdin/stdout until the client closes stdin.
///
/// Builds its own multi-threaded tokio runtime; returns an error (for stderr) when the runtime
/// cannot be built, the handshake fails or the transport breaks.
pub fn run() -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let service = DemoServer::new().serve(rmcp::transport::stdio()).await?;
        service.waiting().await?;
        anyhow::Ok(())
    })
}
