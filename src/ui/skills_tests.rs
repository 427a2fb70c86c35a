//! The Skills tab: there only for a server that declares the skills extension, listed when
//! first shown, `Enter` reads the highlighted skill's `SKILL.md` (and nothing else) and shows
//! it; snapshots at 80×24, 120×40 and 40×15 of the list and of a skill read.

use crossterm::event::KeyCode;
use serde_json::json;

use super::tests::{draw, snapshot_all};
use crate::app::testkit::{demo_app, key, ok};
use crate::app::{App, Effect, Screen, Tab};
use crate::mcp::EngineRequest;
use crate::mcp::engine::OperatorOp;

/// The demo app with its server declaring skills, on the Skills tab with two skills listed.
fn skills_app() -> (App, tempfile::TempDir) {
    let (mut app, dir) = demo_app();
    app.servers.rows[0].skills = true;
    let mut effects = app.update(key(KeyCode::Tab));
    while app.tab != Tab::Skills {
        effects = app.update(key(KeyCode::Right));
    }
    let [Effect::Engine { id, request }] = effects.as_slice() else {
        panic!("the Skills tab lists its skills when first shown: {effects:?}")
    };
    assert!(matches!(
        request,
        EngineRequest::Operator {
            op: OperatorOp::Skills,
            ..
        }
    ));
    app.update(ok(
        *id,
        "skills.list",
        json!({"declared": true, "skills": [
            {"name": "greeting", "uri": "skill://greeting/SKILL.md",
             "description": "How to greet someone by name",
             "files": [{"path": "SKILL.md", "uri": "skill://greeting/SKILL.md",
                        "size": 84, "digest": "sha256:00"}]},
            {"name": "release-notes-from-a-long-changelog", "uri": "skill://release-notes-from-a-long-changelog/SKILL.md",
             "description": "Write release notes from the changes since the last tag.",
             "files": null},
        ]}),
    ));
    (app, dir)
}

#[test]
fn the_skills_tab_is_there_only_when_the_server_declares_the_extension() {
    let (mut app, _d) = demo_app();
    app.update(key(KeyCode::Tab));
    let mut seen = Vec::new();
    for _ in 0..6 {
        app.update(key(KeyCode::Right));
        seen.push(app.tab);
    }
    assert!(!seen.contains(&Tab::Skills), "{seen:?}");
    assert!(!draw(&app, 80, 24).contains("Skills"));
    app.servers.rows[0].skills = true;
    assert!(draw(&app, 80, 24).contains("Skills"));
    let mut seen = Vec::new();
    for _ in 0..6 {
        app.update(key(KeyCode::Right));
        seen.push(app.tab);
    }
    assert!(seen.contains(&Tab::Skills), "{seen:?}");
}

#[test]
fn skills_tab() {
    let (mut app, _d) = skills_app();
    snapshot_all("skills_tab", &mut app);
}

#[test]
fn enter_reads_the_skill_md_only_and_shows_it_verified() {
    let (mut app, _d) = skills_app();
    let effects = app.update(key(KeyCode::Enter));
    let [
        Effect::Engine {
            id,
            request: EngineRequest::Operator { server, op },
        },
    ] = effects.as_slice()
    else {
        panic!("Enter reads the skill: {effects:?}")
    };
    assert_eq!(server, "demo");
    assert_eq!(
        op,
        &OperatorOp::Skill {
            name: "greeting".to_owned(),
            files: Vec::new(),
        },
        "no file but SKILL.md is asked for"
    );
    assert!(matches!(app.screen, Screen::Running(_)));
    app.update(ok(
        *id,
        "skills.get",
        json!({
            "skill": {"name": "greeting", "uri": "skill://greeting/SKILL.md",
                      "description": "How to greet someone by name", "files": null},
            "files": [{"path": "SKILL.md", "uri": "skill://greeting/SKILL.md",
                       "text": "---\nname: greeting\ndescription: How to greet someone by name\n---\n# Greeting\n\nSay hello, then the name.\n"}],
            "verified": true,
        }),
    ));
    assert!(matches!(app.screen, Screen::Result(_)));
    let screen = draw(&app, 80, 24);
    assert!(screen.contains("SKILL.md · verified"), "{screen}");
    assert!(screen.contains("Say hello, then the name."), "{screen}");
    snapshot_all("skill_read", &mut app);
}
