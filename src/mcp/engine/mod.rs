//! The engine façade the console, the CLI and serve mode all use.
//!
//! Holds the configuration, the trust state, one [`Slot`] per configured server, this process's
//! spill directory and the resource-reference key. [`Engine::execute`] runs one proxy request
//! and returns an [`Outcome`]; it connects lazily, never fans out across servers
//! and never replays a request. Connection notifications are pumped here: `list_changed` drops
//! the stale catalog and an unprompted exit marks the server failed; every event is then
//! forwarded to the optional subscriber (the console). Nothing here knows about terminals.

mod approve;
pub mod cleanup;
mod operator;
mod ops;
pub mod outcome;
mod probe;
mod session;
mod slot;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

pub use approve::MAX_ARGUMENT_BYTES;
pub use operator::{CompletionTarget, OperatorOp};
use ops::OpContext;
pub use outcome::{Failure, Outcome, Success};
pub use probe::Probe;
pub use slot::ClientFace;
use slot::{Catalog, ConnectContext, Slot};

use crate::mcp::config::ConfigSet;
use crate::mcp::connection::{ConnectionEvent, ServerEvent};
use crate::mcp::policy::{
    ApprovalRequest, Approver, Decision, Mode, Policy, Trace, TraceRecord, Verdict,
};
use crate::mcp::proxy::{NormalizedOperation, ProxyRequest, check_server};
use crate::mcp::results::{RefKey, SpillDir, SpillEntry};
use crate::mcp::status::{StatusReport, report, static_state, var_is_set};
use crate::mcp::trust::TrustStore;

/// Builds call arguments from a tool's input schema (None when the tool is not listed).
pub type ArgsBuilder = dyn Fn(Option<&serde_json::Value>) -> Result<serde_json::Map<String, serde_json::Value>, String>
    + Send
    + Sync;

/// Looks up an environment variable (for references, at connect time only).
pub type Lookup = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// How to build an engine.
#[derive(Default)]
pub struct EngineOptions {
    /// The policy (default: audit, no rules).
    pub policy: Policy,
    /// Who answers approval requests in enforce mode (None: they fail closed).
    pub approver: Option<Arc<dyn Approver>>,
    /// How long an approval may stay pending (default 120 s); then it is a denial.
    pub approval_timeout: Option<std::time::Duration>,
    /// Where the per-process spill directory is created (default: `$XDG_RUNTIME_DIR`, else the
    /// temp dir).
    pub spill_base: Option<PathBuf>,
    /// Receives every connection notification after the engine has acted on it.
    pub events: Option<mpsc::Sender<ServerEvent>>,
    /// Environment lookup for references (default: the process environment).
    pub lookup: Option<Lookup>,
    /// Also forward every connection's JSON-RPC traffic to `events` (the console's Log tab).
    pub traffic: bool,
    /// Servers whose definition changed during this session (a reloaded configuration):
    /// their approval requests say so.
    pub changed_servers: std::collections::BTreeSet<String>,
    /// Who answers servers' roots, sampling and elicitation requests (the console, the CLI).
    /// None (serve mode): mcpdeck declares none of them and refuses them with -32601.
    pub client: Option<Arc<dyn crate::mcp::client::ClientRequests>>,
    /// Roots that replace every server's own (the CLI's `--root`).
    pub roots: Option<Vec<PathBuf>>,
    /// Ask servers that declare `logging` for this level (the CLI's `--log-level`).
    pub log_level: Option<String>,
    /// Results keep the server's characters (only secrets redacted); the owner escapes or
    /// sanitises when it prints. The CLI sets this so `--json` and `--output` carry the data
    /// exactly; the console and serve mode leave it off.
    pub keep_data: bool,
}

/// The engine. Cheap to share behind an `Arc`; every method takes `&self`.
pub struct Engine {
    config: ConfigSet,
    trust: TrustStore,
    slots: Arc<BTreeMap<String, Arc<Slot>>>,
    spills: SpillDir,
    ref_key: RefKey,
    lookup: Lookup,
    events_tx: mpsc::Sender<ServerEvent>,
    traffic: bool,
    changed_servers: std::collections::BTreeSet<String>,
    keep_data: bool,
    shutdown: CancellationToken,
    cleanup: cleanup::Cleanup,
    policy: Policy,
    approver: Option<Arc<dyn Approver>>,
    approval_timeout: std::time::Duration,
    tickets: std::sync::atomic::AtomicU64,
    trace: Trace,
    client: Option<ClientFace>,
}

