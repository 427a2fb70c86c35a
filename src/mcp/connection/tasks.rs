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
//! A `notifications/tasks` push (the whole task, as `tasks/get` would answer) goes to the loop
//! following that task (`TaskPushes`, fed by the connection's handler) and is shown at once;
//! the poll stays the source of truth, so a push saying the task ended or needs input only
//! brings the next poll forward. rmcp 3.11's `subscriptions/listen` filter cannot name task
//! ids, so mcpdeck does not ask for pushes: it takes those a server sends unasked. Every state
//! the loop sees goes to the faces as `ConnectionEvent::Task` (the console's Tasks view lists
//! the tasks of a 2026 session from them).
//! A task handle from a server that did not advertise the extension, or for anything but
//! `tools/call`, is refused as invalid (`rounds::check_result_type`).

use std::collections::{BTreeSet, HashMap};
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{
    CallToolResult, CancelTaskParams, CancelTaskRequest, ClientRequest, DetailedTask,
    GetTaskParams, GetTaskRequest, InputRequests, InputResponses, NumberOrString, ProgressToken,
    ServerResult, TASKS_EXTENSION_ID, Task, TaskPayload, TaskStatus, UpdateTaskParams,
    UpdateTaskRequest,
};
use tokio::sync::mpsc;
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
    /// The `notifications/tasks` pushes for task `id` from now on.
    fn pushes(&self, id: &str) -> mpsc::Receiver<DetailedTask>;
    /// The task as last seen; `ended`: why the loop stopped following it before it ended.
    fn seen(&self, task: &Task, ended: Option<&str>);
}

/// Where `notifications/tasks` pushes go: the task loop following each task id. A push can
/// arrive before its loop starts (a server may send it right after the task handle, and the
/// handler runs each notification in a task of its own), so the last few pushes nobody took
/// wait for a loop to open; a push that does not fit is dropped (the loop's polls have it).
#[derive(Clone, Default)]
pub(crate) struct TaskPushes(Arc<Mutex<Routes>>);

#[derive(Default)]
struct Routes {
    loops: HashMap<String, mpsc::Sender<DetailedTask>>,
    /// Pushes for tasks no loop follows (yet), oldest first, at most [`EARLY_PUSHES`].
    early: std::collections::VecDeque<DetailedTask>,
}

/// Pushes that may wait for their loop before new ones are dropped.
const PUSH_QUEUE: usize = 8;
/// Pushes kept for tasks no loop follows yet.
const EARLY_PUSHES: usize = 16;

impl TaskPushes {
    fn routes(&self) -> std::sync::MutexGuard<'_, Routes> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The pushes for `id` from now on, after those that came before (the routes of loops that
    /// ended go).
    pub(crate) fn open(&self, id: &str) -> mpsc::Receiver<DetailedTask> {
        let (tx, rx) = mpsc::channel(PUSH_QUEUE);
        let mut routes = self.routes();
        routes.loops.retain(|_, tx| !tx.is_closed());
        let early = std::mem::take(&mut routes.early);
        for task in early {
            if task.task.task_id == id {
                let _ = tx.try_send(task);
            } else {
                routes.early.push_back(task);
            }
        }
        routes.loops.insert(id.to_owned(), tx);
        rx
    }

    /// Hands a pushed task to the loop following it, or keeps it for one to come.
    pub(crate) fn push(&self, task: DetailedTask) {
        let mut routes = self.routes();
        if let Some(tx) = routes.loops.get(&task.task.task_id)
            && !tx.is_closed()
        {
            let _ = tx.try_send(task);
            return;
        }
        if routes.early.len() == EARLY_PUSHES {
            routes.early.pop_front();
        }
        routes.early.push_back(task);
    }
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

    fn pushes(&self, id: &str) -> mpsc::Receiver<DetailedTask> {
        self.service.service().task_pushes().open(id)
    }

    fn seen(&self, task: &Task, ended: Option<&str>) {
        self.sink.emit(ConnectionEvent::Task {
            task: Box::new(task_info(task)),
            ended: ended.map(|e| super::error::clean(&self.redactor, &sanitize_capped(e, 512))),
        });
    }
}

