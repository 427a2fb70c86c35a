//! The console's session controls against real servers, headless (`Runtime::step`, the real
//! executor and engine): server-everything over stdio (and over Streamable HTTP for roots) and
//! the demo server side by side. Roots
//! added and removed for the session reach the server (it asks `roots/list` again after
//! `notifications/roots/list_changed` and `get-roots-list` shows them); the log level is set;
//! ping shows a round trip; a subscribed resource's updates re-read it while open; disconnect
//! closes one server and leaves the other connected. Skipped, saying so, without node or
//! `scripts/install-interop`. Waits are for messages, never sleeps.

use crate::common;

use common::console_kit::{Console, ConsoleDirs, demo, everything_or_skip, everything_stdio};
use common::everything_http::EverythingHttp;
use crossterm::event::KeyCode;
use mcpdeck::app::{App, Load, Screen, Tab};
use mcpdeck::mcp::status::ServerState;

/// Opens `tool`'s call form from the tool list and runs it (no arguments); the result's text.
async fn call(h: &mut Console, tool: &str) -> String {
    h.app.screen = Screen::Browse;
    h.app.tab = Tab::Tools;
    h.app.focus = mcpdeck::app::Focus::Main;
    if h.app
        .visible_tools()
        .is_none_or(<[mcpdeck::app::ToolRow]>::is_empty)
    {
        h.key(KeyCode::Left);
        h.key(KeyCode::Right);
        h.until("the tool list", |a| {
            a.visible_tools().is_some_and(|t| !t.is_empty())
        })
        .await;
    }
    h.highlight_tool(tool);
    h.ch('c');
    h.until("the form", |a| matches!(a.screen, Screen::Form(_)))
        .await;
    h.key(KeyCode::Enter);
    let view = h.result("the result").await;
    assert!(view.error.is_none(), "{:?}", view.error);
    view.lines.join("\n")
}

/// Runs `scenario` over server-everything (stdio) and the demo server; skipped, saying so,
/// without node.
fn with_both<F>(scenario: F)
where
    F: AsyncFnOnce(&mut Console),
{
    let Some(script) = everything_or_skip() else {
        return;
    };
    let servers = serde_json::json!({
        "everything": everything_stdio(&script),
        "demo": demo(),
    });
    with_servers(&servers, scenario);
}

/// Runs `scenario` over `servers`, with a `docs` directory in the project.
fn with_servers<F>(servers: &serde_json::Value, scenario: F)
where
    F: AsyncFnOnce(&mut Console),
{
    let dirs = ConsoleDirs::new();
    std::fs::create_dir_all(dirs.project.join("docs")).expect("mkdir");
    dirs.user_servers(servers);
    dirs.run(scenario);
}

fn root_uris(app: &App) -> Vec<String> {
    match app.session.roots.as_ref().map(|v| &v.roots) {
        Some(Load::Ready(roots)) => roots.iter().map(|r| r.uri.clone()).collect(),
        _ => Vec::new(),
    }
}