/// How the policy let an operation through.
enum Gate {
    /// It runs; how it was let through (recorded in the trace).
    Pass(&'static str),
    /// An approver is asked once the operation's details (arguments, annotations) are known.
    Ask(Arc<dyn Approver>),
}

impl Gate {
    /// The trace's decision: an approval never asked means the operation failed before it.
    fn decision(&self) -> &'static str {
        match self {
            Self::Pass(decision) => decision,
            Self::Ask(_) => "not_asked",
        }
    }
}

/// How the operator's answer came (or did not).
enum Answer {
    /// Someone answered.
    Decided(Decision),
    /// Nobody answered in time.
    TimedOut,
    /// The operation was cancelled, or the engine is shutting down.
    Cancelled,
}

/// How many connection events may queue before new ones are counted as dropped.
const EVENT_QUEUE: usize = 1024;

impl Engine {
    /// Builds the engine: sweeps spill directories of dead processes, creates this process's
    /// own, and starts the notification pump. Must be called inside a tokio runtime.
    pub fn new(
        config: ConfigSet,
        trust: TrustStore,
        options: EngineOptions,
    ) -> std::io::Result<Self> {
        crate::mcp::connection::orphans::adopt();
        let base = options
            .spill_base
            .unwrap_or_else(crate::mcp::results::default_base);
        let _ = crate::mcp::results::sweep(&base);
        let spills = SpillDir::create(&base)?;
        let cleanup = cleanup::Cleanup;
        cleanup.add_dir(spills.path().to_path_buf());
        let state = trust.state(&config);
        let slots: BTreeMap<String, Arc<Slot>> = config
            .servers
            .iter()
            .map(|server| {
                let slot = Slot::new(server.entry.clone(), static_state(server, state));
                (server.entry.name.clone(), Arc::new(slot))
            })
            .collect();
        let slots = Arc::new(slots);
        let (events_tx, events_rx) = mpsc::channel(EVENT_QUEUE);
        // Traffic is only worth recording when someone receives it.
        let traffic = options.traffic && options.events.is_some();
        tokio::spawn(pump(events_rx, slots.clone(), options.events));
        let lookup = options
            .lookup
            .unwrap_or_else(|| Arc::new(|name: &str| std::env::var(name).ok()));
        let client = options.client.map(|requests| ClientFace {
            requests,
            roots_override: options.roots,
            project_root: config.project_root.clone(),
            log_level: options.log_level,
        });
        Ok(Self {
            config,
            trust,
            slots,
            spills,
            ref_key: RefKey::random()?,
            lookup,
            events_tx,
            traffic,
            changed_servers: options.changed_servers,
            keep_data: options.keep_data,
            shutdown: CancellationToken::new(),
            cleanup,
            policy: options.policy,
            approver: options.approver,
            approval_timeout: options
                .approval_timeout
                .unwrap_or(crate::mcp::policy::DEFAULT_APPROVAL_TIMEOUT),
            tickets: std::sync::atomic::AtomicU64::new(1),
            trace: Trace::default(),
            client,
        })
    }

    /// The configuration the engine was built from.
    pub fn config(&self) -> &ConfigSet {
        &self.config
    }

    /// The status report with live facts (never connects).
    pub fn status(&self) -> StatusReport {
        let mut status = report(&self.config, &self.trust, &var_is_set);
        for server in &mut status.servers {
            if let Some(slot) = self.slots.get(&server.name) {
                server.state = slot.state();
                server.runtime = slot.runtime();
            }
        }
        status
    }

    /// Every spill of this process.
    pub fn spills(&self) -> Vec<SpillEntry> {
        self.spills.spills()
    }

    /// Deletes one spill of this process by basename (the operator's "delete").
    pub fn remove_spill(&self, basename: &str) -> std::io::Result<()> {
        self.spills.remove(basename)
    }

    /// The kept stderr of `server`'s live stdio process (sanitised, secrets redacted); `None`
    /// when it is not connected over stdio or its connection is being replaced.
    pub fn stderr(&self, server: &str) -> Option<String> {
        let live = self.slots.get(server)?.live()?;
        let conn = live.conn.try_read().ok()?;
        conn.process()
            .map(crate::mcp::connection::StdioProcess::stderr_text)
    }

