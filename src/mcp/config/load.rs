//! Finding and layering the configuration files.
//!
//! Reads the five layers lowest first, keeps every file's report (present or not), and computes
//! the effective server set: a higher definition of a name replaces the whole lower one, which is
//! recorded as shadowed. Invalid entries shadow too (fail closed). Never writes a file.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::diagnostic::{Counts, Diagnostic};
use super::model::Transport;
use super::model::{Layer, Source};
use super::schema::{ServerEntry, parse_shared};
use crate::mcp::sandbox::SandboxDef;

/// Files larger than this are rejected without parsing.
pub(crate) const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// Where to look for configuration.
#[derive(Debug, Clone)]
pub struct LoadOptions {
    /// The project directory (`--cwd`, default the current directory).
    pub project_dir: PathBuf,
    /// `$XDG_CONFIG_HOME` (default `~/.config`); `None` when no home can be found.
    pub config_home: Option<PathBuf>,
    /// `--config FILE` arguments, in order.
    pub extra_files: Vec<PathBuf>,
}

impl LoadOptions {
    /// Options from the process environment: `XDG_CONFIG_HOME`, else `$HOME/.config`.
    pub fn from_env(
        project_dir: Option<&Path>,
        extra_files: Vec<PathBuf>,
    ) -> std::io::Result<Self> {
        let cwd = std::env::current_dir()?;
        let project_dir = project_dir.map_or_else(|| cwd.clone(), |d| cwd.join(d));
        let extra_files = extra_files.into_iter().map(|f| cwd.join(f)).collect();
        Ok(Self {
            project_dir,
            config_home: config_home(),
            extra_files,
        })
    }
}

/// `$XDG_CONFIG_HOME` when set to an absolute path, else `$HOME/.config`.
pub(crate) fn config_home() -> Option<PathBuf> {
    use etcetera::BaseStrategy as _;
    etcetera::base_strategy::Xdg::new()
        .ok()
        .map(|xdg| xdg.config_dir())
}

/// What one configuration file yielded.
#[derive(Debug, Clone)]
pub struct ConfigFile {
    /// Its layer.
    pub layer: Layer,
    /// Its path.
    pub path: PathBuf,
    /// Whether the file exists.
    pub present: bool,
    /// Problems with the file as a whole.
    pub diagnostics: Vec<Diagnostic>,
    /// Its server entries, in file order (shared with [`ConfigSet::servers`], never copied).
    pub entries: Vec<Arc<ServerEntry>>,
    /// `projectSandbox` (mcpdeck's user file only): the sandbox of project stdio definitions
    /// that have none of their own.
    pub project_sandbox: Option<SandboxDef>,
}

impl ConfigFile {
    /// Every diagnostic of the file and its entries.
    pub fn all_diagnostics(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics
            .iter()
            .chain(self.entries.iter().flat_map(|e| e.diagnostics.iter()))
    }
}

/// A server as the engine sees it: the winning definition and what it shadows.
#[derive(Debug, Clone)]
pub struct Effective {
    /// The highest-precedence entry of this name.
    pub entry: Arc<ServerEntry>,
    /// Lower definitions it replaced, highest first.
    pub shadowed: Vec<Source>,
}

/// Every configuration file and the effective servers.
#[derive(Debug, Clone)]
pub struct ConfigSet {
    /// The canonical project root.
    pub project_root: PathBuf,
    /// Every file looked at, lowest precedence first.
    pub files: Vec<ConfigFile>,
    /// The effective servers, sorted by name.
    pub servers: Vec<Effective>,
}

