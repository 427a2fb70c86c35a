//! Probes: connect to a server and report what it answered. `status --live` probes a
//! configured server through its engine ([`Engine::probe`]): the negotiated protocol version and
//! era, its name and version, a capability summary and the round-trip time of a liveness check
//! (`ping`, or `server/discover` on 2026-07-28, which has no ping) — what the no-connect status
//! cannot know. Connecting is not an operation on the server's data, so the policy is not
//! consulted; trust, `disabled` and invalid definitions still stop it. A test-connect (the config
//! editor's, the Hosts view's, `mcpdeck hosts connect`) probes a definition outside any engine
//! with [`connect_once`], once its face has applied the same trust rule
//! ([`crate::mcp::trust::TrustState::admits`]). Both describe what answered as [`Answered`].

use std::path::Path;
use std::time::Instant;

use tokio_util::sync::CancellationToken;

use super::Engine;
use super::outcome::Failure;
use crate::mcp::config::ServerDef;
use crate::mcp::connection::{ConnectError, ServerIdentity, connect, max_total_for};
use crate::mcp::sanitize::sanitize_capped;

/// What a server said about itself, sanitised the one way every probe shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Answered {
    /// `serverInfo.name` (at most 128 characters).
    pub name: Option<String>,
    /// `serverInfo.version` (at most 64 characters).
    pub version: Option<String>,
    /// The negotiated protocol version.
    pub protocol: String,
    /// What it offers (see [`Probe::capabilities`]).
    pub capabilities: Vec<String>,
    /// How many tools it lists, when a connect-once probe could list them.
    pub tools: Option<usize>,
}

impl Answered {
    fn of(identity: &ServerIdentity) -> Self {
        Self {
            name: identity.name.as_deref().map(|n| sanitize_capped(n, 128)),
            version: identity.version.as_deref().map(|v| sanitize_capped(v, 64)),
            protocol: sanitize_capped(&identity.protocol_version, 64),
            capabilities: capability_summary(&identity.capabilities),
            tools: None,
        }
    }
}

/// The one connect-once probe, for a definition outside any engine: connects `def` (relative
/// paths from `file_dir`, variables from `lookup`), reads what answered, counts its tools within
/// the definition's request timeout, and closes. The caller has applied the trust rule.
pub(crate) async fn connect_once(
    def: &ServerDef,
    file_dir: &Path,
    lookup: &(dyn Fn(&str) -> Option<String> + Sync),
) -> Result<Answered, ConnectError> {
    let timeout = def.request_timeout();
    let mut conn = connect(def, file_dir, lookup).await?;
    let mut answered = Answered::of(conn.identity());
    answered.tools = tokio::time::timeout(timeout, conn.peer().list_all_tools())
        .await
        .ok()
        .and_then(Result::ok)
        .map(|t| t.len());
    conn.close().await;
    Ok(answered)
}

/// What one server answered.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Probe {
    /// The negotiated protocol version.
    pub protocol_version: String,
    /// `stateless` (2026-07-28 on, per-request metadata) or `legacy` (the initialize handshake).
    pub era: &'static str,
    /// The request that checked the server answers: `ping` or `server/discover`.
    pub liveness: &'static str,
    /// `serverInfo.name` (sanitised).
    pub server_name: Option<String>,
    /// `serverInfo.version` (sanitised).
    pub server_version: Option<String>,
    /// What it offers: `tools`, `resources`, `prompts`, `logging`, `completions`, with
    /// `listChanged` / `subscribe` where declared.
    pub capabilities: Vec<String>,
    /// How long connecting took (including a process start), in milliseconds.
    pub connect_ms: u64,
    /// The round trip of the liveness check, in milliseconds (fractional).
    pub ping_ms: f64,
}

fn millis(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

fn capability_summary(caps: &rmcp::model::ServerCapabilities) -> Vec<String> {
    let mut out = Vec::new();
    let flagged = |name: &str, list_changed: Option<bool>, subscribe: Option<bool>| {
        let mut s = name.to_owned();
        if list_changed == Some(true) {
            s.push_str(" (listChanged)");
        }
        if subscribe == Some(true) {
            s.push_str(" (subscribe)");
        }
        s
    };
    if let Some(t) = &caps.tools {
        out.push(flagged("tools", t.list_changed, None));
    }
    if let Some(r) = &caps.resources {
        out.push(flagged("resources", r.list_changed, r.subscribe));
    }
    if let Some(p) = &caps.prompts {
        out.push(flagged("prompts", p.list_changed, None));
    }
    if caps.logging.is_some() {
        out.push("logging".to_owned());
    }
    if caps.completions.is_some() {
        out.push("completions".to_owned());
    }
    out
}

impl Engine {
    /// Connects to `server` (or uses its live connection) and checks it answers.
    pub async fn probe(&self, server: &str, cancel: &CancellationToken) -> Result<Probe, Failure> {
        let started = Instant::now();
        self.with_connection(server, cancel, async |conn, cancel| {
            let connect_ms = millis(started.elapsed());
            let timeout = conn.request_timeout();
            let sent = Instant::now();
            let (check, liveness) = conn.liveness_request();
            conn.request_cancellable(check, timeout, max_total_for(timeout), cancel)
                .await
                .map_err(|e| Failure::from_connect(&e))?;
            let ping_ms = sent.elapsed().as_secs_f64() * 1000.0;
            let answered = Answered::of(conn.identity());
            Ok(Probe {
                protocol_version: answered.protocol,
                era: conn.era(),
                liveness,
                server_name: answered.name,
                server_version: answered.version,
                capabilities: answered.capabilities,
                connect_ms,
                ping_ms,
            })
        })
        .await?
    }
}
