//! Project trust: the store and the fingerprint of project definitions.
//!
//! Project configuration is code execution, so project servers stay inert until the operator
//! trusts the project, and again after any substantive change. The store is keyed by the
//! canonical project root only. Project definitions are mcpdeck's project files and the servers
//! other hosts define inside the project (`.cursor/mcp.json`, `.vscode/mcp.json`,
//! `.codex/config.toml`, `.gemini/settings.json`), which `mcpdeck hosts connect` can run. This
//! module never grants trust by itself: [`TrustStore::grant`] is called only from an explicit
//! operator action. A corrupt store is reported, treated as "nothing trusted", and never
//! overwritten.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use sha2::{Digest as _, Sha256};

use crate::mcp::config::ConfigSet;
use crate::mcp::hosts::{self, HostEntry, HostId};

/// The project's trust state as shown everywhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TrustState {
    /// Project files exist and were never trusted.
    Untrusted,
    /// Trusted, and the definitions match the fingerprint.
    Trusted,
    /// Trusted once, but the project definitions changed since.
    Changed,
    /// No project configuration file exists.
    NoProjectConfig,
}

impl TrustState {
    /// The state's name.
    pub fn label(self) -> &'static str {
        match self {
            Self::Untrusted => "untrusted",
            Self::Trusted => "trusted",
            Self::Changed => "changed",
            Self::NoProjectConfig => "no-project-config",
        }
    }

    /// The one rule for starting a definition, applied by the engine (a project server is inert
    /// unless it passes) and by every test-connect: a definition from a project file — mcpdeck's
    /// or any host's — starts only while the project is trusted, and only as trusted.
    /// `as_trusted` says the definition is the one this state was computed over (an edit not yet
    /// saved is not). Definitions from other files always start.
    pub fn admits(self, from_project: bool, as_trusted: bool) -> Result<(), NotAdmitted> {
        match (from_project, self, as_trusted) {
            (false, _, _) | (true, Self::Trusted, true) => Ok(()),
            (true, Self::Trusted, false) => Err(NotAdmitted::Edited),
            (true, state, _) => Err(NotAdmitted::Project(state)),
        }
    }
}

/// Why a project definition may not start (see [`TrustState::admits`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotAdmitted {
    /// The project is not trusted in this state.
    Project(TrustState),
    /// The project is trusted, but this definition differs from the trusted one.
    Edited,
}

/// One trusted project.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TrustEntry {
    /// The canonical project root.
    pub root: PathBuf,
    /// `sha256:<hex>` of the project definitions when trusted.
    pub fingerprint: String,
    /// When trust was granted (RFC 3339, UTC).
    pub trusted_at: String,
    /// The definitions as trusted, for showing a diff when they change.
    pub definitions: serde_json::Value,
}

#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct StoreFile {
    version: u32,
    projects: Vec<TrustEntry>,
}

/// The trust store file and its entries.
#[derive(Debug)]
pub struct TrustStore {
    path: PathBuf,
    entries: Vec<TrustEntry>,
    /// Why the file could not be used, when it exists but is unreadable or corrupt.
    problem: Option<String>,
}

