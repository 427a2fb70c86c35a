//! The console's Hosts view through the real runtime (`Runtime::step`: `App::update` and the
//! effect executor) over real host files in a sandboxed home, waiting for explicit messages —
//! never sleeping: a Claude Code project server test-connected against the demo server is
//! refused while the project is untrusted and answers once it is trusted; a Cursor user server
//! is imported into mcpdeck's user file (preview, `y`, backup) and the console reloads it.

use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use mcpdeck::app::hosts::HostsMode;
use mcpdeck::app::{App, Msg, Overlay};
use mcpdeck::console::Runtime;
use mcpdeck::mcp::config::{ConfigSet, LoadOptions};
use mcpdeck::mcp::policy::Policy;
use mcpdeck::mcp::trust::TrustStore;

struct Harness {
    rt: Runtime,
}

impl Harness {
    fn send(&mut self, msg: Msg) {
        let flow = self.rt.step(msg, Instant::now());
        assert!(!flow.quit, "nothing here quits");
    }

    fn key(&mut self, code: KeyCode) {
        self.send(Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)));
    }

    fn ctrl(&mut self, c: char) {
        self.send(Msg::Key(KeyEvent::new(
            KeyCode::Char(c),
            KeyModifiers::CONTROL,
        )));
    }

    /// Feeds runtime messages until `done` holds (each wait is for a message, with a deadline).
    async fn until(&mut self, what: &str, done: impl Fn(&App) -> bool) {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        while !done(&self.rt.app) {
            let msg = tokio::select! {
                Some(msg) = self.rt.recv() => msg,
                () = tokio::time::sleep_until(deadline) => panic!("timed out waiting for {what}: {:?}", self.rt.app.overlay),
            };
            self.send(msg);
        }
    }

    /// Opens the Hosts view with `H` and waits until the hosts' files are read.
    async fn open_hosts(&mut self) {
        self.key(KeyCode::Char('H'));
        self.until(
            "the hosts' files",
            |a| matches!(&a.overlay, Some(Overlay::Hosts(v)) if v.data.is_some()),
        )
        .await;
    }

    /// The Hosts view's last outcome, once its request finished.
    async fn outcome(&mut self, what: &str) -> Result<String, String> {
        self.until(what, |a| {
            matches!(&a.overlay, Some(Overlay::Hosts(v))
                if v.mode == HostsMode::Browse && v.outcome.is_some())
        })
        .await;
        match &mut self.rt.app.overlay {
            Some(Overlay::Hosts(v)) => v.outcome.take().expect("an outcome"),
            other => panic!("the Hosts view closed: {other:?}"),
        }
    }
}

#[test]
fn hosts_view_test_connects_under_trust_and_imports() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = std::fs::canonicalize(dir.path()).expect("canonical");
    let (home, project) = (root.join("cfg"), root.join("proj"));
    std::fs::create_dir_all(home.join("mcpdeck")).expect("mkdir");
    std::fs::create_dir_all(root.join(".cursor")).expect("mkdir");
    std::fs::create_dir_all(&project).expect("mkdir");
    let exe = env!("CARGO_BIN_EXE_mcpdeck");
    let demo = serde_json::json!({"command": exe, "args": ["demo-server"]});
    std::fs::write(
        home.join("mcpdeck/mcp.json"),
        serde_json::json!({"mcpServers": {"mine": {"command": "true"}}}).to_string(),
    )
    .expect("write");
    std::fs::write(
        project.join(".mcp.json"),
        serde_json::json!({"mcpServers": {"demo-copy": demo}}).to_string(),
    )
    .expect("write");
    std::fs::write(
        root.join(".cursor/mcp.json"),
        serde_json::json!({"mcpServers": {"cursor-demo": demo}}).to_string(),
    )
    .expect("write");
    let options = LoadOptions {
        project_dir: project,
        config_home: Some(home.clone()),
        extra_files: Vec::new(),
    };
    let config = ConfigSet::load(&options).expect("config");
    let policy = Policy::load(&Policy::default_path(&home)).expect("policy");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let spills = root.join("spills");
    std::fs::create_dir_all(&spills).expect("mkdir");
    runtime.block_on(async move {
        let rt = Runtime::new(
            config,
            TrustStore::default_path(&home),
            policy,
            Some(spills),
        )
        .expect("engine");
        let mut h = Harness { rt };
        h.rt.exec.set_hosts_home(root.clone());
        h.rt.exec.set_reload(Box::new(move || {
            ConfigSet::load(&options).map_err(|e| e.to_string())
        }));

        h.open_hosts().await;
        // Claude Code's tab is first; its project server is selected.
        h.ctrl('t');
        let refused = h.outcome("the refusal").await;
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
        h.open_hosts().await;
        h.ctrl('t');
        let answered = h.outcome("the test connect").await;
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
        let Some(Overlay::Hosts(view)) = &h.rt.app.overlay else {
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
        let imported = h.outcome("the import").await;
        let message = imported.expect("imported");
        assert!(message.contains("backup at"), "{message}");
        assert!(message.contains("configuration reloaded"), "{message}");
        let after = std::fs::read_to_string(home.join("mcpdeck/mcp.json")).expect("read");
        assert!(
            after.contains("cursor-demo") && after.contains("\"mine\""),
            "{after}"
        );
        let backups: Vec<_> = std::fs::read_dir(home.join("mcpdeck"))
            .expect("dir")
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with("mcp.json.bak-"))
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
        h.rt.shutdown().await;
    });
}
