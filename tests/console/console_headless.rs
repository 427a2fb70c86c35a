//! Headless console test: the real runtime (`Runtime::step`: `App::update` and the effect
//! executor) against the demo server (`mcpdeck demo-server`), waiting for explicit messages —
//! never sleeping. Connects,
//! lists tools, searches, calls `echo`, then starts `long_task`, sees progress and cancels it.

use crate::common;

use std::time::Duration;

use common::console_kit::{Console, ConsoleDirs, demo};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use mcpdeck::app::{App, Load, Msg, ResultScreen, Screen};
use mcpdeck::mcp::config::ConfigSet;

/// Presses `c` as if `after` had passed since the oldest pending approval appeared.
fn answer_after(h: &mut Console, c: char, after: Duration) {
    let base = h
        .app
        .approvals
        .front()
        .map_or_else(std::time::Instant::now, |p| p.shown_at);
    h.send_at(
        Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE)),
        base + after,
    );
}

/// Runs `scenario` against the demo server with `policy` (JSON) as the policy file.
fn with_demo<F>(policy: Option<serde_json::Value>, scenario: F)
where
    F: AsyncFnOnce(&mut Console),
{
    let dirs = ConsoleDirs::new();
    dirs.user_servers(&serde_json::json!({ "demo": demo() }));
    if let Some(policy) = policy {
        dirs.policy(&policy);
    }
    dirs.run(scenario);
}
#[test]
fn enforce_mode_asks_the_console_and_the_answer_counts() {
    let policy = serde_json::json!({"mode": "enforce", "allow": ["demo:tools.list", "demo:tools.describe", "demo:tools.search"]});
    with_demo(Some(policy), async |h: &mut Console| {
        h.open_form("echo").await;
        h.type_text("approved");
        h.key(KeyCode::Enter);
        h.until("the approval", |a| !a.approvals.is_empty()).await;
        let pending = &h.app.approvals[0].request;
        assert_eq!(pending.server, "demo");
        assert!(pending.operation.contains("echo"), "{pending:?}");
        // Within the guard, y does nothing.
        answer_after(h, 'y', Duration::ZERO);
        assert_eq!(h.app.approvals.len(), 1);
        answer_after(h, 'y', Duration::from_millis(400));
        assert!(h.app.approvals.is_empty());
        let view = h.result("the approved result").await;
        assert!(view.error.is_none(), "{view:?}");
        // Now deny one.
        h.key(KeyCode::Char('c'));
        h.key(KeyCode::Enter);
        h.until("the second approval", |a| !a.approvals.is_empty())
            .await;
        answer_after(h, 'n', Duration::from_millis(400));
        let view = h.result("the denied result").await;
        assert!(view.error.is_some(), "{view:?}");
    });
}

