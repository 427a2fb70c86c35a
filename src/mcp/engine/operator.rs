//! The operator's own operations, which agents never get: a ping, a call with the operator's
//! options, a read by URI, argument completion, reading a resource template with values,
//! resource subscriptions, the server's tasks (list, get, cancel, result), the log level, and
//! the session controls (roots, disconnect; run in `session`). Each returns a typed [`Success`] whose strings are
//! sanitised; none of them is retried.

// `resources/subscribe` is legacy-only in rmcp 3.11 (2026-07-28 has `subscriptions/listen`), and
// legacy is what 2025-11-25 servers speak.
#![allow(deprecated)]

use crate::mcp::connection::{Connection, ErrorClass};
use std::collections::BTreeMap;
use std::fmt::Write as _;

use rmcp::model::{
    ArgumentInfo, ClientRequest, CompleteRequest, CompleteRequestParams, CompletionContext,
    Reference, ServerResult, SubscribeRequest, SubscribeRequestParams, UnsubscribeRequest,
    UnsubscribeRequestParams,
};

use super::ops::OpContext;
use super::outcome::{Failure, Success};
use crate::mcp::api::{Completion, OpResult, Subscription, TaskInfo, TaskList};
use crate::mcp::catalog::uri_template::{self, VarValue};
use crate::mcp::sanitize::sanitize_capped;

/// What a completion is for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CompletionTarget {
    /// A prompt's argument (`ref/prompt`).
    Prompt(String),
    /// A resource template's variable (`ref/resource`), by its name or its URI template.
    Template(String),
}

/// A tool call's arguments as the operator gives them.
#[derive(Debug, Clone, PartialEq)]
pub enum CallArgs {
    /// A JSON object, sent as given (the console's call form checks it against the schema).
    Given(serde_json::Map<String, serde_json::Value>),
    /// The CLI's words (`key=value`, `key:=JSON`, or one JSON object), typed by the tool's
    /// input schema ([`crate::mcp::arguments::ToolArguments`]). `checked` also checks them
    /// against it and refuses a value its types do not fit; unchecked (`--no-validate`) they are
    /// sent as typed and the server decides.
    Words {
        /// The words.
        words: Vec<String>,
        /// Check them against the schema before anything is sent.
        checked: bool,
    },
}

