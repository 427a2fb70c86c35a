//! The console test kit: a sandboxed configuration (a config home and a project directory), the
//! real runtime (`Runtime::step`: `App::update` and the effect executor, over the real engine)
//! driven by the test as the console's loop drives it, and waits for explicit messages with a
//! deadline — never sleeps. Every headless console test builds on this one kit.

use std::ops::{Deref, DerefMut};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use mcpdeck::app::{App, Msg, ResultScreen, ResultView, Screen};
use mcpdeck::console::Runtime;
use mcpdeck::mcp::config::{ConfigSet, LoadOptions};
use mcpdeck::mcp::policy::Policy;
use mcpdeck::mcp::trust::TrustStore;

/// How long a wait may take before the test fails, saying what it waited for.
const DEADLINE: Duration = Duration::from_secs(60);

/// A temporary root holding the config home (`cfg`), the project (`proj`), the spills and the
/// editor's backups, so nothing a test does reaches the developer's own files.
pub struct ConsoleDirs {
    /// Keeps the directory alive.
    _dir: tempfile::TempDir,
    /// The root, canonical (host files are found relative to it).
    pub root: PathBuf,
    /// `$XDG_CONFIG_HOME`.
    pub home: PathBuf,
    /// The project directory.
    pub project: PathBuf,
}

impl ConsoleDirs {
    /// A fresh root with an empty config home and project.
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = std::fs::canonicalize(dir.path()).expect("canonical");
        let (home, project) = (root.join("cfg"), root.join("proj"));
        std::fs::create_dir_all(home.join("mcpdeck")).expect("mkdir");
        std::fs::create_dir_all(&project).expect("mkdir");
        Self {
            _dir: dir,
            root,
            home,
            project,
        }
    }

    /// Writes `text` to `relative` (under the root), creating directories.
    pub fn write(&self, relative: &str, text: &str) -> PathBuf {
        let path = self.root.join(relative);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, text).expect("write");
        path
    }

    /// Writes `servers` (an `mcpServers` object) as the user's configuration file.
    pub fn user_servers(&self, servers: &serde_json::Value) -> PathBuf {
        let file = serde_json::json!({ "mcpServers": servers });
        self.write("cfg/mcpdeck/mcp.json", &file.to_string())
    }

    /// Writes `policy` as the user's policy file.
    pub fn policy(&self, policy: &serde_json::Value) {
        std::fs::write(self.policy_path(), policy.to_string()).expect("write");
    }

    /// The user's policy file (it need not exist).
    pub fn policy_path(&self) -> PathBuf {
        Policy::default_path(&self.home)
    }

    /// How the console loads this configuration (also what a reload reads again).
    pub fn options(&self) -> LoadOptions {
        LoadOptions {
            project_dir: self.project.clone(),
            config_home: Some(self.home.clone()),
            extra_files: Vec::new(),
        }
    }

    /// The configuration as the console loads it.
    pub fn config(&self) -> ConfigSet {
        ConfigSet::load(&self.options()).expect("config")
    }

    /// Runs `scenario` on a console over the configuration as loaded now.
    pub fn run<F>(&self, scenario: F)
    where
        F: AsyncFnOnce(&mut Console),
    {
        self.run_with(self.config(), scenario);
    }

    /// Runs `scenario` on a console over `config`, with the real executor and engine, on a
    /// multi-threaded tokio runtime; shuts the console down after.
    pub fn run_with<F>(&self, config: ConfigSet, scenario: F)
    where
        F: AsyncFnOnce(&mut Console),
    {
        let policy_path = self.policy_path();
        let policy = Policy::load(&policy_path).expect("policy");
        let trust = TrustStore::default_path(&self.home);
        let spills = self.root.join("spills");
        std::fs::create_dir_all(&spills).expect("mkdir");
        // Saves keep their backups here, never in the user's state directory.
        let backups = self.root.join("state/mcpdeck/backups");
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("runtime");
        runtime.block_on(async move {
            let mut rt = Runtime::new(config, trust, policy, Some(spills)).expect("engine");
            rt.exec.set_backup_dir(backups);
            rt.app.policy_path = Some(policy_path);
            let mut console = Console {
                rt,
                project: self.project.clone(),
                key_delay: Duration::ZERO,
            };
            scenario(&mut console).await;
            console.rt.shutdown().await;
        });
    }
}

impl Default for ConsoleDirs {
    fn default() -> Self {
        Self::new()
    }
}

/// Runs `scenario` on a console over `servers` (an `mcpServers` object in the user's file).
pub fn with_servers<F>(servers: &serde_json::Value, scenario: F)
where
    F: AsyncFnOnce(&mut Console),
{
    let dirs = ConsoleDirs::new();
    dirs.user_servers(servers);
    dirs.run(scenario);
}

/// The demo server (`mcpdeck demo-server`) as a server definition.
pub fn demo() -> serde_json::Value {
    serde_json::json!({"command": env!("CARGO_BIN_EXE_mcpdeck"), "args": ["demo-server"]})
}

/// server-everything's script, or `None` after saying the test is skipped and why (under
/// `CI=true` the test fails instead; see `common::peers`).
pub fn everything_or_skip() -> Option<PathBuf> {
    super::peers::everything()
}

/// server-everything over stdio as a server definition.
pub fn everything_stdio(script: &Path) -> serde_json::Value {
    serde_json::json!({"command": "node", "args": [script, "stdio"]})
}