    /// The spill directory's full path (for the operator; never model-visible).
    pub fn spill_dir(&self) -> PathBuf {
        self.spills.path().to_path_buf()
    }

    /// The policy mode.
    pub fn mode(&self) -> Mode {
        self.policy.mode
    }

    /// The session trace (metadata only).
    pub fn trace(&self) -> Vec<TraceRecord> {
        self.trace.records()
    }

    /// Runs one request under the policy. `cancel` cancels it (and is also cancelled by
    /// [`Engine::shutdown`]). Every request is recorded in the trace, metadata only.
    pub async fn execute(&self, request: &ProxyRequest, cancel: &CancellationToken) -> Outcome {
        self.execute_inner(request, cancel, None, RunMode::Plain, None)
            .await
    }

    /// [`Engine::execute`], sending the downstream progress reports of a tool call to
    /// `progress` (serve mode forwards them to the host that asked with a `progressToken`).
    pub async fn execute_with_progress(
        &self,
        request: &ProxyRequest,
        cancel: &CancellationToken,
        progress: &tokio::sync::mpsc::Sender<crate::mcp::connection::ProgressUpdate>,
    ) -> Outcome {
        self.execute_inner(request, cancel, None, RunMode::Plain, Some(progress))
            .await
    }

    /// Pings `server` (connecting if needed) and reports the round trip.
    pub async fn ping(&self, server: &str, cancel: &CancellationToken) -> Outcome {
        let request = ProxyRequest::ToolsList {
            server: server.to_owned(),
        };
        let mut outcome = self
            .execute_inner(&request, cancel, None, RunMode::Ping, None)
            .await;
        "ping".clone_into(&mut outcome.operation);
        outcome
    }

    /// `tools.call` whose arguments are built from the tool's input schema (the CLI's
    /// `key=value` typing). Authorised and traced as the one call it is: reading the schema is
    /// part of the call, not a separate operation to approve.
    pub async fn call_typed(
        &self,
        server: &str,
        tool: &str,
        build: &ArgsBuilder,
        cancel: &CancellationToken,
    ) -> Outcome {
        self.call_typed_as(server, tool, build, false, cancel).await
    }

    /// [`Engine::call_typed`], run as a task when `as_task` (a tool whose task support is
    /// `optional`); a tool that requires a task runs as one either way.
    pub async fn call_typed_as(
        &self,
        server: &str,
        tool: &str,
        build: &ArgsBuilder,
        as_task: bool,
        cancel: &CancellationToken,
    ) -> Outcome {
        let request = ProxyRequest::ToolsCall {
            server: server.to_owned(),
            tool: tool.to_owned(),
            args: serde_json::Map::new(),
        };
        let mode = if as_task {
            RunMode::Task
        } else {
            RunMode::Plain
        };
        self.execute_inner(&request, cancel, Some(build), mode, None)
            .await
    }

    /// Reads a resource by its URI: the operator's read (console, CLI), never the agents'
    /// (they read by opaque reference). Authorised and traced as `resources.read`.
    pub async fn read_uri(&self, server: &str, uri: &str, cancel: &CancellationToken) -> Outcome {
        let request = ProxyRequest::ResourcesRead {
            server: server.to_owned(),
            reference: uri.to_owned(),
        };
        self.execute_inner(&request, cancel, None, RunMode::Uri, None)
            .await
    }

    /// Runs one of the operator's own operations (completion, template reads, subscriptions,
    /// tasks), which agents never get. Policy applies as to the agents' operation it resembles:
    /// completion and task queries as catalog reads, template reads and subscriptions as
    /// `resources.read` of the URI (asking for approval with the URI in enforce mode).
    pub async fn operate(
        &self,
        server: &str,
        op: &OperatorOp,
        cancel: &CancellationToken,
    ) -> Outcome {
        let server = server.to_owned();
        let request = match op {
            OperatorOp::Complete { .. } => ProxyRequest::PromptsList { server },
            OperatorOp::Templates => ProxyRequest::ResourcesList { server },
            OperatorOp::ReadTemplate { template, .. } => ProxyRequest::ResourcesRead {
                server,
                reference: template.clone(),
            },
            OperatorOp::Subscribe { uri } | OperatorOp::Unsubscribe { uri } => {
                ProxyRequest::ResourcesRead {
                    server,
                    reference: uri.clone(),
                }
            }
            OperatorOp::TasksList
            | OperatorOp::TaskGet { .. }
            | OperatorOp::TaskCancel { .. }
            | OperatorOp::TaskResult { .. }
            | OperatorOp::SetLogLevel { .. } => ProxyRequest::ToolsList { server },
        };
        self.execute_inner(&request, cancel, None, RunMode::Operator(op), None)
            .await
    }