/// One operator operation on one server (an [`crate::mcp::engine::EngineRequest::Operator`]).
#[derive(Debug, Clone, PartialEq)]
pub enum OperatorOp {
    /// `ping`: the round trip (connecting if needed).
    Ping,
    /// `tools/call` with the operator's arguments and options (as a task, `_meta` entries).
    Call {
        /// The tool.
        tool: String,
        /// Its arguments.
        args: CallArgs,
        /// As a task, `_meta` entries.
        options: super::CallOptions,
    },
    /// `resources/read` of a URI (the operator's read; agents read by opaque reference).
    ReadUri {
        /// The URI.
        uri: String,
    },
    /// `completion/complete` for `argument` whose text so far is `value`; `context` holds the
    /// arguments already filled.
    Complete {
        /// The prompt or template.
        target: CompletionTarget,
        /// The argument or variable completed.
        argument: String,
        /// What is typed so far.
        value: String,
        /// Earlier arguments.
        context: BTreeMap<String, String>,
    },
    /// Lists the resource templates with their URI templates and variables.
    Templates,
    /// Reads the template named `template` (its name or its URI template) expanded with
    /// `values`.
    ReadTemplate {
        /// The template's name or URI template.
        template: String,
        /// The variables' values.
        values: BTreeMap<String, VarValue>,
    },
    /// `resources/subscribe`.
    Subscribe {
        /// The resource URI.
        uri: String,
    },
    /// `resources/unsubscribe`.
    Unsubscribe {
        /// The resource URI.
        uri: String,
    },
    /// `tasks/list`.
    TasksList,
    /// `tasks/get`.
    TaskGet {
        /// The task id.
        id: String,
    },
    /// `tasks/cancel`.
    TaskCancel {
        /// The task id.
        id: String,
    },
    /// `tasks/result` (waits until the task ends).
    TaskResult {
        /// The task id.
        id: String,
    },
    /// Every definition through the poisoning scan (`mcpdeck scan`).
    Scan,
    /// Every definition against its pins across restarts; `accept` makes them the pins.
    Pins {
        /// Accept the listing as the pins.
        accept: bool,
    },
    /// Every definition against pins read from a file (`mcpdeck pins check`).
    CheckPins {
        /// The server's pins by entry key.
        pins: std::collections::BTreeMap<String, crate::mcp::pins::Pin>,
    },
    /// `logging/setLevel`.
    SetLogLevel {
        /// `debug` … `emergency`.
        level: String,
    },
    /// The tokens each tool definition costs an agent's context (`tools --cost`).
    ToolCosts,
    /// The roots the server is shown this session.
    Roots,
    /// Adds the directory `path` (relative paths against the project directory) to the roots
    /// for the session.
    AddRoot {
        /// The directory.
        path: String,
    },
    /// Removes the root with `uri` from the roots for the session.
    RemoveRoot {
        /// The root's URI.
        uri: String,
    },
    /// Closes the server's connection (its process ends); the others stay connected.
    Disconnect,
    /// `skills/list`, every page (the skills extension); no skill file is read.
    Skills,
    /// One skill's entry (by name from the listing, or by URI through `skills/get`), its
    /// `SKILL.md` and the named files, each verified against the entry.
    Skill {
        /// The skill's name or the URI of its `SKILL.md`.
        name: String,
        /// Further files to read, by path inside the skill or URI.
        files: Vec<String>,
    },
}

impl OperatorOp {
    /// The operation's name in outcomes and the trace.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Ping => "ping",
            Self::Call { .. } => "tools.call",
            Self::ReadUri { .. } | Self::ReadTemplate { .. } => "resources.read",
            Self::Roots => "roots.list",
            Self::AddRoot { .. } | Self::RemoveRoot { .. } => "roots.set",
            Self::Disconnect => "disconnect",
            Self::Complete { .. } => "completion.complete",
            Self::Templates => "resources.templates",
            Self::Subscribe { .. } => "resources.subscribe",
            Self::Unsubscribe { .. } => "resources.unsubscribe",
            Self::TasksList => "tasks.list",
            Self::TaskGet { .. } => "tasks.get",
            Self::TaskCancel { .. } => "tasks.cancel",
            Self::TaskResult { .. } => "tasks.result",
            Self::SetLogLevel { .. } => "logging.setLevel",
            Self::ToolCosts => "tools.cost",
            Self::Scan => "scan",
            Self::Pins { .. } => "pins",
            Self::CheckPins { .. } => "pins.check",
            Self::Skills => "skills.list",
            Self::Skill { .. } => "skills.get",
        }
    }
}

fn unexpected(what: &str) -> Failure {
    Failure::new(
        ErrorClass::Protocol,
        format!("the server answered {what} with an unexpected result type"),
    )
}

/// Refuses an operation on a capability the server did not declare, before anything is sent.
fn not_offered(ctx: &OpContext<'_>, what: &str) -> Failure {
    Failure::new(
        ErrorClass::NotSupported,
        format!(
            "{} does not offer {what} (it did not declare the capability; nothing was sent)",
            sanitize_capped(&ctx.slot.name, 128)
        ),
    )
}

