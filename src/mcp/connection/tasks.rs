//! The tasks extension of protocol 2026-07-28 (`io.modelcontextprotocol/tasks`).
//!
//! mcpdeck declares the extension on every request (rmcp puts the declared capabilities in each
//! request's `_meta`), so a server that advertises it too may answer `tools/call` with
//! `resultType: "task"`: a task handle instead of the result. The call then becomes a task loop
//! beside the input-required rounds (`rounds`): `tasks/get` at the server's `pollIntervalMs`
//! (clamped to [`MIN_POLL`]..[`MAX_POLL`], [`DEFAULT_POLL`] when it names none) until the task
//! is `completed` (its inlined result is the call's), `failed` (its inlined JSON-RPC error) or
//! `cancelled`. A task that is `input_required` lists input requests; each key is answered once
//! (a key seen again on a later poll is not asked again) through the same path as an MRTR
//! round's, and the answers go back in `tasks/update`; at most [`MAX_INPUT_ROUNDS`] updates per
//! task. Cancelling sends `tasks/cancel` — never `notifications/cancelled`, which the extension
//! forbids for tasks: the polls run under their own tokens, so cancelling the operation never
//! cancels a poll's request. There is no `tasks/list` and no `tasks/result` in this extension.
//! A task handle from a server that did not advertise the extension, or for anything but
//! `tools/call`, is refused as invalid (`rounds::check_result_type`).

use std::collections::BTreeSet;
use std::future::Future;
use std::time::Duration;

use rmcp::model::{
    CallToolResult, CancelTaskParams, CancelTaskRequest, ClientRequest, DetailedTask,
    GetTaskParams, GetTaskRequest, InputRequests, InputResponses, NumberOrString, ProgressToken,
    ServerResult, TASKS_EXTENSION_ID, Task, TaskPayload, TaskStatus, UpdateTaskParams,
    UpdateTaskRequest,
};
use tokio_util::sync::CancellationToken;

use crate::mcp::client::tasks::{DEFAULT_POLL, MAX_POLL, MIN_POLL};

use super::error::{ConnectError, ErrorClass, RequestError};
use super::events::ConnectionEvent;
use super::{Connection, MAX_INPUT_ROUNDS, max_total_for};
use crate::mcp::sanitize::sanitize_capped;

/// The longest `tasks/cancel` is waited for.
const CANCEL_BOUND: Duration = Duration::from_secs(5);

impl Connection {
    /// Whether a task handle may come back: the server advertised the tasks extension (mcpdeck
    /// declares it on every request of a 2026 session).
    pub fn tasks_negotiated(&self) -> bool {
        self.identity
            .capabilities
            .extensions
            .as_ref()
            .is_some_and(|e| e.contains_key(TASKS_EXTENSION_ID))
    }

    /// Follows the task a `tools/call` answered with until it ends, and returns the call's
    /// result. `deadline` bounds the whole task (its `ttlMs` ends it sooner when shorter);
    /// passing it, or cancelling `cancel`, sends `tasks/cancel`. `note` hears the task's id
    /// and each change of its status.
    pub async fn follow_task(
        &self,
        created: Task,
        deadline: Duration,
        cancel: &CancellationToken,
        note: &(dyn Fn(&str) + Send + Sync),
    ) -> Result<CallToolResult, RequestError> {
        // The running call shows the task's state as a progress report (the console's bar).
        let changes = std::sync::atomic::AtomicU32::new(0);
        let report = |text: &str| {
            note(text);
            let n = changes.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            self.sink.emit(ConnectionEvent::Progress {
                token: ProgressToken(NumberOrString::String("mcpdeck-task".into())),
                progress: f64::from(n),
                total: None,
                message: Some(text.to_owned()),
            });
        };
        let end = follow(self, created, deadline, cancel, &report).await?;
        finished(end, &self.redactor)
    }
}