/// Why the configuration could not be loaded at all.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The project directory does not exist or cannot be resolved.
    #[error("project directory {path}: {source}")]
    ProjectDir {
        /// The directory as given.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

impl ConfigSet {
    /// Reads every layer and computes the effective servers.
    pub fn load(options: &LoadOptions) -> Result<Self, LoadError> {
        let project_root = std::fs::canonicalize(&options.project_dir).map_err(|source| {
            LoadError::ProjectDir {
                path: options.project_dir.clone(),
                source,
            }
        })?;
        let mut candidates: Vec<(Layer, PathBuf, bool)> = Vec::new();
        if let Some(home) = &options.config_home {
            candidates.push((Layer::SharedUser, home.join("mcp").join("mcp.json"), false));
            candidates.push((Layer::User, home.join("mcpdeck").join("mcp.json"), false));
        }
        candidates.push((Layer::Project, project_root.join(".mcp.json"), false));
        candidates.push((
            Layer::ProjectDeck,
            project_root.join(".mcpdeck").join("mcp.json"),
            false,
        ));
        for extra in &options.extra_files {
            candidates.push((Layer::CommandLine, extra.clone(), true));
        }
        let files = candidates
            .into_iter()
            .map(|(layer, path, required)| read_file(layer, path, required))
            .collect();
        Ok(Self::from_files(project_root, files))
    }

    /// Layers already-read files (lowest first) into the effective set. The user file's
    /// `projectSandbox` becomes the sandbox of every project stdio definition without one.
    pub fn from_files(project_root: PathBuf, mut files: Vec<ConfigFile>) -> Self {
        apply_project_sandbox(&project_root, &mut files);
        for file in &mut files {
            for entry in &mut file.entries {
                // An entry kept from the last good read has its warning already.
                if entry.diagnostics.iter().any(|d| d.code == "roots_widen") {
                    continue;
                }
                if let Some(warning) = roots_warning(entry, &project_root) {
                    Arc::make_mut(entry).diagnostics.push(warning);
                }
            }
        }
        let entries: Vec<Arc<ServerEntry>> = files
            .iter()
            .flat_map(|f| f.entries.iter().map(Arc::clone))
            .collect();
        let servers = layer(Vec::new(), entries);
        Self {
            project_root,
            files,
            servers,
        }
    }

    /// Layers packaged entries on top of the file configuration.
    ///
    /// A packaged entry wins an exact-name collision: the file definition it replaces (and
    /// whatever that one shadowed) is recorded as shadowed. Packaged entries are never added to
    /// [`ConfigSet::files`], so they never count as project configuration for trust and never
    /// contribute file diagnostics.
    #[must_use]
    pub fn with_packaged(mut self, entries: Vec<ServerEntry>) -> Self {
        let entries = entries.into_iter().map(Arc::new).collect();
        self.servers = layer(std::mem::take(&mut self.servers), entries);
        self
    }

    /// Whether any configuration file defines any server (valid or not, trusted or not).
    pub fn defines_any_server(&self) -> bool {
        self.files.iter().any(|f| !f.entries.is_empty())
    }

    /// The effective server named `name`.
    pub fn server(&self, name: &str) -> Option<&Effective> {
        // `servers` is sorted by name.
        self.servers
            .binary_search_by(|s| s.entry.name.as_str().cmp(name))
            .ok()
            .map(|i| &self.servers[i])
    }

    /// Every entry written in a project file, in precedence order (shadowed ones included).
    pub fn project_entries(&self) -> impl Iterator<Item = &ServerEntry> {
        self.files
            .iter()
            .filter(|f| f.layer.is_project())
            .flat_map(|f| f.entries.iter().map(AsRef::as_ref))
    }

    /// Whether any project configuration file exists.
    pub fn has_project_config(&self) -> bool {
        self.files.iter().any(|f| f.layer.is_project() && f.present)
    }

    /// Every diagnostic of every file.
    pub fn all_diagnostics(&self) -> impl Iterator<Item = &Diagnostic> {
        self.files.iter().flat_map(ConfigFile::all_diagnostics)
    }

    /// Error and warning counts over every file.
    pub fn counts(&self) -> Counts {
        Counts::of(self.all_diagnostics())
    }
}

/// Gives every valid stdio definition of a project file that has no `sandbox` the user's
/// `projectSandbox`. A definition's own `sandbox` wins whole (blocks are never merged); the
/// definitions as written (`raw`, which the trust fingerprint covers) are left as they are.
fn apply_project_sandbox(project_root: &Path, files: &mut [ConfigFile]) {
    let Some(default) = files
        .iter()
        .filter(|f| f.layer == Layer::User)
        .find_map(|f| f.project_sandbox.clone())
    else {
        return;
    };
    let default = default.as_user_default(project_root);
    for file in files.iter_mut().filter(|f| f.layer.is_project()) {
        for entry in &mut file.entries {
            let unconfined = entry.def.as_ref().is_some_and(
                |d| matches!(&d.transport, Transport::Stdio(s) if s.sandbox.is_none()),
            );
            if !unconfined {
                continue;
            }
            // Not yet shared: nothing is copied.
            let entry = Arc::make_mut(entry);
            if let Some(Transport::Stdio(s)) = entry.def.as_mut().map(|d| &mut d.transport) {
                s.sandbox = Some(Box::new(default.clone()));
            }
        }
    }
}

/// The `roots_widen` warning of a stdio server whose arguments name directories inside the
/// roots it would be offered (see [`crate::mcp::client::roots::roots_for`]), at the server.
fn roots_warning(entry: &ServerEntry, project_root: &Path) -> Option<Diagnostic> {
    let def = entry.def.as_ref()?;
    if crate::mcp::client::roots::offered_the_project(def) {
        // Nothing narrows or widens the project directory.
        return None;
    }
    let file_dir = entry.source.file.parent().unwrap_or(project_root);
    let offered = crate::mcp::client::roots::offered_for(def, file_dir, project_root);
    let (message, suggestion) = offered.warning()?;
    Some(Diagnostic {
        severity: super::diagnostic::Severity::Warning,
        code: "roots_widen",
        file: entry.source.file.to_path_buf(),
        path: format!("mcpServers.{}.args", entry.name),
        line: entry.source.line,
        column: None,
        message,
        suggestion: Some(suggestion),
    })
}

/// Puts `entries` (lowest first) over `servers`: a later definition of a name replaces the
/// earlier one, which is recorded as shadowed. Returns the result sorted by name. A stable sort
/// keeps each name's definitions in precedence order, and the definitions of one name are
/// merged in place, so 100,000 servers cost a sort, no second list and no copy of any name.
fn layer(servers: Vec<Effective>, entries: Vec<Arc<ServerEntry>>) -> Vec<Effective> {
    let mut all = servers;
    all.reserve_exact(entries.len());
    all.extend(entries.into_iter().map(|entry| Effective {
        entry,
        shadowed: Vec::new(),
    }));
    all.sort_by(|a, b| a.entry.name.cmp(&b.entry.name));
    // `dedup_by` hands the later (higher) definition first: it replaces the kept lower one.
    all.dedup_by(|higher, lower| {
        if higher.entry.name != lower.entry.name {
            return false;
        }
        let replaced = std::mem::replace(&mut lower.entry, Arc::clone(&higher.entry));
        lower.shadowed.insert(0, replaced.source.clone());
        true
    });
    all
}

/// Reads and parses one file; a missing optional file is simply not present.
pub fn read_file(layer: Layer, path: PathBuf, required: bool) -> ConfigFile {
    let mut file = ConfigFile {
        layer,
        path,
        present: false,
        diagnostics: Vec::new(),
        entries: Vec::new(),
        project_sandbox: None,
    };
    match read_text(&file.path) {
        Ok(Some(text)) => {
            file.present = true;
            // The entries' definitions are slices of this one copy of the text.
            let parsed = parse_shared(Arc::from(text), &file.path, layer);
            file.diagnostics = parsed.diagnostics;
            file.entries = parsed.entries;
            file.project_sandbox = parsed.project_sandbox;
        }
        Ok(None) => {
            if required {
                file.diagnostics.push(Diagnostic::file_error(
                    &file.path,
                    "file_missing",
                    "the file given with --config does not exist".into(),
                ));
            }
        }
        Err(problem) => {
            file.present = true;
            file.diagnostics.push(problem.into_diagnostic(&file.path));
        }
    }
    file
}

/// Reads a configuration file's text with the same limits as mcpdeck's own files: `Ok(None)`
/// when it does not exist, a file-level diagnostic when it cannot be used.
pub(crate) fn read_config_text(path: &Path) -> Result<Option<String>, Box<Diagnostic>> {
    read_text(path).map_err(|problem| Box::new(problem.into_diagnostic(path)))
}

enum ReadProblem {
    Io(std::io::Error),
    NotAFile,
    TooLarge(u64),
    NotUtf8(usize),
}

impl ReadProblem {
    fn into_diagnostic(self, path: &Path) -> Diagnostic {
        match self {
            Self::Io(e) => {
                Diagnostic::file_error(path, "unreadable", format!("cannot read the file: {e}"))
            }
            Self::NotAFile => Diagnostic::file_error(
                path,
                "unreadable",
                "not a regular file (a directory, FIFO, socket or device is never read)".into(),
            ),
            Self::TooLarge(size) => Diagnostic::file_error(
                path,
                "too_large",
                format!(
                    "the file is {size} bytes; configuration files over {MAX_FILE_BYTES} bytes (4 MiB) are rejected without parsing"
                ),
            ),
            Self::NotUtf8(at) => Diagnostic::file_error(
                path,
                "not_utf8",
                format!("the file is not UTF-8 text (invalid byte at offset {at})"),
            ),
        }
    }
}

fn read_text(path: &Path) -> Result<Option<String>, ReadProblem> {
    let Some(bytes) = read_regular(path, MAX_FILE_BYTES)? else {
        return Ok(None);
    };
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|e| ReadProblem::NotUtf8(e.utf8_error().valid_up_to()))
}

