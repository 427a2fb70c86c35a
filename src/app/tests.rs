//! Pure `update` tests: navigation, catalogs, search, forms, running/cancel, results,
//! approvals (timing and paste guards), trust confirmation, stale results, sanitising.

use super::{RawForm, ResultScreen};
use crate::mcp::connection::ErrorClass;
use std::time::Duration;

use crossterm::event::KeyCode;
use serde_json::json;

use super::testkit::{
    app_with, ch, ctrl, demo_app, echo_description, failed, key, ok, tools_result,
};
use super::*;
use crate::mcp::connection::{ConnectionEvent, ServerEvent};
use crate::mcp::policy::approval::{ApprovalRequest, Decision, EffectClass as Fx};
use crate::mcp::proxy::ProxyRequest;

pub(super) fn executes(effects: &[Effect]) -> Vec<(ReqId, ProxyRequest)> {
    effects
        .iter()
        .filter_map(|e| match e {
            Effect::Engine {
                id,
                request: crate::mcp::EngineRequest::Agent(request),
            } => Some((*id, request.clone())),
            _ => None,
        })
        .collect()
}

/// Opens the demo server's tools and answers the list.
pub(super) fn with_tools() -> (App, tempfile::TempDir) {
    let (mut app, dir) = demo_app();
    let fx = app.update(key(KeyCode::Enter));
    let ex = executes(&fx);
    let [(id, ProxyRequest::ToolsList { server })] = &ex[..] else {
        panic!("{fx:?}");
    };
    assert_eq!(server, "demo");
    let id = *id;
    app.update(ok(id, "tools.list", tools_result()));
    (app, dir)
}

/// From the tool list, opens `echo`'s call form.
fn echo_form() -> (App, tempfile::TempDir) {
    let (mut app, dir) = with_tools();
    let fx = app.update(ch('c'));
    let ex = executes(&fx);
    let [(id, ProxyRequest::ToolsDescribe { tool, .. })] = &ex[..] else {
        panic!("{fx:?}");
    };
    assert_eq!(tool, "echo");
    let id = *id;
    app.update(ok(id, "tools.describe", echo_description()));
    assert!(matches!(app.screen, Screen::Form(_)), "{:?}", app.screen);
    (app, dir)
}

#[test]
fn opens_on_servers_and_connects_only_when_asked() {
    let (mut app, _d) = demo_app();
    assert_eq!(app.focus, Focus::Servers);
    assert!(
        executes(&app.update(ch('j'))).is_empty(),
        "moving never connects"
    );
    let (app, _d) = with_tools();
    assert_eq!(app.focus, Focus::Main);
    assert_eq!(app.visible_tools().map(<[_]>::len), Some(2));
}

#[test]
fn stale_results_are_dropped() {
    let (mut app, _d) = demo_app();
    let fx = app.update(key(KeyCode::Enter));
    let id = executes(&fx)[0].0;
    app.update(ok(id + 100, "tools.list", tools_result()));
    assert!(matches!(
        app.pane().and_then(|p| p.tools.catalog.as_ref()),
        Some(Load::Loading(_))
    ));
    app.update(failed(
        id,
        "tools.list",
        ErrorClass::SpawnFailed {
            os_error: "NotFound".to_owned(),
        },
        "no such file",
    ));
    assert!(matches!(
        app.pane().and_then(|p| p.tools.catalog.as_ref()),
        Some(Load::Failed(c, _)) if c == "spawn_failed"
    ));
}

#[test]
fn search_goes_to_the_engine_and_only_the_latest_answer_counts() {
    let (mut app, _d) = with_tools();
    assert!(executes(&app.update(ch('/'))).is_empty());
    let first = executes(&app.update(ch('e')));
    let second = executes(&app.update(ch('c')));
    let (ProxyRequest::ToolsSearch { query, .. }, id2) = (second[0].1.clone(), second[0].0) else {
        panic!("{second:?}");
    };
    assert_eq!(query, "ec");
    // 'q' is typed into the query, not quitting.
    assert!(!app.quitting);
    let one = json!({"query": "e", "matches": [{"tool": {"name": "echo", "description": "", "required": []}, "rank": "NamePrefix"}]});
    app.update(ok(
        first[0].0,
        "tools.search",
        json!({"query": "x", "matches": []}),
    ));
    assert!(app.visible_tools().is_none(), "the older answer is stale");
    app.update(ok(id2, "tools.search", one));
    assert_eq!(app.visible_tools().map(<[_]>::len), Some(1));
    app.update(key(KeyCode::Esc));
    assert_eq!(
        app.visible_tools().map(<[_]>::len),
        Some(2),
        "Esc clears the search"
    );
}

