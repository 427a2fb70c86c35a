//! The task loop against a scripted peer on a paused clock: the poll schedule (the server's
//! `pollIntervalMs`, clamped), input answered once per key through `tasks/update`, and
//! `tasks/cancel` on cancellation and at the deadline.

use std::collections::VecDeque;
use std::sync::Mutex;

use serde_json::json;
use tokio::sync::mpsc;
use tokio::time::Instant;

use super::*;

fn task(status: TaskStatus, poll_ms: Option<u64>) -> Task {
    let mut task = Task::new(
        "t-1",
        status,
        "2026-01-01T00:00:00Z",
        "2026-01-01T00:00:00Z",
    );
    task.poll_interval_ms = poll_ms;
    task.ttl_ms = Some(3_600_000);
    task
}

fn working(poll_ms: Option<u64>) -> DetailedTask {
    DetailedTask::new(task(TaskStatus::Working, poll_ms), TaskPayload::Working)
}

fn completed(text: &str) -> DetailedTask {
    let result = json!({"content": [{"type": "text", "text": text}]});
    let serde_json::Value::Object(result) = result else {
        unreachable!()
    };
    DetailedTask::new(
        task(TaskStatus::Completed, None),
        TaskPayload::Completed { result },
    )
}

fn asking(keys: &[&str]) -> DetailedTask {
    let mut requests = serde_json::Map::new();
    for key in keys {
        requests.insert((*key).to_owned(), json!({"method": "roots/list"}));
    }
    let input_requests: InputRequests =
        serde_json::from_value(serde_json::Value::Object(requests)).expect("input requests");
    DetailedTask::new(
        task(TaskStatus::InputRequired, Some(300)),
        TaskPayload::InputRequired { input_requests },
    )
}

/// A peer that answers `tasks/get` from a script (the last answer repeats) and records what
/// it was sent, and when.
struct Scripted {
    answers: Mutex<VecDeque<DetailedTask>>,
    sent: Mutex<Vec<(Instant, String)>>,
    /// The pushes the loop hears (none unless a test gives a channel).
    pushes: Mutex<Option<mpsc::Receiver<DetailedTask>>>,
    /// What the loop reported as seen, and when: `status` or `status ended: why`.
    seen: Mutex<Vec<(Instant, String)>>,
}

impl Scripted {
    fn new(answers: Vec<DetailedTask>) -> Self {
        Self {
            answers: Mutex::new(answers.into()),
            sent: Mutex::new(Vec::new()),
            pushes: Mutex::new(None),
            seen: Mutex::new(Vec::new()),
        }
    }

    fn with_pushes(self, rx: mpsc::Receiver<DetailedTask>) -> Self {
        *self.pushes.lock().expect("lock") = Some(rx);
        self
    }

    fn seen(&self) -> Vec<(Instant, String)> {
        self.seen.lock().expect("lock").clone()
    }

    fn record(&self, what: String) {
        self.sent.lock().expect("lock").push((Instant::now(), what));
    }

    fn sent(&self) -> Vec<String> {
        let sent = self.sent.lock().expect("lock");
        sent.iter().map(|(_, s)| s.clone()).collect()
    }

    fn times(&self, what: &str) -> Vec<Instant> {
        let sent = self.sent.lock().expect("lock");
        sent.iter()
            .filter(|(_, s)| s == what)
            .map(|(t, _)| *t)
            .collect()
    }
}

impl TaskPeer for Scripted {
    async fn get(&self, id: &str) -> Result<DetailedTask, RequestError> {
        assert_eq!(id, "t-1");
        self.record("get".to_owned());
        let mut answers = self.answers.lock().expect("lock");
        let next = if answers.len() > 1 {
            answers.pop_front()
        } else {
            answers.front().cloned()
        };
        Ok(next.expect("a scripted answer"))
    }

    async fn update(&self, _id: &str, responses: InputResponses) -> Result<(), RequestError> {
        let keys: Vec<&String> = responses.keys().collect();
        self.record(format!("update {keys:?}"));
        Ok(())
    }

    async fn cancel(&self, _id: &str) -> bool {
        self.record("cancel".to_owned());
        true
    }

