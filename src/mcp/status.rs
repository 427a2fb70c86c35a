//! The status report: every server with provenance and state, the
//! project's trust state, and diagnostics counts. Building it never connects, never spawns and
//! never resolves a reference: it reads only whether referenced variables are set.

use std::path::PathBuf;

use crate::mcp::config::{ConfigSet, Counts, Effective, Layer, Source};
use crate::mcp::status_row::{RowsShared, status_rows};
use crate::mcp::trust::{TrustState, TrustStore, fingerprint};

/// A server's state as status shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ServerState {
    /// The normal lazy state: not connected yet.
    Disconnected,
    /// A connection attempt is under way.
    Connecting,
    /// Connected.
    Connected,
    /// The last attempt failed.
    Failed,
    /// `disabled: true`: never connects.
    Disabled,
    /// The definition has errors: never connects.
    Invalid,
    /// A project server while the project is not trusted: never connects.
    Inert,
}

impl ServerState {
    /// The state's name.
    pub fn label(self) -> &'static str {
        match self {
            Self::Disconnected => "disconnected",
            Self::Connecting => "connecting",
            Self::Connected => "connected",
            Self::Failed => "failed",
            Self::Disabled => "disabled",
            Self::Invalid => "invalid",
            Self::Inert => "inert",
        }
    }
}

/// Where a definition came from, for reports.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceView {
    /// The configuration layer.
    pub layer: Layer,
    /// The file.
    pub file: PathBuf,
    /// The line of the server's key.
    pub line: Option<u32>,
}

impl From<&Source> for SourceView {
    fn from(s: &Source) -> Self {
        Self {
            layer: s.layer,
            file: s.file.to_path_buf(),
            line: s.line,
        }
    }
}

/// One environment reference and whether its variable is set (never its value).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReferenceView {
    /// The field holding it, e.g. `headers.Authorization`.
    pub field: String,
    /// The variable's name.
    pub variable: String,
    /// Whether the variable is set and non-empty now.
    pub set: bool,
}

/// One server in the status report.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerStatus {
    /// The configured name.
    pub name: String,
    /// Its state.
    pub state: ServerState,
    /// `stdio` or `http`, when it can be told.
    pub transport: Option<&'static str>,
    /// Where the effective definition was written.
    pub source: SourceView,
    /// Lower definitions it shadows, highest first.
    pub shadowed: Vec<SourceView>,
    /// The references of the effective definition.
    pub references: Vec<ReferenceView>,
    /// Diagnostics of the effective entry.
    pub diagnostics: Counts,
    /// The sandbox it runs in, in one line (sanitised); `None`: unconfined.
    pub sandbox: Option<String>,
    /// The roots it is offered, in one line (sanitised; `none` when empty), decided before it
    /// connects; `None` for an entry with no valid definition.
    pub roots: Option<String>,
    /// How the roots were narrowed, or how they widen it (sanitised sentences).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub roots_notes: Vec<String>,
    /// What this process knows from connecting (empty before any connection).
    pub runtime: RuntimeStatus,
}

/// A server's live facts, known once this process has tried to connect to it.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RuntimeStatus {
    /// The negotiated protocol version.
    pub protocol_version: Option<String>,
    /// `serverInfo.name`, sanitised.
    pub server_name: Option<String>,
    /// `serverInfo.version`, sanitised.
    pub server_version: Option<String>,
    /// The last failure: class, message, and when (RFC 3339).
    pub last_error: Option<LastError>,
    /// How many connections were established in this process.
    pub connect_count: u64,
    /// Tools listed on the current connection.
    pub tools: Option<usize>,
    /// Resources listed on the current connection.
    pub resources: Option<usize>,
    /// Prompts listed on the current connection.
    pub prompts: Option<usize>,
    /// Whether the server declared the skills extension (`io.modelcontextprotocol/skills`);
    /// left out of the JSON when it did not.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub skills: bool,
}

/// A failure remembered for status.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LastError {
    /// The error class name.
    pub class: String,
    /// The safe message.
    pub message: String,
    /// When it happened (RFC 3339, UTC).
    pub at: String,
}

/// The project part of the report.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProjectStatus {
    /// The canonical project root.
    pub root: PathBuf,
    /// Its trust state.
    pub trust: TrustState,
    /// The fingerprint of the current project definitions.
    pub fingerprint: String,
    /// Why the trust store is unusable, when it is.
    pub trust_store_problem: Option<String>,
}

/// One configuration file in the report.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileStatus {
    /// The layer.
    pub layer: Layer,
    /// The path.
    pub path: PathBuf,
    /// Whether it exists.
    pub present: bool,
    /// How many server entries it has.
    pub servers: usize,
    /// Its diagnostics.
    pub diagnostics: Counts,
}

/// The whole status report.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusReport {
    /// The project and its trust.
    pub project: ProjectStatus,
    /// Every effective server, sorted by name.
    pub servers: Vec<ServerStatus>,
    /// Every configuration file, lowest precedence first.
    pub files: Vec<FileStatus>,
    /// Diagnostics over all files.
    pub diagnostics: Counts,
}

