//! Render snapshots over `TestBackend` at 80×24, 120×40 and 40×15 (the clock pinned), and a
//! scan proving hostile server text never puts a control, bidi or zero-width character in a
//! cell.

use crate::mcp::connection::ErrorClass;
use std::time::Duration;

use crossterm::event::KeyCode;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;

use crate::app::testkit::{
    agent_request_id as first_id, ch, demo_app, echo_description, failed, key, ok, tools_result,
};
use crate::app::{App, Effect, Msg};
use crate::mcp::connection::{ConnectionEvent, ServerEvent};
use crate::mcp::policy::approval::{ApprovalRequest, EffectClass as Fx};

#[allow(deprecated)]
const LOG_ERROR: rmcp::model::LoggingLevel = rmcp::model::LoggingLevel::Error;

pub(super) const SIZES: [(u16, u16); 3] = [(80, 24), (120, 40), (40, 15)];

pub(crate) fn draw(app: &App, w: u16, h: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(w, h)).expect("terminal");
    terminal.draw(|f| super::render(app, f)).expect("draw");
    let buffer = terminal.backend().buffer();
    let mut out = String::new();
    for y in 0..h {
        for x in 0..w {
            out.push_str(buffer.cell((x, y)).map_or(" ", |c| c.symbol()));
        }
        out.push('\n');
    }
    out
}

pub(super) fn snapshot_all(name: &str, app: &mut App) {
    for (w, h) in SIZES {
        app.size = (w, h);
        insta::assert_snapshot!(format!("{name}_{w}x{h}"), draw(app, w, h));
    }
}

pub(super) fn tools_app() -> (App, tempfile::TempDir) {
    let (mut app, dir) = demo_app();
    let id = first_id(&app.update(key(KeyCode::Enter)));
    app.update(ok(id, "tools.list", tools_result()));
    (app, dir)
}

#[test]
fn demo_config_before_connecting() {
    let (mut app, _d) = demo_app();
    snapshot_all("start", &mut app);
}

#[test]
fn tools_list() {
    let (mut app, _d) = tools_app();
    snapshot_all("tools", &mut app);
}

#[test]
fn help_overlay() {
    let (mut app, _d) = tools_app();
    app.update(ch('?'));
    snapshot_all("help", &mut app);
}

#[test]
fn connection_error() {
    let (mut app, _d) = demo_app();
    let id = first_id(&app.update(key(KeyCode::Enter)));
    app.update(failed(
        id,
        "tools.list",
        ErrorClass::SpawnFailed {
            os_error: "NotFound".to_owned(),
        },
        "cannot start `mcpdeck`: not found",
    ));
    snapshot_all("error", &mut app);
}

#[test]
fn detail_form_running_result() {
    let (mut app, _d) = tools_app();
    let id = first_id(&app.update(key(KeyCode::Enter)));
    app.update(ok(id, "tools.describe", echo_description()));
    snapshot_all("detail", &mut app);
    app.update(ch('c'));
    app.update(ch('h'));
    app.update(ch('i'));
    snapshot_all("form", &mut app);
    let start = app.now;
    let id = first_id(&app.update(key(KeyCode::Enter)));
    app.update(Msg::Event(ServerEvent {
        server: "demo".into(),
        event: ConnectionEvent::Progress {
            token: rmcp::model::ProgressToken(rmcp::model::NumberOrString::Number(1)),
            progress: 3.0,
            total: Some(10.0),
            message: Some("step 3 of 10".to_owned()),
        },
    }));
    app.now = start + Duration::from_millis(1500);
    snapshot_all("running", &mut app);
    app.update(ok(id, "tools.call echo", json!({"isError": false, "text": "hi", "structuredContent": {"echo": "hi"}, "outputSchemaVerdict": null})));
    snapshot_all("result", &mut app);
}

#[test]
fn approval_modal() {
    let (mut app, _d) = tools_app();
    app.update(Msg::Approval(ApprovalRequest {
        ticket: 1,
        server: "demo".to_owned(),
        operation: "tools.call echo".to_owned(),
        effects: vec![Fx::Read, Fx::Write, Fx::Execute, Fx::Network],
        server_changed: false,
        tool_changed: true,
        drift: Vec::new(),
        findings: Vec::new(),
        timeout_ms: 120_000,
        arguments: None,
        effects_claimed: false,
        sandbox: None,
    }));
    app.now += Duration::from_millis(400);
    snapshot_all("approval", &mut app);
}