/// Reads a regular file of at most `limit` bytes without ever blocking on what is not one.
///
/// A FIFO opened for reading waits for a writer, and a character device may never end, so the
/// file type is looked at before opening; the file is then opened non-blocking and checked again
/// through its descriptor (the path may have been swapped in between). `Ok(None)`: no such file.
fn read_regular(path: &Path, limit: u64) -> Result<Option<Vec<u8>>, ReadProblem> {
    use std::os::unix::fs::OpenOptionsExt as _;
    match std::fs::metadata(path) {
        Ok(meta) if !meta.is_file() => return Err(ReadProblem::NotAFile),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(ReadProblem::Io(e)),
    }
    let opened = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits().cast_signed())
        .open(path);
    let file = match opened {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        // A socket swapped in after the look answers ENXIO.
        Err(e) if e.raw_os_error() == Some(rustix::io::Errno::NXIO.raw_os_error()) => {
            return Err(ReadProblem::NotAFile);
        }
        Err(e) => return Err(ReadProblem::Io(e)),
    };
    let meta = file.metadata().map_err(ReadProblem::Io)?;
    if !meta.is_file() {
        return Err(ReadProblem::NotAFile);
    }
    if meta.len() > limit {
        return Err(ReadProblem::TooLarge(meta.len()));
    }
    let mut bytes = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(ReadProblem::Io)?;
    if bytes.len() as u64 > limit {
        return Err(ReadProblem::TooLarge(bytes.len() as u64));
    }
    Ok(Some(bytes))
}

