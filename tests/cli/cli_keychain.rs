//! The credential store against a real Secret Service: Debian's gnome-keyring, started unlocked
//! on a private session bus (`dbus-run-session`) for each command, with its keyring on disk in
//! the sandbox's home. `scripts/test` installs both (`scripts/install-keyring`); without them
//! these tests say they were skipped.
//!
//! What they show: with a Secret Service answering, sign-in puts the tokens in the keychain and
//! nothing in the credentials file; they survive a restart of mcpdeck and of the keyring daemon;
//! and with no Secret Service the file store is used.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::{AuthServer, fixture};
use serde_json::{Value, json};

/// The keyring's password (the sandbox's own keyring; nothing real is unlocked with it).
const KEYRING_PASSWORD: &str = "mcpdeck-test-keyring";

/// Which session bus a command runs with.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Bus {
    /// None at all: no Secret Service can answer.
    Absent,
    /// A private bus on which gnome-keyring starts on demand, its keyring left locked (a
    /// headless machine with the package installed): nothing can be stored without a prompt.
    Locked,
    /// A private bus with gnome-keyring started and its login keyring unlocked (a desktop).
    Unlocked,
}

/// A home directory with a configuration naming the OAuth fixture as `web`.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new(server: &AuthServer) -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        let config = dir.path().join("config/mcpdeck");
        std::fs::create_dir_all(&config).expect("mkdir");
        std::fs::write(
            config.join("mcp.json"),
            json!({"mcpServers": {"web": {"url": server.url()}}}).to_string(),
        )
        .expect("config");
        let run = dir.path().join("run");
        std::fs::create_dir_all(&run).expect("mkdir");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(&run, std::fs::Permissions::from_mode(0o700)).expect("mode");
        }
        Self { dir }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn credentials_file(&self) -> PathBuf {
        self.path().join(".local/state/mcpdeck/credentials.json")
    }

    /// `mcpdeck ARGS` in this home, with a clean environment and the given bus.
    fn mcpdeck(&self, bus: Bus, args: &[&str]) -> Output {
        let bin = env!("CARGO_BIN_EXE_mcpdeck");
        let mut cmd = if bus == Bus::Locked {
            let mut cmd = Command::new("dbus-run-session");
            cmd.args(["--", bin]);
            cmd
        } else if bus == Bus::Unlocked {
            // A private session bus with the keyring daemon started on it, unlocked with the
            // known password (it creates the login keyring the first time), then mcpdeck.
            let mut cmd = Command::new("dbus-run-session");
            cmd.args([
                "--",
                "sh",
                "-c",
                "printf %s \"$KEYRING_PASSWORD\" | gnome-keyring-daemon --unlock --components=secrets >/dev/null && exec \"$@\"",
                "sh",
                bin,
            ]);
            cmd
        } else {
            Command::new(bin)
        };
        cmd.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.path())
            .env("XDG_CONFIG_HOME", self.path().join("config"))
            .env("XDG_RUNTIME_DIR", self.path().join("run"))
            .env("BROWSER", format!("{} browse", fixture()))
            .env("KEYRING_PASSWORD", KEYRING_PASSWORD)
            .args(["--cwd"])
            .arg(self.path())
            .args(args)
            .stdin(std::process::Stdio::null());
        cmd.output().expect("runs")
    }
}

fn keyring_present() -> bool {
    let found = |tool: &str| {
        Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if found("dbus-run-session") && found("gnome-keyring-daemon") {
        return true;
    }
    eprintln!(
        "SKIPPED: the keychain test needs dbus-run-session and gnome-keyring-daemon (scripts/install-keyring installs them)"
    );
    false
}

fn ok(out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "exit {:?}\n{stdout}\n{}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// What `auth status --json` reports (its envelope's `result`).
fn status(home: &Home, bus: Bus) -> Value {
    let v: Value =
        serde_json::from_str(&ok(&home.mcpdeck(bus, &["auth", "status", "--json"]))).expect("json");
    v["result"].clone()
}

fn signed_in(status: &Value) -> bool {
    status["servers"][0]["signedIn"] == json!(true)
}

#[test]
fn with_a_secret_service_tokens_go_to_the_keychain_and_survive_a_restart() {
    if !keyring_present() {
        return;
    }
    let server = AuthServer::start(&[]);
    let home = Home::new(&server);

    let before = status(&home, Bus::Unlocked);
    assert!(
        before["store"]
            .as_str()
            .is_some_and(|s| s.starts_with("OS keychain")),
        "{before}"
    );
    assert!(!signed_in(&before), "{before}");

    let login = ok(&home.mcpdeck(Bus::Unlocked, &["auth", "login", "web"]));
    assert!(login.contains("signed in to `web`"), "{login}");
    assert!(
        !home.credentials_file().exists(),
        "the tokens went to the keychain, not the file"
    );

    // A new mcpdeck on a new bus with a restarted keyring daemon: the tokens are still there,
    // and a command uses them without signing in again.
    let after = status(&home, Bus::Unlocked);
    assert!(signed_in(&after), "{after}");
    let tools = home.mcpdeck(Bus::Unlocked, &["tools", "web", "--json"]);
    let listed = ok(&tools);
    assert!(listed.contains("echo"), "{listed}");
    assert_eq!(server.seen()["code_exchanges"], 1, "one sign-in in all");
    assert!(!home.credentials_file().exists());

    // The file store of the same home has nothing: the sign-in lives only in the keychain.
    let file = status(&home, Bus::Absent);
    assert!(
        file["store"]
            .as_str()
            .is_some_and(|s| s.starts_with("file ")),
        "{file}"
    );
    assert!(!signed_in(&file), "{file}");

    // Signing out forgets the keychain item's tokens.
    ok(&home.mcpdeck(Bus::Unlocked, &["auth", "logout", "web"]));
    assert!(!signed_in(&status(&home, Bus::Unlocked)));
}

#[test]
fn without_a_secret_service_the_file_store_is_used() {
    let server = AuthServer::start(&[]);
    let home = Home::new(&server);
    let before = status(&home, Bus::Absent);
    assert!(
        before["store"]
            .as_str()
            .is_some_and(|s| s.starts_with("file ")),
        "{before}"
    );
    let login = ok(&home.mcpdeck(Bus::Absent, &["auth", "login", "web"]));
    assert!(login.contains("signed in to `web`"), "{login}");
    let doc: Value = serde_json::from_str(
        &std::fs::read_to_string(home.credentials_file()).expect("the file store was written"),
    )
    .expect("json");
    assert_eq!(
        doc["servers"].as_object().map(serde_json::Map::len),
        Some(1)
    );
    assert!(signed_in(&status(&home, Bus::Absent)));
}
