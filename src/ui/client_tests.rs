//! Render snapshots of a server's requests of the operator (elicitation form, URL
//! elicitation, sampling) at 80×24, 120×40 and 40×15, the clock pinned past the key guard.

use std::time::Duration;

use serde_json::json;

use super::tests::{SIZES, draw};
use crate::app::testkit::demo_app;
use crate::app::{App, Msg};
use crate::mcp::client::{ElicitKind, ElicitationAsk, Form, SamplingAsk};

/// Snapshots the whole console at each of the three sizes (named for this module).
pub(super) fn snapshot_all(name: &str, app: &mut App) {
    for (w, h) in SIZES {
        app.size = (w, h);
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), draw(app, w, h));
    }
}

fn shown(app: &mut App, msg: Msg) {
    app.update(msg);
    app.now += Duration::from_secs(1);
}

#[test]
fn elicitation_form() {
    let (mut app, _d) = demo_app();
    let schema = json!({"type": "object", "required": ["name"], "properties": {
        "name": {"type": "string", "title": "Your name", "description": "As on your passport", "minLength": 2},
        "age": {"type": "integer", "minimum": 0, "default": 30},
        "agree": {"type": "boolean", "title": "Agree to the terms"},
        "color": {"type": "string", "oneOf": [{"const": "r", "title": "Red"}, {"const": "g", "title": "Green"}], "default": "g"},
        "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]}, "default": ["b"]}
    }});
    let ask = ElicitationAsk {
        server: "demo".into(),
        message: "Please tell us about yourself.".into(),
        kind: ElicitKind::Form(Form::from_schema(&schema)),
    };
    shown(&mut app, Msg::Elicit { ticket: 1, ask });
    snapshot_all("elicitation_form", &mut app);
}

#[test]
fn elicitation_url() {
    let (mut app, _d) = demo_app();
    let ask = ElicitationAsk {
        server: "demo".into(),
        message: "Sign in to continue.".into(),
        kind: ElicitKind::Url {
            url: "https://auth.example.com/consent?state=xyz".into(),
            origin: "https://auth.example.com".into(),
            id: "e1".into(),
        },
    };
    shown(&mut app, Msg::Elicit { ticket: 1, ask });
    snapshot_all("elicitation_url", &mut app);
}

/// The sampling request as `sampling_request` shows it.
fn sampling_ask() -> SamplingAsk {
    SamplingAsk {
        server: "demo".into(),
        system_prompt: Some("You are a helpful test server.".into()),
        messages: vec![
            ("user".into(), "What is the capital of France?".into()),
            ("user".into(), "[image: image/png, 1.2 KiB]".into()),
        ],
        max_tokens: 100,
        model_preferences: Some("hints: claude; intelligence 0.8".into()),
        tools: vec!["get_weather".into()],
    }
}

/// A request the server withdrew while it was in front says so (elicitation and sampling).
#[test]
fn withdrawn_requests_say_so() {
    let (mut app, _d) = demo_app();
    let ask = ElicitationAsk {
        server: "demo".into(),
        message: "Please tell us your name.".into(),
        kind: ElicitKind::Form(Form::from_schema(
            &json!({"type": "object", "properties": {"name": {"type": "string"}}}),
        )),
    };
    shown(&mut app, Msg::Elicit { ticket: 1, ask });
    app.update(Msg::AskWithdrawn { ticket: 1 });
    app.size = (80, 24);
    insta::assert_snapshot!("elicitation_withdrawn_80x24", draw(&app, 80, 24));
    let (mut app, _d) = demo_app();
    shown(
        &mut app,
        Msg::Sample {
            ticket: 2,
            ask: sampling_ask(),
        },
    );
    app.update(Msg::AskWithdrawn { ticket: 2 });
    app.size = (80, 24);
    insta::assert_snapshot!("sampling_withdrawn_80x24", draw(&app, 80, 24));
}

#[test]
fn sampling_request() {
    let (mut app, _d) = demo_app();
    let ask = SamplingAsk {
        server: "demo".into(),
        system_prompt: Some("You are a helpful test server.".into()),
        messages: vec![
            ("user".into(), "What is the capital of France?".into()),
            ("user".into(), "[image: image/png, 1.2 KiB]".into()),
        ],
        max_tokens: 100,
        model_preferences: Some("hints: claude; intelligence 0.8".into()),
        tools: vec!["get_weather".into()],
    };
    shown(&mut app, Msg::Sample { ticket: 2, ask });
    snapshot_all("sampling_request", &mut app);
}

#[test]
fn tasks_view() {
    use crate::app::Load;
    use crate::app::tasks_view::TasksView;
    use crate::mcp::api::TaskInfo;
    let (mut app, _d) = demo_app();
    let task = |id: &str, status: &str, message: Option<&str>| TaskInfo {
        task_id: id.into(),
        status: status.into(),
        status_message: message.map(str::to_owned),
        created_at: Some("2026-12-01T03:00:00Z".into()),
        ttl_ms: Some(300_000),
        poll_interval_ms: Some(1000),
        last_updated_at: None,
    };
    app.tasks_view = Some(TasksView {
        server: "demo".into(),
        tasks: Load::Ready(vec![
            task("7a5eb5f42d1a0d73f91f6d54273ef674", "completed", None),
            task(
                "e13a4676249fa7351b5a511d55146465",
                "working",
                Some("Synthesizing findings..."),
            ),
        ]),
        sel: 1,
        known: false,
    });
    snapshot_all("tasks_view", &mut app);
}

/// On a 2026 session the view says the protocol has no `tasks/list` or `tasks/result` and lists
/// the tasks the session started, with their last update and why one is no longer polled.
#[test]
fn tasks_view_of_a_2026_session() {
    use crate::app::Load;
    use crate::app::tasks_view::TasksView;
    use crate::mcp::api::TaskInfo;
    let (mut app, _d) = demo_app();
    let task = |id: &str, status: &str, message: &str| TaskInfo {
        task_id: id.into(),
        status: status.into(),
        status_message: Some(message.into()),
        created_at: Some("2026-12-03T10:00:00Z".into()),
        ttl_ms: Some(600_000),
        poll_interval_ms: Some(250),
        last_updated_at: Some("2026-12-03T10:00:05Z".into()),
    };
    app.session_tasks
        .seen("demo", &task("m-1", "working", "still working"), None);
    app.session_tasks.seen(
        "demo",
        &task("m-2", "working", "started"),
        Some("the request was cancelled; tasks/cancel was sent and accepted"),
    );
    app.session_tasks.seen(
        "demo",
        &task("m-3", "cancelled", "cancelled by the client"),
        None,
    );
    app.tasks_view = Some(TasksView {
        server: "demo".into(),
        tasks: Load::Ready(app.session_tasks.rows("demo")),
        sel: 0,
        known: true,
    });
    snapshot_all("tasks_view_2026", &mut app);
    app.tasks_view = Some(TasksView {
        server: "demo".into(),
        tasks: Load::Ready(Vec::new()),
        sel: 0,
        known: true,
    });
    snapshot_all("tasks_view_2026_empty", &mut app);
}