/// "Always allow" from the modal: the approval shows the call's arguments, a typed `y` adds the
/// allow rule to the policy file (backed up) and lets the call run; the policy view lists the
/// rule and removes it again.
#[test]
fn always_allow_writes_a_rule_and_the_policy_view_removes_it() {
    let policy =
        serde_json::json!({"mode": "enforce", "allow": ["demo:tools.list", "demo:tools.describe"]});
    with_demo(Some(policy), async |h: &mut Console| {
        let policy_file = h.app.policy_path.clone().expect("policy path");
        let before = std::fs::read_to_string(&policy_file).expect("read");
        h.open_form("echo").await;
        h.type_text("judge me");
        h.key(KeyCode::Enter);
        h.until("the approval", |a| !a.approvals.is_empty()).await;
        assert!(
            h.app.approvals[0]
                .arguments
                .iter()
                .any(|l| l.contains("\"judge me\"")),
            "the modal has the arguments: {:?}",
            h.app.approvals[0].arguments
        );
        let late = Duration::from_millis(400);
        answer_after(h, 'a', late);
        assert!(h.app.approvals[0].confirming_always, "a asks first");
        answer_after(h, 'y', late);
        // The rule is written (and reported) before the call is let through.
        let view = h.result("the always-allowed result").await;
        assert!(view.error.is_none(), "{view:?}");
        let policy: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&policy_file).expect("read"))
                .expect("json");
        assert!(
            policy["allow"]
                .as_array()
                .expect("allow")
                .iter()
                .any(|r| r == "demo:tools.call echo"),
            "{policy}"
        );
        // The harness keeps backups in its temp dir, beside `cfg/mcpdeck/policy.json`'s `cfg`.
        let backups = policy_file
            .ancestors()
            .nth(3)
            .expect("temp dir")
            .join("state/mcpdeck/backups");
        let kept: Vec<String> = std::fs::read_dir(&backups)
            .expect("backups")
            .filter_map(Result::ok)
            .map(|e| std::fs::read_to_string(e.path()).expect("read"))
            .collect();
        assert_eq!(kept, [before], "the previous file is kept");
        // The policy view lists the rule and removes it after a typed y.
        h.key(KeyCode::Esc);
        h.key(KeyCode::Char('P'));
        h.until(
            "the listing",
            |a| matches!(&a.overlay, Some(mcpdeck::app::Overlay::Policy(v)) if v.listing.is_some()),
        )
        .await;
        let Some(mcpdeck::app::Overlay::Policy(view)) = &h.app.overlay else {
            unreachable!()
        };
        let Some(Ok(listing)) = &view.listing else {
            panic!("{view:?}")
        };
        let at = listing
            .rules
            .iter()
            .position(|(allow, r)| *allow && r == "demo:tools.call echo")
            .expect("the new rule is listed");
        for _ in 0..at {
            h.key(KeyCode::Down);
        }
        h.key(KeyCode::Char('x'));
        h.key(KeyCode::Char('y'));
        h.until("the removal", |a| {
            a.message
                .as_deref()
                .is_some_and(|m| m.starts_with("removed"))
        })
        .await;
        let policy = std::fs::read_to_string(&policy_file).expect("read");
        assert!(!policy.contains("tools.call echo"), "{policy}");
        h.until("the listing again", |a| {
            matches!(&a.overlay, Some(mcpdeck::app::Overlay::Policy(v))
                if matches!(&v.listing, Some(Ok(l)) if l.rules.len() == 2))
        })
        .await;
    });
}

#[test]
fn console_drives_the_demo_server() {
    with_demo(None, async |h: &mut Console| {
        // Connect and list.
        h.key(KeyCode::Enter);
        h.until("the tool list", |a| {
            a.visible_tools().is_some_and(|t| t.len() >= 5)
        })
        .await;
        h.until("the connected state", |a| {
            a.server().is_some_and(|s| s.state.label() == "connected")
        })
        .await;

        // Search through the engine, then call echo.
        h.key(KeyCode::Char('/'));
        h.type_text("echo");
        h.until("search results", |a| {
            a.pane()
                .and_then(|p| p.tools.search.as_ref())
                .is_some_and(|s| matches!(s.results, Load::Ready(_)))
        })
        .await;
        h.key(KeyCode::Enter);
        h.highlight_tool("echo");
        h.key(KeyCode::Char('c'));
        h.until("the echo form", |a| matches!(a.screen, Screen::Form(_)))
            .await;
        h.type_text("hello console");
        h.key(KeyCode::Enter);
        let view = h.result("the echo result").await;
        assert!(view.error.is_none(), "{view:?}");
        assert!(
            view.lines.iter().any(|l| l.contains("hello console")),
            "{view:?}"
        );
        assert!(
            view.model.iter().any(|l| l.contains("hello console")),
            "{view:?}"
        );

        // long_task: progress arrives, Esc cancels.
        h.key(KeyCode::Esc);
        h.key(KeyCode::Esc);
        assert!(matches!(h.app.screen, Screen::Browse));
        h.app.panes.get_mut("demo").expect("pane").tools.search = None;
        h.highlight_tool("long_task");
        h.key(KeyCode::Char('c'));
        h.until("the long_task form", |a| {
            matches!(a.screen, Screen::Form(_))
        })
        .await;
        let Screen::Form(form) = &mut h.app.screen else {
            unreachable!()
        };
        for f in &mut form.fields {
            f.value = match f.key.as_str() {
                "steps" => "200".to_owned(),
                "delay_ms" => "50".to_owned(),
                _ => f.value.clone(),
            };
        }
        h.key(KeyCode::Enter);
        h.until(
            "progress",
            |a| matches!(&a.screen, Screen::Running(r) if r.progress.is_some()),
        )
        .await;
        h.key(KeyCode::Esc);
        let view = h.result("the cancelled result").await;
        assert_eq!(
            view.error.as_ref().map(|e| e.0.as_str()),
            Some("cancelled"),
            "{view:?}"
        );
        assert!(
            h.app
                .pane()
                .is_some_and(|p| p.log.lines.iter().any(|l| l.kind == "progress"))
        );
    });
}