#[test]
fn hostile_text_never_reaches_a_cell() {
    let hostile = "x\u{1b}[2J\u{1b}]52;c;AAAA\u{7}\u{202e}rev\u{2066}\u{200b}\u{feff}\u{9b}31m\u{e0041}\r\u{8}\u{7f}";
    let (mut app, _d) = demo_app();
    let id = first_id(&app.update(key(KeyCode::Enter)));
    app.update(ok(
        id,
        "tools.list",
        json!({"tools": [{"name": hostile, "description": hostile, "required": [hostile]}], "count": 1}),
    ));
    app.update(Msg::Event(ServerEvent {
        server: "demo".into(),
        event: ConnectionEvent::Log {
            level: LOG_ERROR,
            logger: Some(hostile.to_owned()),
            data: json!(hostile),
        },
    }));
    let mut screens = vec![draw(&app, 120, 40)];
    app.update(ch('l'));
    app.update(ch('l'));
    app.update(ch('l'));
    screens.push(draw(&app, 120, 40));
    app.update(ch('h'));
    app.update(ch('h'));
    app.update(ch('h'));
    let id = first_id(&app.update(key(KeyCode::Enter)));
    app.update(ok(
        id,
        "tools.describe",
        json!({"name": hostile, "description": hostile, "inputSchema": {"type": "object", "properties": {hostile: {"type": "string", "description": hostile}}}, "_meta": {hostile: hostile}}),
    ));
    screens.push(draw(&app, 120, 40));
    app.update(ch('c'));
    screens.push(draw(&app, 120, 40));
    let id = first_id(&app.update(key(KeyCode::Enter)));
    app.update(ok(
        id,
        "tools.call x",
        json!({"isError": false, "text": hostile, "structuredContent": {hostile: hostile}}),
    ));
    screens.push(draw(&app, 120, 40));
    app.update(ch('m'));
    screens.push(draw(&app, 120, 40));
    for screen in &screens {
        for c in screen.chars() {
            let bad = c != '\n'
                && (c.is_control()
                    || matches!(c, '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}' | '\u{e0000}'..='\u{e007f}'));
            assert!(!bad, "U+{:04X} reached a cell in:\n{screen}", u32::from(c));
        }
    }
    assert!(
        screens[0].contains('␛'),
        "escapes are visible, not dropped:\n{}",
        screens[0]
    );
}

fn fixed_info() -> crate::app::info::ConfigInfo {
    use crate::app::info::{ConfigInfo, InfoLine, Tone};
    let l = |text: &str, tone| InfoLine {
        text: text.to_owned(),
        tone,
    };
    ConfigInfo {
        doctor: vec![
            l(
                "Configuration files, lowest precedence first",
                Tone::Heading,
            ),
            l(
                "user             /home/op/.config/mcpdeck/mcp.json  1 server(s)",
                Tone::Plain,
            ),
            l(
                "    error mcpServers.gh.url: not a URL (line 3)",
                Tone::Error,
            ),
            l(
                "project          /work/p/.mcp.json  1 server(s)",
                Tone::Plain,
            ),
            l(
                "    warning mcpServers.x.env.TOKEN: literal secret",
                Tone::Warn,
            ),
            l("Total: 1 error(s), 1 warning(s)", Tone::Dim),
        ],
        servers: [(
            "demo".to_owned(),
            vec![
                l(
                    "source: user /home/op/.config/mcpdeck/mcp.json:2",
                    Tone::Heading,
                ),
                l(
                    "{ \"command\": \"mcpdeck\", \"args\": [\"demo-server\"] }",
                    Tone::Plain,
                ),
                l("reference env.TOKEN: ${TOKEN} UNSET", Tone::Warn),
            ],
        )]
        .into_iter()
        .collect(),
        trust: vec![
            l("Project /work/p", Tone::Heading),
            l("state: untrusted", Tone::Warn),
            l("fingerprint: sha256:0123abcd", Tone::Dim),
            l("local (/work/p/.mcp.json)", Tone::Heading),
            l(
                "  { \"command\": \"sh\", \"args\": [\"-c\", \"curl x | sh\"] }",
                Tone::Plain,
            ),
            l("  ! args[1]: pipes a download into a shell", Tone::Warn),
        ],
        trust_state: "untrusted".to_owned(),
        trustable: true,
        sources: std::collections::BTreeMap::new(),
        doctor_files: vec![
            crate::app::info::DoctorFile {
                line: 1,
                path: "/home/op/.config/mcpdeck/mcp.json".into(),
                layer: crate::mcp::config::Layer::User,
                present: true,
            },
            crate::app::info::DoctorFile {
                line: 3,
                path: "/work/p/.mcp.json".into(),
                layer: crate::mcp::config::Layer::Project,
                present: true,
            },
        ],
        committed_pins: None,
    }
}