#[test]
fn replies_go_to_their_waiter_by_id_and_unknown_ids_are_dropped() {
    let (mut app, _d) = demo_app();
    let fx = app.update(key(KeyCode::Enter));
    let [(id, ProxyRequest::ToolsList { .. })] = &executes(&fx)[..] else {
        panic!("{fx:?}");
    };
    // A reply nobody asked for changes nothing.
    app.update(ok(id + 100, "tools.list", tools_result()));
    assert!(matches!(
        app.pane().and_then(|p| p.tools.catalog.as_ref()),
        Some(Load::Loading(_))
    ));
    // A reply of another type is shown as a contract error, never as an empty list.
    app.update(ok(
        *id,
        "resources.list",
        json!({"resources": [], "templates": []}),
    ));
    let Some(Some(Load::Failed(class, _))) = app.pane().map(|p| p.tools.catalog.as_ref()) else {
        panic!("{:?}", app.pane().map(|p| &p.tools));
    };
    assert_eq!(class, "unexpected_result");
}

#[test]
fn form_validates_before_running_and_types_q_into_fields() {
    let (mut app, _d) = echo_form();
    assert!(
        executes(&app.update(key(KeyCode::Enter))).is_empty(),
        "required text is empty"
    );
    let Screen::Form(form) = &mut app.screen else {
        panic!()
    };
    form.fields[0].value.clear();
    form.fields[0].required = true;
    form.fields[0].kind = form::FieldKind::Integer;
    assert!(
        executes(&app.update(key(KeyCode::Enter))).is_empty(),
        "invalid: nothing runs"
    );
    let Screen::Form(form) = &app.screen else {
        panic!()
    };
    assert!(form.fields[0].error.is_some());
    let (mut app, _d) = echo_form();
    for c in "hi q".chars() {
        app.update(ch(c));
    }
    assert!(!app.quitting);
    let fx = executes(&app.update(key(KeyCode::Enter)));
    let [(_, ProxyRequest::ToolsCall { tool, args, .. })] = &fx[..] else {
        panic!("{fx:?}")
    };
    assert_eq!(tool, "echo");
    assert_eq!(args.get("text"), Some(&json!("hi q")));
}

#[test]
fn raw_editor_keeps_input_both_ways_and_rejects_bad_json() {
    let (mut app, _d) = echo_form();
    app.update(ch('x'));
    app.update(ctrl('e'));
    let Screen::Raw(RawForm { area, .. }) = &app.screen else {
        panic!("{:?}", app.screen)
    };
    assert!(area.lines().join("").contains("\"text\": \"x\""));
    app.update(key(KeyCode::End));
    app.update(ch('!'));
    assert!(
        executes(&app.update(ctrl('s'))).is_empty(),
        "invalid JSON does not run"
    );
    assert!(
        matches!(&app.screen, Screen::Raw(RawForm { error: Some(e), .. }) if e.contains("invalid JSON"))
    );
    app.update(key(KeyCode::Backspace));
    app.update(ctrl('e'));
    let Screen::Form(form) = &app.screen else {
        panic!("{:?}", app.screen)
    };
    assert_eq!(form.fields[0].value, "x");
}

#[test]
fn running_shows_progress_cancels_with_esc_and_shows_the_result() {
    let (mut app, _d) = echo_form();
    app.update(ch('h'));
    let start = app.now;
    let fx = executes(&app.update(key(KeyCode::Enter)));
    let id = fx[0].0;
    assert!(app.animating());
    app.update(Msg::Event(ServerEvent {
        server: "demo".into(),
        event: ConnectionEvent::Progress {
            token: rmcp::model::ProgressToken(rmcp::model::NumberOrString::Number(1)),
            progress: 3.0,
            total: Some(10.0),
            message: Some("step\u{1b}[2J 3".to_owned()),
        },
    }));
    let Screen::Running(run) = &app.screen else {
        panic!()
    };
    let p = run.progress.clone().expect("progress");
    assert_eq!((p.done, p.total), (3.0, Some(10.0)));
    assert!(!p.message.expect("message").contains('\u{1b}'), "sanitised");
    app.now = start + Duration::from_secs(2);
    assert_eq!(app.update(key(KeyCode::Esc)), vec![Effect::Cancel(id)]);
    app.update(failed(
        id,
        "tools.call echo",
        ErrorClass::Cancelled,
        "the request was cancelled",
    ));
    let Screen::Result(ResultScreen {
        view,
        form: Some(_),
    }) = &app.screen
    else {
        panic!("{:?}", app.screen)
    };
    assert_eq!(view.error.as_ref().map(|e| e.0.as_str()), Some("cancelled"));
    assert!(!app.animating());
}