/// `completion/complete`.
pub(super) async fn complete(
    ctx: &OpContext<'_>,
    target: &CompletionTarget,
    argument: &str,
    value: &str,
    context: &BTreeMap<String, String>,
) -> Result<Success, Failure> {
    let offered = {
        let conn = ctx.live.conn.read().await;
        conn.identity().capabilities.completions.is_some()
    };
    if !offered {
        return Err(not_offered(ctx, "completions"));
    }
    let reference = match target {
        CompletionTarget::Prompt(name) => Reference::for_prompt(name.clone()),
        // A listed template by name or URI template; an unlisted URI template as given.
        CompletionTarget::Template(template) => match find_template(ctx, template).await {
            Ok(uri_template) => Reference::for_resource(uri_template),
            Err(_) if template.contains('{') => Reference::for_resource(template.clone()),
            Err(e) => return Err(e),
        },
    };
    let conn = ctx.live.conn.read().await;
    let mut params = CompleteRequestParams::new(reference, ArgumentInfo::new(argument, value));
    if !context.is_empty() {
        params = params.with_context(CompletionContext::with_arguments(
            context
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        ));
    }
    let request = ClientRequest::CompleteRequest(CompleteRequest::new(params));
    let ServerResult::CompleteResult(result) = ctx.request(&conn, request).await? else {
        return Err(unexpected("completion/complete"));
    };
    drop(conn);
    let info = result.completion;
    // The protocol caps a response at 100 values; a server that sends more is cut there.
    let values: Vec<String> = info
        .values
        .iter()
        .take(rmcp::model::CompletionInfo::MAX_VALUES)
        .map(|v| sanitize_capped(v, 200))
        .collect();
    let has_more = info.has_more.unwrap_or(false) || info.values.len() > values.len();
    let argument = sanitize_capped(argument, 128);
    let noun = if values.len() == 1 {
        "suggestion"
    } else {
        "suggestions"
    };
    let mut text = format!("{} {noun} for {argument}", values.len());
    if let Some(total) = info.total {
        let _ = write!(text, " (of {total})");
    } else if has_more {
        text.push_str(" (more exist)");
    }
    text.push_str(":\n");
    for v in &values {
        let _ = writeln!(text, "{v}");
    }
    Ok(Success {
        result: OpResult::Completion(Completion {
            argument,
            values,
            total: info.total,
            has_more,
        }),
        text,
        spills: Vec::new(),
    })
}

/// The URI template named `template` (its name or its URI template) in the server's listing.
pub(super) async fn find_template(ctx: &OpContext<'_>, template: &str) -> Result<String, Failure> {
    let listing = super::ops::resource_listing(ctx).await?;
    let found = listing
        .templates
        .iter()
        .find(|t| t.uri_template == template)
        .or_else(|| listing.templates.iter().find(|t| t.name == template));
    let Some(found) = found else {
        let names: Vec<String> = listing
            .templates
            .iter()
            .take(20)
            .map(|t| sanitize_capped(&t.name, 128))
            .collect();
        return Err(Failure::invalid(format!(
            "no resource template `{}` on {}; templates: {}",
            sanitize_capped(template, 200),
            ctx.slot.name,
            if names.is_empty() {
                "none".to_owned()
            } else {
                names.join(", ")
            }
        )));
    };
    Ok(found.uri_template.clone())
}

/// Expands the template named `template` with `values`: the URI to read.
pub(super) async fn expand_template(
    ctx: &OpContext<'_>,
    template: &str,
    values: &BTreeMap<String, VarValue>,
) -> Result<String, Failure> {
    let uri_template = find_template(ctx, template).await?;
    uri_template::expand(&uri_template, values).map_err(Failure::invalid)
}

