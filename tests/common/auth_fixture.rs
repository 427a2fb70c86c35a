//! A running `mcpdeck-fixture oauth` (an authorization server and the MCP server behind it, on
//! 127.0.0.1), killed on drop. Shared by the CLI sign-in tests and the serve tests.

use std::io::BufRead as _;

use serde_json::{Value, json};

use super::{Sandbox, fixture};

/// A running `mcpdeck-fixture oauth`, killed on drop.
pub struct AuthServer {
    child: std::process::Child,
    /// The port.
    pub port: u16,
    /// With `--cimd`: the port of the client's HTTPS site (where a client ID metadata document
    /// is published).
    pub site_port: Option<u16>,
}

impl AuthServer {
    pub fn start(flags: &[&str]) -> Self {
        let mut child = std::process::Command::new(fixture())
            .arg("oauth")
            .args(flags)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("fixture starts");
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().expect("stdout"))
            .read_line(&mut line)
            .expect("port line");
        let mut ports = line
            .split_whitespace()
            .map(|p| p.parse::<u16>().expect("port"));
        let port = ports.next().expect("port");
        let site_port = ports.next();
        Self {
            child,
            port,
            site_port,
        }
    }

    /// The URL of the client ID metadata document on the client's site (`--cimd`).
    pub fn document_url(&self) -> String {
        let port = self.site_port.expect("started with --cimd");
        format!("https://127.0.0.1:{port}/mcpdeck-client.json")
    }

    /// Publishes `document` at [`AuthServer::document_url`].
    pub fn publish_document(&self, document: &Value) {
        self.post("/client-document", &document.to_string());
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    pub fn post(&self, path: &str, body: &str) {
        post_to(self.port, path, body);
    }

    /// Where `url` (on this fixture; nothing else is fetched) redirects to, as a browser would
    /// be sent on: the `Location` of its answer, not followed.
    pub fn redirect_of(&self, url: &str) -> String {
        let (status, location) = self.answer_of(url);
        location.unwrap_or_else(|| panic!("no redirect: HTTP {status}"))
    }

    /// The status and `Location` of the fixture's answer to a GET of `url` (on this fixture).
    pub fn answer_of(&self, url: &str) -> (u16, Option<String>) {
        let origin = format!("http://127.0.0.1:{}/", self.port);
        assert!(url.starts_with(&origin), "{url} is not on the fixture");
        let url = url.to_owned();
        off_runtime(move || {
            runtime().block_on(async move {
                mcpdeck::mcp::connection::install_crypto_provider();
                let answer = reqwest::Client::builder()
                    .redirect(reqwest::redirect::Policy::none())
                    .build()
                    .expect("client")
                    .get(url)
                    .send()
                    .await
                    .expect("fixture answers");
                let location = answer
                    .headers()
                    .get(reqwest::header::LOCATION)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned);
                (answer.status().as_u16(), location)
            })
        })
    }

    pub fn seen(&self) -> Value {
        seen_at(self.port)
    }
}

/// POSTs `body` (a form) to `path` on the fixture at `port`.
pub fn post_to(port: u16, path: &str, body: &str) {
    let url = format!("http://127.0.0.1:{port}{path}");
    let body = body.to_owned();
    off_runtime(move || {
        runtime().block_on(async move {
            mcpdeck::mcp::connection::install_crypto_provider();
            reqwest::Client::new()
                .post(url)
                .header("content-type", "application/x-www-form-urlencoded")
                .body(body)
                .send()
                .await
                .expect("fixture answers");
        });
    });
}

/// What the fixture at `port` saw (`/seen`).
pub fn seen_at(port: u16) -> Value {
    let url = format!("http://127.0.0.1:{port}/seen");
    off_runtime(move || {
        runtime().block_on(async move {
            mcpdeck::mcp::connection::install_crypto_provider();
            let text = reqwest::get(url)
                .await
                .expect("fixture answers")
                .text()
                .await
                .expect("body");
            serde_json::from_str(&text).expect("json")
        })
    })
}

impl Drop for AuthServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A sandbox whose user configuration defines `web`, the fixture's MCP server, with `oauth`
/// as its `oauth` block when given.
pub fn sandbox(server: &AuthServer, oauth: Option<Value>) -> Sandbox {
    let sb = Sandbox::new();
    let mut def = json!({"url": server.url()});
    if let Some(oauth) = oauth {
        def["oauth"] = oauth;
    }
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {"web": def}}).to_string(),
    );
    sb
}

/// The credentials file of the sandbox (`$HOME/.local/state/mcpdeck`).
pub fn store_path(sb: &Sandbox) -> std::path::PathBuf {
    sb.dir.path().join(".local/state/mcpdeck/credentials.json")
}

/// The credentials file, parsed.
pub fn stored(sb: &Sandbox) -> Value {
    serde_json::from_str(&std::fs::read_to_string(store_path(sb)).expect("store")).expect("json")
}

/// `field` of the one stored token response (`access_token`, `refresh_token`).
pub fn stored_token(sb: &Sandbox, field: &str) -> String {
    let doc = stored(sb);
    let server = doc["servers"]
        .as_object()
        .and_then(|m| m.values().next())
        .cloned()
        .expect("one server");
    server["token_response"][field]
        .as_str()
        .expect("token")
        .to_owned()
}

/// What one run of `mcpdeck` did.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `mcpdeck ARGS` in the sandbox with `stdin`, the fixture's `browse` as `$BROWSER`, the
/// file store and `CLIENT_SECRET` set.
pub fn mcpdeck(sb: &Sandbox, args: &[&str], stdin: &str) -> Run {
    let browser = format!("{} browse", fixture());
    let out = sb
        .cmd()
        .env("BROWSER", browser)
        .env("MCPDECK_CREDENTIAL_STORE", "file")
        .env("CLIENT_SECRET", "s3cret-value")
        .args(args)
        .write_stdin(stdin)
        .output()
        .expect("runs");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// `mcpdeck auth login web --paste` started in the sandbox, and the authorization URL it
/// printed: the test plays the browser (see [`AuthServer::answer_of`]) and pastes into the
/// child's stdin.
pub fn paste_login(sb: &Sandbox) -> (std::process::Child, String) {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mcpdeck"))
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", sb.dir.path())
        .env("XDG_CONFIG_HOME", &sb.home)
        .env("MCPDECK_CREDENTIAL_STORE", "file")
        .args(["--cwd", sb.project.to_str().expect("utf8")])
        .args(["auth", "login", "web", "--paste"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("runs");
    let mut stderr = std::io::BufReader::new(child.stderr.take().expect("stderr"));
    let authorize = loop {
        let mut line = String::new();
        assert_ne!(
            stderr.read_line(&mut line).expect("reads"),
            0,
            "no URL printed"
        );
        if line.trim().starts_with("http://127.0.0.1") && line.contains("/authorize") {
            break line.trim().to_owned();
        }
    };
    (child, authorize)
}

/// Runs `work` on its own thread, so async tests can call these helpers too.
fn off_runtime<T: Send + 'static>(work: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::spawn(work).join().expect("helper thread")
}

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}