#[test]
fn result_toggles_model_visible_text_and_copies_it() {
    let (mut app, _d) = echo_form();
    app.update(ch('h'));
    let id = executes(&app.update(key(KeyCode::Enter)))[0].0;
    app.update(ok(
        id,
        "tools.call echo",
        json!({"isError": false, "text": "h", "structuredContent": null}),
    ));
    let Screen::Result(ResultScreen { view, .. }) = &app.screen else {
        panic!()
    };
    assert!(!view.show_model);
    app.update(ch('m'));
    let Screen::Result(ResultScreen { view, .. }) = &app.screen else {
        panic!()
    };
    assert!(view.show_model);
    let fx = app.update(ch('y'));
    assert!(matches!(&fx[..], [Effect::Copy(t)] if t.contains('h')));
    // c calls again with the same form.
    app.update(ch('c'));
    assert!(matches!(&app.screen, Screen::Form(f) if f.fields[0].value == "h"));
}

fn request(ticket: u64) -> ApprovalRequest {
    ApprovalRequest {
        ticket,
        server: "demo\u{202e}".to_owned(),
        operation: "tools.call echo".to_owned(),
        effects: vec![Fx::Read, Fx::Network],
        server_changed: false,
        tool_changed: true,
        drift: Vec::new(),
        findings: Vec::new(),
        timeout_ms: 120_000,
        arguments: None,
        effects_claimed: false,
        sandbox: None,
    }
}

#[test]
fn approval_ignores_early_keys_and_pastes_then_answers() {
    let (mut app, _d) = demo_app();
    let t0 = app.now;
    app.update(Msg::Approval(request(1)));
    assert!(
        !app.approvals[0].request.server.contains('\u{202e}'),
        "sanitised"
    );
    app.now = t0 + Duration::from_millis(100);
    app.update(ch('y'));
    assert_eq!(
        app.approvals.len(),
        1,
        "keys in the first 300 ms are ignored"
    );
    app.now = t0 + Duration::from_millis(400);
    assert!(app.update(Msg::Paste("y".to_owned())).is_empty());
    assert_eq!(app.approvals.len(), 1, "a paste never answers");
    assert!(
        !app.quitting && app.update(ch('q')).is_empty(),
        "q does not quit under a modal"
    );
    assert_eq!(
        app.update(ch('y')),
        vec![Effect::Answer {
            agent: None,
            ticket: 1,
            decision: Decision::AllowOnce
        }]
    );
    assert!(app.approvals.is_empty());
    assert_eq!(
        app.decided.len(),
        1,
        "the decision is kept for the approvals view"
    );
    app.update(ch('a'));
    assert!(matches!(app.overlay, Some(Overlay::Approvals(_))));
}

#[test]
fn approval_session_deny_and_queue_guard() {
    let (mut app, _d) = demo_app();
    let t0 = app.now;
    app.update(Msg::Approval(request(1)));
    app.update(Msg::Approval(request(2)));
    app.now = t0 + Duration::from_millis(500);
    let answer = |ticket, decision| {
        vec![Effect::Answer {
            agent: None,
            ticket,
            decision,
        }]
    };
    assert_eq!(app.update(ch('s')), answer(1, Decision::AllowSession));
    // The second request's guard starts when it is shown.
    assert!(app.update(key(KeyCode::Esc)).is_empty());
    app.now = t0 + Duration::from_millis(900);
    assert_eq!(app.update(key(KeyCode::Esc)), answer(2, Decision::Deny));
}