#[test]
fn roots_changed_for_the_session_reach_the_server() {
    with_both(async |h: &mut Console| {
        let project = &h.project.clone();
        h.select("everything");
        let project_uri = url::Url::from_directory_path(project)
            .expect("uri")
            .to_string();
        let project_uri = project_uri.trim_end_matches('/').to_owned();
        // Connected, and the server has fetched the first list.
        let first = call(h, "get-roots-list").await;
        assert!(first.contains(&project_uri), "{first}");

        h.ch('R');
        h.until("the roots", |a| !root_uris(a).is_empty()).await;
        assert_eq!(root_uris(&h.app), vec![project_uri.clone()]);
        h.ch('a');
        for c in "docs".chars() {
            h.ch(c);
        }
        h.key(KeyCode::Enter);
        h.until("two roots", |a| root_uris(a).len() == 2).await;
        assert!(
            h.app
                .message
                .as_deref()
                .is_some_and(|m| m.contains("roots/list_changed")),
            "{:?}",
            h.app.message
        );
        // The server asked again after the notification.
        h.until("the server's second roots/list", |a| {
            Console::log_has(a, "everything", "Roots updated: 2 root(s)")
        })
        .await;
        h.key(KeyCode::Esc);
        let listed = call(h, "get-roots-list").await;
        assert!(listed.contains(&format!("{project_uri}/docs")), "{listed}");

        // Removing the project root leaves the one added.
        let one_root = |a: &App| {
            a.panes["everything"]
                .log
                .lines
                .iter()
                .filter(|l| l.text.contains("Roots updated: 1 root(s)"))
                .count()
        };
        let before = one_root(&h.app);
        h.ch('R');
        h.until("the roots", |a| root_uris(a).len() == 2).await;
        h.ch('x');
        h.until("one root", |a| root_uris(a).len() == 1).await;
        assert_eq!(root_uris(&h.app), vec![format!("{project_uri}/docs")]);
        h.until("the server's roots/list after the removal", |a| {
            one_root(a) > before
        })
        .await;
        // A directory that does not exist is refused, and nothing changes.
        h.ch('a');
        for c in "no-such-dir".chars() {
            h.ch(c);
        }
        h.key(KeyCode::Enter);
        h.until("the refusal", |a| {
            matches!(
                a.session.roots.as_ref().map(|v| &v.roots),
                Some(Load::Failed(..))
            )
        })
        .await;
        h.key(KeyCode::Esc);
        let listed = call(h, "get-roots-list").await;
        assert!(listed.contains("(1 total)"), "{listed}");
    });
}

#[test]
fn ping_log_level_subscriptions_and_disconnect_of_one_server() {
    with_both(async |h: &mut Console| {
        // Both servers connected.
        h.select("demo");
        h.ch('p');
        h.until("demo's ping", |a| {
            a.message
                .as_deref()
                .is_some_and(|m| m.starts_with("ping demo:"))
        })
        .await;
        h.select("everything");
        h.ch('p');
        h.until("everything's ping", |a| {
            a.message
                .as_deref()
                .is_some_and(|m| m.starts_with("ping everything:") && m.ends_with("ms round trip"))
        })
        .await;

        // The log level, from the Log tab.
        h.app.focus = mcpdeck::app::Focus::Main;
        h.app.tab = Tab::Log;
        h.ch('-');
        h.until("the level", |a| {
            a.session.levels.get("everything").map(String::as_str) == Some("debug")
        })
        .await;

        // Subscribe to the first resource: the server logs the request at info.
        h.app.tab = Tab::Resources;
        h.key(KeyCode::Right);
        h.key(KeyCode::Left);
        h.until("the resources", |a| {
            a.resource_entries().iter().any(|r| !r.template)
        })
        .await;
        h.app
            .panes
            .get_mut("everything")
            .expect("pane")
            .resources
            .list
            .sel = 0;
        h.ch('S');
        h.until("the subscription", |a| {
            a.session
                .subscribed
                .get("everything")
                .is_some_and(|s| s.len() == 1)
        })
        .await;
        h.until("the server's log of it", |a| {
            a.panes["everything"]
                .log
                .lines
                .iter()
                .any(|l| l.kind == "info" && l.text.contains("Received Subscribe Resource"))
        })
        .await;
        // Updates start: each counts, and the open read is read again.
        call(h, "toggle-subscriber-updates").await;
        h.app.screen = Screen::Browse;
        h.app.tab = Tab::Resources;
        h.key(KeyCode::Enter);
        h.until("the read", |a| matches!(a.screen, Screen::Result(_)))
            .await;
        let updated = |a: &App| {
            a.session.subscribed["everything"]
                .values()
                .next()
                .map_or(0, |s| s.updates)
        };
        let seen = updated(&h.app);
        h.until("an update re-reading it", |a| {
            updated(a) > seen && matches!(a.screen, Screen::Running(_))
        })
        .await;
        h.until("the read again", |a| matches!(a.screen, Screen::Result(_)))
            .await;
        call(h, "toggle-subscriber-updates").await;
        h.app.screen = Screen::Browse;
        h.app.tab = Tab::Resources;
        h.ch('S');
        h.until("unsubscribed", |a| {
            a.session
                .subscribed
                .get("everything")
                .is_some_and(std::collections::BTreeMap::is_empty)
        })
        .await;

        // Disconnect everything; demo stays connected.
        h.ch('D');
        h.until("the disconnect", |a| {
            a.message
                .as_deref()
                .is_some_and(|m| m.starts_with("disconnected everything"))
        })
        .await;
        h.until("the states", |a| {
            let state = |name: &str| {
                a.servers
                    .rows
                    .iter()
                    .find(|s| s.name == name)
                    .map(|s| s.state)
            };
            state("everything") == Some(ServerState::Disconnected)
                && state("demo") == Some(ServerState::Connected)
        })
        .await;
        // Connecting again asks for the level chosen this session.
        let set_level = |a: &App| {
            a.panes["everything"]
                .log
                .lines
                .iter()
                .filter(|l| l.kind == "→ sent" && l.text.contains("logging/setLevel"))
                .count()
        };
        let before = set_level(&h.app);
        h.ch('r');
        h.until("logging/setLevel on the new connection", |a| {
            set_level(a) > before
        })
        .await;
    });
}