/// A present file of `layer` at `path`, parsed from `text`: for tests that build a
/// configuration without writing it to disk.
#[cfg(test)]
pub(crate) fn parsed_file(layer: Layer, path: PathBuf, text: &str) -> ConfigFile {
    let parsed = super::schema::parse_file(text, &path, layer);
    ConfigFile {
        layer,
        path,
        present: true,
        diagnostics: parsed.diagnostics,
        entries: parsed.entries,
        project_sandbox: parsed.project_sandbox,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::config::schema::parse_file;

    fn file(layer: Layer, path: &str, text: &str) -> ConfigFile {
        parsed_file(layer, PathBuf::from(path), text)
    }

    fn sandbox_of(config: &ConfigSet, name: &str) -> Option<String> {
        config
            .server(name)
            .and_then(|s| s.entry.def.as_ref())
            .and_then(super::super::ServerDef::sandbox_line)
    }

    fn set(user: &str) -> ConfigSet {
        let project = r#"{"mcpServers": {
            "bare": {"command": "x"},
            "own": {"command": "x", "sandbox": "no-network"},
            "api": {"url": "https://example.com/mcp"}
        }}"#;
        ConfigSet::from_files(
            PathBuf::from("/p"),
            vec![
                file(Layer::User, "/c/mcpdeck/mcp.json", user),
                file(Layer::Project, "/p/.mcp.json", project),
                file(
                    Layer::ProjectDeck,
                    "/p/.mcpdeck/mcp.json",
                    r#"{"mcpServers": {"deck": {"command": "x"}}}"#,
                ),
            ],
        )
    }

    #[test]
    fn the_user_default_confines_project_servers_without_a_sandbox_of_their_own() {
        let config = set(r#"{"projectSandbox": "read-only-project", "mcpServers": {
            "mine": {"command": "x"}
        }}"#);
        assert!(config.all_diagnostics().next().is_none());
        let from_default = "read-only-project · read . · write none · exec command · net none · from your projectSandbox";
        assert_eq!(sandbox_of(&config, "bare").as_deref(), Some(from_default));
        assert_eq!(sandbox_of(&config, "deck").as_deref(), Some(from_default));
        // A definition's own sandbox wins whole; the user's servers and HTTP servers are not
        // project stdio servers.
        assert_eq!(
            sandbox_of(&config, "own").as_deref(),
            Some("no-network · read / · write / · exec command, / · net none")
        );
        assert_eq!(sandbox_of(&config, "mine"), None);
        assert_eq!(sandbox_of(&config, "api"), None);
        // `.` is the project, also for `.mcpdeck/mcp.json`.
        let deck = config.server("deck").and_then(|s| s.entry.def.clone());
        let sandbox = deck.as_ref().and_then(|d| d.sandbox()).expect("sandboxed");
        let profile = crate::mcp::sandbox::Profile::resolve(
            sandbox,
            Path::new("/p/.mcpdeck"),
            "/bin/x",
            None,
            &|_| None,
        )
        .expect("resolves");
        assert_eq!(profile.read, vec![PathBuf::from("/p")]);
    }

    #[test]
    fn without_a_default_nothing_changes() {
        let config = set(r#"{"mcpServers": {}}"#);
        assert_eq!(sandbox_of(&config, "bare"), None);
    }

    #[test]
    fn an_invalid_default_is_an_error_and_fails_closed() {
        let config = set(
            r#"{"projectSandbox": {"preset": "read-only-project", "limits": {"processes": 0}}, "mcpServers": {}}"#,
        );
        let codes: Vec<&str> = config.all_diagnostics().map(|d| d.code).collect();
        assert_eq!(codes, ["out_of_range"]);
        assert_eq!(
            sandbox_of(&config, "bare").as_deref(),
            Some("read none · write none · exec command · net none · from your projectSandbox")
        );
    }

    #[test]
    fn only_the_user_file_may_set_the_default() {
        for layer in [Layer::SharedUser, Layer::Project, Layer::ProjectDeck] {
            let parsed = parse_file(
                r#"{"projectSandbox": "project", "mcpServers": {}}"#,
                Path::new("/f/mcp.json"),
                layer,
            );
            assert!(parsed.project_sandbox.is_none());
            let d = parsed.diagnostics.first().expect("an error");
            assert_eq!(
                (d.code, d.path.as_str()),
                ("unknown_field", "projectSandbox")
            );
            assert!(
                d.message.contains("mcpdeck's user file only"),
                "{}",
                d.message
            );
        }
    }
}