/// Whether environment variable `name` is set and non-empty.
pub fn var_is_set(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| !v.is_empty())
}

/// The static state of a server: what it is before any connection is attempted.
pub fn static_state(server: &Effective, trust: TrustState) -> ServerState {
    let entry = &server.entry;
    match &entry.def {
        None => ServerState::Invalid,
        Some(_) if trust.admits(entry.source.layer.is_project(), true).is_err() => {
            ServerState::Inert
        }
        Some(def) if def.disabled => ServerState::Disabled,
        Some(_) => ServerState::Disconnected,
    }
}

/// Builds the report from configuration and trust; `is_set` says whether a variable is set.
pub fn report(
    config: &ConfigSet,
    store: &TrustStore,
    is_set: &dyn Fn(&str) -> bool,
) -> StatusReport {
    let overview = overview(config, store);
    let trust = overview.project.trust;
    let servers = server_rows(config, trust, is_set);
    StatusReport {
        project: overview.project,
        servers,
        files: overview.files,
        diagnostics: overview.diagnostics,
    }
}

/// Everything in the report but the servers.
#[derive(Debug, Clone, PartialEq)]
pub struct Overview {
    /// The project and its trust.
    pub project: ProjectStatus,
    /// Every configuration file, lowest precedence first.
    pub files: Vec<FileStatus>,
    /// Diagnostics over all files.
    pub diagnostics: Counts,
}

/// The report without its servers, for a caller that writes them one at a time (a file of
/// 100,000 servers is reported without holding 100,000 rows).
pub fn overview(config: &ConfigSet, store: &TrustStore) -> Overview {
    let trust = store.state(config);
    let files = config
        .files
        .iter()
        .map(|f| FileStatus {
            layer: f.layer,
            path: f.path.clone(),
            present: f.present,
            servers: f.entries.len(),
            diagnostics: Counts::of(f.all_diagnostics()),
        })
        .collect();
    Overview {
        project: ProjectStatus {
            root: config.project_root.clone(),
            trust,
            fingerprint: fingerprint(config),
            trust_store_problem: store.problem().map(str::to_owned),
        },
        files,
        diagnostics: config.counts(),
    }
}

/// Every server's row of the report, in order (owned; see [`status_rows`] for borrowed rows).
/// The roots line of the servers offered the project directory alone is worked out once, not
/// once per server.
pub fn server_rows(
    config: &ConfigSet,
    trust: TrustState,
    is_set: &dyn Fn(&str) -> bool,
) -> Vec<ServerStatus> {
    let shared = RowsShared::default();
    status_rows(config, trust, is_set, &shared)
        .map(|row| row.to_status())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::client::roots::offered_for;
    use crate::mcp::config::load::parsed_file as file;
    use std::collections::BTreeMap;

    #[test]
    fn the_roots_line_worked_out_once_is_each_servers_own() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("p");
        std::fs::create_dir_all(root.join("data")).expect("mkdir");
        std::fs::create_dir_all(root.join(".mcpdeck/sub")).expect("mkdir");
        let data = root.join("data").display().to_string();
        let project = format!(
            r#"{{"mcpServers": {{
                "bare": {{"command": "x"}},
                "api": {{"url": "https://example.com/mcp"}},
                "named": {{"command": "x", "args": ["{data}"]}},
                "rooted": {{"command": "x", "roots": ["data"]}},
                "boxed": {{"command": "x", "sandbox": "read-only-project"}},
                "bare2": {{"command": "y"}}
            }}}}"#
        );
        let deck = r#"{"mcpServers": {"deck": {"command": "x"}, "deckroot": {"command": "x", "roots": ["sub"]}}}"#;
        let config = ConfigSet::from_files(
            root.clone(),
            vec![
                file(Layer::Project, root.join(".mcp.json"), &project),
                file(Layer::ProjectDeck, root.join(".mcpdeck/mcp.json"), deck),
            ],
        );
        let mut lines = BTreeMap::new();
        for row in server_rows(&config, TrustState::Trusted, &|_| false) {
            let server = config.server(&row.name).expect("listed");
            let def = server.entry.def.as_ref().expect("valid");
            let file_dir = server.entry.source.file.parent().expect("dir");
            let offered = offered_for(def, file_dir, &config.project_root);
            assert_eq!(row.roots, Some(offered.line(&root)), "{}", row.name);
            assert_eq!(row.roots_notes, offered.shown_notes(), "{}", row.name);
            lines.insert(row.name, row.roots.unwrap_or_default());
        }
        assert_eq!(lines.len(), 8);
        assert_eq!(lines["bare"], ".");
        assert_eq!(lines["bare2"], ".");
        assert_eq!(lines["deck"], ".");
        assert_eq!(lines["named"], "./data");
        assert_eq!(lines["rooted"], "./data");
        assert_eq!(lines["deckroot"], "./.mcpdeck/sub");
    }
}
