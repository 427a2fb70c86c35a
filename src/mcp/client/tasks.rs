//! Tool calls as tasks (protocol 2025-11-25): `tools/call` with a `task` parameter returns a
//! task; mcpdeck polls `tasks/get` at the server's `pollInterval` (bounded), reports each status
//! change, fetches `tasks/result` once the task is done or needs input (the server delivers its
//! input requests on that stream), and sends `tasks/cancel` when the caller cancels.
//!
//! rmcp 3.11 models a later tasks design, so these requests go out as custom requests and the
//! answers are read as JSON; a field that rmcp's typed decoding dropped (`pollInterval` on a
//! working task) falls back to the last value seen. Status text is sanitised here.

use std::time::Duration;

use rmcp::model::{CallToolResult, ClientRequest, CustomRequest, ErrorCode, ServerResult};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use crate::mcp::catalog::PageLimits;
use crate::mcp::connection::{
    ConnectError, Connection, ErrorClass, MAX_TOTAL_CAP, RequestError, max_total_for,
};
use crate::mcp::sanitize::sanitize_capped;

/// How long a created task is asked to be kept.
pub(crate) const TASK_TTL_MS: u64 = 10 * 60 * 1000;
/// The poll interval when the server names none.
pub(crate) const DEFAULT_POLL: Duration = Duration::from_secs(1);
/// The fastest mcpdeck polls, whatever the server asks.
pub(crate) const MIN_POLL: Duration = Duration::from_millis(250);
/// The slowest mcpdeck polls, whatever the server asks.
pub(crate) const MAX_POLL: Duration = Duration::from_secs(5);

/// One task as `tasks/get` describes it (text sanitised).
#[derive(Debug, Clone, PartialEq)]
pub struct TaskState {
    /// The task id (raw: it is sent back).
    pub id: String,
    /// `working`, `input_required`, `completed`, `failed` or `cancelled`.
    pub status: String,
    /// The server's status message.
    pub message: Option<String>,
    /// The suggested poll interval.
    pub poll: Option<Duration>,
    /// Time to live, in milliseconds (`None`: unlimited or not said).
    pub ttl_ms: Option<u64>,
    /// When it was created (as the server wrote it, sanitised).
    pub created_at: Option<String>,
}

impl TaskState {
    /// Reads a task object (`{"taskId": …}` or `{"task": {…}}`).
    pub fn from_value(value: &Value) -> Option<Self> {
        let task = value.get("task").filter(|t| t.is_object()).unwrap_or(value);
        let id = task.get("taskId")?.as_str()?.to_owned();
        let text = |k: &str, cap: usize| {
            task.get(k)
                .and_then(Value::as_str)
                .map(|s| sanitize_capped(s, cap))
        };
        let number = |keys: &[&str]| {
            keys.iter()
                .find_map(|k| task.get(*k).and_then(Value::as_u64))
        };
        Some(Self {
            id,
            status: text("status", 32).unwrap_or_else(|| "working".to_owned()),
            message: text("statusMessage", 512),
            poll: number(&["pollInterval", "pollIntervalMs"]).map(Duration::from_millis),
            ttl_ms: number(&["ttl", "ttlMs"]),
            created_at: text("createdAt", 64),
        })
    }

    /// Whether the task reached an end.
    pub fn is_terminal(&self) -> bool {
        matches!(self.status.as_str(), "completed" | "failed" | "cancelled")
    }
}

/// Whether a `tools/call` error says the tool must run as a task (the server refused the call
/// before running it). rmcp 3.11 drops `execution.taskSupport` from listings, so this refusal
/// is how mcpdeck learns it.
pub(crate) fn requires_task(error: &ConnectError) -> bool {
    matches!(error.class, ErrorClass::ServerError { code } if code == ErrorCode::METHOD_NOT_FOUND.0)
        && error.message.contains("task augmentation")
}

/// The same refusal as a tool result (servers that report every tools/call error as
/// `isError`): one short text block naming task augmentation.
pub(crate) fn result_requires_task(result: &CallToolResult) -> bool {
    result.is_error == Some(true)
        && result.content.len() == 1
        && result.content[0]
            .as_text()
            .is_some_and(|t| t.text.len() < 512 && t.text.contains("requires task augmentation"))
}

