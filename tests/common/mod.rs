//! Shared helpers for CLI tests: a sandbox with its own config home and project directory,
//! and a way to run the real `mcpdeck` binary inside it with a clean environment.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use assert_cmd::Command;

pub mod auth_fixture;
pub mod console_kit;
pub mod engine_kit;
pub mod everything_http;
pub mod fs_wait;
pub mod held_clock;
mod http_fixture;
pub mod json_keys;
pub mod peers;
pub mod pid_wait;
#[allow(unused_imports)] // not every test binary starts the OAuth fixture
pub use auth_fixture::AuthServer;
#[allow(unused_imports)] // not every test binary starts the HTTP fixture
pub use http_fixture::HttpFixture;
#[allow(unused_imports)] // not every test binary waits for a process to end
pub use pid_wait::gone_within;

/// A temporary XDG config home and project directory.
pub struct Sandbox {
    /// Keeps the directory alive.
    pub dir: tempfile::TempDir,
    /// `$XDG_CONFIG_HOME`.
    pub home: PathBuf,
    /// The project directory.
    pub project: PathBuf,
}

impl Sandbox {
    /// A fresh sandbox.
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("temp dir");
        let home = dir.path().join("config");
        let project = dir.path().join("project");
        std::fs::create_dir_all(&home).expect("home");
        std::fs::create_dir_all(&project).expect("project");
        Self { dir, home, project }
    }

    /// Writes `text` to `path` (relative to the sandbox root), creating directories.
    pub fn write(&self, path: &str, text: &str) -> PathBuf {
        let full = self.dir.path().join(path);
        std::fs::create_dir_all(full.parent().expect("parent")).expect("mkdir");
        std::fs::write(&full, text).expect("write");
        full
    }

    /// The `mcpdeck` binary with a clean environment pointed at this sandbox.
    pub fn cmd(&self) -> Command {
        self.cmd_in(&self.project)
    }

    /// The `mcpdeck` binary run with `--cwd project`.
    pub fn cmd_in(&self, project: &Path) -> Command {
        let mut cmd = Command::cargo_bin("mcpdeck").expect("binary");
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.dir.path())
            .env("XDG_CONFIG_HOME", &self.home)
            // Never the developer's keychain: a test's tokens stay in the sandbox's file store
            // (`tests/cli/cli_keychain.rs` runs the keychain on its own private bus).
            .env("MCPDECK_CREDENTIAL_STORE", "file")
            .arg("--cwd")
            .arg(project);
        cmd
    }

    /// Runs `args`, which must succeed, and returns stdout.
    pub fn stdout(&self, args: &[&str]) -> String {
        let out = self.cmd().args(args).output().expect("runs");
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).expect("utf-8")
    }

    /// Runs `args` and parses stdout as one JSON document.
    pub fn json(&self, args: &[&str]) -> serde_json::Value {
        let out = self.cmd().args(args).output().expect("runs");
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "{args:?} printed no JSON ({e}): {}\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        })
    }

    /// `status --json` → the server named `name`.
    pub fn server(&self, name: &str) -> serde_json::Value {
        let status = self.json(&["status", "--json"]);
        status["result"]["servers"]
            .as_array()
            .expect("servers")
            .iter()
            .find(|s| s["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("no server {name} in {status:#}"))
    }

    /// The project's trust state from `status --json`.
    pub fn trust_state(&self) -> String {
        self.json(&["status", "--json"])["result"]["project"]["trust"]
            .as_str()
            .expect("trust")
            .to_owned()
    }
}

/// The fixture server binary, `mcpdeck-fixture`. It is its own workspace package, so cargo gives
/// these tests no `CARGO_BIN_EXE_` for it: it is found next to the `mcpdeck` binary under test (the
/// same target directory and profile), where `./scripts/test` builds it first.
pub fn fixture() -> &'static str {
    static PATH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    PATH.get_or_init(|| {
        let path = Path::new(env!("CARGO_BIN_EXE_mcpdeck"))
            .with_file_name(format!("mcpdeck-fixture{}", std::env::consts::EXE_SUFFIX));
        assert!(
            path.is_file(),
            "{} is missing: the test fixture is its own package. Build it first with \
             `cargo build -p mcpdeck-fixture` (`./scripts/test` does both), then run the tests again",
            path.display()
        );
        path.to_string_lossy().into_owned()
    })
}

/// Whether a process is still alive (zombies count as gone).
pub fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| {
        let state = s.rsplit_once(')').map_or("", |(_, rest)| rest.trim_start());
        !state.starts_with('Z') && !state.starts_with('X')
    })
}

/// Every file under `dir`, recursively (none when it does not exist).
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else {
            out.push(path);
        }
    }
    out
}
