//! `mcpdeck serve`: the engine as an MCP server over stdio with exactly one tool,
//! `mcp`, so any agent host reaches every configured server through one stable schema with the
//! same trust, bounds, spills and approvals the console shows. stdout carries protocol only;
//! diagnostics go to stderr. Shutdown (stdin closed or a signal) closes every connection, kills
//! every child group and removes every spill.

mod approver;

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt};
use serde_json::Value;

pub use approver::ServeApprover;

use crate::mcp::engine::{Engine, Envelope, Outcome};
use crate::mcp::proxy::{TOOL_DESCRIPTION, parse_request, request_schema};

/// The name of the one tool.
pub const TOOL_NAME: &str = "mcp";

/// The `mcp` tool as listed: the closed request schema, the workflow description, and
/// annotations saying it is not read-only, may be destructive and reaches the open world.
pub fn proxy_tool() -> Tool {
    let schema = match request_schema() {
        Value::Object(map) => map,
        _ => serde_json::Map::new(),
    };
    Tool::new(TOOL_NAME, TOOL_DESCRIPTION, Arc::new(schema)).with_annotations(
        ToolAnnotations::new()
            .read_only(false)
            .destructive(true)
            .idempotent(false)
            .open_world(true),
    )
}

/// The MCP server handler: one tool over the shared engine.
#[derive(Clone)]
pub struct ProxyServer {
    engine: Arc<Engine>,
    approver: Arc<ServeApprover>,
}

impl ProxyServer {
    /// A handler over `engine`; `approver` learns the client's peer for elicitation.
    pub fn new(engine: Arc<Engine>, approver: Arc<ServeApprover>) -> Self {
        Self { engine, approver }
    }
}

/// The `CallToolResult` of an outcome: the model-visible text, `isError` for
/// failures, and `structuredContent` `{server, operation, status, ...}`.
pub fn to_call_result(outcome: &Outcome) -> CallToolResult {
    let text = crate::mcp::sanitize::sanitize(&outcome.model_text()).into_owned();
    let structured =
        serde_json::to_value(Envelope::of(outcome).structured()).unwrap_or(Value::Null);
    let mut result = if outcome.ok() {
        CallToolResult::success(vec![ContentBlock::text(text)])
    } else {
        CallToolResult::error(vec![ContentBlock::text(text)])
    };
    result.structured_content = Some(structured);
    result
}

impl ServerHandler for ProxyServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("mcpdeck", env!("CARGO_PKG_VERSION")).with_title("mcpdeck proxy"),
            )
            .with_instructions(
                "One tool, `mcp`, reaches every MCP server the operator configured. Start with {} for status.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(vec![proxy_tool()]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.name != TOOL_NAME {
            return Err(ErrorData::invalid_params(
                format!("unknown tool; the only tool is `{TOOL_NAME}`"),
                None,
            ));
        }
        self.approver.learn_peer(&context.peer);
        let args = Value::Object(request.arguments.unwrap_or_default());
        let parsed = match parse_request(&args) {
            Ok(parsed) => crate::mcp::engine::EngineRequest::Agent(parsed),
            Err(e) => {
                return Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                    "invalid arguments: {}",
                    crate::mcp::sanitize::sanitize(&e.to_string())
                ))])
                .into());
            }
        };
        // The host's cancellation of this call cancels the downstream request.
        let outcome = match context.meta.get_progress_token() {
            None => Box::pin(self.engine.run(&parsed, &context.ct)).await,
            Some(token) => {
                // The host asked for progress: forward the downstream call's reports.
                let (tx, mut rx) = tokio::sync::mpsc::channel::<
                    crate::mcp::connection::ProgressUpdate,
                >(crate::mcp::connection::events::PROGRESS_QUEUE);
                let peer = context.peer.clone();
                let forward = tokio::spawn(async move {
                    while let Some(update) = rx.recv().await {
                        let mut param = rmcp::model::ProgressNotificationParam::new(
                            token.clone(),
                            update.progress,
                        );
                        param.total = update.total;
                        param.message = update
                            .message
                            .map(|m| crate::mcp::sanitize::sanitize_capped(&m, 1024));
                        let _ = peer.notify_progress(param).await;
                    }
                });
                let outcome =
                    Box::pin(self.engine.run_with_progress(&parsed, &context.ct, &tx)).await;
                drop(tx);
                // Every report goes out before the result.
                let _ = tokio::time::timeout(std::time::Duration::from_secs(1), forward).await;
                outcome
            }
        };
        Ok(to_call_result(&outcome).into())
    }
}

/// The longest request line serve reads from its host (newline excluded); a longer one is
/// answered with a JSON-RPC error and skipped, never buffered.
pub const MAX_REQUEST_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Serves on stdin/stdout until the client closes stdin or a signal arrives, then shuts the
/// engine down.
pub async fn serve(engine: Arc<Engine>, approver: Arc<ServeApprover>) -> anyhow::Result<()> {
    let handler = ProxyServer::new(engine.clone(), approver);
    // A bounded reader of the host's lines, answering what it cannot decode (rmcp's own stdio
    // transport buffers any line whole and drops an undecodable request without an answer).
    let (transport, pump) = crate::mcp::server_stdio::transport(
        tokio::io::stdin(),
        tokio::io::stdout(),
        MAX_REQUEST_LINE_BYTES,
        |_| {},
    );
    let pump = tokio::spawn(pump);
    let running = handler.serve(transport).await;
    let result = match running {
        Ok(service) => {
            let shutdown = wait_for_signal();
            tokio::select! {
                r = service.waiting() => r.map(|_| ()).map_err(anyhow::Error::from),
                () = shutdown => Ok(()),
            }
        }
        // The host closed stdin before it started a session: it asked what it needed (a
        // 2026-era host's `server/discover`, pings, requests answered without a session) or
        // nothing at all. That is the end of its use of serve, not a failed handshake.
        Err(rmcp::service::ServerInitializeError::ConnectionClosed(_)) => Ok(()),
        Err(e) => Err(anyhow::anyhow!(
            "the MCP handshake with the host failed: {e}"
        )),
    };
    pump.abort();
    engine.shutdown().await;
    result
}

async fn wait_for_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let (Ok(mut term), Ok(mut hup), Ok(mut int)) = (
            signal(SignalKind::terminate()),
            signal(SignalKind::hangup()),
            signal(SignalKind::interrupt()),
        ) else {
            return std::future::pending().await;
        };
        tokio::select! {
            _ = term.recv() => {}
            _ = hup.recv() => {}
            _ = int.recv() => {}
        }
    }
    #[cfg(not(unix))]
    std::future::pending::<()>().await;
}