    async fn execute_inner(
        &self,
        request: &ProxyRequest,
        cancel: &CancellationToken,
        build: Option<&ArgsBuilder>,
        mode: RunMode<'_>,
        progress: Option<&tokio::sync::mpsc::Sender<crate::mcp::connection::ProgressUpdate>>,
    ) -> Outcome {
        let normalized = request.operation();
        let operation = match mode {
            RunMode::Operator(op) => op.name().to_owned(),
            _ => normalized.to_string(),
        };
        let server = request.server().map(str::to_owned);
        let started = std::time::Instant::now();
        let at = crate::mcp::clock::now_rfc3339();
        let (decision, body) = match self.authorize(request, &normalized, cancel).await {
            Ok(mut gate) => {
                let body = self
                    .run(request, cancel, build, &mut gate, mode, progress)
                    .await;
                (gate.decision(), body)
            }
            Err((decision, failure)) => (decision, Err(failure)),
        };
        self.trace.push(TraceRecord {
            at,
            server: server.clone(),
            operation: operation.clone(),
            decision: decision.to_owned(),
            outcome: body
                .as_ref()
                .map_or_else(|f| f.class.clone(), |_| "ok".to_owned()),
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
        });
        Outcome {
            server,
            operation,
            body,
        }
    }

    /// Applies the policy: how the operation is let through (at once, or after an approval that
    /// [`Engine::approve`] asks once the details are known), or why not. Catalog reads never
    /// ask. Without anyone to ask, it fails closed here, before anything connects.
    async fn authorize(
        &self,
        request: &ProxyRequest,
        operation: &NormalizedOperation,
        cancel: &CancellationToken,
    ) -> Result<Gate, (&'static str, Failure)> {
        let Some(slot) = request.server().and_then(|s| self.slots.get(s)) else {
            // Status, or an unknown server that `run` reports.
            return Ok(Gate::Pass("allowed"));
        };
        let op = operation.to_string();
        match self.policy.decide(&slot.name, operation) {
            Verdict::Allow => return Ok(Gate::Pass("allowed")),
            Verdict::Deny(rule) => {
                return Err((
                    "denied",
                    Failure::new(
                        "denied",
                        format!(
                            "`{op}` on `{}` is refused by policy rule `{rule}`",
                            slot.name
                        ),
                        2,
                    ),
                ));
            }
            Verdict::Ask if slot.session_approved(&op) => {
                return Ok(Gate::Pass("session_approval"));
            }
            Verdict::Ask => {}
        }
        let available = match self.approver.as_ref() {
            None => false,
            Some(approver) => tokio::select! {
                available = approver.wait_available() => available,
                () = cancel.cancelled() => false,
                () = self.shutdown.cancelled() => false,
            },
        };
        let Some(approver) = self.approver.as_ref().filter(|_| available) else {
            return Err((
                "approval_required",
                Failure::new(
                    "approval_required",
                    format!(
                        "enforce mode: `{op}` on `{}` needs an operator's approval and no approver is attached",
                        slot.name
                    ),
                    2,
                ),
            ));
        };
        Ok(Gate::Ask(approver.clone()))
    }

