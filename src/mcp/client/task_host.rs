//! Server requests answered as tasks (protocol 2025-11-25): a server that sends
//! `elicitation/create` or `sampling/createMessage` with a `task` parameter to a client that
//! declared `tasks.requests` for it gets a task back at once (`{"task": {…}}`) while the
//! operator answers through the usual path (the console's modals, the CLI's flags and
//! questions); the server then polls `tasks/get`, fetches the answer with `tasks/result`
//! (which waits for it), may cancel with `tasks/cancel` and list with `tasks/list`. The tasks
//! of one connection are kept here, at most [`MAX_HOSTED`] at once (the oldest ended one goes
//! first); a task's answer is kept until the server fetched it or its `ttl` passed.
//!
//! rmcp 3.11 decodes such requests as plain ones and drops `task`, so the transport notes
//! which requests carried it (`connection::task_asks`) and hands them over as custom requests.

// Sampling is deprecated by SEP-2577, but 2025-11-25 servers use it.
#![allow(deprecated)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::{CreateMessageRequestParams, ElicitRequestParams, ErrorCode, ErrorData};
use serde_json::{Value, json};
use tokio::sync::watch;

use super::ClientSide;
use super::handler;
use crate::mcp::sanitize::sanitize_capped;

/// The most tasks one connection hosts at once; a server asking for more is refused.
pub(crate) const MAX_HOSTED: usize = 64;
/// The poll interval suggested to the server.
const POLL_MS: u64 = 500;
/// The longest a hosted task is kept when the server names no `ttl` (or a longer one).
const MAX_TTL_MS: u64 = 30 * 60 * 1000;

/// How a hosted task stands.
#[derive(Debug, Clone)]
enum Outcome {
    /// The operator has not answered yet.
    Working,
    /// The answer, as the plain request's result would be.
    Done(Value),
    /// The request was refused (the operator rejected it, or it could not be read).
    Refused(ErrorData),
    /// The server cancelled it.
    Cancelled,
}

struct Hosted {
    created_at: String,
    updated_at: String,
    ttl_ms: u64,
    outcome: watch::Receiver<Outcome>,
    work: tokio::task::JoinHandle<()>,
}

impl Hosted {
    fn status(&self) -> (&'static str, Option<String>) {
        match &*self.outcome.borrow() {
            Outcome::Working => ("working", Some("waiting for the operator".to_owned())),
            Outcome::Done(_) => ("completed", None),
            Outcome::Refused(e) => ("failed", Some(sanitize_capped(&e.message, 256))),
            Outcome::Cancelled => ("cancelled", None),
        }
    }

    fn describe(&self, id: &str) -> Value {
        let (status, message) = self.status();
        let mut task = json!({
            "taskId": id,
            "status": status,
            "createdAt": self.created_at,
            "lastUpdatedAt": self.updated_at,
            "ttl": self.ttl_ms,
            "pollInterval": POLL_MS,
        });
        if let Some(message) = message {
            task["statusMessage"] = Value::String(message);
        }
        task
    }
}

/// The tasks one connection hosts for its server.
#[derive(Default)]
pub(crate) struct TaskHost {
    tasks: Mutex<BTreeMap<String, Hosted>>,
    next: std::sync::atomic::AtomicU64,
}

impl std::fmt::Debug for TaskHost {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskHost").finish_non_exhaustive()
    }
}

fn invalid(message: impl Into<String>) -> ErrorData {
    ErrorData::new(ErrorCode::INVALID_PARAMS, message.into(), None)
}

fn task_id_of(params: Option<&Value>) -> Result<String, ErrorData> {
    params
        .and_then(|p| p.get("taskId"))
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| invalid("taskId is missing"))
}

impl TaskHost {
    /// Answers one task request of the server (`method` with `params`), or `None` when
    /// `method` is not one.
    pub(crate) async fn answer(
        self: &Arc<Self>,
        side: Option<&ClientSide>,
        server: &str,
        method: &str,
        params: Option<&Value>,
    ) -> Option<Result<Value, ErrorData>> {
        let task = params.and_then(|p| p.get("task"));
        Some(match method {
            "elicitation/create" | "sampling/createMessage" if task.is_some() => {
                self.create(side, server, method, params.cloned().unwrap_or(Value::Null))
            }
            "tasks/get" => self.get(params),
            "tasks/result" => self.result(params).await,
            "tasks/cancel" => self.cancel(params),
            "tasks/list" => Ok(self.list()),
            _ => return None,
        })
    }