/// The text of the side panel's result.
fn side_lines(app: &App) -> Vec<String> {
    let result = app.side.result.as_ref().expect("a result");
    result.lines.iter().map(|l| l.text.clone()).collect()
}

/// The side panel runs `workspace_find` and `workspace_check` on the packaged `workspace`
/// server (the real `mcpdeck workspace-server` child, bound to a temporary project) through the
/// real executor and engine.
#[test]
fn side_panel_runs_workspace_tools() {
    let dirs = ConsoleDirs::new();
    dirs.write(
        "proj/README.md",
        "# Tool\n\n## Configuration precedence\n\nProject files override user files; the --config file overrides both.\n\n## Other\n\nUnrelated text about spinners.\n",
    );
    dirs.write(
        "proj/.mcp.json",
        "{\"mcpServers\": {\"x\": {\"command\": 1}}}",
    );
    let registry =
        mcpdeck::workspace::packaged::registry_for_project(&dirs.project).expect("registry");
    let exe = std::path::Path::new(env!("CARGO_BIN_EXE_mcpdeck"));
    let config = dirs
        .config()
        .with_packaged(registry.config_entries(false, Ok(exe)));
    dirs.run_with(config, async |h: &mut Console| {
        h.key(KeyCode::Char('w'));
        h.until("the find form", |a| a.side.form().is_some()).await;
        h.type_text("configuration precedence");
        h.key(KeyCode::Enter);
        assert!(h.app.side.run.is_some());
        h.until("the passages", |a| a.side.result.is_some()).await;
        let lines = side_lines(&h.app);
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("1. README.md:") && l.contains("Configuration precedence")),
            "{lines:?}"
        );
        assert!(
            lines
                .iter()
                .any(|l| l.contains("Project files override user files"))
        );
        // workspace_check: the broken .mcp.json is reported, grouped under its path.
        h.key(KeyCode::Right);
        h.key(KeyCode::Right);
        h.until("the check form", |a| a.side.form().is_some()).await;
        h.key(KeyCode::Enter);
        h.until("the findings", |a| {
            a.side.result.as_ref().is_some_and(|r| r.tool == 2)
        })
        .await;
        let lines = side_lines(&h.app);
        let at = lines
            .iter()
            .position(|l| l == ".mcp.json")
            .expect("the file's group");
        assert!(lines[at + 1].trim_start().starts_with("error"), "{lines:?}");
    });
}

/// A result with media spills; the spills view lists it, the pager opens it, `x` deletes it
/// (the file is gone and the list is empty).
#[test]
fn spills_are_listed_paged_and_deleted() {
    with_demo(None, async |h: &mut Console| {
        h.open_form("image").await;
        h.key(KeyCode::Enter);
        let view = h.result("the image result").await;
        assert_eq!(view.spills.len(), 1, "{view:?}");
        h.key(KeyCode::Esc);
        h.key(KeyCode::Char('s'));
        h.until("the spills list", |a| !a.spills.is_empty()).await;
        let path = h.app.spills[0].path.clone();
        assert!(path.exists());
        h.key(KeyCode::Enter);
        h.until("the pager", |a| {
            matches!(a.overlay, Some(mcpdeck::app::Overlay::Pager(_)))
        })
        .await;
        h.key(KeyCode::Esc);
        h.key(KeyCode::Char('x'));
        h.until("the deletion", |a| a.spills.is_empty()).await;
        assert!(!path.exists(), "the file is removed");
        assert!(
            h.app
                .message
                .as_deref()
                .is_some_and(|m| m.starts_with("deleted spill")),
            "{:?}",
            h.app.message
        );
    });
}