#[test]
fn trust_needs_a_typed_y() {
    let dir_servers = json!({});
    let (mut app, _d) = app_with(&dir_servers);
    app.info.trustable = true;
    app.update(ch('t'));
    assert!(matches!(app.overlay, Some(Overlay::Trust(..))));
    assert!(app.update(ch('T')).is_empty());
    assert!(app.update(ch('x')).is_empty(), "anything but y cancels");
    app.update(ch('T'));
    assert_eq!(app.update(ch('y')), vec![Effect::GrantTrust]);
    assert_eq!(app.update(ch('R')), vec![Effect::RevokeTrust]);
}

#[test]
fn quit_and_help_and_tabs() {
    let (mut app, _d) = with_tools();
    app.update(ch('?'));
    assert!(matches!(app.overlay, Some(Overlay::Help(_))));
    app.update(ch('?'));
    assert!(app.overlay.is_none());
    let fx = app.update(ch('l'));
    assert_eq!(app.tab, Tab::Resources);
    assert!(matches!(
        executes(&fx)[..],
        [(_, ProxyRequest::ResourcesList { .. })]
    ));
    assert_eq!(app.update(ch('q')), vec![Effect::Quit]);
}

#[test]
fn hostile_names_are_sanitised_on_entry() {
    let (mut app, _d) = demo_app();
    let id = executes(&app.update(key(KeyCode::Enter)))[0].0;
    app.update(ok(
        id,
        "tools.list",
        json!({"tools": [{"name": "evil\u{1b}]52;c;AAAA\u{7}", "description": "a\u{202e}b\u{200b}c\u{9b}2J", "required": []}], "count": 1}),
    ));
    let tools = app.visible_tools().expect("tools");
    for t in tools {
        assert!(
            crate::mcp::sanitize::is_clean(&t.name)
                && crate::mcp::sanitize::is_clean(&t.description)
        );
    }
}

#[test]
fn list_changed_drops_the_catalog_and_relists() {
    let (mut app, _d) = with_tools();
    let fx = app.update(Msg::Event(ServerEvent {
        server: "demo".into(),
        event: ConnectionEvent::ToolListChanged,
    }));
    assert!(matches!(
        executes(&fx)[..],
        [(_, ProxyRequest::ToolsList { .. })]
    ));
    assert_eq!(app.pane().map(|p| p.log.lines.len()), Some(1));
}

#[test]
fn mouse_click_selects_a_server_and_wheel_scrolls() {
    use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
    let (mut app, _d) = app_with(&json!({
        "a": {"command": "x"},
        "b": {"command": "y"}
    }));
    app.update(Msg::Resize(80, 24));
    let click = |row| {
        Msg::Mouse(MouseEvent {
            kind: MouseEventKind::Down(MouseButton::Left),
            column: 3,
            row,
            modifiers: crossterm::event::KeyModifiers::NONE,
        })
    };
    app.update(click(2));
    assert_eq!(app.server().map(|s| s.name.as_str()), Some("b"));
    app.update(Msg::Mouse(MouseEvent {
        kind: MouseEventKind::ScrollUp,
        column: 3,
        row: 2,
        modifiers: crossterm::event::KeyModifiers::NONE,
    }));
    assert_eq!(app.servers.selected, 0);
}

#[test]
fn clicking_a_tab_selects_it_and_loads_it() {
    use crossterm::event::{MouseButton, MouseEvent, MouseEventKind};
    let (mut app, _d) = with_tools();
    app.update(Msg::Resize(80, 24));
    let areas = layout::areas(app.size, false);
    let counts = app.server().map(|s| s.counts).unwrap_or_default();
    let labels = layout::tab_labels(counts, false);
    // " Tools " then " Resources ": the first column of the Resources label.
    let column = areas.main.x + 1 + u16::try_from(labels[0].1.len() + 2 + 1).expect("small");
    let fx = app.update(Msg::Mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column,
        row: areas.main.y + 1,
        modifiers: crossterm::event::KeyModifiers::NONE,
    }));
    assert_eq!(app.tab, Tab::Resources);
    assert_eq!(app.focus, Focus::Main);
    assert!(
        executes(&fx)
            .iter()
            .any(|(_, r)| matches!(r, ProxyRequest::ResourcesList { .. })),
        "{fx:?}"
    );
    // Past the last label nothing changes.
    app.update(Msg::Mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: areas.main.x + areas.main.width - 2,
        row: areas.main.y + 1,
        modifiers: crossterm::event::KeyModifiers::NONE,
    }));
    assert_eq!(app.tab, Tab::Resources);
}

