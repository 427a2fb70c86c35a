//! A running `mcpdeck-fixture oauth` (an authorization server and the MCP server behind it, on
//! 127.0.0.1), killed on drop. Shared by the CLI sign-in tests and the serve tests.

use std::io::BufRead as _;

use serde_json::Value;

use super::fixture;

/// A running `mcpdeck-fixture oauth`, killed on drop.
pub struct AuthServer {
    child: std::process::Child,
    /// The port.
    pub port: u16,
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
        let port = line.trim().parse().expect("port");
        Self { child, port }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }

    pub fn post(&self, path: &str, body: &str) {
        let url = format!("http://127.0.0.1:{}{path}", self.port);
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

    /// Where `url` (on this fixture; nothing else is fetched) redirects to, as a browser would
    /// be sent on: the `Location` of its answer, not followed.
    pub fn redirect_of(&self, url: &str) -> String {
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
                answer
                    .headers()
                    .get(reqwest::header::LOCATION)
                    .and_then(|v| v.to_str().ok())
                    .expect("a redirect")
                    .to_owned()
            })
        })
    }

    pub fn seen(&self) -> Value {
        let url = format!("http://127.0.0.1:{}/seen", self.port);
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
}

impl Drop for AuthServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
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
