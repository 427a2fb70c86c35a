//! `@modelcontextprotocol/server-everything` over Streamable HTTP on a free loopback port (the
//! `loopback.cjs` preload keeps it on 127.0.0.1), killed when dropped.

use std::io::BufRead as _;
use std::path::Path;

/// A running server-everything over Streamable HTTP.
pub struct EverythingHttp {
    child: std::process::Child,
    /// The loopback port it listens on.
    pub port: u16,
}

impl EverythingHttp {
    /// Starts the server at `script` (its `dist/index.js`) and waits until it says it listens.
    pub fn start(script: &Path) -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        let preload = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/interop/loopback.cjs");
        let mut child = std::process::Command::new("node")
            .arg("--require")
            .arg(preload)
            .arg(script)
            .arg("streamableHttp")
            .env("PORT", port.to_string())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("node starts");
        let stderr = child.stderr.take().expect("stderr");
        let server = Self { child, port };
        let mut lines = std::io::BufReader::new(stderr).lines();
        let ready = lines
            .by_ref()
            .take(20)
            .map_while(Result::ok)
            .any(|l| l.contains("listening on port"));
        assert!(ready, "server-everything did not start");
        std::thread::spawn(move || lines.for_each(drop));
        server
    }

    /// Its MCP endpoint.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/mcp", self.port)
    }
}

impl Drop for EverythingHttp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