/// The Log tab shows the connection's JSON-RPC traffic (method, size, latency) and opens a
/// message's body; it also asks for the server's stderr.
#[test]
fn log_tab_shows_traffic_and_bodies() {
    with_demo(None, async |h: &mut Console| {
        h.open_form("echo").await;
        h.type_text("traffic please");
        h.key(KeyCode::Enter);
        h.result("the echo result").await;
        h.key(KeyCode::Esc);
        h.until("the tools/call answer in the log", |a| {
            a.pane().is_some_and(|p| {
                p.log
                    .lines
                    .iter()
                    .any(|l| l.kind == "← recv" && l.text.contains("tools/call"))
            })
        })
        .await;
        // Log is the fourth tab.
        for _ in 0..3 {
            h.key(KeyCode::Right);
        }
        assert_eq!(h.app.tab, mcpdeck::app::Tab::Log);
        h.until("the stderr read", |a| {
            a.pane().is_some_and(|p| p.log.stderr_asked.is_some())
        })
        .await;
        let pane = h.app.pane().expect("pane");
        let answer = pane
            .log
            .lines
            .iter()
            .rev()
            .position(|l| l.kind == "← recv" && l.text.contains("tools/call"))
            .expect("the answer line");
        let line = &pane.log.lines[pane.log.lines.len() - 1 - answer];
        assert!(line.text.contains(" ms"), "latency shown: {line:?}");
        assert!(
            line.text.contains(" B") || line.text.contains("KiB"),
            "{line:?}"
        );
        // Select it (the selection counts back from the newest line) and open its body.
        h.app.panes.get_mut("demo").expect("pane").log.list.sel = answer;
        h.key(KeyCode::Enter);
        let Screen::Result(ResultScreen { view, .. }) = &h.app.screen else {
            panic!("the body opens: {:?}", h.app.screen)
        };
        assert!(
            view.lines.iter().any(|l| l.contains("traffic please")),
            "{view:?}"
        );
        assert!(
            view.lines.iter().any(|l| l.contains("\"jsonrpc\"")),
            "{view:?}"
        );
    });
}

/// Presses C-t in the config editor and waits for the test's result.
async fn test_connect(h: &mut Console, what: &str) -> Result<String, String> {
    h.ctrl('t');
    h.until(
        what,
        |a| matches!(&a.overlay, Some(mcpdeck::app::Overlay::Editor(e)) if e.test.is_some()),
    )
    .await;
    match &h.app.overlay {
        Some(mcpdeck::app::Overlay::Editor(e)) => e.test.clone().expect("a result"),
        other => panic!("the editor closed: {other:?}"),
    }
}

/// The config editor's "test connect" (C-t) connects once to the edited, unsaved definition
/// and reports what answered; a broken edit reports why, and nothing is saved.
#[test]
fn editor_test_connect_tries_the_unsaved_definition() {
    with_demo(None, async |h: &mut Console| {
        // The Config tab is the fifth; `e` opens the server's file.
        for _ in 0..4 {
            h.key(KeyCode::Right);
        }
        h.key(KeyCode::Char('e'));
        h.until("the editor", |a| {
            matches!(a.overlay, Some(mcpdeck::app::Overlay::Editor(_)))
        })
        .await;
        let Some(mcpdeck::app::Overlay::Editor(editor)) = &h.app.overlay else {
            unreachable!()
        };
        let path = editor.path.clone();
        let saved = std::fs::read_to_string(&path).expect("read");
        let result = test_connect(h, "the test result").await;
        assert!(
            result.as_ref().is_ok_and(|m| m.contains("mcpdeck-demo")),
            "{result:?}"
        );
        // Break the command in the buffer (unsaved): the test says so; the file is unchanged.
        let Some(mcpdeck::app::Overlay::Editor(editor)) = &mut h.app.overlay else {
            unreachable!()
        };
        let broken = editor.text().replace("demo-server", "no-such-subcommand");
        editor.area = ratatui_textarea::TextArea::new(broken.lines().map(str::to_owned).collect());
        editor.test = None;
        let failed = test_connect(h, "the failed test").await;
        assert!(
            failed.as_ref().is_err_and(|m| m.contains("failed")),
            "{failed:?}"
        );
        assert_eq!(std::fs::read_to_string(&path).expect("read"), saved);
    });
}