#[test]
fn approval_keys_come_from_the_keymap() {
    let (mut app, _d) = demo_app();
    assert!(app.keymap.apply("allow_once = \"o\"").is_empty());
    app.update(Msg::Approval(request(7)));
    app.now += approval::GUARD;
    assert!(app.update(ch('y')).is_empty(), "y is no longer bound");
    assert_eq!(
        app.update(ch('o')),
        vec![Effect::Answer {
            agent: None,
            ticket: 7,
            decision: Decision::AllowOnce
        }]
    );
}

#[test]
fn editor_saves_only_valid_text() {
    let (mut app, _d) = demo_app();
    app.tab = Tab::Config;
    app.focus = Focus::Main;
    let fx = app.update(ch('e'));
    let [Effect::OpenEditor { path, layer }] = &fx[..] else {
        panic!("{fx:?}")
    };
    app.update(Msg::EditorText {
        path: path.clone(),
        layer: *layer,
        text: Ok("{\"mcpServers\": {\"demo\": {\"command\": \"x\"}}}\n".to_owned()),
    });
    let Some(Overlay::Editor(_)) = &app.overlay else {
        panic!("no editor")
    };
    // q types into the buffer; it does not quit.
    app.update(ch('q'));
    assert!(!app.quitting);
    assert!(
        app.update(ctrl('s')).is_empty(),
        "invalid JSON is never saved"
    );
    app.update(key(KeyCode::Backspace));
    let fx = app.update(ctrl('s'));
    assert!(
        matches!(&fx[..], [Effect::SaveConfig { text, .. }] if text.contains("\"demo\"")),
        "{fx:?}"
    );
    app.update(Msg::Saved(Ok("saved".to_owned())));
    app.update(key(KeyCode::Esc));
    assert!(app.overlay.is_none());
}

#[test]
fn a_connection_failure_is_written_to_the_log_tab_in_words() {
    let (mut app, _d) = demo_app();
    let fx = app.update(key(KeyCode::Enter));
    let (id, _) = executes(&fx)[0].clone();
    app.update(failed(
        id,
        "tools.list",
        ErrorClass::SpawnFailed {
            os_error: "NotFound".to_owned(),
        },
        "no such file: nope",
    ));
    let pane = app.pane().expect("pane");
    let line = pane.log.lines.back().expect("a log line");
    assert_eq!(line.kind, "failed");
    assert!(line.text.contains("spawn_failed: no such file"), "{line:?}");
    // A tool's own failure is not a connection failure.
    let fx = app.update(key(KeyCode::Char('r')));
    let (id, _) = executes(&fx)[0].clone();
    let before = app.pane().expect("pane").log.lines.len();
    app.update(failed(
        id,
        "tools.list",
        ErrorClass::ServerError { code: -32603 },
        "boom",
    ));
    assert_eq!(app.pane().expect("pane").log.lines.len(), before);
    // Log levels are the protocol's words.
    #[allow(deprecated)]
    let level = rmcp::model::LoggingLevel::Warning;
    app.update(Msg::Event(ServerEvent {
        server: "demo".into(),
        event: ConnectionEvent::Log {
            level,
            logger: None,
            data: json!("careful"),
        },
    }));
    let line = app
        .pane()
        .expect("pane")
        .log
        .lines
        .back()
        .expect("line")
        .clone();
    assert_eq!((line.kind, line.text.as_str()), ("warning", "careful"));
}

#[test]
fn the_log_tab_narrows_with_a_typed_filter() {
    let (mut app, _d) = with_tools();
    #[allow(deprecated)]
    let level = rmcp::model::LoggingLevel::Info;
    for text in ["careful now", "all fine"] {
        app.update(Msg::Event(ServerEvent {
            server: "demo".into(),
            event: ConnectionEvent::Log {
                level,
                logger: None,
                data: json!(text),
            },
        }));
    }
    while app.tab != Tab::Log {
        app.update(key(KeyCode::Right));
    }
    assert_eq!(app.list_len(), 2);
    app.update(ch('/'));
    for c in "CARE".chars() {
        app.update(ch(c));
    }
    assert_eq!(app.list_len(), 1);
    let shown = app.pane().expect("pane").log.visible()[0].text.clone();
    assert!(shown.contains("careful"), "{shown}");
    app.update(key(KeyCode::Esc));
    assert_eq!(app.list_len(), 2);
}