/// Why the store could not be written.
#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    /// The existing store is corrupt or unreadable; it is left as is.
    #[error(
        "the trust store {path} is unusable ({problem}); fix or remove it by hand, mcpdeck will not overwrite it"
    )]
    Unusable {
        /// The store's path.
        path: PathBuf,
        /// What is wrong with it.
        problem: String,
    },
    /// Writing failed.
    #[error("cannot write the trust store {path}: {source}")]
    Write {
        /// The store's path.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

impl TrustStore {
    /// The store's default location: `$XDG_CONFIG_HOME/mcpdeck/trust.json`.
    pub fn default_path(config_home: &Path) -> PathBuf {
        config_home.join("mcpdeck").join("trust.json")
    }

    /// Loads the store; a missing file is an empty store, a corrupt one is empty with a problem.
    pub fn load(path: PathBuf) -> Self {
        let (entries, problem) = match std::fs::read(&path) {
            Ok(bytes) => match serde_json::from_slice::<StoreFile>(&bytes) {
                Ok(file) if file.version == 1 => (file.projects, None),
                Ok(file) => (
                    Vec::new(),
                    Some(format!("unknown store version {}", file.version)),
                ),
                Err(e) => (Vec::new(), Some(format!("not a valid trust store: {e}"))),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => (Vec::new(), None),
            Err(e) => (Vec::new(), Some(format!("cannot read: {e}"))),
        };
        Self {
            path,
            entries,
            problem,
        }
    }

    /// The store's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Why the store is unusable, if it is.
    pub fn problem(&self) -> Option<&str> {
        self.problem.as_deref()
    }

    /// The entry for a canonical project root.
    pub fn entry(&self, root: &Path) -> Option<&TrustEntry> {
        self.entries.iter().find(|e| e.root == root)
    }

    /// The trust state of `config`'s project.
    pub fn state(&self, config: &ConfigSet) -> TrustState {
        let hosts = hosts::project_entries(&config.project_root);
        if !config.has_project_config() && hosts.is_empty() {
            return TrustState::NoProjectConfig;
        }
        match self.entry(&config.project_root) {
            None => TrustState::Untrusted,
            Some(e) if e.fingerprint == fingerprint_with(config, &hosts) => TrustState::Trusted,
            Some(_) => TrustState::Changed,
        }
    }

    /// Records trust in `config`'s current project definitions and saves atomically.
    pub fn grant(&mut self, config: &ConfigSet) -> Result<(), TrustError> {
        self.usable()?;
        let definitions = definitions(config);
        let entry = TrustEntry {
            root: config.project_root.clone(),
            fingerprint: fingerprint_of(&definitions),
            trusted_at: crate::mcp::clock::now_rfc3339(),
            definitions,
        };
        self.entries.retain(|e| e.root != config.project_root);
        self.entries.push(entry);
        self.save()
    }

    /// Removes trust for `root`; returns whether an entry existed.
    pub fn revoke(&mut self, root: &Path) -> Result<bool, TrustError> {
        self.usable()?;
        let before = self.entries.len();
        self.entries.retain(|e| e.root != root);
        if self.entries.len() == before {
            return Ok(false);
        }
        self.save().map(|()| true)
    }

    fn usable(&self) -> Result<(), TrustError> {
        match &self.problem {
            Some(problem) => Err(TrustError::Unusable {
                path: self.path.clone(),
                problem: problem.clone(),
            }),
            None => Ok(()),
        }
    }

    /// Writes the store: a 0600 temp file in the same directory, then rename.
    fn save(&self) -> Result<(), TrustError> {
        let err = |source| TrustError::Write {
            path: self.path.clone(),
            source,
        };
        let dir = self.path.parent().unwrap_or(Path::new("."));
        std::fs::create_dir_all(dir).map_err(err)?;
        let body = serde_json::to_vec_pretty(&StoreFile {
            version: 1,
            projects: self.entries.clone(),
        })
        .map_err(|e| err(e.into()))?;
        let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(err)?;
        set_private(tmp.as_file()).map_err(err)?;
        tmp.write_all(&body).map_err(err)?;
        tmp.as_file().sync_all().map_err(err)?;
        tmp.persist(&self.path).map_err(|e| err(e.error))?;
        Ok(())
    }
}

#[cfg(unix)]
fn set_private(file: &std::fs::File) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    file.set_permissions(std::fs::Permissions::from_mode(0o600))
}

#[cfg(not(unix))]
fn set_private(_file: &std::fs::File) -> std::io::Result<()> {
    Ok(())
}

/// The project definitions as trusted: every project entry with its file (relative to the
/// project root), name and definition as written — and every server another host defines in
/// the project, with its host — sorted by their canonical JSON so that reordering servers in a
/// file is as cosmetic as reordering their keys. Reads the other hosts' project files.
pub fn definitions(config: &ConfigSet) -> serde_json::Value {
    definitions_with(config, &hosts::project_entries(&config.project_root))
}

fn definitions_with(config: &ConfigSet, hosts: &[(HostId, HostEntry)]) -> serde_json::Value {
    let mut items: Vec<(String, serde_json::Value)> = items(config, hosts)
        .map(|item| {
            let mut key = String::new();
            write_canonical(&item, &mut key);
            (key, item)
        })
        .collect();
    items.sort_by(|a, b| a.0.cmp(&b.0));
    serde_json::Value::Array(items.into_iter().map(|(_, item)| item).collect())
}

/// The fingerprint of [`definitions_with`] without building it: only each item's canonical
/// text is kept (in one buffer; one item's value exists at a time), which is what lets a file
/// of 100,000 servers be fingerprinted in a few megabytes. The canonical text of the sorted
/// array is `[`, the items' texts in order joined by `,`, and `]`, exactly what
/// [`fingerprint_of`] hashes.
fn fingerprint_with(config: &ConfigSet, hosts: &[(HostId, HostEntry)]) -> String {
    // Every item's canonical text starts with this (`definition` is its first key in byte
    // order), so the buffer keeps only the rest, each followed by a newline (which canonical
    // JSON never holds), and the list of texts is one offset an item.
    const PREFIX: &str = "{\"definition\":";
    // Sized up front from the definitions as written (their canonical form is about as long),
    // so neither the buffer nor the list of offsets is doubled while it grows.
    let root = &config.project_root;
    let (mut count, mut estimate) = (hosts.len(), 0);
    for e in config.project_entries() {
        count += 1;
        estimate += e.raw.len() + e.name.len() + e.source.file.as_os_str().len() + 24;
    }
    let mut buffer = String::with_capacity(estimate);
    let mut starts: Vec<usize> = Vec::with_capacity(count);
    // A file's own definition is written from its text; its item is the canonical form of
    // `{"definition", "file", "name"}` (keys in that order), as `items` builds it.
    // The entries of one file share its path: its relative form is written once per file.
    let mut file: Option<(&std::sync::Arc<Path>, String)> = None;
    for e in config.project_entries() {
        starts.push(buffer.len());
        e.raw.write_canonical(&mut buffer);
        buffer.push_str(",\"file\":");
        if !file
            .as_ref()
            .is_some_and(|(last, _)| std::sync::Arc::ptr_eq(last, &e.source.file))
        {
            file = Some((&e.source.file, json_string(&relative(root, &e.source.file))));
        }
        if let Some((_, shown)) = &file {
            buffer.push_str(shown);
        }
        buffer.push_str(",\"name\":");
        crate::mcp::canonical::write_string(&e.name, &mut buffer);
        buffer.push_str("}\n");
    }
    let mut item = String::new();
    for (host, e) in hosts {
        starts.push(buffer.len());
        item.clear();
        write_canonical(&host_item(root, *host, e), &mut item);
        buffer.push_str(item.strip_prefix(PREFIX).unwrap_or(&item));
        buffer.push('\n');
    }
    // Canonical JSON holds no byte below a space (controls are escaped), so the newline after
    // a text sorts below anything another text can hold there: the texts sort as the rest of
    // the buffer from each start does, with no search for either end at each comparison.
    starts.sort_unstable_by(|&a, &b| buffer.as_bytes()[a..].cmp(&buffer.as_bytes()[b..]));
    let text = |start: usize| {
        let rest = &buffer[start..];
        &rest[..memchr::memchr(b'\n', rest.as_bytes()).unwrap_or(rest.len())]
    };
    let mut hasher = Sha256::new();
    hasher.update(b"[");
    for (i, &start) in starts.iter().enumerate() {
        if i > 0 {
            hasher.update(b",");
        }
        hasher.update(PREFIX.as_bytes());
        hasher.update(text(start).as_bytes());
    }
    hasher.update(b"]");
    format!("sha256:{}", hex::encode(hasher.finalize()))
}

/// A string as canonical JSON writes it.
fn json_string(text: &str) -> String {
    serde_json::Value::String(text.to_owned()).to_string()
}

/// Every project definition as one trust item, built when the iterator reaches it.
fn items<'a>(
    config: &'a ConfigSet,
    hosts: &'a [(HostId, HostEntry)],
) -> impl Iterator<Item = serde_json::Value> + 'a {
    let root = &config.project_root;
    let own = config.project_entries().map(move |e| {
        serde_json::json!({
            "file": relative(root, &e.source.file),
            "name": e.name,
            "definition": e.raw.value(),
        })
    });
    // Another host's definition keeps its masked form: a literal credential is never stored
    // in the trust store, and the host's own file is what changes when it changes.
    let theirs = hosts.iter().map(move |(host, e)| host_item(root, *host, e));
    own.chain(theirs)
}

