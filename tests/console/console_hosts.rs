//! The console's Hosts view through the real runtime (`Runtime::step`: `App::update` and the
//! effect executor) over real host files in a sandboxed home, waiting for explicit messages —
//! never sleeping: a Claude Code project server test-connected against the demo server is
//! refused while the project is untrusted and answers once it is trusted; a Cursor user server
//! is imported into mcpdeck's user file (preview, `y`, backup) and the console reloads it.

use crate::common;

use common::console_kit::{Console, ConsoleDirs, demo};
use crossterm::event::KeyCode;
use mcpdeck::app::Overlay;
use mcpdeck::app::hosts::HostsMode;
use mcpdeck::mcp::config::ConfigSet;

/// Opens the Hosts view with `H` and waits until the hosts' files are read.
async fn open_hosts(h: &mut Console) {
    h.ch('H');
    h.until(
        "the hosts' files",
        |a| matches!(&a.overlay, Some(Overlay::Hosts(v)) if v.data.is_some()),
    )
    .await;
}

/// The Hosts view's last outcome, once its request finished.
async fn outcome(h: &mut Console, what: &str) -> Result<String, String> {
    h.until(what, |a| {
        matches!(&a.overlay, Some(Overlay::Hosts(v))
            if v.mode == HostsMode::Browse && v.outcome.is_some())
    })
    .await;
    match &mut h.app.overlay {
        Some(Overlay::Hosts(v)) => v.outcome.take().expect("an outcome"),
        other => panic!("the Hosts view closed: {other:?}"),
    }
}

#[test]
fn hosts_view_test_connects_under_trust_and_imports() {
    let dirs = ConsoleDirs::new();
    let (root, home) = (dirs.root.clone(), dirs.home.clone());
    // Where the console kit has the executor keep every save's backup.
    let backup_dir = root.join("state/mcpdeck/backups");
    dirs.user_servers(&serde_json::json!({"mine": {"command": "true"}}));
    dirs.write(
        "proj/.mcp.json",
        &serde_json::json!({"mcpServers": {"demo-copy": demo()}}).to_string(),
    );
    dirs.write(
        ".cursor/mcp.json",
        &serde_json::json!({"mcpServers": {"cursor-demo": demo()}}).to_string(),
    );
    let options = dirs.options();
    dirs.run(async |h: &mut Console| {
        h.exec.set_hosts_home(root.clone());
        h.exec.set_reload(Box::new(move || {
            ConfigSet::load(&options).map_err(|e| e.to_string())
        }));

        open_hosts(h).await;
        // Claude Code's tab is first; its project server is selected.
        h.ctrl('t');
        let refused = outcome(h, "the refusal").await;
        assert!(
            refused
                .as_ref()
                .is_err_and(|m| m.contains("stays inert until this project is trusted")),
            "{refused:?}"
        );

        // Trust the project from the trust view (t, T, y), then test-connect again.
        h.key(KeyCode::Esc);
        h.key(KeyCode::Char('t'));
        h.key(KeyCode::Char('T'));
        h.key(KeyCode::Char('y'));
        h.until("trusted", |a| a.trust == "trusted").await;
        h.key(KeyCode::Esc);
        open_hosts(h).await;
        h.ctrl('t');
        let answered = outcome(h, "the test connect").await;
        assert!(
            answered
                .as_ref()
                .is_ok_and(|m| m.contains("mcpdeck-demo") && m.contains("closed")),
            "{answered:?}"
        );

        // Cursor's user server: import into mcpdeck's user file after the preview and a y.
        h.key(KeyCode::Right);
        h.key(KeyCode::Char('i'));
        h.until("the preview", |a| {
            matches!(&a.overlay, Some(Overlay::Hosts(v)) if matches!(v.mode, HostsMode::Confirm(_)))
        })
        .await;
        let Some(Overlay::Hosts(view)) = &h.app.overlay else {
            unreachable!()
        };
        let HostsMode::Confirm(preview) = &view.mode else {
            unreachable!()
        };
        assert!(
            preview.lines.iter().any(|l| l.contains("+ cursor-demo:")),
            "{preview:?}"
        );
        let before = std::fs::read_to_string(home.join("mcpdeck/mcp.json")).expect("read");
        h.key(KeyCode::Char('y'));
        let imported = outcome(h, "the import").await;
        let message = imported.expect("imported");
        assert!(message.contains("backup at"), "{message}");
        assert!(message.contains("configuration reloaded"), "{message}");
        let after = std::fs::read_to_string(home.join("mcpdeck/mcp.json")).expect("read");
        assert!(
            after.contains("cursor-demo") && after.contains("\"mine\""),
            "{after}"
        );
        // The backup goes where the console keeps every save's backup, never beside the file.
        let beside: Vec<_> = std::fs::read_dir(home.join("mcpdeck"))
            .expect("dir")
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.starts_with("mcp.json") && n != "mcp.json")
            .collect();
        assert!(beside.is_empty(), "{beside:?}");
        let backups: Vec<_> = std::fs::read_dir(&backup_dir)
            .expect("backups dir")
            .filter_map(Result::ok)
            .collect();
        assert_eq!(backups.len(), 1);
        assert_eq!(
            std::fs::read_to_string(backups[0].path()).expect("read"),
            before
        );
        h.until("the new server listed", |a| {
            a.servers.rows.iter().any(|s| s.name == "cursor-demo")
        })
        .await;
    });
}