/// After the editor saves, the console reads the configuration again: an edited project file
/// shows `changed` trust, and the spills of the replaced engine stay listed until exit.
#[test]
fn saving_reloads_and_an_edited_project_shows_changed() {
    let dirs = ConsoleDirs::new();
    dirs.user_servers(&serde_json::json!({ "demo": demo() }));
    dirs.write(
        "proj/.mcp.json",
        &serde_json::json!({"mcpServers": {"proj": demo()}}).to_string(),
    );
    let options = dirs.options();
    dirs.run(async |h: &mut Console| {
        h.exec.set_reload(Box::new(move || {
            ConfigSet::load(&options).map_err(|e| e.to_string())
        }));
        // A spill from the first engine.
        h.open_form("image").await;
        h.key(KeyCode::Enter);
        h.result("the image result").await;
        h.key(KeyCode::Esc);
        // Trust the project: t, T, then a typed y.
        h.key(KeyCode::Char('t'));
        h.key(KeyCode::Char('T'));
        h.key(KeyCode::Char('y'));
        h.until("trusted", |a| a.trust == "trusted").await;
        h.key(KeyCode::Esc);
        // Edit the project server's file in the console and save it.
        h.app.servers.select_name("proj");
        h.app.focus = mcpdeck::app::Focus::Main;
        h.app.tab = mcpdeck::app::Tab::Config;
        h.key(KeyCode::Char('e'));
        h.until("the editor", |a| {
            matches!(a.overlay, Some(mcpdeck::app::Overlay::Editor(_)))
        })
        .await;
        let Some(mcpdeck::app::Overlay::Editor(editor)) = &mut h.app.overlay else {
            unreachable!()
        };
        let edited = editor.text().replace("demo-server", "workspace-server");
        editor.area = ratatui_textarea::TextArea::new(edited.lines().map(str::to_owned).collect());
        editor.check();
        h.ctrl('s');
        h.until("the reload", |a| {
            a.message.as_deref().is_some_and(|m| m.contains("reloaded"))
        })
        .await;
        assert_eq!(h.app.trust, "changed");
        h.key(KeyCode::Esc);
        h.key(KeyCode::Char('s'));
        h.until("the spills", |a| !a.spills.is_empty()).await;
        assert!(
            h.app.spills[0].path.exists(),
            "the old engine's spill is kept"
        );
    });
}

/// Content annotations reach the console from a real server (the fixture's raw `annotated`
/// case): a result's annotated blocks are each preceded by their line, and a listed resource's
/// annotations follow its MIME type and size.
#[test]
fn annotations_show_in_the_result_and_the_resource_list() {
    let dirs = ConsoleDirs::new();
    dirs.user_servers(&serde_json::json!({"raw": {
        "command": common::fixture(), "args": ["raw", "--case", "annotated"]
    }}));
    dirs.run(async |h: &mut Console| {
        h.open_form("echo").await;
        h.key(KeyCode::Enter);
        let view = h.result("the annotated result").await;
        assert!(view.error.is_none(), "{view:?}");
        let at = view
            .lines
            .iter()
            .position(|l| {
                l == "[annotations: audience user · priority 0.9 · modified 2025-06-01T10:00:00Z]"
            })
            .unwrap_or_else(|| panic!("{:?}", view.lines));
        assert_eq!(view.lines[at + 1..at + 3], ["for you", "plain"]);
        assert!(
            view.lines.iter().all(|l| !l.contains('\u{1b}')),
            "{:?}",
            view.lines
        );
        h.back();
        h.app.focus = mcpdeck::app::Focus::Main;
        h.app.tab = mcpdeck::app::Tab::Resources;
        h.key(KeyCode::Right);
        h.key(KeyCode::Left);
        h.until("the resources", |a| !a.resource_entries().is_empty())
            .await;
        let entries = h.app.resource_entries();
        let notes = entries.iter().find(|r| r.name == "notes").expect("notes");
        assert_eq!(
            notes.meta,
            "audience user, assistant · priority 0.5 · modified 2025-05-31T08:00:00Z"
        );
        let plain = entries.iter().find(|r| r.name == "plain").expect("plain");
        assert_eq!(plain.meta, "");
    });
}

/// A real server that declares the skills extension (the fixture's `--skills`) gets a Skills
/// tab: it lists the skill when shown, and `Enter` reads its `SKILL.md` through the verified
/// path (size, SHA-256, front matter) into a result.
#[test]
fn the_skills_tab_lists_a_real_servers_skills_and_reads_one_verified() {
    let dirs = ConsoleDirs::new();
    dirs.user_servers(&serde_json::json!({"fx": {
        "command": common::fixture(), "args": ["stdio", "--skills"]
    }}));
    dirs.run(async |h: &mut Console| {
        h.key(KeyCode::Enter);
        h.until("the server's skills declared", |a| {
            a.server().is_some_and(|s| s.skills)
        })
        .await;
        for _ in 0..6 {
            if h.app.tab == mcpdeck::app::Tab::Skills {
                break;
            }
            h.key(KeyCode::Right);
        }
        assert_eq!(h.app.tab, mcpdeck::app::Tab::Skills);
        h.until("the skills", |a| {
            a.pane().is_some_and(|p| !p.skills.entries().is_empty())
        })
        .await;
        let names: Vec<String> = h
            .app
            .pane()
            .map(|p| p.skills.entries().iter().map(|s| s.name.clone()).collect())
            .unwrap_or_default();
        assert_eq!(names, ["greeting"]);
        h.key(KeyCode::Enter);
        let view = h.result("the skill read").await;
        assert!(view.error.is_none(), "{view:?}");
        assert!(
            view.lines
                .iter()
                .any(|l| l == "── SKILL.md · verified: size, SHA-256, front matter"),
            "{:?}",
            view.lines
        );
        assert!(
            view.lines.iter().any(|l| l == "Say hello, then the name."),
            "{:?}",
            view.lines
        );
    });
}