/// What the task loop needs from a connection (a trait, so the loop's timing can be tested
/// with a paused clock).
pub(crate) trait TaskPeer: Sync {
    /// One `tasks/get`.
    fn get(&self, id: &str) -> impl Future<Output = Result<DetailedTask, RequestError>> + Send;
    /// One `tasks/update` with `responses`.
    fn update(
        &self,
        id: &str,
        responses: InputResponses,
    ) -> impl Future<Output = Result<(), RequestError>> + Send;
    /// One `tasks/cancel` (bounded; its failure is only reported).
    fn cancel(&self, id: &str) -> impl Future<Output = bool> + Send;
    /// Answers input requests through the face (the MRTR path).
    fn answer(
        &self,
        requests: &InputRequests,
        cancel: &CancellationToken,
    ) -> impl Future<Output = Result<InputResponses, RequestError>> + Send;
}

impl TaskPeer for Connection {
    async fn get(&self, id: &str) -> Result<DetailedTask, RequestError> {
        let request = ClientRequest::GetTaskRequest(GetTaskRequest::new(GetTaskParams::new(id)));
        super::task_handle::detailed(self.task_request(request).await?)
    }

    async fn update(&self, id: &str, responses: InputResponses) -> Result<(), RequestError> {
        let params = UpdateTaskParams::new(id, responses);
        let request = ClientRequest::UpdateTaskRequest(UpdateTaskRequest::new(params));
        self.task_request(request).await.map(|_| ())
    }

    async fn cancel(&self, id: &str) -> bool {
        let request =
            ClientRequest::CancelTaskRequest(CancelTaskRequest::new(CancelTaskParams::new(id)));
        let timeout = self.request_timeout.min(CANCEL_BOUND);
        self.request(request, timeout, timeout).await.is_ok()
    }

    async fn answer(
        &self,
        requests: &InputRequests,
        cancel: &CancellationToken,
    ) -> Result<InputResponses, RequestError> {
        self.answer_inputs(Some(requests), cancel).await
    }
}

impl Connection {
    /// A task method, under its own token: cancelling the operation must not send
    /// `notifications/cancelled` for it.
    async fn task_request(&self, request: ClientRequest) -> Result<ServerResult, RequestError> {
        let timeout = self.request_timeout;
        self.request(request, timeout, max_total_for(timeout)).await
    }
}

/// The poll interval for a task that suggests `suggested` ms (or nothing: `last`).
pub(crate) fn poll_interval(suggested: Option<u64>, last: Duration) -> Duration {
    suggested
        .map_or(last, Duration::from_millis)
        .clamp(MIN_POLL, MAX_POLL)
}

/// Polls the task until it ends; returns it in its terminal state.
pub(crate) async fn follow<P: TaskPeer>(
    peer: &P,
    created: Task,
    deadline: Duration,
    cancel: &CancellationToken,
    note: &(dyn Fn(&str) + Send + Sync),
) -> Result<DetailedTask, RequestError> {
    let started = tokio::time::Instant::now();
    let id = created.task_id.clone();
    let shown = sanitize_capped(&id, 64);
    note(&format!("runs as task {shown}: {}", describe(&created)));
    let mut last = created;
    let mut poll = poll_interval(last.poll_interval_ms, DEFAULT_POLL);
    let mut answered = BTreeSet::new();
    let mut updates = 0;
    loop {
        let (until, after, which) =
            crate::mcp::client::tasks::follow_until((started, deadline), last.ttl_ms);
        let step = async {
            tokio::time::sleep(poll).await;
            peer.get(&id).await
        };
        let task = tokio::select! {
            got = step => got?,
            () = tokio::time::sleep_until(until) => {
                let how = cancel_note(peer.cancel(&id).await);
                let after_ms = u64::try_from(after.as_millis()).unwrap_or(u64::MAX);
                return Err(ConnectError::new(
                    ErrorClass::Timeout { after_ms },
                    format!("task {shown} did not finish within {after_ms} ms ({which}); {how}"),
                ));
            }
            () = cancel.cancelled() => return Err(cancelled(peer, &id, note).await),
        };
        if task.task.task_id != id {
            return Err(protocol("tasks/get answered with another task"));
        }
        if task.task.status != last.status || task.task.status_message != last.status_message {
            note(&format!("task {shown} {}", describe(&task.task)));
        }
        poll = poll_interval(task.task.poll_interval_ms, poll);
        last.clone_from(&task.task);
        let TaskPayload::InputRequired { input_requests } = &task.payload else {
            if task.status().is_terminal() {
                return Ok(task);
            }
            continue;
        };
        answer_fresh(
            peer,
            (id.as_str(), input_requests),
            &mut answered,
            &mut updates,
            cancel,
            note,
        )
        .await?;
    }
}