    /// Asks the gate's approver, when it is one, with what the operation will do; afterwards
    /// the gate records how it was let through (or the failure says why not).
    async fn approve(
        &self,
        gate: &mut Gate,
        slot: &Slot,
        operation: &NormalizedOperation,
        arguments: Option<String>,
        annotations: Option<&rmcp::model::ToolAnnotations>,
        cancel: &CancellationToken,
    ) -> Result<(), Failure> {
        let Gate::Ask(approver) = gate else {
            return Ok(());
        };
        let approver = approver.clone();
        let op = operation.to_string();
        let tool_changed = match operation {
            NormalizedOperation::ToolsCall { tool } => slot.tool_changed(tool),
            _ => false,
        };
        let (effects, effects_claimed) = approve::effects(annotations);
        let ask = ApprovalRequest {
            ticket: self
                .tickets
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            server: crate::mcp::sanitize::sanitize_capped(&slot.name, 128),
            operation: crate::mcp::sanitize::sanitize_capped(&op, 300),
            effects,
            server_changed: self.changed_servers.contains(&slot.name),
            tool_changed,
            timeout_ms: u64::try_from(self.approval_timeout.as_millis()).unwrap_or(u64::MAX),
            arguments,
            effects_claimed,
        };
        let answer = approver.ask(ask);
        let answer = tokio::select! {
            d = answer => Answer::Decided(d.unwrap_or(Decision::Deny)),
            () = tokio::time::sleep(self.approval_timeout) => Answer::TimedOut,
            () = cancel.cancelled() => Answer::Cancelled,
            () = self.shutdown.cancelled() => Answer::Cancelled,
        };
        let (decision, result) = match answer {
            Answer::Decided(Decision::AllowOnce) => ("approved_once", Ok(())),
            Answer::Decided(Decision::AllowSession) => {
                slot.approve_session(op);
                ("approved_session", Ok(()))
            }
            Answer::Decided(Decision::Deny) => (
                "approval_denied",
                Err(Failure::new(
                    "denied",
                    format!("the operator did not approve `{op}` on `{}`", slot.name),
                    2,
                )),
            ),
            Answer::TimedOut => (
                "approval_timeout",
                Err(Failure::new(
                    "denied",
                    format!(
                        "no answer within {}: `{op}` on `{}` was not run",
                        seconds(self.approval_timeout),
                        slot.name
                    ),
                    2,
                )),
            ),
            Answer::Cancelled => (
                "approval_cancelled",
                Err(Failure::new(
                    "cancelled",
                    format!(
                        "cancelled while waiting for approval of `{op}` on `{}`",
                        slot.name
                    ),
                    6,
                )),
            ),
        };
        *gate = Gate::Pass(decision);
        result
    }