impl Connection {
    /// `tasks/cancel` for a task of the extension, bounded; whether the server acknowledged it.
    pub(crate) async fn cancel_task(&self, id: &str) -> bool {
        TaskPeer::cancel(self, id).await
    }

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

/// Polls the task until it ends; returns it in its terminal state. The peer sees the task as
/// created, each change a poll or a push shows, and, when the loop ends without the task
/// ending, why it stopped following it.
pub(crate) async fn follow<P: TaskPeer>(
    peer: &P,
    created: Task,
    deadline: Duration,
    cancel: &CancellationToken,
    note: &(dyn Fn(&str) + Send + Sync),
) -> Result<DetailedTask, RequestError> {
    let mut last = created;
    peer.seen(&last, None);
    let end = follow_from(peer, &mut last, deadline, cancel, note).await;
    if let Err(e) = &end {
        peer.seen(&last, Some(&e.message));
    }
    end
}

/// The task loop from `last`, which it keeps as the task was last seen. A `notifications/tasks`
/// push for the task is shown at once; `tasks/get` stays the source of truth, so a push that
/// says the task ended or needs input is followed by a poll at once rather than acted on.
async fn follow_from<P: TaskPeer>(
    peer: &P,
    last: &mut Task,
    deadline: Duration,
    cancel: &CancellationToken,
    note: &(dyn Fn(&str) + Send + Sync),
) -> Result<DetailedTask, RequestError> {
    let started = tokio::time::Instant::now();
    let id = last.task_id.clone();
    let shown = sanitize_capped(&id, 64);
    note(&format!("runs as task {shown}: {}", describe(last)));
    let mut pushes = peer.pushes(&id);
    let mut poll = poll_interval(last.poll_interval_ms, DEFAULT_POLL);
    let mut at_once = false;
    let mut answered = BTreeSet::new();
    let mut updates = 0;
    loop {
        let (until, after, which) =
            crate::mcp::client::tasks::follow_until((started, deadline), last.ttl_ms);
        let wait = if at_once { Duration::ZERO } else { poll };
        let pushed = tokio::select! {
            () = tokio::time::sleep(wait) => None,
            Some(pushed) = pushes.recv() => Some(pushed),
            () = tokio::time::sleep_until(until) => {
                return Err(expired(peer, &shown, &id, after, which).await);
            }
            () = cancel.cancelled() => return Err(cancelled(peer, &id, note).await),
        };
        if let Some(pushed) = pushed {
            if pushed.task.task_id == id {
                at_once = pushed.status().is_terminal()
                    || matches!(pushed.payload, TaskPayload::InputRequired { .. });
                observe(peer, last, &pushed.task, &shown, note);
            }
            continue;
        }
        at_once = false;
        let task = tokio::select! {
            got = peer.get(&id) => got?,
            () = tokio::time::sleep_until(until) => {
                return Err(expired(peer, &shown, &id, after, which).await);
            }
            () = cancel.cancelled() => return Err(cancelled(peer, &id, note).await),
        };
        if task.task.task_id != id {
            return Err(protocol("tasks/get answered with another task"));
        }
        observe(peer, last, &task.task, &shown, note);
        poll = poll_interval(task.task.poll_interval_ms, poll);
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

/// Takes `now` as the task's state: tells `note` when its status or message changed and the
/// peer when anything it shows did.
fn observe<P: TaskPeer>(
    peer: &P,
    last: &mut Task,
    now: &Task,
    shown: &str,
    note: &(dyn Fn(&str) + Send + Sync),
) {
    if now.status != last.status || now.status_message != last.status_message {
        note(&format!("task {shown} {}", describe(now)));
    }
    let changed = now.status != last.status
        || now.status_message != last.status_message
        || now.last_updated_at != last.last_updated_at
        || now.ttl_ms != last.ttl_ms;
    last.clone_from(now);
    if changed {
        peer.seen(last, None);
    }
}

/// The failure of a task that outlived its deadline, once `tasks/cancel` was sent.
async fn expired<P: TaskPeer>(
    peer: &P,
    shown: &str,
    id: &str,
    after: Duration,
    which: &str,
) -> RequestError {
    let how = cancel_note(peer.cancel(id).await);
    let after_ms = u64::try_from(after.as_millis()).unwrap_or(u64::MAX);
    ConnectError::new(
        ErrorClass::Timeout { after_ms },
        format!("task {shown} did not finish within {after_ms} ms ({which}); {how}"),
    )
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

/// A status as the protocol writes it.
fn status_word(status: TaskStatus) -> &'static str {
    match status {
        TaskStatus::Working => "working",
        TaskStatus::InputRequired => "input_required",
        TaskStatus::Completed => "completed",
        TaskStatus::Failed => "failed",
        TaskStatus::Cancelled => "cancelled",
        _ => "unknown",
    }
}

/// The task as every face shows it (text sanitised; an empty timestamp is none).
pub(crate) fn task_info(task: &Task) -> crate::mcp::api::TaskInfo {
    let stamp = |s: &str| (!s.is_empty()).then(|| sanitize_capped(s, 64));
    crate::mcp::api::TaskInfo {
        task_id: sanitize_capped(&task.task_id, 128),
        status: status_word(task.status).to_owned(),
        status_message: task
            .status_message
            .as_deref()
            .map(|m| sanitize_capped(m, 512)),
        created_at: stamp(&task.created_at),
        ttl_ms: task.ttl_ms,
        poll_interval_ms: task.poll_interval_ms,
        last_updated_at: stamp(&task.last_updated_at),
    }
}

/// `status` or `status: message`, sanitised.
fn describe(task: &Task) -> String {
    let status = match status_word(task.status) {
        "unknown" => "in an unknown state",
        word => word,
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
