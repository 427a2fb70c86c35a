//! The demo server's handler: identity (`mcpdeck-demo`, never rmcp's default name),
//! capabilities, the resource handlers, the logging level, and the little state the tools share
//! (the outcome of the last `long_task`).
//!
//! Logging is SEP-2577-deprecated in rmcp but still the way a 2025-11-25 server tells its client
//! what happened, so this module alone allows the deprecated items.

#![allow(deprecated)]

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::handler::server::router::prompt::PromptRouter;
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::model::{
    ErrorData, Implementation, ListResourceTemplatesResult, ListResourcesResult, LoggingLevel,
    LoggingMessageNotificationParam, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ServerCapabilities, ServerConfig, SetLevelRequestParams,
};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler, prompt_handler, tool_handler};

use super::{content, tools};

/// The `serverInfo.name` the demo server reports.
pub const SERVER_NAME: &str = "mcpdeck-demo";

/// The `instructions` the demo server sends in its initialize reply.
pub const INSTRUCTIONS: &str = "mcpdeck's built-in demo server. Try `echo` and `add`; \
`long_task` sends progress and can be cancelled; `weather` returns structured content matching \
its output schema; `image` returns a PNG. Read demo://readme, demo://status.json or \
demo://notes/{id} (ids 1-3), and get the `review` prompt (topic required, tone optional). \
Everything is deterministic and local: no network, no files.";

/// How long a best-effort notification may wait for the transport.
const NOTIFY_TIMEOUT: Duration = Duration::from_secs(1);

/// How a `long_task` ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct TaskOutcome {
    /// `completed` or `cancelled`.
    pub state: TaskState,
    /// Steps finished before it ended.
    pub completed_steps: u32,
    /// Steps asked for.
    pub steps: u32,
}

/// The end state of a `long_task`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskState {
    /// Every step ran.
    Completed,
    /// The request was cancelled before the last step.
    Cancelled,
}

impl TaskOutcome {
    /// A task that ran all `steps`.
    pub fn completed(steps: u32) -> Self {
        Self {
            state: TaskState::Completed,
            completed_steps: steps,
            steps,
        }
    }

    /// A task cancelled after `done` of `steps`.
    pub fn cancelled(done: u32, steps: u32) -> Self {
        Self {
            state: TaskState::Cancelled,
            completed_steps: done,
            steps,
        }
    }

    /// One line for the caller, the log and stderr.
    pub fn message(&self) -> String {
        match self.state {
            TaskState::Completed => format!("long_task completed {} steps", self.steps),
            TaskState::Cancelled => format!(
                "long_task cancelled after {} of {} steps",
                self.completed_steps, self.steps
            ),
        }
    }
}

#[derive(Debug)]
struct Shared {
    min_level: LoggingLevel,
    last_task: Option<TaskOutcome>,
}

/// The demo MCP server (one per connection).
#[derive(Clone)]
pub struct DemoServer {
    tool_router: ToolRouter<Self>,
    prompt_router: PromptRouter<Self>,
    shared: Arc<Mutex<Shared>>,
}

impl Default for DemoServer {
    fn default() -> Self {
        Self::new()
    }
}

impl DemoServer {
    /// A fresh server with no task history and `info` logging.
    pub fn new() -> Self {
        Self {
            tool_router: tools::router(),
            prompt_router: content::router(),
            shared: Arc::new(Mutex::new(Shared {
                min_level: LoggingLevel::Info,
                last_task: None,
            })),
        }
    }

    fn with_shared<T>(&self, f: impl FnOnce(&mut Shared) -> T) -> T {
        // A panic elsewhere cannot leave `Shared` half-updated (plain field stores), so a
        // poisoned lock is still safe to use.
        let mut guard = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
        f(&mut guard)
    }

    /// The `demo://status.json` document.
    pub fn status_document(&self) -> serde_json::Value {
        let last = self.with_shared(|s| s.last_task);
        serde_json::json!({
            "server": SERVER_NAME,
            "version": env!("CARGO_PKG_VERSION"),
            "last_long_task": last,
        })
    }

    /// Records how a `long_task` ended and reports it (stderr and a log notification).
    pub(super) async fn finish_task(
        &self,
        ctx: &RequestContext<RoleServer>,
        outcome: &TaskOutcome,
    ) {
        let level = match outcome.state {
            TaskState::Completed => LoggingLevel::Info,
            TaskState::Cancelled => LoggingLevel::Notice,
        };
        let send = self.with_shared(|s| {
            s.last_task = Some(*outcome);
            rank(level) >= rank(s.min_level)
        });
        if outcome.state == TaskState::Cancelled {
            eprintln!("{SERVER_NAME}: {}", outcome.message());
        }
        if send {
            let data = serde_json::json!({
                "message": outcome.message(),
                "outcome": outcome,
            });
            let log = LoggingMessageNotificationParam::new(level, data).with_logger("long_task");
            // The client may already be gone (the send then never completes once stdin has
            // closed): the outcome is recorded either way, so bound the wait.
            let _ =
                tokio::time::timeout(NOTIFY_TIMEOUT, ctx.peer.notify_logging_message(log)).await;
        }
    }
}

/// Severity order of logging levels (RFC 5424, least severe first).
fn rank(level: LoggingLevel) -> u8 {
    match level {
        LoggingLevel::Debug => 0,
        LoggingLevel::Info => 1,
        LoggingLevel::Notice => 2,
        LoggingLevel::Warning => 3,
        LoggingLevel::Error => 4,
        LoggingLevel::Critical => 5,
        LoggingLevel::Alert => 6,
        LoggingLevel::Emergency => 7,
    }
}

#[tool_handler(router = self.tool_router)]
#[prompt_handler(router = self.prompt_router)]
impl ServerHandler for DemoServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_prompts()
                .enable_logging()
                .build(),
        )
        .with_server_info(
            Implementation::new(SERVER_NAME, env!("CARGO_PKG_VERSION"))
                .with_title("mcpdeck demo server"),
        )
        .with_instructions(INSTRUCTIONS)
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(content::resources()))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(
            content::templates(),
        ))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        content::read(&request.uri, &self.status_document()).map(Into::into)
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.with_shared(|s| s.min_level = request.level);
        Ok(())
    }
}