/// The real runtime, driven by the test: every message goes through [`Runtime::step`], the
/// same turn the console's loop takes.
pub struct Console {
    /// The runtime (also reached through `Deref`).
    pub rt: Runtime,
    /// The project directory.
    pub project: PathBuf,
    /// How far after now keys are sent (past a modal's key guard when not zero).
    pub key_delay: Duration,
}

impl Deref for Console {
    type Target = Runtime;
    fn deref(&self) -> &Runtime {
        &self.rt
    }
}

impl DerefMut for Console {
    fn deref_mut(&mut self) -> &mut Runtime {
        &mut self.rt
    }
}

impl Console {
    /// One turn of the loop with `msg`, now.
    pub fn send(&mut self, msg: Msg) {
        self.send_at(msg, Instant::now());
    }

    /// One turn of the loop with `msg`, as if the clock read `now`.
    pub fn send_at(&mut self, msg: Msg, now: Instant) {
        let flow = self.rt.step(msg, now);
        assert!(!flow.quit, "nothing here quits");
    }

    /// A key with modifiers, sent [`Console::key_delay`] after now.
    pub fn key_with(&mut self, code: KeyCode, mods: KeyModifiers) {
        let at = Instant::now() + self.key_delay;
        self.send_at(Msg::Key(KeyEvent::new(code, mods)), at);
    }

    /// Makes the console live as `mcpdeck` runs it: reloads read `options` again, and every
    /// configuration file, the trust store and the policy file are watched.
    pub fn live(&mut self, options: LoadOptions, policy: PathBuf) {
        self.rt.exec.set_reload(Box::new(move || {
            ConfigSet::load(&options).map_err(|e| e.to_string())
        }));
        self.rt.exec.watch_files(policy).expect("a watch");
    }

    /// A key without modifiers.
    pub fn key(&mut self, code: KeyCode) {
        self.key_with(code, KeyModifiers::NONE);
    }

    /// A character key.
    pub fn ch(&mut self, c: char) {
        self.key(KeyCode::Char(c));
    }

    /// Control and a character.
    pub fn ctrl(&mut self, c: char) {
        self.key_with(KeyCode::Char(c), KeyModifiers::CONTROL);
    }

    /// Each character of `text` as a key.
    pub fn type_text(&mut self, text: &str) {
        for c in text.chars() {
            self.ch(c);
        }
    }

    /// Feeds the runtime's messages until `done` holds; each wait is for a message, and the
    /// test fails naming `what` when none makes it hold before the deadline.
    pub async fn until(&mut self, what: &str, done: impl Fn(&App) -> bool) {
        let deadline = tokio::time::Instant::now() + DEADLINE;
        while !done(&self.rt.app) {
            let msg = tokio::select! {
                Some(msg) = self.rt.recv() => msg,
                () = tokio::time::sleep_until(deadline) => {
                    let app = &self.rt.app;
                    panic!(
                        "timed out waiting for {what}: {:?} / {:?} / {:?}",
                        app.message, app.screen, app.overlay
                    )
                }
            };
            self.send(msg);
        }
    }

    /// Feeds messages until a result is shown, and returns it.
    pub async fn result(&mut self, what: &str) -> ResultView {
        self.until(what, |a| matches!(a.screen, Screen::Result(..)))
            .await;
        match &self.rt.app.screen {
            Screen::Result(ResultScreen { view, .. }) => (**view).clone(),
            _ => unreachable!("the screen was just checked"),
        }
    }

    /// Selects `server` in the server list.
    pub fn select(&mut self, server: &str) {
        self.rt.app.servers.select_name(server);
        assert_eq!(self.rt.app.server().map(|s| s.name.as_str()), Some(server));
    }

    /// The selected server's name.
    pub fn selected(&self) -> String {
        self.rt.app.server().expect("a server").name.clone()
    }

    /// Whether `server`'s log has a line containing `text`.
    pub fn log_has(app: &App, server: &str, text: &str) -> bool {
        app.panes
            .get(server)
            .is_some_and(|p| p.log.lines.iter().any(|l| l.text.contains(text)))
    }

    /// Highlights `tool` in the selected server's (listed) tools.
    pub fn highlight_tool(&mut self, tool: &str) {
        let at = self
            .rt
            .app
            .visible_tools()
            .and_then(|t| t.iter().position(|t| t.name == tool))
            .unwrap_or_else(|| panic!("no {tool}"));
        let server = self.selected();
        self.rt
            .app
            .panes
            .get_mut(&server)
            .expect("pane")
            .tools
            .list
            .sel = at;
    }

    /// Connects and lists the selected server's tools (once, with `Enter`), then opens
    /// `tool`'s call form.
    pub async fn open_form(&mut self, tool: &str) {
        if self.rt.app.visible_tools().is_none() {
            self.key(KeyCode::Enter);
            self.until("the tool list", |a| {
                a.visible_tools()
                    .is_some_and(|t| t.iter().any(|t| t.name == tool))
            })
            .await;
        }
        self.highlight_tool(tool);
        self.ch('c');
        self.until("the form", |a| matches!(a.screen, Screen::Form(_)))
            .await;
    }

    /// Back to the list from a result (or a result's form).
    pub fn back(&mut self) {
        self.key(KeyCode::Esc);
        if !matches!(self.rt.app.screen, Screen::Browse) {
            self.key(KeyCode::Esc);
        }
    }
}