/// Answers the input requests of an `input_required` task that were not answered before, and
/// sends the answers in `tasks/update`. A refusal or a failure to answer ends the task.
async fn answer_fresh<P: TaskPeer>(
    peer: &P,
    (id, asked): (&str, &InputRequests),
    answered: &mut BTreeSet<String>,
    updates: &mut u32,
    cancel: &CancellationToken,
    note: &(dyn Fn(&str) + Send + Sync),
) -> Result<(), RequestError> {
    let fresh: InputRequests = asked
        .iter()
        .filter(|(key, _)| !answered.contains(*key))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    if fresh.is_empty() {
        return Ok(());
    }
    if *updates == MAX_INPUT_ROUNDS {
        let _ = peer.cancel(id).await;
        return Err(super::rounds::too_many_rounds());
    }
    *updates += 1;
    let responses = tokio::select! {
        r = peer.answer(&fresh, cancel) => r,
        () = cancel.cancelled() => return Err(cancelled(peer, id, note).await),
    };
    let responses = match responses {
        Ok(r) => r,
        Err(e) => {
            let how = cancel_note(peer.cancel(id).await);
            return Err(ConnectError::new(e.class, format!("{}; {how}", e.message)));
        }
    };
    answered.extend(fresh.into_keys());
    peer.update(id, responses).await
}

/// The call's result from a task that ended.
fn finished(
    task: DetailedTask,
    redactor: &super::Redactor,
) -> Result<CallToolResult, RequestError> {
    match task.payload {
        TaskPayload::Completed { result } => {
            serde_json::from_value(serde_json::Value::Object(result))
                .map_err(|_| protocol("the completed task's result is not a tool result"))
        }
        TaskPayload::Failed { error } => {
            let code = error
                .get("code")
                .and_then(serde_json::Value::as_i64)
                .and_then(|c| i32::try_from(c).ok())
                .unwrap_or(rmcp::model::ErrorCode::INTERNAL_ERROR.0);
            let message = error
                .get("message")
                .and_then(serde_json::Value::as_str)
                .unwrap_or("no message");
            Err(ConnectError::new(
                ErrorClass::ServerError { code },
                format!(
                    "the task failed: {}",
                    super::error::clean(redactor, &sanitize_capped(message, 512))
                ),
            ))
        }
        _ => Err(ConnectError::new(
            ErrorClass::Cancelled,
            "the server cancelled the task",
        )),
    }
}

/// `status` or `status: message`, sanitised.
fn describe(task: &Task) -> String {
    let status = match task.status {
        TaskStatus::Working => "working",
        TaskStatus::InputRequired => "input_required",
        TaskStatus::Completed => "completed",
        TaskStatus::Failed => "failed",
        TaskStatus::Cancelled => "cancelled",
        _ => "in an unknown state",
    };
    match &task.status_message {
        Some(m) => format!("{status}: {}", sanitize_capped(m, 512)),
        None => status.to_owned(),
    }
}

fn cancel_note(accepted: bool) -> &'static str {
    if accepted {
        "tasks/cancel was sent and accepted"
    } else {
        "tasks/cancel was sent"
    }
}

/// Sends `tasks/cancel` for an operation the caller cancelled, and says so.
async fn cancelled<P: TaskPeer>(
    peer: &P,
    id: &str,
    note: &(dyn Fn(&str) + Send + Sync),
) -> RequestError {
    task_cancelled(id, peer.cancel(id).await, note)
}

/// The failure of a task the caller cancelled, once `tasks/cancel` was sent (`accepted`: the
/// server answered it), told to `note` as well; both eras' task loops end with it.
pub(crate) fn task_cancelled(
    id: &str,
    accepted: bool,
    note: &(dyn Fn(&str) + Send + Sync),
) -> RequestError {
    let how = cancel_note(accepted);
    note(&format!(
        "task {} cancelled: {how}",
        sanitize_capped(id, 64)
    ));
    ConnectError::new(
        ErrorClass::Cancelled,
        format!("the request was cancelled; {how}"),
    )
}

fn protocol(message: &str) -> RequestError {
    ConnectError::new(ErrorClass::Protocol, message)
}

#[cfg(test)]
#[path = "tasks_tests.rs"]
mod tests;
