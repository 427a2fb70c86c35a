//! The console's session controls against real servers, headless (`Runtime::step`, the real
//! executor and engine): server-everything over stdio and the demo server side by side. Roots
//! added and removed for the session reach the server (it asks `roots/list` again after
//! `notifications/roots/list_changed` and `get-roots-list` shows them); the log level is set;
//! ping shows a round trip; a subscribed resource's updates re-read it while open; disconnect
//! closes one server and leaves the other connected. Skipped, saying so, without node or
//! `scripts/install-interop`. Waits are for messages, never sleeps.

use std::path::Path;
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use mcpdeck::app::{App, Load, Msg, Screen, Tab};
use mcpdeck::console::Runtime;
use mcpdeck::mcp::config::{ConfigSet, LoadOptions};
use mcpdeck::mcp::policy::Policy;
use mcpdeck::mcp::status::ServerState;
use mcpdeck::mcp::trust::TrustStore;

struct Harness {
    rt: Runtime,
}

impl Harness {
    fn key(&mut self, code: KeyCode) {
        let flow = self.rt.step(
            Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)),
            Instant::now(),
        );
        assert!(!flow.quit, "nothing here quits");
    }

    fn ch(&mut self, c: char) {
        self.key(KeyCode::Char(c));
    }

    async fn until(&mut self, what: &str, done: impl Fn(&App) -> bool) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
        while !done(&self.rt.app) {
            let msg = tokio::select! {
                Some(msg) = self.rt.recv() => msg,
                () = tokio::time::sleep_until(deadline) => {
                    panic!(
                        "timed out waiting for {what}: {:?} / {:?}",
                        self.rt.app.message, self.rt.app.screen
                    )
                }
            };
            let flow = self.rt.step(msg, Instant::now());
            assert!(!flow.quit);
        }
    }

    fn select(&mut self, server: &str) {
        self.rt.app.servers.select_name(server);
        assert_eq!(self.rt.app.server().map(|s| s.name.as_str()), Some(server));
    }

    fn log_has(app: &App, server: &str, text: &str) -> bool {
        app.panes
            .get(server)
            .is_some_and(|p| p.log.lines.iter().any(|l| l.text.contains(text)))
    }

    /// Opens `tool`'s call form from the tool list and runs it (no arguments); the result's
    /// text.
    async fn call(&mut self, tool: &str) -> String {
        self.rt.app.screen = Screen::Browse;
        self.rt.app.tab = Tab::Tools;
        self.rt.app.focus = mcpdeck::app::Focus::Main;
        if self
            .rt
            .app
            .visible_tools()
            .is_none_or(<[mcpdeck::app::ToolRow]>::is_empty)
        {
            self.key(KeyCode::Left);
            self.key(KeyCode::Right);
            self.until("the tool list", |a| {
                a.visible_tools().is_some_and(|t| !t.is_empty())
            })
            .await;
        }
        let at = self
            .rt
            .app
            .visible_tools()
            .and_then(|t| t.iter().position(|t| t.name == tool))
            .unwrap_or_else(|| panic!("no {tool}"));
        self.rt
            .app
            .panes
            .get_mut("everything")
            .expect("pane")
            .tools
            .list
            .sel = at;
        self.ch('c');
        self.until("the form", |a| matches!(a.screen, Screen::Form(_)))
            .await;
        self.key(KeyCode::Enter);
        self.until("the result", |a| matches!(a.screen, Screen::Result(_)))
            .await;
        let Screen::Result(result) = &self.rt.app.screen else {
            unreachable!()
        };
        assert!(result.view.error.is_none(), "{:?}", result.view.error);
        result.view.lines.join("\n")
    }
}

fn everything() -> Option<std::path::PathBuf> {
    let script = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/interop/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    let node = std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    (script.exists() && node).then_some(script)
}

fn with_servers<F>(scenario: F)
where
    F: AsyncFnOnce(&mut Harness, &Path),
{
    let Some(script) = everything() else {
        eprintln!("SKIPPED: run scripts/install-interop (needs node)");
        return;
    };
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path().join("cfg");
    let project = dir.path().join("proj");
    std::fs::create_dir_all(home.join("mcpdeck")).expect("mkdir");
    std::fs::create_dir_all(project.join("docs")).expect("mkdir");
    let config = serde_json::json!({"mcpServers": {
        "everything": {"command": "node", "args": [script, "stdio"]},
        "demo": {"command": env!("CARGO_BIN_EXE_mcpdeck"), "args": ["demo-server"]}
    }});
    std::fs::write(home.join("mcpdeck/mcp.json"), config.to_string()).expect("write");
    let config = ConfigSet::load(&LoadOptions {
        project_dir: project.clone(),
        config_home: Some(home.clone()),
        extra_files: Vec::new(),
    })
    .expect("config");
    let policy = Policy::load(&Policy::default_path(&home)).expect("policy");
    let trust = TrustStore::default_path(&home);
    let spill_base = dir.path().join("spills");
    std::fs::create_dir_all(&spill_base).expect("mkdir");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async move {
        let rt = Runtime::new(config, trust, policy, Some(spill_base)).expect("engine");
        let mut h = Harness { rt };
        scenario(&mut h, &project).await;
        h.rt.shutdown().await;
    });
}