    async fn run(
        &self,
        request: &ProxyRequest,
        cancel: &CancellationToken,
        build: Option<&ArgsBuilder>,
        gate: &mut Gate,
        mode: RunMode<'_>,
        progress: Option<&tokio::sync::mpsc::Sender<crate::mcp::connection::ProgressUpdate>>,
    ) -> Result<Success, Failure> {
        if let ProxyRequest::Status = request {
            let status = self.status();
            return Ok(Success {
                text: status_text(&status),
                result: crate::mcp::api::OpResult::Status(Box::new(status)),
                spills: Vec::new(),
            });
        }
        check_server(request, self.slots.keys().map(String::as_str))
            .map_err(|e| Failure::new("unknown_server", e.to_string(), 1))?;
        let Some(slot) = request.server().and_then(|s| self.slots.get(s)) else {
            return Err(Failure::invalid("the request names no server".to_owned()));
        };
        let cancel = combine(cancel, &self.shutdown);
        let connect = ConnectContext {
            lookup: &*self.lookup,
            events: self.events_tx.clone(),
            traffic: self.traffic,
            ref_key: &self.ref_key,
            cleanup: &self.cleanup,
            client: self.client.as_ref(),
        };
        let operation = request.operation();
        let live = if let ProxyRequest::Reconnect { .. } = request {
            self.approve(gate, slot, &operation, None, None, &cancel)
                .await?;
            let live = slot.reconnect(&connect, &cancel).await?;
            let conn = live.conn.read().await;
            let identity = conn.identity();
            let text = format!(
                "reconnected to {} (protocol {}, generation {})",
                slot.name, identity.protocol_version, live.generation
            );
            return Ok(Success {
                result: crate::mcp::api::OpResult::Reconnected(crate::mcp::api::Reconnected {
                    protocol_version: identity.protocol_version.clone(),
                    generation: live.generation,
                    server_name: identity
                        .name
                        .as_deref()
                        .map(|n| crate::mcp::sanitize::sanitize_capped(n, 128)),
                }),
                text,
                spills: Vec::new(),
            });
        } else {
            slot.ensure(&connect, &cancel).await?
        };
        let note = |text: &str| {
            if let Some(face) = &self.client {
                face.requests.note(&slot.name, text);
            }
        };
        let ctx = OpContext {
            slot,
            live: &live,
            spills: &self.spills,
            cancel: &cancel,
            note: &note,
            as_task: mode == RunMode::Task,
            progress,
            keep_data: self.keep_data,
        };
        if mode == RunMode::Ping {
            return ops::ping(&ctx).await;
        }
        if let RunMode::Operator(op) = mode {
            return self.run_operator(&ctx, gate, &operation, op, &cancel).await;
        }
        match request {
            ProxyRequest::ToolsList { .. } => ops::list_tools(&ctx).await,
            ProxyRequest::ToolsSearch { query, .. } => ops::search_tools(&ctx, query).await,
            ProxyRequest::ToolsDescribe { tool, .. } => ops::describe_tool(&ctx, tool).await,
            ProxyRequest::ToolsCall { tool, args, .. } => {
                // The catalog (a read that never asks) gives the schema the arguments are built
                // and checked against, and the annotations the approval shows.
                let catalog = ops::tools(&ctx).await.ok();
                let listed = catalog.as_ref().and_then(|c| c.get(tool));
                let args = match build {
                    None => args.clone(),
                    Some(build) => {
                        let schema =
                            listed.map(|t| serde_json::Value::Object((*t.input_schema).clone()));
                        build(schema.as_ref()).map_err(Failure::invalid)?
                    }
                };
                let shown = approve::shown_arguments(
                    &serde_json::Value::Object(args.clone()),
                    &live.redactor,
                );
                let annotations = listed.and_then(|t| t.annotations.clone());
                self.approve(
                    gate,
                    slot,
                    &operation,
                    Some(shown),
                    annotations.as_ref(),
                    &cancel,
                )
                .await?;
                ops::call_tool(&ctx, tool, args).await
            }
            ProxyRequest::ResourcesList { .. } => ops::list_resources(&ctx).await,
            ProxyRequest::ResourcesRead { reference, .. } if mode == RunMode::Uri => {
                let shown = approve::shown_arguments(
                    &serde_json::json!({"resource": reference}),
                    &live.redactor,
                );
                self.approve(gate, slot, &operation, Some(shown), None, &cancel)
                    .await?;
                ops::read_uri(&ctx, reference, reference).await
            }
            ProxyRequest::ResourcesRead { reference, .. } => {
                let shown = approve::shown_arguments(
                    &serde_json::json!({"resource": reference}),
                    &live.redactor,
                );
                self.approve(gate, slot, &operation, Some(shown), None, &cancel)
                    .await?;
                ops::read_resource(&ctx, reference).await
            }
            ProxyRequest::PromptsList { .. } => ops::list_prompts(&ctx).await,
            ProxyRequest::PromptsGet {
                prompt, arguments, ..
            } => {
                let shown = approve::shown_arguments(
                    &serde_json::to_value(arguments).unwrap_or_default(),
                    &live.redactor,
                );
                self.approve(gate, slot, &operation, Some(shown), None, &cancel)
                    .await?;
                ops::get_prompt(&ctx, prompt, arguments).await
            }
            ProxyRequest::Status | ProxyRequest::Reconnect { .. } => {
                Err(Failure::invalid("handled above".to_owned()))
            }
        }
    }

    async fn run_operator(
        &self,
        ctx: &OpContext<'_>,
        gate: &mut Gate,
        operation: &NormalizedOperation,
        op: &OperatorOp,
        cancel: &CancellationToken,
    ) -> Result<Success, Failure> {
        let approve_uri = |uri: &str| {
            approve::shown_arguments(&serde_json::json!({"resource": uri}), &ctx.live.redactor)
        };
        match op {
            OperatorOp::Complete {
                target,
                argument,
                value,
                context,
            } => operator::complete(ctx, target, argument, value, context).await,
            OperatorOp::Templates => ops::list_templates(ctx).await,
            OperatorOp::ReadTemplate { template, values } => {
                let uri = operator::expand_template(ctx, template, values).await?;
                self.approve(
                    gate,
                    ctx.slot,
                    operation,
                    Some(approve_uri(&uri)),
                    None,
                    cancel,
                )
                .await?;
                ops::read_uri(ctx, &uri, &uri).await
            }
            OperatorOp::Subscribe { uri } | OperatorOp::Unsubscribe { uri } => {
                self.approve(
                    gate,
                    ctx.slot,
                    operation,
                    Some(approve_uri(uri)),
                    None,
                    cancel,
                )
                .await?;
                operator::subscription(ctx, uri, matches!(op, OperatorOp::Subscribe { .. })).await
            }
            OperatorOp::TasksList => operator::list_tasks(ctx).await,
            OperatorOp::TaskGet { id } => operator::task(ctx, id, false).await,
            OperatorOp::TaskCancel { id } => operator::task(ctx, id, true).await,
            OperatorOp::TaskResult { id } => operator::task_result(ctx, id).await,
            OperatorOp::SetLogLevel { level } => operator::set_log_level(ctx, level).await,
        }
    }

