//! Running a request the policy let through: connecting its server, then the agents' operation
//! or the operator's own that it names (the operations themselves are in `ops` and `operator`).

use crate::mcp::connection::ErrorClass;
use tokio_util::sync::CancellationToken;

use super::face::ConnectContext;
use super::gate::Gate;
use super::ops::{self, OpContext};
use super::outcome::{Failure, Success};
use super::slot::Slot;
use super::{CallArgs, Engine, EngineRequest, OperatorOp, approve, operator};
use crate::mcp::api::OpResult;
use crate::mcp::arguments::ToolArguments;
use crate::mcp::proxy::{NormalizedOperation, ProxyRequest, check_server};
use crate::mcp::status::StatusReport;

impl Engine {
    /// How long a tool call run as a task on `slot`'s server is followed: the engine's
    /// setting, else the server's `taskTimeoutMs`, else the default.
    pub(super) fn task_timeout_of(&self, slot: &Slot) -> std::time::Duration {
        self.task_timeout.unwrap_or_else(|| {
            slot.entry
                .def
                .as_ref()
                .map_or(crate::mcp::config::ServerDef::DEFAULT_TASK_TIMEOUT, |d| {
                    d.task_timeout()
                })
        })
    }

    /// Runs a request the policy let through: connects (or reconnects) its server, then hands
    /// it to the operation it names. `operation` is what the policy judged it as; `epoch` is
    /// the server's disconnect epoch when the request was asked for ([`super::slot::Ticket`]).
    pub(super) async fn perform(
        &self,
        request: &EngineRequest,
        operation: &NormalizedOperation,
        cancel: &CancellationToken,
        gate: &mut Gate,
        progress: Option<&tokio::sync::mpsc::Sender<crate::mcp::connection::ProgressUpdate>>,
        epoch: u64,
    ) -> Result<Success, Failure> {
        if let EngineRequest::Agent(ProxyRequest::Status) = request {
            let status = self.status();
            return Ok(Success {
                text: status_text(&status),
                result: OpResult::Status(Box::new(status)),
                spills: Vec::new(),
            });
        }
        check_server(request.server(), self.slots.keys().map(String::as_str))
            .map_err(|e| Failure::new(ErrorClass::UnknownServer, e.to_string()))?;
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
            listen_lists: self.listen_lists,
        };
        if let EngineRequest::Agent(ProxyRequest::Reconnect { .. }) = request {
            self.approve(gate, slot, operation, None, None, &cancel)
                .await?;
            return reconnect(slot, &connect, &cancel, epoch).await;
        }
        let live = slot.ensure(&connect, &cancel, epoch).await?;
        // Closing the connection cancels what runs on it, so a close never waits for this.
        let cancel = combine(&cancel, &live.closing);
        let note = |text: &str| {
            if let Some(face) = &self.client {
                face.requests.note(&slot.name, text);
            }
        };
        let call_options = match request {
            EngineRequest::Operator {
                op: OperatorOp::Call { options, .. },
                ..
            } => Some(options),
            _ => None,
        };
        let ctx = OpContext {
            slot,
            live: &live,
            spills: &self.spills,
            cancel: &cancel,
            note: &note,
            as_task: call_options.is_some_and(|options| options.as_task),
            meta: call_options
                .map(|options| &options.meta)
                .filter(|meta| !meta.is_empty()),
            task_timeout: self.task_timeout_of(slot),
            progress,
            keep_data: self.keep_data,
            pins: self.pins.as_ref(),
        };
        match request {
            EngineRequest::Agent(request) => self.dispatch(&ctx, request, gate).await,
            EngineRequest::Operator { op, .. } => {
                self.run_operator(&ctx, gate, operation, op).await
            }
        }
    }

    /// Runs one of the agents' operations on its connected server, asking the approver (when
    /// the gate says so) once the operation's details are known.
    async fn dispatch(
        &self,
        ctx: &OpContext<'_>,
        request: &ProxyRequest,
        gate: &mut Gate,
    ) -> Result<Success, Failure> {
        let operation = request.operation();
        let shown = |value: &serde_json::Value| approve::shown_arguments(value, &ctx.live.redactor);
        match request {
            ProxyRequest::ToolsList { .. } => ops::list_tools(ctx).await,
            ProxyRequest::ToolsSearch { query, .. } => ops::search_tools(ctx, query).await,
            ProxyRequest::ToolsDescribe { tool, .. } => ops::describe_tool(ctx, tool).await,
            ProxyRequest::ToolsCall { tool, args, .. } => {
                let args = CallArgs::Given(args.clone());
                self.call(ctx, gate, &operation, tool, &args).await
            }
            ProxyRequest::ResourcesList { .. } => ops::list_resources(ctx).await,
            ProxyRequest::ResourcesRead { reference, .. } => {
                let arguments = shown(&serde_json::json!({"resource": reference}));
                self.approve(
                    gate,
                    ctx.slot,
                    &operation,
                    Some(arguments),
                    None,
                    ctx.cancel,
                )
                .await?;
                ops::read_resource(ctx, reference).await
            }
            ProxyRequest::PromptsList { .. } => ops::list_prompts(ctx).await,
            ProxyRequest::PromptsGet {
                prompt, arguments, ..
            } => {
                let arguments_shown = shown(&serde_json::to_value(arguments).unwrap_or_default());
                self.approve(
                    gate,
                    ctx.slot,
                    &operation,
                    Some(arguments_shown),
                    None,
                    ctx.cancel,
                )
                .await?;
                ops::get_prompt(ctx, prompt, arguments).await
            }
            ProxyRequest::Status | ProxyRequest::Reconnect { .. } => {
                Err(Failure::invalid("handled above".to_owned()))
            }
        }
    }

    /// `tools.call`: the catalog (a read that never asks) gives the schema the arguments are
    /// typed and checked by, and the definition the approval shows (its annotations, what
    /// the poisoning scan finds in it).
    async fn call(
        &self,
        ctx: &OpContext<'_>,
        gate: &mut Gate,
        operation: &NormalizedOperation,
        tool: &str,
        args: &CallArgs,
    ) -> Result<Success, Failure> {
        let catalog = ops::tools(ctx).await.ok();
        let listed = catalog.as_ref().and_then(|c| c.get(tool));
        let args = match args {
            CallArgs::Given(args) => args.clone(),
            CallArgs::Words { words, checked } => {
                let compiled = catalog
                    .as_ref()
                    .and_then(|c| c.arguments(tool))
                    .unwrap_or_else(|| std::sync::Arc::new(ToolArguments::unknown()));
                let args = compiled.words(words, *checked).map_err(Failure::invalid)?;
                let problems = if *checked {
                    compiled.problems(&args)
                } else {
                    Vec::new()
                };
                if !problems.is_empty() {
                    return Err(Failure::invalid(crate::mcp::arguments::mismatch(&problems)));
                }
                args
            }
        };
        let shown =
            approve::shown_arguments(&serde_json::Value::Object(args.clone()), &ctx.live.redactor);
        self.approve(
            gate,
            ctx.slot,
            operation,
            Some(shown),
            listed.as_ref(),
            ctx.cancel,
        )
        .await?;
        ops::call_tool(ctx, tool, args).await
    }

    /// Runs one of the operator's own operations on its connected server.
    async fn run_operator(
        &self,
        ctx: &OpContext<'_>,
        gate: &mut Gate,
        operation: &NormalizedOperation,
        op: &OperatorOp,
    ) -> Result<Success, Failure> {
        let approve_uri = |uri: &str| {
            approve::shown_arguments(&serde_json::json!({"resource": uri}), &ctx.live.redactor)
        };
        match op {
            OperatorOp::Ping => ops::ping(ctx).await,
            OperatorOp::Call { tool, args, .. } => {
                self.call(ctx, gate, operation, tool, args).await
            }
            OperatorOp::ReadUri { uri } => {
                self.approve(
                    gate,
                    ctx.slot,
                    operation,
                    Some(approve_uri(uri)),
                    None,
                    ctx.cancel,
                )
                .await?;
                ops::read_uri(ctx, uri, uri).await
            }
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
                    ctx.cancel,
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
                    ctx.cancel,
                )
                .await?;
                operator::subscription(ctx, uri, matches!(op, OperatorOp::Subscribe { .. })).await
            }
            OperatorOp::TasksList => operator::list_tasks(ctx).await,
            OperatorOp::TaskGet { id } => operator::task(ctx, id, false).await,
            OperatorOp::TaskCancel { id } => operator::task(ctx, id, true).await,
            OperatorOp::TaskResult { id } => operator::task_result(ctx, id).await,
            OperatorOp::SetLogLevel { level } => operator::set_log_level(ctx, level).await,
            OperatorOp::ToolCosts => ops::tool_costs(ctx).await,
            OperatorOp::Scan => super::definitions::scan_server(ctx).await,
            OperatorOp::Pins { accept } => super::definitions::pins(ctx, *accept).await,
            OperatorOp::CheckPins { pins } => super::definitions::check(ctx, pins).await,
            OperatorOp::Roots
            | OperatorOp::AddRoot { .. }
            | OperatorOp::RemoveRoot { .. }
            | OperatorOp::Disconnect => Err(Failure::invalid(
                "a session control runs outside policy".to_owned(),
            )),
            OperatorOp::Skills => ops::list_skills(ctx).await,
            OperatorOp::Skill { name, files } => {
                let shown = approve_uri(name);
                self.approve(gate, ctx.slot, operation, Some(shown), None, ctx.cancel)
                    .await?;
                ops::get_skill(ctx, name, files).await
            }
        }
    }
}

/// `reconnect`: closes the server's connection and makes one fresh attempt series.
async fn reconnect(
    slot: &Slot,
    connect: &ConnectContext<'_>,
    cancel: &CancellationToken,
    epoch: u64,
) -> Result<Success, Failure> {
    let live = slot.reconnect(connect, cancel, epoch).await?;
    let conn = live.conn.read().await;
    let identity = conn.identity();
    let text = format!(
        "reconnected to {} (protocol {}, generation {})",
        slot.name, identity.protocol_version, live.generation
    );
    Ok(Success {
        result: OpResult::Reconnected(crate::mcp::api::Reconnected {
            protocol_version: identity.protocol_version.clone(),
            generation: live.generation,
            server_name: identity
                .name
                .as_deref()
                .map(|n| crate::mcp::sanitize::sanitize_capped(n, 128)),
        }),
        text,
        spills: Vec::new(),
    })
}

/// A token cancelled when either `a` or `b` is.
pub(super) fn combine(a: &CancellationToken, b: &CancellationToken) -> CancellationToken {
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

/// The model-visible status text.
pub(super) fn status_text(status: &StatusReport) -> String {
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
    text
}
