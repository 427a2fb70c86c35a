//! The validated shape of one server definition.
//!
//! These types hold what a configuration file *says*: references stay unresolved templates, and
//! relative paths stay relative until [`ServerDef::resolved_cwd`] is asked. Nothing here reads the
//! environment or touches the network.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::oauth::OAuthDef;
use super::refs::Template;
use crate::mcp::sandbox::SandboxDef;

/// The engine's default per-request timeout when `requestTimeoutMs` is absent or ≤ 0.
pub(crate) const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(60);
/// How long a task is followed when `taskTimeoutMs` is absent or ≤ 0 (and the CLI's
/// `--task-timeout` is not given): ten minutes, the time to live mcpdeck asks tasks to be kept.
pub(crate) const DEFAULT_TASK_TIMEOUT: Duration = Duration::from_secs(10 * 60);

/// Which configuration layer a definition came from, lowest precedence first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Layer {
    /// `$XDG_CONFIG_HOME/mcp/mcp.json`, shared with other hosts.
    SharedUser,
    /// `$XDG_CONFIG_HOME/mcpdeck/mcp.json`.
    User,
    /// `<project>/.mcp.json`.
    Project,
    /// `<project>/.mcpdeck/mcp.json`.
    #[serde(rename = "project-mcpdeck")]
    ProjectDeck,
    /// A `--config FILE` given on the command line.
    CommandLine,
    /// Compiled into mcpdeck.
    Packaged,
}

impl Layer {
    /// Project layers are inert until the project is trusted.
    pub fn is_project(self) -> bool {
        matches!(self, Self::Project | Self::ProjectDeck)
    }

    /// The name used in status and diagnostics.
    pub fn label(self) -> &'static str {
        match self {
            Self::SharedUser => "shared-user",
            Self::User => "user",
            Self::Project => "project",
            Self::ProjectDeck => "project-mcpdeck",
            Self::CommandLine => "command-line",
            Self::Packaged => "packaged",
        }
    }
}

/// Where a definition was written.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Source {
    /// The layer of the file.
    pub layer: Layer,
    /// The file's path as it was opened (absolute for every layer but `--config`, which is made
    /// absolute against the process's working directory); one allocation shared by every
    /// entry of the file.
    #[serde(serialize_with = "serialize_path")]
    pub file: Arc<Path>,
    /// 1-based line of the server's key in the file, when known.
    pub line: Option<u32>,
}

fn serialize_path<S: serde::Serializer>(
    path: &Arc<Path>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&**path, serializer)
}

/// The transport a server is reached through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// A child process speaking newline-delimited JSON-RPC on stdin/stdout.
    Stdio(StdioDef),
    /// A Streamable HTTP endpoint.
    Http(HttpDef),
}

impl Transport {
    /// `stdio` or `http`.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Stdio(_) => "stdio",
            Self::Http(_) => "http",
        }
    }
}

/// A stdio server definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StdioDef {
    /// The executable name or path, literal.
    pub command: String,
    /// Literal arguments.
    pub args: Vec<String>,
    /// The child's working directory as written (relative to the file's directory).
    pub cwd: Option<String>,
    /// Additions to the minimal child environment.
    pub env: BTreeMap<String, Template>,
    /// The `sandbox` block: the server runs confined to these rules (see `mcp::sandbox`).
    pub sandbox: Option<Box<SandboxDef>>,
}

/// A Streamable HTTP server definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpDef {
    /// The endpoint URL, literal (never carries credentials; validated).
    pub url: String,
    /// Request headers, by name as written.
    pub headers: BTreeMap<String, Template>,
    /// OAuth client settings, when the definition has an `oauth` block.
    pub oauth: Option<Box<OAuthDef>>,
}

impl HttpDef {
    /// Whether this server may sign in with OAuth: a configured `Authorization` header means
    /// the operator chose static credentials instead.
    pub fn uses_oauth(&self) -> bool {
        !self
            .headers
            .keys()
            .any(|k| k.eq_ignore_ascii_case("authorization"))
    }
}