/// `resources/subscribe` or `resources/unsubscribe` of a URI, or of a listed resource by its
/// opaque reference (the result then names its URI).
pub(super) async fn subscription(
    ctx: &OpContext<'_>,
    uri: &str,
    subscribe: bool,
) -> Result<Success, Failure> {
    let resolved;
    let uri = if crate::mcp::results::refs::is_resource_reference(uri) {
        let refs = ctx
            .live
            .refs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        resolved = refs
            .resolve(ctx.live.generation, uri)
            .map(str::to_owned)
            .map_err(|e| Failure::new(ErrorClass::StaleReference, e.to_string()))?;
        resolved.as_str()
    } else {
        uri
    };
    let conn = ctx.live.conn.read().await;
    let declared = conn
        .identity()
        .capabilities
        .resources
        .as_ref()
        .and_then(|r| r.subscribe)
        .unwrap_or(false);
    if !declared {
        return Err(not_offered(ctx, "resource subscriptions"));
    }
    if conn.is_modern() {
        // 2026-07-28 has no resources/subscribe: the session's one listen names every URI.
        conn.listen_resource(uri, subscribe)
            .await
            .map_err(|e| ctx.request_failure(&e))?;
        return Ok(subscribed(ctx, uri, subscribe));
    }
    let request = if subscribe {
        ClientRequest::SubscribeRequest(SubscribeRequest::new(SubscribeRequestParams::new(uri)))
    } else {
        ClientRequest::UnsubscribeRequest(UnsubscribeRequest::new(UnsubscribeRequestParams::new(
            uri,
        )))
    };
    match ctx.request(&conn, request).await? {
        ServerResult::EmptyResult(_) => {}
        // Some servers answer `{}` that rmcp reads as another empty shape.
        other if serde_json::to_value(&other).is_ok_and(|v| v.as_object().is_some()) => {}
        _ => return Err(unexpected("resources/subscribe")),
    }
    Ok(subscribed(ctx, uri, subscribe))
}

fn subscribed(ctx: &OpContext<'_>, uri: &str, subscribe: bool) -> Success {
    let shown = sanitize_capped(uri, 512);
    Success {
        text: format!(
            "{} {shown} on {}\n",
            if subscribe {
                "subscribed to"
            } else {
                "unsubscribed from"
            },
            ctx.slot.name
        ),
        result: OpResult::Subscription(Subscription {
            uri: shown,
            subscribed: subscribe,
            updates: 0,
        }),
        spills: Vec::new(),
    }
}

fn task_line(task: &TaskInfo) -> String {
    let mut line = format!("{} {}", task.task_id, task.status);
    if let Some(message) = &task.status_message {
        let _ = write!(line, ": {message}");
    }
    if let Some(created) = &task.created_at {
        let _ = write!(line, " (created {created}");
        match task.ttl_ms {
            Some(ttl) => {
                let _ = write!(line, ", kept {} s)", ttl / 1000);
            }
            None => line.push(')'),
        }
    }
    line
}

fn task_failure(ctx: &OpContext<'_>, e: &crate::mcp::connection::RequestError) -> Failure {
    // A server without tasks answers "method not found": say so plainly.
    if matches!(e.class, ErrorClass::ServerError { code } if code == rmcp::model::ErrorCode::METHOD_NOT_FOUND.0)
    {
        return not_offered(ctx, "tasks");
    }
    ctx.request_failure(e)
}

/// The refusal of `tasks/list` and `tasks/result` on a 2026 session, before anything is sent:
/// the tasks extension has neither (a task is followed on the call that created it).
fn not_in_extension(ctx: &OpContext<'_>, conn: &Connection, method: &str) -> Option<Failure> {
    conn.is_modern().then(|| {
        Failure::new(
            ErrorClass::NotSupported,
            format!(
                "{}: no {method} in protocol {}'s tasks extension; mcpdeck follows each task \
                 on the call that created it, until it ends (nothing was sent)",
                sanitize_capped(&ctx.slot.name, 128),
                sanitize_capped(conn.protocol_version(), 32)
            ),
        )
    })
}

/// `tasks/list`.
pub(super) async fn list_tasks(ctx: &OpContext<'_>) -> Result<Success, Failure> {
    let conn = ctx.live.conn.read().await;
    if let Some(refusal) = not_in_extension(ctx, &conn, "tasks/list") {
        return Err(refusal);
    }
    let tasks = crate::mcp::client::tasks::list_tasks(&conn)
        .await
        .map_err(|e| task_failure(ctx, &e))?;
    drop(conn);
    let tasks: Vec<TaskInfo> = tasks.iter().map(TaskInfo::from).collect();
    let mut text = super::ops::heading(
        tasks.len(),
        ("task", "tasks"),
        &format!("on {}", ctx.slot.name),
    );
    for task in &tasks {
        let _ = writeln!(text, "- {}", task_line(task));
    }
    Ok(Success {
        result: OpResult::Tasks(TaskList { tasks }),
        text,
        spills: Vec::new(),
    })
}

