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

/// Another server selected, one that does not declare the extension: the Skills tab goes (the
/// Tools tab is shown); while a server's status does not say it declares it (a reconnect), the
/// tab says why it lists nothing.
#[test]
fn a_server_without_skills_does_not_keep_the_skills_tab() {
    use crate::app::testkit::app_with;
    let (mut app, _d) = app_with(&json!({
        "demo": {"command": "mcpdeck", "args": ["demo-server"]},
        "plain": {"command": "mcpdeck", "args": ["demo-server"]},
    }));
    let skilled = app
        .servers
        .rows
        .iter()
        .position(|r| r.name == "demo")
        .expect("demo");
    app.servers.rows[skilled].skills = true;
    app.servers.selected = skilled;
    app.update(key(KeyCode::Tab));
    while app.tab != Tab::Skills {
        app.update(key(KeyCode::Right));
    }
    app.servers.rows[skilled].skills = false;
    let drawn = draw(&app, 80, 24);
    assert!(
        drawn.contains("does not declare the skills extension"),
        "{drawn}"
    );
    app.servers.rows[skilled].skills = true;
    app.focus = crate::app::Focus::Servers;
    let other = if skilled == 0 {
        KeyCode::Down
    } else {
        KeyCode::Up
    };
    app.update(key(other));
    assert_eq!(app.server().map(|s| s.name.as_str()), Some("plain"));
    assert_eq!(app.tab, Tab::Tools, "the Skills tab went with the server");
    assert!(!draw(&app, 80, 24).contains("Skills"));
}

/// At 40 columns the tab bar scrolls so the tab in front is always shown (a `‹` says labels
/// are scrolled off; Skills, then Log, were cut off before), and a click lands on the label
/// drawn there.
#[test]
fn the_tab_bar_scrolls_to_keep_the_active_tab_shown() {
    let (mut app, _d) = skills_app();
    let bar = draw(&app, 40, 15);
    assert!(bar.contains("Skills"), "{bar}");
    while app.tab != Tab::Log {
        app.update(key(KeyCode::Right));
    }
    let bar = draw(&app, 40, 15);
    assert!(bar.contains("Log"), "{bar}");
    assert!(bar.contains('‹'), "{bar}");
    insta::assert_snapshot!("tab_bar_scrolled_40x15", bar);
    // The bar of the 40-column layout: labels from Prompts on, after the mark.
    let labels = crate::app::layout::tab_labels([None; 3], true);
    let first = crate::app::layout::tabs_from(&labels, Tab::Config, 20);
    assert!(first > 0);
    let at = |x| crate::app::layout::tab_at(([None; 3], true), Tab::Config, (0, 20), x);
    assert_eq!(at(0), None, "the mark selects nothing");
    assert_eq!(at(1), Some(labels[first].0));
    assert_eq!(at(13), Some(Tab::Config));
    assert_eq!(at(19), None, "past the last label");
    // Wide enough: nothing scrolls.
    assert_eq!(crate::app::layout::tabs_from(&labels, Tab::Config, 200), 0);
}