fn root_uris(app: &App) -> Vec<String> {
    match app.session.roots.as_ref().map(|v| &v.roots) {
        Some(Load::Ready(roots)) => roots.iter().map(|r| r.uri.clone()).collect(),
        _ => Vec::new(),
    }
}

#[test]
fn roots_changed_for_the_session_reach_the_server() {
    with_servers(async |h: &mut Harness, project: &Path| {
        h.select("everything");
        let project_uri = url::Url::from_directory_path(project)
            .expect("uri")
            .to_string();
        let project_uri = project_uri.trim_end_matches('/').to_owned();
        // Connected, and the server has fetched the first list.
        let first = h.call("get-roots-list").await;
        assert!(first.contains(&project_uri), "{first}");

        h.ch('R');
        h.until("the roots", |a| !root_uris(a).is_empty()).await;
        assert_eq!(root_uris(&h.rt.app), vec![project_uri.clone()]);
        h.ch('a');
        for c in "docs".chars() {
            h.ch(c);
        }
        h.key(KeyCode::Enter);
        h.until("two roots", |a| root_uris(a).len() == 2).await;
        assert!(
            h.rt.app
                .message
                .as_deref()
                .is_some_and(|m| m.contains("roots/list_changed")),
            "{:?}",
            h.rt.app.message
        );
        // The server asked again after the notification.
        h.until("the server's second roots/list", |a| {
            Harness::log_has(a, "everything", "Roots updated: 2 root(s)")
        })
        .await;
        h.key(KeyCode::Esc);
        let listed = h.call("get-roots-list").await;
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
        let before = one_root(&h.rt.app);
        h.ch('R');
        h.until("the roots", |a| root_uris(a).len() == 2).await;
        h.ch('x');
        h.until("one root", |a| root_uris(a).len() == 1).await;
        assert_eq!(root_uris(&h.rt.app), vec![format!("{project_uri}/docs")]);
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
        let listed = h.call("get-roots-list").await;
        assert!(listed.contains("(1 total)"), "{listed}");
    });
}

#[test]
fn ping_log_level_subscriptions_and_disconnect_of_one_server() {
    with_servers(async |h: &mut Harness, _project: &Path| {
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
        h.rt.app.focus = mcpdeck::app::Focus::Main;
        h.rt.app.tab = Tab::Log;
        h.ch('-');
        h.until("the level", |a| {
            a.session.levels.get("everything").map(String::as_str) == Some("debug")
        })
        .await;

        // Subscribe to the first resource: the server logs the request at info.
        h.rt.app.tab = Tab::Resources;
        h.key(KeyCode::Right);
        h.key(KeyCode::Left);
        h.until("the resources", |a| {
            a.resource_entries().iter().any(|(_, template)| !template)
        })
        .await;
        h.rt.app
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
        h.call("toggle-subscriber-updates").await;
        h.rt.app.screen = Screen::Browse;
        h.rt.app.tab = Tab::Resources;
        h.key(KeyCode::Enter);
        h.until("the read", |a| matches!(a.screen, Screen::Result(_)))
            .await;
        let updated = |a: &App| {
            a.session.subscribed["everything"]
                .values()
                .next()
                .map_or(0, |s| s.updates)
        };
        let seen = updated(&h.rt.app);
        h.until("an update re-reading it", |a| {
            updated(a) > seen && matches!(a.screen, Screen::Running(_))
        })
        .await;
        h.until("the read again", |a| matches!(a.screen, Screen::Result(_)))
            .await;
        h.call("toggle-subscriber-updates").await;
        h.rt.app.screen = Screen::Browse;
        h.rt.app.tab = Tab::Resources;
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
        let before = set_level(&h.rt.app);
        h.ch('r');
        h.until("logging/setLevel on the new connection", |a| {
            set_level(a) > before
        })
        .await;
    });
}