fn host_item(root: &Path, host: HostId, e: &HostEntry) -> serde_json::Value {
    serde_json::json!({
        "host": host.id(),
        "file": relative(root, &e.origin.file),
        "name": e.name,
        "definition": e.raw,
    })
}

fn relative(root: &Path, file: &Path) -> String {
    file.strip_prefix(root)
        .unwrap_or(file)
        .display()
        .to_string()
}

/// `sha256:<hex>` over the canonical JSON (sorted keys, no whitespace) of [`definitions`].
pub fn fingerprint(config: &ConfigSet) -> String {
    fingerprint_with(config, &hosts::project_entries(&config.project_root))
}

fn fingerprint_of(definitions: &serde_json::Value) -> String {
    let mut canonical = String::new();
    write_canonical(definitions, &mut canonical);
    format!(
        "sha256:{}",
        hex::encode(Sha256::digest(canonical.as_bytes()))
    )
}

pub(crate) use crate::mcp::canonical::write_canonical;

pub(crate) mod diff;
pub(crate) mod risk;

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::mcp::config::Layer;
    use crate::mcp::config::load::ConfigFile;
    use crate::mcp::config::schema::parse_file;

    fn config(text: &str) -> ConfigSet {
        let root = PathBuf::from("/p");
        let path = root.join(".mcp.json");
        let parsed = parse_file(text, &path, Layer::Project);
        let file = ConfigFile {
            layer: Layer::Project,
            path,
            present: true,
            diagnostics: parsed.diagnostics,
            entries: parsed.entries,
            project_sandbox: None,
        };
        ConfigSet::from_files(root, vec![file])
    }

    #[test]
    fn the_streamed_fingerprint_is_the_hash_of_the_built_definitions() {
        let config = config(
            r#"{"mcpServers": {
                "b": {"command": "x", "env": {"Z": "1", "A": "é\u0001"}},
                "a": {"url": "https://h/mcp", "headers": {"X": "${T}"}},
                "c": {"command": "x", "bad": 1},
                "d\u0041": {"command": "x\/y", "args": ["1.50", 2.50, 1e3, -0], "k": 1, "k": 2},
                "s10": {"command": "x"}, "s1": {"command": "x"}, "s1": {"command": "x"}
            }}"#,
        );
        let built = fingerprint_of(&definitions_with(&config, &[]));
        assert_eq!(fingerprint_with(&config, &[]), built);
        // Reordering servers and keys is cosmetic.
        let reordered = super::tests::config(
            r#"{"mcpServers": {
                "c": {"bad": 1, "command": "x"},
                "a": {"headers": {"X": "${T}"}, "url": "https://h/mcp"},
                "dA": {"k": 2, "args": ["1.50", 2.5, 1e3, -0], "command": "x/y"},
                "b": {"env": {"A": "é\u0001", "Z": "1"}, "command": "x"},
                "s1": {"command": "x"}, "s1": {"command": "x"}, "s10": {"command": "x"}
            }}"#,
        );
        assert_eq!(fingerprint_with(&reordered, &[]), built);
        let changed = super::tests::config(r#"{"mcpServers": {"a": {"command": "y"}}}"#);
        assert_ne!(fingerprint_with(&changed, &[]), built);
    }

    /// Recorded before `sandbox` existed: a definition without one keeps its fingerprint, so
    /// no trusted project turns `changed` on upgrade.
    const RECORDED: &str =
        "sha256:7d15a14f3e8a8e6ecfbf4ea66a6f6f5672dbd85cdcdb36f34ac94cdf1a68689f";

    #[test]
    fn a_sandbox_changes_the_fingerprint_and_its_absence_does_not() {
        let plain =
            r#"{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "pkg@1"], "cwd": "."}}}"#;
        assert_eq!(fingerprint(&config(plain)), RECORDED);
        let with = |sandbox: &str| {
            fingerprint(&config(&format!(
                r#"{{"mcpServers": {{"fs": {{"command": "npx", "args": ["-y", "pkg@1"], "cwd": ".", "sandbox": {sandbox}}}}}}}"#
            )))
        };
        let tight = with(r#""read-only-project""#);
        let loose = with(r#""project""#);
        let open_net = with(r#"{"preset": "read-only-project", "net": "any"}"#);
        assert_ne!(tight, RECORDED);
        assert_ne!(loose, tight);
        assert_ne!(open_net, tight);
    }

    /// The user's `projectSandbox` is the operator's own setting, not the project's: setting or
    /// loosening it never asks for trust again, and a project that replaces it with a sandbox
    /// of its own (which wins) changes its fingerprint like any other sandbox it adds.
    #[test]
    fn the_user_default_is_not_part_of_the_project_fingerprint() {
        let plain =
            r#"{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "pkg@1"], "cwd": "."}}}"#;
        let with_default = |default: &str, project: &str| {
            let user = std::path::Path::new("/c/mcpdeck/mcp.json");
            let parsed = parse_file(
                &format!(r#"{{"projectSandbox": {default}, "mcpServers": {{}}}}"#),
                user,
                Layer::User,
            );
            assert!(parsed.project_sandbox.is_some());
            let mut files = config(project).files;
            files.insert(
                0,
                ConfigFile {
                    layer: Layer::User,
                    path: user.to_path_buf(),
                    present: true,
                    diagnostics: parsed.diagnostics,
                    entries: parsed.entries,
                    project_sandbox: parsed.project_sandbox,
                },
            );
            let set = ConfigSet::from_files(PathBuf::from("/p"), files);
            let sandboxed = set.server("fs").and_then(|s| s.entry.def.as_ref());
            assert!(sandboxed.and_then(|d| d.sandbox()).is_some());
            fingerprint(&set)
        };
        assert_eq!(with_default(r#""read-only-project""#, plain), RECORDED);
        assert_eq!(with_default(r#""no-network""#, plain), RECORDED);
        let own = r#"{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "pkg@1"], "cwd": ".", "sandbox": "no-network"}}}"#;
        assert_ne!(with_default(r#""read-only-project""#, own), RECORDED);
    }
}