/// The raw JSON view shows a real server's answer as it sent it: `J` on a call's result shows
/// the frame the fixture wrote, its secret (a `${PATH}` reference, resolved from this process)
/// redacted and its escaped control character left as the two characters it was sent as;
/// `J` again is the text.
#[test]
fn the_raw_key_shows_the_answer_as_the_server_sent_it() {
    let dirs = ConsoleDirs::new();
    let frame = dirs.write("frame", "");
    dirs.user_servers(&serde_json::json!({"raw": {
        "command": common::fixture(), "args": ["raw", "--case", "as-sent"],
        "env": {"FIXTURE_SECRET": "${PATH}", "FIXTURE_FRAME_FILE": frame},
    }}));
    dirs.run(async |h: &mut Console| {
        h.open_form("echo").await;
        h.key(KeyCode::Enter);
        let text = h.result("the result").await;
        assert!(text.raw.is_some(), "the frame was kept");
        h.ch('J');
        let Screen::Result(ResultScreen { view, .. }) = &h.app.screen else {
            panic!("{:?}", h.app.screen);
        };
        let sent = std::fs::read_to_string(&frame).expect("the fixture wrote its frame");
        let path = std::env::var("PATH").expect("PATH");
        assert!(sent.contains(&path));
        assert_eq!(
            view.lines,
            [sent.replace(&path, "[redacted]")],
            "one line, as sent, the secret redacted"
        );
        assert!(view.lines[0].contains(r"\u001b[2J"), "{:?}", view.lines);
        h.ch('J');
        let back = h.result("the text again").await;
        assert_eq!(back.lines, text.lines);
    });
}

/// The call form's `_meta` field reaches the server: entries typed there are in the request's
/// `_meta` (the fixture writes what it received), the call's arguments are unchanged, and a key
/// the protocol keeps is refused on the field, with nothing sent.
#[test]
fn the_forms_meta_entries_reach_the_server() {
    let dirs = ConsoleDirs::new();
    let seen = dirs.root.join("meta");
    dirs.user_servers(&serde_json::json!({"fx": {
        "command": common::fixture(), "args": ["stdio"],
        "env": {"FIXTURE_META": seen},
    }}));
    dirs.run(async |h: &mut Console| {
        h.open_form("echo").await;
        let Screen::Form(form) = &h.app.screen else {
            panic!("{:?}", h.app.screen);
        };
        let meta_at = form
            .fields
            .iter()
            .position(|f| f.key == "_meta")
            .expect("a _meta field");
        let text_at = form
            .fields
            .iter()
            .position(|f| f.key == "text")
            .expect("text");
        h.type_text("hi");
        for _ in text_at..meta_at {
            h.key(KeyCode::Down);
        }
        h.type_text("io.modelcontextprotocol/x=1");
        h.key(KeyCode::Enter);
        let Screen::Form(form) = &h.app.screen else {
            panic!("a refused entry keeps the form: {:?}", h.app.screen);
        };
        assert!(
            form.fields[meta_at]
                .error
                .as_deref()
                .is_some_and(|e| e.contains("kept for the protocol")),
            "{:?}",
            form.fields[meta_at]
        );
        assert!(!seen.exists(), "nothing was sent");
        for _ in 0.."io.modelcontextprotocol/x=1".len() {
            h.key(KeyCode::Backspace);
        }
        h.type_text("trace=abc n:=3");
        h.key(KeyCode::Enter);
        let view = h.result("the call's result").await;
        assert!(view.error.is_none(), "{view:?}");
        assert!(view.lines.iter().any(|l| l == "hi"), "{:?}", view.lines);
        let line = std::fs::read_to_string(&seen).expect("the fixture saw the call");
        let meta: serde_json::Value = serde_json::from_str(line.trim()).expect("one JSON line");
        assert_eq!(meta["trace"], "abc", "{meta}");
        assert_eq!(meta["n"], 3, "{meta}");
    });
}