/// `tasks/get` or `tasks/cancel`.
pub(super) async fn task(
    ctx: &OpContext<'_>,
    id: &str,
    cancel_it: bool,
) -> Result<Success, Failure> {
    let conn = ctx.live.conn.read().await;
    if cancel_it && conn.is_modern() {
        return Ok(cancel_modern(&conn, id).await);
    }
    let state = if cancel_it {
        crate::mcp::client::tasks::cancel_task_by_id(&conn, id, ctx.cancel).await
    } else {
        crate::mcp::client::tasks::get_task(&conn, id, ctx.cancel).await
    }
    .map_err(|e| task_failure(ctx, &e))?;
    drop(conn);
    let info = TaskInfo::from(&state);
    Ok(Success {
        text: format!("{}\n", task_line(&info)),
        result: OpResult::Task(info),
        spills: Vec::new(),
    })
}

/// `tasks/cancel` on a 2026 session: the tasks extension's typed request, whose answer is an
/// acknowledgement only (the task's status shows on its next poll).
async fn cancel_modern(conn: &Connection, id: &str) -> Success {
    let accepted = conn.cancel_task(id).await;
    let shown = sanitize_capped(id, 128);
    let how = if accepted {
        "acknowledged"
    } else {
        "sent, not acknowledged"
    };
    let info = TaskInfo {
        task_id: shown.clone(),
        status: "cancel_requested".to_owned(),
        status_message: None,
        created_at: None,
        ttl_ms: None,
        poll_interval_ms: None,
        last_updated_at: None,
    };
    Success {
        text: format!("tasks/cancel for task {shown} {how}; its status shows on its next poll\n"),
        result: OpResult::Task(info),
        spills: Vec::new(),
    }
}

/// `tasks/result`: the task's tool result, shaped like a call's.
pub(super) async fn task_result(ctx: &OpContext<'_>, id: &str) -> Result<Success, Failure> {
    let conn = ctx.live.conn.read().await;
    if let Some(refusal) = not_in_extension(ctx, &conn, "tasks/result") {
        return Err(refusal);
    }
    let result = crate::mcp::client::tasks::task_result(&conn, id, ctx.cancel)
        .await
        .map_err(|e| task_failure(ctx, &e))?;
    drop(conn);
    super::ops::shape_call(
        ctx,
        &format!("task {}", sanitize_capped(id, 64)),
        &result,
        None,
        None,
    )
}

/// `logging/setLevel`, refused before anything is sent when the server declared no logging.
pub(super) async fn set_log_level(ctx: &OpContext<'_>, level: &str) -> Result<Success, Failure> {
    let Some(level) = crate::mcp::client::parse_level(level) else {
        return Err(Failure::invalid(format!(
            "`{}` is not a log level (debug, info, notice, warning, error, critical, alert, emergency)",
            sanitize_capped(level, 32)
        )));
    };
    let conn = ctx.live.conn.read().await;
    // A 2026 session asks per request, whether or not the server declared logging.
    if conn.identity().capabilities.logging.is_none() && !conn.is_modern() {
        return Err(not_offered(ctx, "log levels"));
    }
    if let Some(problem) = conn.set_log_level(&level).await {
        return Err(Failure::new(
            ErrorClass::Protocol,
            format!(
                "logging/setLevel failed: {}",
                sanitize_capped(&problem, 512)
            ),
        ));
    }
    ctx.slot.remember_log_level(&level);
    Ok(Success {
        text: format!(
            "{} now sends log messages from {level} up",
            sanitize_capped(&ctx.slot.name, 128)
        ),
        result: OpResult::LogLevel(crate::mcp::api::LogLevelSet { level }),
        spills: Vec::new(),
    })
}
