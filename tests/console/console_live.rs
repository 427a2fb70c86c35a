//! The console that notices, headless over the real engine and real files: server states are
//! pushed by the engine (nothing asks on a timer), and a configuration file written while the
//! console runs is read again — a new project file's server appears inert, an unchanged
//! server keeps its connection, a half-written save keeps the last good servers, the reload key
//! reads everything on demand. Waits are for messages, never sleeps.

use crate::common;

use common::console_kit::{Console, ConsoleDirs, demo};
use crossterm::event::KeyCode;
use mcpdeck::app::App;
use mcpdeck::mcp::status::ServerState;

/// `name`'s state in the server list.
fn state(app: &App, name: &str) -> Option<ServerState> {
    app.servers
        .rows
        .iter()
        .find(|s| s.name == name)
        .map(|s| s.state)
}

/// Whether the status line says `text`.
fn says(app: &App, text: &str) -> bool {
    app.message.as_deref().is_some_and(|m| m.contains(text))
}

/// How many times `server` connected, as the engine in force reports it.
fn connects(h: &Console, server: &str) -> u64 {
    h.exec
        .engine()
        .status()
        .servers
        .iter()
        .find(|s| s.name == server)
        .map_or(0, |s| s.runtime.connect_count)
}

/// Connecting and a crash during a call each reach the server list as the engine's pushed
/// status: the app asks for none (there is no refresh effect).
#[test]
fn server_states_reach_the_console_as_they_change() {
    let servers = serde_json::json!({
        "fx": {"command": common::fixture(), "args": ["stdio"]}
    });
    common::console_kit::with_servers(&servers, async |h: &mut Console| {
        h.select("fx");
        h.app.focus = mcpdeck::app::Focus::Servers;
        h.ch('r');
        h.until("connected", |a| {
            state(a, "fx") == Some(ServerState::Connected) && says(a, "reconnected")
        })
        .await;
        h.open_form("crash").await;
        h.key(KeyCode::Enter);
        h.until("the crash", |a| state(a, "fx") == Some(ServerState::Failed))
            .await;
        h.result("the call's error").await;
    });
}

/// A `.mcp.json` written while the console runs: its server appears, inert (the project needs
/// trust), the status line says so, and the user's server keeps its connection.
#[test]
fn a_new_project_file_appears_inert_and_the_others_keep_running() {
    let dirs = ConsoleDirs::new();
    dirs.user_servers(&serde_json::json!({ "demo": demo() }));
    let (options, policy) = (dirs.options(), dirs.policy_path());
    dirs.run(async |h: &mut Console| {
        h.live(options, policy);
        h.select("demo");
        h.key(KeyCode::Enter);
        h.until("demo connected", |a| {
            state(a, "demo") == Some(ServerState::Connected)
        })
        .await;
        assert_eq!(connects(h, "demo"), 1);
        let project = serde_json::json!({"mcpServers": {"api": demo()}});
        std::fs::write(h.project.join(".mcp.json"), project.to_string()).expect("write");
        h.until("api, inert", |a| {
            state(a, "api") == Some(ServerState::Inert)
        })
        .await;
        h.until("what changed", |a| {
            says(
                a,
                "`.mcp.json`: server `api` added; the project needs trust",
            )
        })
        .await;
        assert_eq!(h.app.trust, "untrusted");
        assert_eq!(state(&h.app, "demo"), Some(ServerState::Connected));
        assert_eq!(connects(h, "demo"), 1, "demo was not started again");
    });
}

/// An editor's half-written save shows the file's error; the servers it had keep running.
/// Finishing the save adds what it adds. The reload key with nothing changed says so.
#[test]
fn a_half_written_save_keeps_the_last_good_servers() {
    let dirs = ConsoleDirs::new();
    let user = dirs.user_servers(&serde_json::json!({ "demo": demo() }));
    let (options, policy) = (dirs.options(), dirs.policy_path());
    dirs.run(async |h: &mut Console| {
        h.live(options, policy);
        h.select("demo");
        h.key(KeyCode::Enter);
        h.until("demo connected", |a| {
            state(a, "demo") == Some(ServerState::Connected)
        })
        .await;
        std::fs::write(&user, r#"{"mcpServers": {"demo": {"comm"#).expect("write");
        h.until("the error", |a| {
            says(a, "its last good servers keep running")
        })
        .await;
        assert!(
            says(&h.app, "`mcpdeck/mcp.json`: line 1"),
            "{:?}",
            h.app.message
        );
        assert_eq!(state(&h.app, "demo"), Some(ServerState::Connected));
        assert_eq!(connects(h, "demo"), 1);
        let finished = serde_json::json!({"mcpServers": {"demo": demo(), "second": demo()}});
        std::fs::write(&user, finished.to_string()).expect("write");
        h.until("second, and what changed", |a| {
            state(a, "second") == Some(ServerState::Disconnected)
                && says(a, "server `second` added")
        })
        .await;
        assert_eq!(
            connects(h, "demo"),
            1,
            "demo still runs on its first connection"
        );
        h.key(KeyCode::F(5));
        h.until("the reload key", |a| says(a, "nothing changed"))
            .await;
    });
}