    fn create(
        self: &Arc<Self>,
        side: Option<&ClientSide>,
        server: &str,
        method: &str,
        mut params: Value,
    ) -> Result<Value, ErrorData> {
        let Some(side) = side.cloned() else {
            return Err(handler::not_declared("tasks"));
        };
        let ttl_ms = params
            .pointer("/task/ttl")
            .and_then(Value::as_u64)
            .unwrap_or(MAX_TTL_MS)
            .min(MAX_TTL_MS);
        if let Some(p) = params.as_object_mut() {
            p.remove("task");
        }
        let work = Work::read(method, params)?;
        let mut tasks = self.tasks.lock().map_err(|_| invalid("task store"))?;
        if tasks.len() >= MAX_HOSTED {
            let ended = tasks
                .iter()
                .find(|(_, t)| !matches!(*t.outcome.borrow(), Outcome::Working))
                .map(|(id, _)| id.clone());
            match ended {
                Some(id) => drop(tasks.remove(&id)),
                None => {
                    return Err(ErrorData::new(
                        ErrorCode::INVALID_REQUEST,
                        format!("{method} refused: {MAX_HOSTED} tasks are already open"),
                        None,
                    ));
                }
            }
        }
        let n = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
        let id = format!("mcpdeck-{n}");
        let (tx, rx) = watch::channel(Outcome::Working);
        let server = server.to_owned();
        let host = Arc::downgrade(self);
        let task_id = id.clone();
        let handle = tokio::spawn(async move {
            let outcome = match work.run(&side, &server).await {
                Ok(value) => Outcome::Done(value),
                Err(e) => Outcome::Refused(e),
            };
            let _ = tx.send(outcome);
            if let Some(host) = host.upgrade() {
                host.touch(&task_id);
            }
            // Keeps the answer for the server until its ttl passes.
            tokio::time::sleep(Duration::from_millis(ttl_ms)).await;
            if let Some(host) = host.upgrade()
                && let Ok(mut tasks) = host.tasks.lock()
            {
                tasks.remove(&task_id);
            }
        });
        let now = crate::mcp::clock::now_rfc3339();
        let hosted = Hosted {
            created_at: now.clone(),
            updated_at: now,
            ttl_ms,
            outcome: rx,
            work: handle,
        };
        let task = hosted.describe(&id);
        tasks.insert(id, hosted);
        Ok(json!({ "task": task }))
    }

    fn touch(&self, id: &str) {
        if let Ok(mut tasks) = self.tasks.lock()
            && let Some(t) = tasks.get_mut(id)
        {
            t.updated_at = crate::mcp::clock::now_rfc3339();
        }
    }

    fn get(&self, params: Option<&Value>) -> Result<Value, ErrorData> {
        let id = task_id_of(params)?;
        let tasks = self.tasks.lock().map_err(|_| invalid("task store"))?;
        let task = tasks.get(&id).ok_or_else(|| unknown(&id))?;
        Ok(task.describe(&id))
    }

    /// `tasks/result`: waits until the operator answered, then the answer.
    async fn result(&self, params: Option<&Value>) -> Result<Value, ErrorData> {
        let id = task_id_of(params)?;
        let mut outcome = {
            let tasks = self.tasks.lock().map_err(|_| invalid("task store"))?;
            tasks.get(&id).ok_or_else(|| unknown(&id))?.outcome.clone()
        };
        let ended = outcome
            .wait_for(|o| !matches!(o, Outcome::Working))
            .await
            .map_or(Outcome::Cancelled, |o| o.clone());
        let related = json!({"io.modelcontextprotocol/related-task": {"taskId": id}});
        match ended {
            Outcome::Done(mut value) => {
                if let Some(v) = value.as_object_mut() {
                    v.insert("_meta".to_owned(), related);
                }
                Ok(value)
            }
            Outcome::Refused(e) => Err(e),
            Outcome::Cancelled | Outcome::Working => Err(invalid(format!(
                "task {} was cancelled",
                sanitize_capped(&id, 64)
            ))),
        }
    }

    fn cancel(&self, params: Option<&Value>) -> Result<Value, ErrorData> {
        let id = task_id_of(params)?;
        let mut tasks = self.tasks.lock().map_err(|_| invalid("task store"))?;
        let task = tasks.get_mut(&id).ok_or_else(|| unknown(&id))?;
        if matches!(*task.outcome.borrow(), Outcome::Working) {
            task.work.abort();
            let (tx, rx) = watch::channel(Outcome::Cancelled);
            drop(tx);
            task.outcome = rx;
            task.updated_at = crate::mcp::clock::now_rfc3339();
        }
        Ok(task.describe(&id))
    }

    fn list(&self) -> Value {
        let tasks = self.tasks.lock().map(|tasks| {
            tasks
                .iter()
                .map(|(id, t)| t.describe(id))
                .collect::<Vec<_>>()
        });
        json!({ "tasks": tasks.unwrap_or_default() })
    }
}

impl Drop for TaskHost {
    fn drop(&mut self) {
        if let Ok(tasks) = self.tasks.get_mut() {
            for task in tasks.values() {
                task.work.abort();
            }
        }
    }
}

fn unknown(id: &str) -> ErrorData {
    invalid(format!("no task {}", sanitize_capped(id, 64)))
}

/// What a hosted task does: the plain request it stands for.
enum Work {
    Elicit(ElicitRequestParams),
    Sample(Box<CreateMessageRequestParams>),
}

impl Work {
    fn read(method: &str, params: Value) -> Result<Self, ErrorData> {
        let unreadable = |e: serde_json::Error| {
            invalid(format!(
                "{method} refused: its parameters cannot be read ({})",
                sanitize_capped(&e.to_string(), 200)
            ))
        };
        if method == "elicitation/create" {
            serde_json::from_value(params)
                .map(Self::Elicit)
                .map_err(unreadable)
        } else {
            serde_json::from_value(params)
                .map(|p| Self::Sample(Box::new(p)))
                .map_err(unreadable)
        }
    }

    async fn run(&self, side: &ClientSide, server: &str) -> Result<Value, ErrorData> {
        let value = match self {
            Self::Elicit(p) => {
                serde_json::to_value(handler::create_elicitation(Some(side), server, p).await?)
            }
            Self::Sample(p) => {
                serde_json::to_value(handler::create_message(Some(side), server, p).await?)
            }
        };
        value.map_err(|e| ErrorData::new(ErrorCode::INTERNAL_ERROR, e.to_string(), None))
    }
}