#[test]
fn global_views() {
    let (mut app, _d) = tools_app();
    app.info = fixed_info();
    app.trust = "untrusted".to_owned();
    app.update(ch('d'));
    snapshot_all("doctor", &mut app);
    app.update(key(KeyCode::Esc));
    app.update(ch('t'));
    app.update(ch('T'));
    snapshot_all("trust_confirm", &mut app);
    app.update(key(KeyCode::Esc));
    app.update(key(KeyCode::Esc));
    app.update(Msg::Spills(vec![crate::mcp::results::SpillEntry {
        basename: "spill-1.png".to_owned(),
        path: "/run/user/1000/mcpdeck/spill-1/spill-1.png".into(),
        size: 165,
        mime: "image/png".to_owned(),
        origin: "tools.call image".to_owned(),
    }]));
    app.update(ch('s'));
    snapshot_all("spills", &mut app);
    app.update(key(KeyCode::Esc));
    app.update(Msg::Event(ServerEvent {
        server: "demo".into(),
        event: ConnectionEvent::ToolListChanged,
    }));
    for (outgoing, kind, method, id, bytes, latency, body) in [
        (
            true,
            "request",
            "tools/call",
            "7",
            112,
            None,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}"#,
        ),
        (
            false,
            "response",
            "tools/call",
            "7",
            2_300,
            Some(Duration::from_micros(4_250)),
            r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"hi\u001b[2J"}]}}"#,
        ),
    ] {
        app.update(Msg::Event(ServerEvent {
            server: "demo".into(),
            event: ConnectionEvent::Traffic(Box::new(crate::mcp::connection::traffic::Traffic {
                outgoing,
                kind,
                method: Some(method.to_owned()),
                id: Some(id.to_owned()),
                bytes,
                latency,
                body: body.to_owned(),
            })),
        }));
    }
    app.update(ch('l'));
    app.update(ch('l'));
    let effects = app.update(ch('l'));
    assert_eq!(effects, vec![Effect::ReadStderr("demo".to_owned())]);
    app.update(Msg::Stderr {
        server: "demo".to_owned(),
        text: Some(
            "starting\nlistening on stdio\n\u{1b}]0;owned\u{7}warning: slow disk\n".to_owned(),
        ),
    });
    snapshot_all("log", &mut app);
    // Enter opens the selected (newest) line's body, pretty-printed and sanitised.
    app.update(key(KeyCode::Enter));
    snapshot_all("traffic_body", &mut app);
    app.update(key(KeyCode::Esc));
    app.update(ch('l'));
    snapshot_all("config_tab", &mut app);
}

/// A representative answer of each workspace tool.
fn workspace_envelope(tool: &str) -> serde_json::Value {
    let result = match tool {
        "workspace_find" => json!({"passages": [
            {"path": "README.md", "lines": {"start": 40, "end": 44}, "section": "Configuration",
             "kind": "markdown", "score": 2.1, "text": "Project files override user files.\nThe --config file overrides both.", "words": 11},
            {"path": "docs/config.md", "lines": {"start": 3, "end": 3}, "kind": "markdown", "score": 1.2,
             "text": "Precedence is by layer.", "words": 4}],
            "words_used": 15, "budget": 800, "matching_passages": 6}),
        "workspace_query" => json!({"matches": [
            {"path": "src/config.rs", "line": 12, "kind": "source", "snippet": "fn precedence() {", "snippet_complete": true},
            {"path": "README.md", "line": 40, "kind": "markdown", "snippet": "## Configuration", "snippet_complete": true}],
            "total_matches": 2}),
        "workspace_check" => json!({"findings": [
            {"path": ".mcp.json", "severity": "error", "code": "syntax", "line": 3, "column": 9, "message": "expected `,` or `}`"},
            {"path": "docs/a.md", "severity": "warning", "code": "broken_link", "line": 7, "message": "`missing.md` does not exist"}],
            "files_checked": 12, "paths_not_checked": 0, "counts": {"errors": 1, "warnings": 1}, "strict": false}),
        _ => json!({"capsule": {"schema": "mcpdeck.workspace-capsule/v1", "workspace": "proj",
            "question_sha256": "51ab".repeat(16), "claims": [
            {"statement": "Project files override user files.", "path": "README.md",
             "lines": {"start": 40, "end": 44}, "passage_sha256": "9f2c".repeat(16)}],
            "workspace_fingerprint": "sha256:".to_owned() + &"ab".repeat(32), "admitted_files": 57},
            "integrity": {"algorithm": "sha256", "canonicalization": "sorted keys, no whitespace",
                "hash": "c0de".repeat(16)}}),
    };
    json!({"schema": "mcpdeck.workspace-result/v1", "status": "known", "workspace": "proj", "result": result})
}