    async fn answer(
        &self,
        requests: &InputRequests,
        _cancel: &CancellationToken,
    ) -> Result<InputResponses, RequestError> {
        let keys: Vec<&String> = requests.keys().collect();
        self.record(format!("answer {keys:?}"));
        Ok(requests
            .keys()
            .map(|k| (k.clone(), json!({"roots": []})))
            .collect())
    }

    fn pushes(&self, id: &str) -> mpsc::Receiver<DetailedTask> {
        assert_eq!(id, "t-1");
        self.pushes
            .lock()
            .expect("lock")
            .take()
            .unwrap_or_else(|| mpsc::channel(1).1)
    }

    fn seen(&self, task: &Task, ended: Option<&str>) {
        let info = task_info(task);
        let what = match ended {
            Some(why) => format!("{} ended: {why}", info.status),
            None => info.status,
        };
        self.seen.lock().expect("lock").push((Instant::now(), what));
    }
}

fn quiet() -> impl Fn(&str) + Send + Sync {
    |_: &str| {}
}

const HOUR: Duration = Duration::from_secs(3600);

#[tokio::test(start_paused = true)]
async fn polls_follow_the_servers_interval_within_the_floor_and_the_ceiling() {
    let peer = Scripted::new(vec![
        working(Some(10)),
        working(Some(60_000)),
        working(Some(1_000)),
        completed("done"),
    ]);
    let started = Instant::now();
    let seed = task(TaskStatus::Working, Some(10));
    let end = follow(&peer, seed, HOUR, &CancellationToken::new(), &quiet())
        .await
        .expect("completes");
    assert!(end.status().is_terminal());
    let gets = peer.times("get");
    let gaps: Vec<Duration> = std::iter::once(started)
        .chain(gets.iter().copied())
        .collect::<Vec<_>>()
        .windows(2)
        .map(|w| w[1] - w[0])
        .collect();
    // 10 ms is raised to the floor, 60 s lowered to the ceiling, 1 s kept as it is.
    assert_eq!(
        gaps,
        vec![MIN_POLL, MIN_POLL, MAX_POLL, Duration::from_secs(1)]
    );
    let result = finished(end, &super::super::Redactor::default()).expect("a tool result");
    assert_eq!(
        result.content[0].as_text().map(|t| t.text.as_str()),
        Some("done")
    );
}

#[tokio::test(start_paused = true)]
async fn each_input_key_is_answered_once_and_sent_in_tasks_update() {
    let peer = Scripted::new(vec![
        asking(&["a"]),
        asking(&["a"]),
        asking(&["a", "b"]),
        completed("answered"),
    ]);
    let seed = task(TaskStatus::Working, None);
    follow(&peer, seed, HOUR, &CancellationToken::new(), &quiet())
        .await
        .expect("completes");
    assert_eq!(
        peer.sent(),
        vec![
            "get",
            "answer [\"a\"]",
            "update [\"a\"]",
            "get",
            "get",
            "answer [\"b\"]",
            "update [\"b\"]",
            "get",
        ]
    );
}

#[tokio::test(start_paused = true)]
async fn cancelling_sends_tasks_cancel_and_the_deadline_does_too() {
    let peer = Scripted::new(vec![working(Some(1_000))]);
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(2_500)).await;
        trigger.cancel();
    });
    let seed = task(TaskStatus::Working, Some(1_000));
    let e = follow(&peer, seed.clone(), HOUR, &cancel, &quiet())
        .await
        .expect_err("cancelled");
    assert_eq!(e.class, ErrorClass::Cancelled);
    assert!(e.message.contains("tasks/cancel"), "{}", e.message);
    assert_eq!(peer.sent(), vec!["get", "get", "cancel"]);

    let peer = Scripted::new(vec![working(Some(1_000))]);
    let started = Instant::now();
    let e = follow(
        &peer,
        seed,
        Duration::from_millis(3_500),
        &CancellationToken::new(),
        &quiet(),
    )
    .await
    .expect_err("timed out");
    assert_eq!(e.class, ErrorClass::Timeout { after_ms: 3_500 });
    assert_eq!(
        peer.times("cancel"),
        vec![started + Duration::from_millis(3_500)]
    );
}

