//! Render snapshots at 80×24, 120×40 and 40×15 of the call form's suggestion list (a prompt
//! form with suggestions, the highlight scrolled past the first window, and an ask in flight)
//! and of a result's list of resource links.

use crossterm::event::KeyCode;
use serde_json::json;

use super::client_tests::snapshot_all;
use crate::app::form::{Form, Target};
use crate::app::testkit::{demo_app, key, ok};
use crate::app::{App, Effect, Screen};

fn prompt_form(app: &mut App) {
    let schema = json!({"type": "object", "required": ["department", "name"], "properties": {
        "department": {"type": "string", "description": "Choose the department."},
        "name": {"type": "string", "description": "Choose a team member."}
    }});
    app.screen = Screen::Form(Form::new(
        "demo",
        Target::Prompt("completable-prompt".to_owned()),
        schema,
    ));
}

fn ask_id(effects: &[Effect]) -> u64 {
    effects
        .iter()
        .find_map(|e| match e {
            Effect::Engine {
                id,
                request: crate::mcp::EngineRequest::Operator { .. },
                ..
            } => Some(*id),
            _ => None,
        })
        .expect("a completion ask")
}

#[test]
fn completion_list() {
    let (mut app, _d) = demo_app();
    prompt_form(&mut app);
    let id = ask_id(&app.update(key(KeyCode::Tab)));
    let values = [
        "Engineering",
        "Sales",
        "Marketing",
        "Support",
        "Finance",
        "Legal",
        "Operations",
        "Research",
    ];
    app.update(ok(
        id,
        "completion.complete",
        json!({"argument": "department", "values": values, "total": 12, "hasMore": true}),
    ));
    for _ in 0..6 {
        app.update(key(KeyCode::Down));
    }
    snapshot_all("completion_list", &mut app);
}

#[test]
fn completion_asking() {
    let (mut app, _d) = demo_app();
    prompt_form(&mut app);
    app.update(key(KeyCode::Tab));
    snapshot_all("completion_asking", &mut app);
}

#[test]
fn result_links_list() {
    use crate::mcp::api::{OpResult, ToolCall};
    use crate::mcp::engine::{Outcome, Success};
    use crate::mcp::results::links::ResourceLinkRef;
    let (mut app, _d) = demo_app();
    app.screen = Screen::Form(Form::new(
        "demo",
        Target::Tool("get-resource-links".to_owned()),
        json!({"type": "object"}),
    ));
    let fx = app.update(key(KeyCode::Enter));
    let [
        Effect::Engine {
            id,
            request: crate::mcp::EngineRequest::Agent(_),
            ..
        },
    ] = &fx[..]
    else {
        panic!("{fx:?}");
    };
    let links: Vec<ResourceLinkRef> = (1..=3)
        .map(|i| ResourceLinkRef {
            name: format!("Resource {i}"),
            uri: format!("demo://resource/dynamic/text/{i}"),
        })
        .collect();
    let mut text = "Here are 3 resource links:".to_owned();
    for l in &links {
        text.push_str("\n[resource link: ");
        text.push_str(&l.name);
        text.push_str(" (demo://resource)]");
    }
    app.update(crate::app::Msg::Done {
        id: *id,
        outcome: Box::new(Outcome {
            server: Some("demo".to_owned()),
            operation: "tools.call get-resource-links".to_owned(),
            body: Ok(Success {
                result: OpResult::Call(ToolCall {
                    is_error: false,
                    text: text.clone(),
                    structured_content: None,
                    output_schema_verdict: None,
                    spills: Vec::new(),
                    links,
                    annotations: Vec::new(),
                    raw: None,
                }),
                text,
                spills: Vec::new(),
            }),
        }),
    });
    app.update(key(KeyCode::Enter));
    app.update(key(KeyCode::Down));
    snapshot_all("result_links_list", &mut app);
}