#[test]
fn workspace_panel_with_each_tools_result() {
    use crate::app::side::WORKSPACE_TOOLS;
    use crate::app::testkit::{workspace_answer, workspace_app, workspace_description};
    let (mut app, _d) = workspace_app();
    let mut effects = app.update(ch('w'));
    for (i, tool) in WORKSPACE_TOOLS.iter().enumerate() {
        if i > 0 {
            effects = app.update(key(KeyCode::Right));
        }
        let id = first_id(&effects);
        app.update(ok(id, "tools.describe", workspace_description(tool)));
        if i == 0 {
            snapshot_all("workspace_form", &mut app);
        }
        if matches!(*tool, "workspace_find" | "workspace_capsule") {
            for c in "precedence".chars() {
                app.update(ch(c));
            }
        } else if *tool == "workspace_query" {
            app.update(ch('*'));
        }
        let id = first_id(&app.update(key(KeyCode::Enter)));
        app.update(workspace_answer(id, &workspace_envelope(tool)));
        snapshot_all(tool, &mut app);
    }
}

#[test]
fn agents_view_and_an_agents_approval() {
    use crate::mcp::control::{ServerSnapshot, SessionSnapshot};
    let (mut app, _d) = tools_app();
    app.update(ch('A'));
    snapshot_all("agents_empty", &mut app);
    for (pid, mode, state) in [(4242, "enforce", "connected"), (4300, "audit", "failed")] {
        app.update(Msg::AgentSnapshot(Box::new(SessionSnapshot {
            pid,
            project: "/home/op/project".into(),
            mode: mode.to_owned(),
            servers: vec![
                ServerSnapshot {
                    name: "github".to_owned(),
                    state: state.to_owned(),
                },
                ServerSnapshot {
                    name: "fs".to_owned(),
                    state: "disconnected".to_owned(),
                },
            ],
            spills: 3,
            pending: Vec::new(),
            awaiting_console: 0,
        })));
    }
    snapshot_all("agents", &mut app);
    for c in "/4300".chars() {
        app.update(ch(c));
    }
    snapshot_all("agents_filtered", &mut app);
    app.update(key(KeyCode::Esc));
    app.update(Msg::AgentApproval {
        pid: 4242,
        request: ApprovalRequest {
            ticket: 5,
            server: "github".to_owned(),
            operation: "tools.call create_issue".to_owned(),
            effects: vec![Fx::Write, Fx::Network],
            server_changed: false,
            tool_changed: false,
            drift: Vec::new(),
            findings: Vec::new(),
            timeout_ms: 120_000,
            arguments: None,
            effects_claimed: false,
            sandbox: None,
        },
    });
    app.now += Duration::from_millis(400);
    snapshot_all("agent_approval", &mut app);
}

/// Resources → `/` filter → Enter reads the resource → End: the last of 200 lines is on screen
/// at every size, with the position row saying so; the body shows without the agents' wrapper.
#[test]
fn a_long_resource_reaches_its_last_line_with_end() {
    let (mut app, _d) = tools_app();
    let fx = app.update(ch('l'));
    let id = first_id(&fx);
    app.update(ok(
        id,
        "resources.list",
        json!({"resources": [
            {"reference": "mcp-resource-00000000000000000000000000000001", "name": "notes.md", "description": "", "size": 10},
            {"reference": "mcp-resource-00000000000000000000000000000002", "name": "structure.md", "description": "the layout", "size": 9000},
        ], "templates": []}),
    ));
    app.update(ch('/'));
    for c in "struct".chars() {
        app.update(ch(c));
    }
    assert_eq!(app.list_len(), 1, "the filter narrows the list");
    let id = first_id(&app.update(key(KeyCode::Enter)));
    let body: Vec<String> = (1..=200)
        .map(|i| {
            format!("{i:03} a line of structure.md that is long enough to wrap at forty columns")
        })
        .collect();
    let text = format!(
        "<untrusted-mcp-data server=\"demo\" kind=\"resource\">\n{}\n</untrusted-mcp-data>",
        body.join("\n")
    );
    app.update(ok(
        id,
        "resources.read",
        json!({"reference": "mcp-resource-00000000000000000000000000000002", "text": text}),
    ));
    for (w, h) in SIZES {
        app.size = (w, h);
        app.update(key(KeyCode::Home));
        let top = draw(&app, w, h);
        assert!(!top.contains("untrusted-mcp-data"), "{top}");
        assert!(top.contains("001 a line"), "{top}");
        app.update(key(KeyCode::End));
        let end = draw(&app, w, h);
        assert!(end.contains("of 200"), "{end}");
        assert!(end.contains("200 a line"), "{end}");
        assert!(!end.contains("001 a line"), "{end}");
        insta::assert_snapshot!(format!("long_resource_end_{w}x{h}"), end);
    }
}

