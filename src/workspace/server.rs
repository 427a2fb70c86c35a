//! The workspace server's MCP handler: identity (`mcpdeck-workspace`), the four tools, argument
//! validation, the root identity check, the producer slot and the envelope.
//!
//! A call is validated against its closed schema, its root's identity is checked, then the
//! producer runs on its own thread through the [`Slot`]; the answer is always one envelope.
//! Diagnostics go through the [`Observer`] only. Nothing here writes to disk or to stdout except
//! through the transport.

use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ErrorData, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler};
use serde_json::{Value, json};

use super::binding::Binding;
use super::envelope::{Envelope, Reason, Status};
use super::index::{IndexCache, Snapshot};
use super::observe::{Event, Observer};
use super::query::QueryArgs;
use super::schema::{self, CAPSULE, CHECK, FIND, QUERY, TOOLS, Validators};
use super::slot::{Limits, Outcome, Slot};
use super::{capsule, check, find, query};

/// The `serverInfo.name` the workspace server reports.
pub const SERVER_NAME: &str = "mcpdeck-workspace";

/// The instructions sent in the initialize reply.
pub const INSTRUCTIONS: &str = "Read-only questions about operator-bound directories. Name a \
workspace by its alias. workspace_find returns ranked passages, workspace_query matches files in \
the typed link graph, workspace_check reports validation findings, workspace_capsule builds a \
hashed claim capsule. Ignored, private and non-text files are never read or named. Results are \
whole or refused; one call runs at a time.";

/// Called on the producer thread before each producer runs (tests use it to hold a call open).
pub type ProduceHook = Arc<dyn Fn(&'static str) + Send + Sync>;

struct Inner {
    bindings: Vec<Binding>,
    caches: Vec<Mutex<IndexCache>>,
    validators: Validators,
    tools: Vec<Tool>,
    slot: Slot,
    limits: Limits,
    observer: Observer,
    hook: Option<ProduceHook>,
}

/// The workspace MCP server (one per process; cheap to clone).
#[derive(Clone)]
pub struct WorkspaceServer {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for WorkspaceServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WorkspaceServer")
            .field("workspaces", &self.inner.bindings.len())
            .finish_non_exhaustive()
    }
}

impl WorkspaceServer {
    /// A server over `bindings`.
    pub fn new(bindings: Vec<Binding>, observer: Observer, limits: Limits) -> Result<Self, String> {
        Self::with_hook(bindings, observer, limits, None)
    }

    /// A server whose producers call `hook` first (for tests of concurrency and timeouts).
    #[doc(hidden)]
    pub fn with_hook(
        bindings: Vec<Binding>,
        observer: Observer,
        limits: Limits,
        hook: Option<ProduceHook>,
    ) -> Result<Self, String> {
        let aliases: Vec<String> = bindings.iter().map(|b| b.alias.clone()).collect();
        let validators = Validators::new(&aliases)?;
        let tools = tool_list(&aliases);
        let caches = bindings
            .iter()
            .map(|_| Mutex::new(IndexCache::new()))
            .collect();
        Ok(Self {
            inner: Arc::new(Inner {
                bindings,
                caches,
                validators,
                tools,
                slot: Slot::new(),
                limits,
                observer,
                hook,
            }),
        })
    }

    /// The same server admitting at most `max_files` files per workspace (default
    /// [`super::index::DEFAULT_MAX_FILES`], capped at [`super::index::MAX_MAX_FILES`]).
    #[must_use]
    pub fn with_max_files(self, max_files: usize) -> Self {
        for cache in &self.inner.caches {
            *cache.lock().unwrap_or_else(PoisonError::into_inner) =
                IndexCache::with_max_files(max_files);
        }
        self
    }

    /// Answers one call (the transport-independent core of `tools/call`): the tool result and
    /// the envelope it carries; `None` for an unknown tool.
    pub async fn answer(
        &self,
        tool: &str,
        args: Value,
        cancel: &tokio_util::sync::CancellationToken,
    ) -> Option<(CallToolResult, Envelope)> {
        let tool = TOOLS.into_iter().find(|t| *t == tool)?;
        let inner = &self.inner;
        let started = Instant::now();
        inner.observer.emit(&Event::CallStarted { tool });
        let index = args
            .get("workspace")
            .and_then(Value::as_str)
            .and_then(|a| inner.bindings.iter().position(|b| b.alias == a));
        let alias = index.map(|i| inner.bindings[i].alias.clone());
        let errors = inner.validators.check(tool, &args);
        let envelope = if !errors.is_empty() {
            Envelope::refused(
                alias.as_deref(),
                Reason::InvalidArguments,
                Some(json!({"errors": errors})),
            )
        } else if let (Some(i), Some(alias)) = (index, alias.clone()) {
            if inner.bindings[i].available() {
                let worker = Arc::clone(inner);
                let outcome = inner
                    .slot
                    .run(inner.limits, cancel, move |stop| {
                        worker.produce(tool, i, &args, stop)
                    })
                    .await;
                match outcome {
                    Outcome::Done(e) => e,
                    Outcome::Busy => Envelope::refused(Some(&alias), Reason::ServerBusy, None),
                    Outcome::TimedOut => Envelope::refused(Some(&alias), Reason::Timeout, None),
                    Outcome::Cancelled => Envelope::refused(Some(&alias), Reason::Cancelled, None),
                    Outcome::Failed => Envelope::refused(Some(&alias), Reason::Internal, None),
                }
            } else {
                Envelope::refused(Some(&alias), Reason::WorkspaceUnavailable, None)
            }
        } else {
            // Unreachable: the schema's enum only admits bound aliases.
            Envelope::refused(None, Reason::InvalidArguments, None)
        };
        let (result, envelope) = envelope.into_tool_result();
        let event = match (envelope.status, envelope.reason) {
            (Status::Refused, Some(reason)) => Event::Refused {
                tool,
                reason: reason.code(),
            },
            (status, _) => Event::CallAnswered {
                tool,
                status: status.as_str(),
                elapsed_ms: started.elapsed().as_millis(),
            },
        };
        inner.observer.emit(&event);
        Some((result, envelope))
    }
}