fn protocol(message: impl Into<String>) -> RequestError {
    ConnectError::new(ErrorClass::Protocol, message)
}

fn custom(method: &str, params: Value) -> ClientRequest {
    ClientRequest::CustomRequest(CustomRequest::new(method.to_owned(), Some(params)))
}

fn as_value(result: &ServerResult) -> Value {
    serde_json::to_value(result).unwrap_or(Value::Null)
}

/// A tool call to run as a task.
pub(crate) struct TaskCall<'a> {
    /// The tool.
    pub tool: &'a str,
    /// Its arguments.
    pub args: Map<String, Value>,
    /// The operator's `_meta` entries, if any.
    pub meta: Option<&'a Map<String, Value>>,
    /// How long the task is followed (`taskTimeoutMs`, `--task-timeout`); the task's own
    /// `ttl` ends it sooner when shorter.
    pub deadline: Duration,
}

/// Runs a tool as a task and returns its final result. `note` hears every status change.
pub(crate) async fn call_as_task(
    conn: &Connection,
    call: TaskCall<'_>,
    cancel: &CancellationToken,
    note: &(dyn Fn(&str) + Send + Sync),
) -> Result<CallToolResult, RequestError> {
    let TaskCall {
        tool,
        args,
        meta,
        deadline,
    } = call;
    let started = tokio::time::Instant::now();
    let timeout = conn.request_timeout();
    let mut params = json!({"name": tool, "arguments": args, "task": {"ttl": TASK_TTL_MS}});
    if let Some(meta) = meta {
        params["_meta"] = Value::Object(meta.clone());
    }
    let created = conn
        .request_cancellable(
            custom("tools/call", params),
            timeout,
            max_total_for(timeout),
            cancel,
        )
        .await?;
    if let ServerResult::CallToolResult(result) = created {
        // The server ran it at once; that is its right.
        return Ok(result);
    }
    let Some(state) = TaskState::from_value(&as_value(&created)) else {
        return Err(protocol(
            "the server answered a task-augmented tools/call without a task",
        ));
    };
    note(&format!(
        "task {} {}",
        sanitize_capped(&state.id, 64),
        describe(&state)
    ));
    let state = follow(conn, state, (started, deadline), cancel, note).await?;
    if state.status == "cancelled" {
        return Err(ConnectError::new(
            ErrorClass::Cancelled,
            "the server cancelled the task",
        ));
    }
    let result = conn
        .request_cancellable(
            custom("tasks/result", json!({"taskId": state.id})),
            timeout,
            MAX_TOTAL_CAP,
            cancel,
        )
        .await;
    match result {
        Ok(ServerResult::CallToolResult(result)) => Ok(result),
        Ok(other) => serde_json::from_value(as_value(&other))
            .map_err(|_| protocol("tasks/result did not answer with a tool result")),
        Err(e) if e.class == ErrorClass::Cancelled => Err(cancel_task(conn, &state.id, note).await),
        Err(e) => Err(e),
    }
}

/// When following a task stops: `deadline` after `started`, or the task's `ttl` when that is
/// sooner; what it is, in words.
pub(crate) fn follow_until(
    (started, deadline): (tokio::time::Instant, Duration),
    ttl_ms: Option<u64>,
) -> (tokio::time::Instant, Duration, &'static str) {
    let ttl = ttl_ms.map(Duration::from_millis);
    match ttl {
        Some(ttl) if ttl < deadline => (started + ttl, ttl, "the task's ttl"),
        _ => (
            started + deadline,
            deadline,
            "the task timeout (taskTimeoutMs)",
        ),
    }
}

