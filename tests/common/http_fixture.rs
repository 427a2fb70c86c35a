//! A running `mcpdeck-fixture http --keys KEYS` (Streamable HTTP on 127.0.0.1), killed on drop.
//! Re-exported by `tests/connection_support` for the connection tests.

use std::io::BufRead as _;

/// The fixture process and its two ports.
pub struct HttpFixture {
    child: std::process::Child,
    /// The main port.
    pub port: u16,
    /// The capture port (what redirects point to; `/seen` reports what it received).
    pub capture_port: u16,
}

impl HttpFixture {
    /// Starts the fixture and reads the `PORT CAPTURE_PORT` line it prints first.
    pub fn start(keys: &str) -> Self {
        Self::start_with(keys, &[])
    }

    /// [`HttpFixture::start`] with environment variables (`FIXTURE_EVENTS`, ...).
    pub fn start_with(keys: &str, env: &[(&str, &std::path::Path)]) -> Self {
        let mut child = std::process::Command::new(super::fixture())
            .args(["http", "--keys", keys])
            .envs(env.iter().copied())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("fixture starts");
        let stdout = child.stdout.take().expect("stdout piped");
        let mut line = String::new();
        std::io::BufReader::new(stdout)
            .read_line(&mut line)
            .expect("port line");
        let mut ports = line
            .split_whitespace()
            .map(|p| p.parse::<u16>().expect("port"));
        let port = ports.next().expect("main port");
        let capture_port = ports.next().expect("capture port");
        Self {
            child,
            port,
            capture_port,
        }
    }

    /// `http://127.0.0.1:PORT/PATH` (`path` with or without its leading `/`).
    pub fn url(&self, path: &str) -> String {
        format!(
            "http://127.0.0.1:{}/{}",
            self.port,
            path.trim_start_matches('/')
        )
    }

    /// `{"requests":n,"with_auth":m}` from the capture port.
    pub async fn seen(&self) -> serde_json::Value {
        mcpdeck::mcp::connection::install_crypto_provider();
        let body = reqwest::get(format!("http://127.0.0.1:{}/seen", self.capture_port))
            .await
            .expect("capture answers")
            .text()
            .await
            .expect("body");
        serde_json::from_str(&body).expect("json")
    }
}

impl Drop for HttpFixture {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