#[test]
fn over_streamable_http_a_root_added_reaches_the_server() {
    let Some(script) = everything_or_skip() else {
        return;
    };
    let server = EverythingHttp::start(&script);
    let servers = serde_json::json!({
        "everything": {"url": server.url()}
    });
    with_servers(&servers, async |h: &mut Console| {
        let project = &h.project.clone();
        h.select("everything");
        let project_uri = url::Url::from_directory_path(project)
            .expect("uri")
            .to_string();
        let project_uri = project_uri.trim_end_matches('/').to_owned();
        let first = call(h, "get-roots-list").await;
        assert!(first.contains(&project_uri), "{first}");
        h.ch('R');
        h.until("the roots", |a| !root_uris(a).is_empty()).await;
        h.ch('a');
        for c in "docs".chars() {
            h.ch(c);
        }
        h.key(KeyCode::Enter);
        h.until("two roots", |a| root_uris(a).len() == 2).await;
        h.until("the server's roots/list after the change", |a| {
            Console::log_has(a, "everything", "Roots updated: 2 root(s)")
        })
        .await;
        h.key(KeyCode::Esc);
        let listed = call(h, "get-roots-list").await;
        assert!(listed.contains(&format!("{project_uri}/docs")), "{listed}");
    });
}

/// The console offers server-filesystem, started for `project/data`, the root `project/data`
/// (decided before it connects, shown in the header's row), so after the server has asked for
/// its roots and replaced its directories with them it still allows only `project/data`.
#[test]
fn server_filesystem_keeps_its_directory_after_asking_for_roots() {
    let Some(script) = common::peers::npm_server("server-filesystem") else {
        return;
    };
    let dirs = ConsoleDirs::new();
    let project = std::fs::canonicalize(&dirs.project).expect("canonical");
    let data = project.join("data");
    std::fs::create_dir_all(&data).expect("mkdir");
    dirs.user_servers(&serde_json::json!({"fs": {"command": "node", "args": [script, data]}}));
    let data_shown = data.display().to_string();
    let project_shown = project.display().to_string();
    dirs.run(async |h| {
        let row = h
            .app
            .servers
            .rows
            .iter()
            .find(|r| r.name == "fs")
            .expect("row");
        assert_eq!(row.roots.as_deref(), Some("./data"));
        h.key(KeyCode::Left);
        h.key(KeyCode::Right);
        h.until("the tool list", |a| {
            a.visible_tools().is_some_and(|t| !t.is_empty())
        })
        .await;
        // server-filesystem asks for the roots once initialized, then serves them.
        h.until("the server's roots/list", |a| {
            Console::log_has(a, "fs", "the server asked for its roots")
        })
        .await;
        assert!(
            Console::log_has(&h.app, "fs", &format!("answered: file://{data_shown}")),
            "offered something else than {data_shown}"
        );
        let listed = call(h, "list_allowed_directories").await;
        assert!(listed.contains(&data_shown), "{listed}");
        assert!(
            !listed.lines().any(|l| l.trim() == project_shown),
            "widened to the project: {listed}"
        );
    });
}