    /// Cancels everything in flight, closes every connection (killing stdio process groups)
    /// and removes every spill. Idempotent.
    /// Closes every connection (children killed) but keeps the spills: for an engine that a
    /// new one replaces while the operator may still read what it spilled.
    pub async fn close_connections(&self) {
        self.shutdown.cancel();
        for slot in self.slots.values() {
            slot.close(&self.cleanup).await;
        }
    }

    /// Closes every connection and removes every spill.
    pub async fn shutdown(&self) {
        self.shutdown.cancel();
        for slot in self.slots.values() {
            slot.close(&self.cleanup).await;
        }
        let _ = self.spills.remove_all();
        self.cleanup.remove_dir(&self.spills.path().to_path_buf());
        // Descendants that escaped their server's process group were re-parented to us.
        let _ = tokio::task::spawn_blocking(crate::mcp::connection::orphans::reap).await;
    }
}

/// How a request runs beyond what the proxy request says (operator-only variants).
#[derive(Debug, Clone, Copy, PartialEq)]
enum RunMode<'a> {
    /// As the proxy request says.
    Plain,
    /// A tool call as a task.
    Task,
    /// `resources.read` whose reference is a raw URI.
    Uri,
    /// A ping (the request only names the server).
    Ping,
    /// One of the operator's own operations (the request is the one policy judges).
    Operator(&'a OperatorOp),
}

/// `120 s`, or `0.25 s` for a bound under a second.
fn seconds(d: std::time::Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{} s", d.as_secs_f64())
    }
}

/// A token cancelled when either `a` or `b` is.
fn combine(a: &CancellationToken, b: &CancellationToken) -> CancellationToken {
    let child = b.child_token();
    let a = a.clone();
    let out = child.clone();
    tokio::spawn(async move {
        tokio::select! {
            () = a.cancelled() => out.cancel(),
            () = out.cancelled() => {}
        }
    });
    child
}

/// Acts on connection notifications, then forwards them.
async fn pump(
    mut rx: mpsc::Receiver<ServerEvent>,
    slots: Arc<BTreeMap<String, Arc<Slot>>>,
    forward: Option<mpsc::Sender<ServerEvent>>,
) {
    while let Some(event) = rx.recv().await {
        if let Some(slot) = slots.get(&*event.server) {
            match &event.event {
                ConnectionEvent::ToolListChanged => slot.invalidate(Catalog::Tools),
                ConnectionEvent::ResourceListChanged => slot.invalidate(Catalog::Resources),
                ConnectionEvent::PromptListChanged => slot.invalidate(Catalog::Prompts),
                ConnectionEvent::Exited { .. } => slot.on_exited(),
                _ => {}
            }
        }
        if let Some(tx) = &forward {
            let _ = tx.try_send(event);
        }
    }
}

/// The model-visible status text.
pub fn status_text(status: &StatusReport) -> String {
    use std::fmt::Write as _;
    let mut text = format!(
        "project trust: {}; {} servers\n",
        status.project.trust.label(),
        status.servers.len()
    );
    for s in &status.servers {
        let _ = write!(
            text,
            "- {} [{}] {} ({})",
            s.name,
            s.state.label(),
            s.transport.unwrap_or("?"),
            s.source.layer.label()
        );
        if let Some(version) = &s.runtime.protocol_version {
            let _ = write!(text, " protocol {version}");
        }
        if let Some(tools) = s.runtime.tools {
            let _ = write!(text, " {tools} tools");
        }
        if let Some(e) = &s.runtime.last_error {
            let _ = write!(text, " last error {}: {}", e.class, e.message);
        }
        text.push('\n');
    }
    text.push_str(outcome::hints::LIST);
    text
}
