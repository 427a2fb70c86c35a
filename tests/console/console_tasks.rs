//! The Tasks view on a protocol 2026-07-28 session, headless (`Runtime::step`, the real executor
//! and engine) against the fixture's `task-modern` case over stdio: the extension has no
//! `tasks/list`, so the view lists the tasks this console started, as the engine reported them
//! (pushed as events, never asked for) — a `notifications/tasks` push at once, then as polled —
//! and `x` sends `tasks/cancel`. Waits are for messages, never sleeps.

use crate::common;

use common::console_kit::{Console, ConsoleDirs};
use crossterm::event::KeyCode;
use mcpdeck::app::{App, Load, Screen};
use mcpdeck::mcp::api::TaskInfo;

/// The rows of the open Tasks view, when it lists this session's tasks.
fn known_rows(app: &App) -> Option<&[TaskInfo]> {
    let view = app.tasks_view.as_ref().filter(|v| v.known)?;
    match &view.tasks {
        Load::Ready(tasks) => Some(tasks),
        _ => None,
    }
}

#[test]
fn the_tasks_view_lists_a_2026_sessions_tasks_and_cancels_one_with_tasks_cancel() {
    let dirs = ConsoleDirs::new();
    let events = dirs.root.join("events");
    dirs.user_servers(&serde_json::json!({"raw": {
        "command": common::fixture(), "args": ["raw", "--case", "task-modern"],
        "protocolVersion": "2026-07-28",
        "env": {"FIXTURE_EVENTS": events},
    }}));
    dirs.run(async |h: &mut Console| {
        h.open_form("echo").await;
        h.key(KeyCode::Enter);
        // The fixture's notifications/tasks push is shown as soon as it arrives.
        h.until("the task as pushed", |a| {
            a.session_tasks
                .rows("raw")
                .iter()
                .any(|t| t.status_message.as_deref() == Some("pushed at once"))
        })
        .await;
        h.until("the task as polled", |a| {
            a.session_tasks
                .rows("raw")
                .iter()
                .any(|t| t.status_message.as_deref() == Some("still working"))
        })
        .await;
        assert!(matches!(h.app.screen, Screen::Running(_)), "still followed");

        // The view lists it: no tasks/list was sent (the engine refuses it on 2026).
        h.ch('T');
        h.until("the view listing this session's tasks", |a| {
            known_rows(a).is_some_and(|t| !t.is_empty())
        })
        .await;
        let rows = known_rows(&h.app).expect("rows");
        assert_eq!(rows.len(), 1, "{rows:?}");
        assert_eq!(rows[0].task_id, "m-1");
        assert_eq!(rows[0].status, "working");
        assert_eq!(rows[0].created_at.as_deref(), Some("2026-12-03T10:00:00Z"));
        assert_eq!(
            rows[0].last_updated_at.as_deref(),
            Some("2026-12-03T10:00:05Z")
        );
        assert_eq!(rows[0].ttl_ms, Some(600_000));

        // Enter: the protocol has no tasks/result.
        h.key(KeyCode::Enter);
        assert!(h.app.tasks_view.is_some(), "the view stays");
        assert!(
            h.app
                .message
                .as_deref()
                .is_some_and(|m| m.contains("no tasks/result")),
            "{:?}",
            h.app.message
        );

        // x: tasks/cancel; the next poll says cancelled, and the row shows it at once.
        h.ch('x');
        h.until("the cancelled task in the view", |a| {
            known_rows(a).is_some_and(|t| t.first().is_some_and(|t| t.status == "cancelled"))
        })
        .await;
        let sent = std::fs::read_to_string(&events).expect("the fixture's events");
        assert_eq!(sent.lines().collect::<Vec<_>>(), ["tasks/cancel m-1"]);
        let rows = known_rows(&h.app).expect("rows");
        assert_eq!(
            rows[0].status_message.as_deref(),
            Some("cancelled by the client")
        );
        h.until("the call's end", |a| matches!(a.screen, Screen::Result(..)))
            .await;
        let Screen::Result(result) = &h.app.screen else {
            unreachable!()
        };
        assert_eq!(
            result.view.error.as_ref().map(|e| e.0.as_str()),
            Some("cancelled"),
            "{:?}",
            result.view.error
        );
    });
}