/// Polls the task until it ends or asks for input, at the interval the server suggests
/// (clamped); `note` hears each change. Cancelling, or passing the task's deadline (its
/// timeout or its `ttl`, whichever is sooner), sends `tasks/cancel`; the deadline is a
/// `timeout`.
async fn follow(
    conn: &Connection,
    mut state: TaskState,
    bound: (tokio::time::Instant, Duration),
    cancel: &CancellationToken,
    note: &(dyn Fn(&str) + Send + Sync),
) -> Result<TaskState, RequestError> {
    let mut poll = state.poll.unwrap_or(DEFAULT_POLL);
    while !state.is_terminal() && state.status != "input_required" {
        let (until, after, which) = follow_until(bound, state.ttl_ms);
        poll = state.poll.unwrap_or(poll).clamp(MIN_POLL, MAX_POLL);
        tokio::select! {
            () = tokio::time::sleep(poll) => {}
            () = tokio::time::sleep_until(until) => {
                let _ = cancel_task(conn, &state.id, note).await;
                let after_ms = u64::try_from(after.as_millis()).unwrap_or(u64::MAX);
                return Err(ConnectError::new(
                    ErrorClass::Timeout { after_ms },
                    format!(
                        "the task did not finish within {after_ms} ms ({which}); tasks/cancel \
                         was sent"
                    ),
                ));
            }
            () = cancel.cancelled() => return Err(cancel_task(conn, &state.id, note).await),
        }
        let next = poll_task(conn, &state.id, cancel, note).await?;
        if next.status != state.status || next.message != state.message {
            note(&format!(
                "task {} {}",
                sanitize_capped(&next.id, 64),
                describe(&next)
            ));
        }
        state = TaskState {
            poll: next.poll.or(state.poll),
            ..next
        };
    }
    Ok(state)
}

/// One `tasks/get`; cancelling it cancels the task.
async fn poll_task(
    conn: &Connection,
    id: &str,
    cancel: &CancellationToken,
    note: &(dyn Fn(&str) + Send + Sync),
) -> Result<TaskState, RequestError> {
    let timeout = conn.request_timeout();
    let got = conn
        .request_cancellable(
            custom("tasks/get", json!({"taskId": id})),
            timeout,
            max_total_for(timeout),
            cancel,
        )
        .await;
    let got = match got {
        Ok(got) => got,
        Err(e) if e.class == ErrorClass::Cancelled => {
            return Err(cancel_task(conn, id, note).await);
        }
        Err(e) => return Err(e),
    };
    TaskState::from_value(&as_value(&got))
        .ok_or_else(|| protocol("tasks/get answered without a task"))
}

fn describe(state: &TaskState) -> String {
    match &state.message {
        Some(m) => format!("{}: {m}", state.status),
        None => state.status.clone(),
    }
}

/// Sends `tasks/cancel` (bounded, whatever the caller's token says) and returns `cancelled`.
async fn cancel_task(
    conn: &Connection,
    id: &str,
    note: &(dyn Fn(&str) + Send + Sync),
) -> RequestError {
    let timeout = conn.request_timeout().min(Duration::from_secs(5));
    let sent = conn
        .request(
            custom("tasks/cancel", json!({"taskId": id})),
            timeout,
            timeout,
        )
        .await;
    crate::mcp::connection::task_cancelled(id, sent.is_ok(), note)
}

/// `tasks/list`: the server's tasks, within the bounds of a tool catalog
/// ([`PageLimits::TASKS`]: pages and entries; a page over the entry bound, or a listing over
/// the JSON value budget, is refused before it is decoded). A repeated cursor, one page too
/// many or one task too many ends the listing with `limit` naming the bound: a listing cut
/// short is never returned as if it were complete.
pub(crate) async fn list_tasks(conn: &Connection) -> Result<Vec<TaskState>, RequestError> {
    let limits = PageLimits::TASKS;
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut cursor: Option<String> = None;
    for page_number in 1..=limits.max_pages {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let page = as_value(&conn.request_default(custom("tasks/list", params)).await?);
        let tasks = page
            .get("tasks")
            .and_then(Value::as_array)
            .ok_or_else(|| protocol("tasks/list answered without tasks"))?;
        if out.len() + tasks.len() > limits.max_entries {
            return Err(task_limit(
                format!("{} tasks", limits.max_entries),
                &format!(
                    "the server lists more than {} tasks (page {page_number})",
                    limits.max_entries
                ),
            ));
        }
        out.extend(tasks.iter().filter_map(TaskState::from_value));
        let Some(next) = page.get("nextCursor").and_then(Value::as_str) else {
            return Ok(out);
        };
        if !seen.insert(next.to_owned()) {
            return Err(task_limit(
                "repeated cursor".to_owned(),
                &format!(
                    "the server repeated cursor `{}` on page {page_number}",
                    sanitize_capped(next, 64)
                ),
            ));
        }
        cursor = Some(next.to_owned());
    }
    Err(task_limit(
        format!("{} pages", limits.max_pages),
        &format!(
            "the server had more pages after {} (the listing is incomplete)",
            limits.max_pages
        ),
    ))
}