#[test]
fn a_failed_task_is_its_json_rpc_error_and_a_cancelled_one_is_cancelled() {
    let error = json!({"code": -32603, "message": "the job broke"});
    let serde_json::Value::Object(error) = error else {
        unreachable!()
    };
    let failed = DetailedTask::new(
        task(TaskStatus::Failed, None),
        TaskPayload::Failed { error },
    );
    let e = finished(failed, &super::super::Redactor::default()).expect_err("failed");
    assert_eq!(e.class, ErrorClass::ServerError { code: -32603 });
    assert!(e.message.contains("the job broke"), "{}", e.message);
    let cancelled = DetailedTask::new(task(TaskStatus::Cancelled, None), TaskPayload::Cancelled);
    let e = finished(cancelled, &super::super::Redactor::default()).expect_err("cancelled");
    assert_eq!(e.class, ErrorClass::Cancelled);
}

/// A `notifications/tasks` push shows the task's new state at once, long before the next poll
/// was due; the poll that follows at once (the task said it ended) is what ends the loop.
#[tokio::test(start_paused = true)]
async fn a_pushed_status_is_shown_before_the_poll_and_the_poll_decides() {
    let peer = Scripted::new(vec![completed("polled")]);
    let (tx, rx) = mpsc::channel(4);
    let peer = peer.with_pushes(rx);
    let started = Instant::now();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(1_200)).await;
        let mut pushed = completed("pushed");
        pushed.task.status_message = Some("done early".into());
        let _ = tx.send(pushed).await;
        // Held open: a closed channel must not end the loop either.
        tokio::time::sleep(HOUR).await;
    });
    let seed = task(TaskStatus::Working, Some(5_000));
    let end = follow(&peer, seed, HOUR, &CancellationToken::new(), &quiet())
        .await
        .expect("completes");
    let result = finished(end, &super::super::Redactor::default()).expect("a tool result");
    assert_eq!(
        result.content[0].as_text().map(|t| t.text.as_str()),
        Some("polled"),
        "the poll's result is the call's, not the push's"
    );
    let seen = peer.seen();
    let pushed_at = started + Duration::from_millis(1_200);
    assert_eq!(
        seen,
        vec![
            (started, "working".to_owned()),
            (pushed_at, "completed".to_owned()),
            (pushed_at, "completed".to_owned()),
        ],
        "created, pushed, then the poll's own answer (its message differs)"
    );
    let gets = peer.times("get");
    assert_eq!(
        gets,
        vec![pushed_at],
        "no poll before the push (the interval is 5 s); one at once after it"
    );
}

/// A push for another task is ignored, and the loop that stops following a task without it
/// ending reports why.
#[tokio::test(start_paused = true)]
async fn a_push_for_another_task_is_ignored_and_a_cancelled_loop_says_it_ended() {
    let (tx, rx) = mpsc::channel(4);
    let peer = Scripted::new(vec![working(Some(1_000))]).with_pushes(rx);
    let mut other = completed("other");
    other.task.task_id = "t-2".into();
    tx.send(other).await.expect("sent");
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(1_500)).await;
        trigger.cancel();
    });
    let seed = task(TaskStatus::Working, Some(1_000));
    follow(&peer, seed, HOUR, &cancel, &quiet())
        .await
        .expect_err("cancelled");
    assert_eq!(peer.sent(), vec!["get", "cancel"]);
    let seen: Vec<String> = peer.seen().into_iter().map(|(_, s)| s).collect();
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!(seen[0], "working");
    assert!(
        seen[1].starts_with("working ended: the request was cancelled; tasks/cancel"),
        "{seen:?}"
    );
}

/// A push that arrives before its task's loop opens (the handle and the push came together)
/// still reaches the loop; one for a task nobody follows stays for its own loop.
#[test]
fn a_push_before_its_loop_opens_waits_for_it() {
    let pushes = TaskPushes::default();
    let mut other = working(None);
    other.task.task_id = "t-2".into();
    pushes.push(other);
    pushes.push(completed("early"));
    let mut rx = pushes.open("t-1");
    let got = rx.try_recv().expect("the early push");
    assert_eq!(got.task.task_id, "t-1");
    assert!(rx.try_recv().is_err(), "only t-1's");
    pushes.push(working(Some(5)));
    assert_eq!(
        rx.try_recv().expect("a later push").task.poll_interval_ms,
        Some(5)
    );
    let mut rx2 = pushes.open("t-2");
    assert_eq!(rx2.try_recv().expect("t-2's push").task.task_id, "t-2");
}