impl Inner {
    /// Runs one validated call on the producer thread.
    fn produce(&self, tool: &'static str, i: usize, args: &Value, stop: &AtomicBool) -> Envelope {
        if let Some(hook) = &self.hook {
            hook(tool);
        }
        let binding = &self.bindings[i];
        let alias = binding.alias.as_str();
        let snapshot = {
            let mut cache = self.caches[i]
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            cache.refresh(&binding.root, stop)
        };
        let Ok(snapshot) = snapshot else {
            return Envelope::refused(Some(alias), Reason::Cancelled, None);
        };
        // The root may have been replaced while it was walked.
        if !binding.available() {
            return Envelope::refused(Some(alias), Reason::WorkspaceUnavailable, None)
                .with_coverage(snapshot.coverage);
        }
        let outcome = run_tool(tool, &snapshot, alias, args);
        let envelope = match outcome {
            Ok(result) => Envelope::known(alias, result),
            Err((reason, result)) => Envelope::unknown(alias, reason, result),
        };
        envelope.with_coverage(snapshot.coverage)
    }
}

fn uint(args: &Value, key: &str, default: u64) -> usize {
    usize::try_from(args.get(key).and_then(Value::as_u64).unwrap_or(default)).unwrap_or(usize::MAX)
}

fn strings(args: &Value, key: &str) -> Vec<String> {
    args.get(key)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

fn text(args: &Value, key: &str) -> String {
    args.get(key)
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned()
}

/// Runs `tool` over a snapshot with validated `args`.
pub fn run_tool(
    tool: &str,
    snap: &Snapshot,
    alias: &str,
    args: &Value,
) -> Result<Value, (Reason, Value)> {
    match tool {
        FIND => find::run(
            snap,
            &text(args, "question"),
            uint(args, "limit", schema::DEFAULT_LIMIT),
            uint(args, "budget", schema::DEFAULT_BUDGET),
        ),
        QUERY => query::run(
            snap,
            &QueryArgs {
                text: text(args, "text"),
                limit: uint(args, "limit", schema::DEFAULT_LIMIT),
                types: strings(args, "type_filters"),
                paths: strings(args, "path_filters"),
                edges: strings(args, "edge_filters"),
                snippet_chars: uint(args, "snippet_chars", schema::DEFAULT_SNIPPET),
                explain: args
                    .get("explain")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            },
        ),
        CHECK => Ok(check::run(
            snap,
            args.get("paths")
                .and_then(Value::as_array)
                .map(Vec::as_slice),
            args.get("strict").and_then(Value::as_bool).unwrap_or(false),
        )),
        CAPSULE => capsule::run(
            snap,
            alias,
            &text(args, "question"),
            uint(args, "max_claims", schema::DEFAULT_CLAIMS),
        ),
        _ => Err((Reason::Internal, Value::Null)),
    }
}

/// The four tools as `tools/list` shows them.
pub fn tool_list(aliases: &[String]) -> Vec<Tool> {
    TOOLS
        .iter()
        .zip(schema::DESCRIPTIONS)
        .filter_map(|(name, description)| {
            let Some(Value::Object(schema)) = schema::input_schema(name, aliases) else {
                return None;
            };
            let annotations = ToolAnnotations::new()
                .read_only(true)
                .destructive(false)
                .idempotent(true)
                .open_world(false);
            Some(Tool::new(*name, description, Arc::new(schema)).with_annotations(annotations))
        })
        .collect()
}

impl ServerHandler for WorkspaceServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new(SERVER_NAME, env!("CARGO_PKG_VERSION"))
                    .with_title("mcpdeck read-only workspace tools"),
            )
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.inner.tools.clone()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = Value::Object(request.arguments.unwrap_or_default());
        let Some((result, _)) = self.answer(&request.name, args, &ctx.ct).await else {
            return Err(ErrorData::invalid_params("unknown tool", None));
        };
        Ok(result.into())
    }
}