fn task_limit(bound: String, why: &str) -> RequestError {
    ConnectError::new(
        ErrorClass::Limit { bound },
        format!("tasks listing stopped: {why}"),
    )
}

/// One operator request about a task (`tasks/get`, `tasks/cancel`), answered as JSON.
async fn task_request(
    conn: &Connection,
    method: &str,
    id: &str,
    cancel: &CancellationToken,
) -> Result<Value, RequestError> {
    let timeout = conn.request_timeout();
    let got = conn
        .request_cancellable(
            custom(method, json!({"taskId": id})),
            timeout,
            max_total_for(timeout),
            cancel,
        )
        .await?;
    Ok(as_value(&got))
}

/// `tasks/get` for one task, sent by the operator.
pub(crate) async fn get_task(
    conn: &Connection,
    id: &str,
    cancel: &CancellationToken,
) -> Result<TaskState, RequestError> {
    let got = task_request(conn, "tasks/get", id, cancel).await?;
    TaskState::from_value(&got).ok_or_else(|| protocol("tasks/get answered without a task"))
}

/// `tasks/cancel` for one task, sent by the operator: the task as the server then describes it.
pub(crate) async fn cancel_task_by_id(
    conn: &Connection,
    id: &str,
    cancel: &CancellationToken,
) -> Result<TaskState, RequestError> {
    let got = task_request(conn, "tasks/cancel", id, cancel).await?;
    // Servers answer with the task; one that answers `{}` still cancelled it.
    Ok(TaskState::from_value(&got).unwrap_or_else(|| TaskState {
        id: id.to_owned(),
        status: "cancelled".to_owned(),
        message: None,
        poll: None,
        ttl_ms: None,
        created_at: None,
    }))
}

/// `tasks/result` for one task: blocks until the task is done (the server's rule), then its
/// tool result.
pub(crate) async fn task_result(
    conn: &Connection,
    id: &str,
    cancel: &CancellationToken,
) -> Result<CallToolResult, RequestError> {
    let timeout = conn.request_timeout();
    match conn
        .request_cancellable(
            custom("tasks/result", json!({"taskId": id})),
            timeout,
            MAX_TOTAL_CAP,
            cancel,
        )
        .await?
    {
        ServerResult::CallToolResult(result) => Ok(result),
        other => serde_json::from_value(as_value(&other))
            .map_err(|_| protocol("tasks/result did not answer with a tool result")),
    }
}

impl From<&TaskState> for crate::mcp::api::TaskInfo {
    fn from(state: &TaskState) -> Self {
        Self {
            task_id: sanitize_capped(&state.id, 128),
            status: state.status.clone(),
            status_message: state.message.clone(),
            created_at: state.created_at.clone(),
            ttl_ms: state.ttl_ms,
            poll_interval_ms: state
                .poll
                .map(|p| u64::try_from(p.as_millis()).unwrap_or(u64::MAX)),
            last_updated_at: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_task_shapes_are_read() {
        let created = json!({"task": {"taskId": "t1", "status": "working", "ttl": 300_000, "pollInterval": 1000, "createdAt": "2026-01-01T00:00:00Z"}});
        let state = TaskState::from_value(&created).expect("task");
        assert_eq!(state.id, "t1");
        assert_eq!(state.poll, Some(Duration::from_secs(1)));
        assert_eq!(state.ttl_ms, Some(300_000));
        assert!(!state.is_terminal());
        let later = json!({"taskId": "t1", "status": "completed", "statusMessage": "done\u{1b}[2J", "ttlMs": null});
        let state = TaskState::from_value(&later).expect("task");
        assert!(state.is_terminal());
        assert_eq!(state.poll, None);
        assert!(!state.message.expect("message").contains('\u{1b}'));
        assert_eq!(TaskState::from_value(&json!({"content": []})), None);
    }

    #[test]
    fn the_task_refusal_is_recognised() {
        let refusal = ConnectError::new(
            ErrorClass::ServerError { code: -32601 },
            "the server refused: Tool x requires task augmentation (taskSupport: 'required')",
        );
        assert!(requires_task(&refusal));
        let other = ConnectError::new(ErrorClass::ServerError { code: -32601 }, "no such tool");
        assert!(!requires_task(&other));
    }
}
