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

/// The longest request line the demo server reads (newline excluded).
pub const MAX_REQUEST_LINE_BYTES: usize = 1024 * 1024;

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
        // The one stdio transport of mcpdeck's servers: bounded lines, every request answered.
        let (transport, pump) = crate::mcp::server_stdio::transport(
            tokio::io::stdin(),
            tokio::io::stdout(),
            MAX_REQUEST_LINE_BYTES,
            |_| {},
        );
        tokio::spawn(pump);
        let service = DemoServer::new().serve(transport).await?;
        service.waiting().await?;
        anyhow::Ok(())
    })
}