#[test]
fn footer_hints_that_do_not_fit_end_with_more() {
    let (mut app, _d) = tools_app();
    let narrow = draw(&app, 40, 15);
    let footer = narrow.lines().last().expect("footer");
    assert!(footer.contains("? more"), "{footer}");
    assert!(footer.starts_with(" Enter tool detail"), "{footer}");
    app.size = (200, 24);
    let wide = draw(&app, 200, 24);
    let footer = wide.lines().last().expect("footer");
    assert!(!footer.contains("more"), "{footer}");
    assert!(footer.contains("Tab switch pane"), "{footer}");
}

#[test]
fn help_entries_stay_inside_their_columns() {
    let (mut app, _d) = tools_app();
    for width in [20, 37, 60] {
        for line in super::help::help_lines(&app, width) {
            assert!(line.width() <= usize::from(width), "{width}: {line:?}");
        }
    }
    app.update(ch('?'));
    app.size = (120, 40);
    let screen = draw(&app, 120, 40);
    // Words wrap whole inside their column.
    assert!(screen.contains("notifications"), "{screen}");
    assert!(!screen.contains("notifi "), "{screen}");
}

#[test]
fn progress_is_a_bar_with_the_count_beside_it() {
    let p = crate::app::Progress {
        done: 3.0,
        total: Some(10.0),
        message: None,
    };
    let line = super::calls::progress_line(&p, 30);
    let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
    assert!(text.ends_with(" 3/10"), "{text}");
    assert_eq!(text.chars().filter(|c| *c == '█').count(), 8, "{text}");
    let unknown = crate::app::Progress { total: None, ..p };
    let line = super::calls::progress_line(&unknown, 30);
    assert_eq!(line.spans[0].content, "progress 3");
}

#[test]
fn the_trust_diff_scrolls_to_its_last_line_in_the_viewer() {
    use crate::app::info::{InfoLine, Tone};
    let (mut app, _d) = tools_app();
    app.info = fixed_info();
    app.info.trust_state = "changed".to_owned();
    app.info.trust.push(InfoLine {
        text: "Changes since trusted:".to_owned(),
        tone: Tone::Warn,
    });
    for i in 0..60 {
        app.info.trust.push(InfoLine {
            text: format!(
                "  + server-{i:02} added: a long definition line that wraps in a narrow pane"
            ),
            tone: Tone::Warn,
        });
    }
    app.update(ch('t'));
    for (w, h) in SIZES {
        app.size = (w, h);
        app.update(Msg::Resize(w, h));
        app.update(key(KeyCode::End));
        let screen = draw(&app, w, h);
        assert!(screen.contains("server-59"), "{w}x{h}:\n{screen}");
        insta::assert_snapshot!(format!("trust_diff_end_{w}x{h}"), screen);
        app.update(key(KeyCode::Home));
        assert!(!draw(&app, w, h).contains("server-59"));
    }
}

#[test]
fn the_search_line_says_how_many_of_all_the_matches_it_shows() {
    let (mut app, _d) = tools_app();
    app.size = (80, 24);
    app.update(ch('/'));
    let id = first_id(&app.update(ch('e')));
    let echo = json!({"tool": {"name": "echo", "description": "", "required": []},
                      "rank": "NamePrefix"});
    app.update(ok(
        id,
        "tools.search",
        json!({"query": "e", "matches": [echo], "total": 103}),
    ));
    let screen = draw(&app, 80, 24);
    assert!(screen.contains("/ e▏  1 of 103 matches"), "{screen}");
    // Every match shown: the count alone.
    let id = first_id(&app.update(ch('c')));
    app.update(ok(
        id,
        "tools.search",
        json!({"query": "ec", "matches": [echo], "total": 1}),
    ));
    let screen = draw(&app, 80, 24);
    assert!(screen.contains("/ ec▏  1 match(es)"), "{screen}");
}
