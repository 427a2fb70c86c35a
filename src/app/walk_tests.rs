//! What a newcomer's walk through the console found, each pinned by a test: the tools search
//! behaves like every other list's filter; a Log line that is not traffic (a connection failure)
//! opens its whole text; the status line counts in words (`1 spill`).

use crossterm::event::KeyCode;
use serde_json::json;

use super::testkit::{ch, demo_app, key, ok};
use super::tests::{executes, with_tools};
use super::{LogLine, Screen, Tab};
use crate::mcp::proxy::ProxyRequest;

#[test]
fn enter_in_the_tools_search_opens_the_highlighted_match() {
    let (mut app, _d) = with_tools();
    app.update(ch('/'));
    app.update(ch('l'));
    let fx = app.update(ch('o'));
    let [(id, ProxyRequest::ToolsSearch { .. })] = &executes(&fx)[..] else {
        panic!("{fx:?}");
    };
    let matches = json!({"query": "lo", "matches": [
        {"tool": {"name": "long_task", "description": "", "required": []}, "rank": "NamePrefix"}
    ]});
    app.update(ok(*id, "tools.search", matches));
    let fx = app.update(key(KeyCode::Enter));
    let [(_, ProxyRequest::ToolsDescribe { tool, .. })] = &executes(&fx)[..] else {
        panic!("Enter asks for the highlighted tool's detail: {fx:?}");
    };
    assert_eq!(tool, "long_task");
}

#[test]
fn enter_on_a_failure_in_the_log_shows_its_whole_text() {
    let (mut app, _d) = demo_app();
    app.update(key(KeyCode::Enter));
    while app.tab != Tab::Log {
        app.update(ch('l'));
    }
    let text = format!(
        "spawn_failed: could not start `/{}/server`",
        "deep".repeat(30)
    );
    app.panes
        .get_mut("demo")
        .expect("the demo pane")
        .log
        .lines
        .push_back(LogLine {
            kind: "failed",
            text: text.clone(),
            body: None,
            logger: None,
        });
    app.update(key(KeyCode::Enter));
    let Screen::Result(result) = &app.screen else {
        panic!("Enter opens the line: {:?}", app.screen);
    };
    assert_eq!(result.view.lines, vec![text]);
}

#[test]
fn the_status_line_says_one_spill_and_two_spills() {
    let (mut app, _d) = demo_app();
    let spill = |name: &str| super::SpillRow {
        basename: name.to_owned(),
        path: std::path::PathBuf::from(name),
        shown: name.to_owned(),
        size: 1,
        mime: "text/plain".to_owned(),
        origin: "tools.call echo".to_owned(),
    };
    assert!(
        app.status_text().contains(" 0 spills"),
        "{}",
        app.status_text()
    );
    app.spills.push(spill("a.txt"));
    assert!(app.status_text().contains(" 1 spill ") || app.status_text().ends_with(" 1 spill"));
    assert!(
        !app.status_text().contains("1 spills"),
        "{}",
        app.status_text()
    );
    app.spills.push(spill("b.txt"));
    assert!(
        app.status_text().contains(" 2 spills"),
        "{}",
        app.status_text()
    );
}