/// Which protocol lifecycle to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
pub enum ProtocolChoice {
    /// No `protocolVersion` written: the initialize handshake offering 2025-11-25, moving on to
    /// 2026-07-28 when an HTTP server refuses `initialize` as a 2026-only server does.
    #[default]
    #[serde(rename = "legacy")]
    Unset,
    /// `"legacy"`: the initialize handshake offering 2025-11-25, and nothing else.
    #[serde(rename = "legacy")]
    Legacy,
    /// Probe `server/discover`, fall back to initialize.
    #[serde(rename = "auto")]
    Auto,
    /// The stateless 2026-07-28 protocol only.
    #[serde(rename = "2026-07-28")]
    Modern,
}

impl ProtocolChoice {
    /// The value as written in configuration.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Unset | Self::Legacy => "legacy",
            Self::Auto => "auto",
            Self::Modern => "2026-07-28",
        }
    }
}

/// The `reconnect` block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReconnectPolicy {
    /// Whether a transport failure may trigger fresh connection attempts.
    pub automatic: bool,
    /// Attempts per series, 1–3.
    pub max_attempts: u8,
    /// First backoff delay, 100–500 ms.
    pub base_delay_ms: u16,
}

impl Default for ReconnectPolicy {
    fn default() -> Self {
        Self {
            automatic: false,
            max_attempts: 1,
            base_delay_ms: 200,
        }
    }
}

/// One valid server definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerDef {
    /// The server's configured name.
    pub name: String,
    /// How to reach it.
    pub transport: Transport,
    /// `requestTimeoutMs` when positive.
    pub request_timeout_ms: Option<u64>,
    /// `taskTimeoutMs` when positive: how long a task is followed.
    pub task_timeout_ms: Option<u64>,
    /// Reconnect policy.
    pub reconnect: ReconnectPolicy,
    /// A disabled server is listed but never connects.
    pub disabled: bool,
    /// Protocol lifecycle.
    pub protocol: ProtocolChoice,
    /// `roots`: the directories offered to the server (relative to the file's directory);
    /// `None` offers the project directory, `Some([])` none.
    pub roots: Option<Vec<String>>,
}

impl ServerDef {
    /// How long a task is followed when `taskTimeoutMs` is not set.
    pub const DEFAULT_TASK_TIMEOUT: Duration = DEFAULT_TASK_TIMEOUT;

    /// The per-request timeout.
    pub fn request_timeout(&self) -> Duration {
        self.request_timeout_ms
            .map_or(DEFAULT_REQUEST_TIMEOUT, Duration::from_millis)
    }

    /// How long a tool call run as a task is followed before it is cancelled.
    pub fn task_timeout(&self) -> Duration {
        self.task_timeout_ms
            .map_or(DEFAULT_TASK_TIMEOUT, Duration::from_millis)
    }

    /// The child's working directory, with a relative `cwd` resolved against `file_dir`.
    pub fn resolved_cwd(&self, file_dir: &Path) -> Option<PathBuf> {
        let Transport::Stdio(stdio) = &self.transport else {
            return None;
        };
        stdio.cwd.as_ref().map(|cwd| file_dir.join(cwd))
    }

    /// The `sandbox` block of a stdio definition.
    pub fn sandbox(&self) -> Option<&SandboxDef> {
        match &self.transport {
            Transport::Stdio(s) => s.sandbox.as_deref(),
            Transport::Http(_) => None,
        }
    }

    /// The sandbox in one line, sanitised for any screen (`None`: the server runs unconfined).
    pub fn sandbox_line(&self) -> Option<String> {
        self.sandbox()
            .map(|s| crate::mcp::sanitize::sanitize_capped(&s.summary(), 400))
    }

    /// Every referenced variable with the field that references it (`env.TOKEN`,
    /// `headers.Authorization`), in field order.
    pub fn references(&self) -> Vec<(String, String)> {
        let (prefix, map) = match &self.transport {
            Transport::Stdio(s) => ("env", &s.env),
            Transport::Http(h) => ("headers", &h.headers),
        };
        let mut refs: Vec<(String, String)> = map
            .iter()
            .flat_map(|(key, template)| {
                template
                    .var_names()
                    .into_iter()
                    .map(move |var| (format!("{prefix}.{key}"), var.to_owned()))
            })
            .collect();
        if let Transport::Http(HttpDef {
            oauth: Some(oauth), ..
        }) = &self.transport
            && let Some(secret) = &oauth.client_secret
        {
            for var in secret.var_names() {
                refs.push(("oauth.clientSecret".to_owned(), var.to_owned()));
            }
        }
        refs
    }
}
