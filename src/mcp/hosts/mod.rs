//! Other agent hosts' MCP configurations: where Claude Code, Cursor, VS Code, Codex CLI, Gemini
//! CLI and Windsurf keep their servers, what each would load for a project (with provenance,
//! shadowing, variables and diagnostics under that host's own rules), and conversion to and from
//! mcpdeck's format. Reading never writes a file and never resolves a variable; everything read
//! is untrusted text that printers sanitise.

mod claude_code;
mod codex;
pub(crate) mod compare;
pub(crate) mod convert;
mod cursor;
pub(crate) mod export;
mod gemini;
pub(crate) mod import;
pub(crate) mod probe;
mod reader;
pub(crate) mod review;
mod sandbox_field;
pub(crate) mod text;
mod tree;
mod values;
mod view;
mod vscode;
mod windsurf;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::mcp::config::Diagnostic;

pub(crate) use text::{Piece, Syntax, Text};
pub(crate) use values::hidden_note;
pub(crate) use view::report_view;

/// The hosts mcpdeck reads, by their command-line names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum HostId {
    /// Claude Code.
    ClaudeCode,
    /// Cursor.
    Cursor,
    /// VS Code.
    #[serde(rename = "vscode")]
    VsCode,
    /// Codex CLI.
    Codex,
    /// Gemini CLI.
    Gemini,
    /// Windsurf.
    Windsurf,
}

impl HostId {
    /// Every host, in display order.
    pub const ALL: [Self; 6] = [
        Self::ClaudeCode,
        Self::Cursor,
        Self::VsCode,
        Self::Codex,
        Self::Gemini,
        Self::Windsurf,
    ];

    /// The command-line name (`claude-code`, `vscode`, …).
    pub fn id(self) -> &'static str {
        match self {
            Self::ClaudeCode => "claude-code",
            Self::Cursor => "cursor",
            Self::VsCode => "vscode",
            Self::Codex => "codex",
            Self::Gemini => "gemini",
            Self::Windsurf => "windsurf",
        }
    }

    /// The product's name.
    pub fn name(self) -> &'static str {
        match self {
            Self::ClaudeCode => "Claude Code",
            Self::Cursor => "Cursor",
            Self::VsCode => "VS Code",
            Self::Codex => "Codex CLI",
            Self::Gemini => "Gemini CLI",
            Self::Windsurf => "Windsurf",
        }
    }

    /// Looks a host up by its command-line name.
    pub fn parse(id: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|h| h.id() == id)
    }

    /// The substitution syntax the host applies to its configuration strings.
    pub fn syntax(self) -> Syntax {
        match self {
            Self::ClaudeCode => Syntax::Claude,
            Self::Cursor => Syntax::Cursor,
            Self::VsCode => Syntax::VsCode,
            Self::Codex => Syntax::None,
            Self::Gemini => Syntax::Gemini,
            Self::Windsurf => Syntax::Windsurf,
        }
    }
}

/// Where a host definition comes from, in that host's terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// The user's own file, every project.
    User,
    /// Claude Code's per-project entry in the user's file (private to the user).
    Local,
    /// A file inside the project: project configuration, inert until trusted.
    Project,
}

impl Scope {
    /// The scope's name.
    pub fn label(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Local => "local",
            Self::Project => "project",
        }
    }
}

/// Where to look: the directories every host derives its paths from.
#[derive(Debug, Clone)]
pub struct HostEnv {
    /// `$HOME`.
    pub home: Option<PathBuf>,
    /// `$XDG_CONFIG_HOME`, else `$HOME/.config`.
    pub config_home: Option<PathBuf>,
    /// The canonical project root.
    pub project: PathBuf,
    /// Host-specific overrides that were set (`CLAUDE_CONFIG_DIR`, `CODEX_HOME`).
    pub overrides: BTreeMap<&'static str, PathBuf>,
}

impl HostEnv {
    /// Paths from the process environment for `project`.
    pub fn from_process(project: &Path) -> Self {
        let var = |name: &str| {
            std::env::var_os(name)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
        };
        let home = var("HOME");
        let config_home =
            var("XDG_CONFIG_HOME").or_else(|| home.as_ref().map(|h| h.join(".config")));
        let overrides = ["CLAUDE_CONFIG_DIR", "CODEX_HOME"]
            .into_iter()
            .filter_map(|name| var(name).map(|p| (name, p)))
            .collect();
        Self {
            home,
            config_home,
            project: project.to_path_buf(),
            overrides,
        }
    }
}

/// A server definition as the host would run it; strings keep the host's variables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostDef {
    /// How the host reaches it.
    pub transport: HostTransport,
    /// The host would list it but not start it.
    pub disabled: bool,
    /// mcpdeck's `sandbox` block written in the host's file (which only mcpdeck reads), as
    /// written; an import carries it over. `None` also when the block is the host's own.
    pub sandbox: Option<serde_json::Value>,
}

/// A host definition's transport.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostTransport {
    /// A child process.
    Stdio {
        /// The executable.
        command: Text,
        /// Its arguments.
        args: Vec<Text>,
        /// Its working directory.
        cwd: Option<Text>,
        /// Additions to its environment.
        env: BTreeMap<String, Text>,
    },
    /// An HTTP endpoint.
    Http {
        /// The endpoint.
        url: Text,
        /// Request headers.
        headers: BTreeMap<String, Text>,
        /// Whether the host speaks the legacy SSE transport to it.
        sse: bool,
    },
}

impl HostTransport {
    /// `stdio`, `http` or `sse`.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Stdio { .. } => "stdio",
            Self::Http { sse: false, .. } => "http",
            Self::Http { sse: true, .. } => "sse",
        }
    }

    /// Every string with its field path (`args[0]`, `env.TOKEN`), in field order.
    pub fn fields(&self) -> Vec<(String, &Text)> {
        let mut out = Vec::new();
        match self {
            Self::Stdio {
                command,
                args,
                cwd,
                env,
            } => {
                out.push(("command".to_owned(), command));
                out.extend(
                    args.iter()
                        .enumerate()
                        .map(|(i, a)| (format!("args[{i}]"), a)),
                );
                if let Some(cwd) = cwd {
                    out.push(("cwd".to_owned(), cwd));
                }
                out.extend(env.iter().map(|(k, v)| (format!("env.{k}"), v)));
            }
            Self::Http { url, headers, .. } => {
                out.push(("url".to_owned(), url));
                out.extend(headers.iter().map(|(k, v)| (format!("headers.{k}"), v)));
            }
        }
        out
    }
}

/// One server key of one host file, valid or not.
#[derive(Debug, Clone)]
pub struct HostEntry {
    /// The name as written.
    pub name: String,
    /// Where it was written.
    pub origin: Origin,
    /// As written, with literal credentials masked (for display only).
    pub raw: serde_json::Value,
    /// The definition, when the host would accept it.
    pub def: Option<HostDef>,
    /// What is wrong with it under the host's rules.
    pub diagnostics: Vec<Diagnostic>,
}

/// Where a host definition was written.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Origin {
    /// Its scope.
    pub scope: Scope,
    /// Its file.
    pub file: PathBuf,
    /// 1-based line of its key.
    pub line: Option<u32>,
}

/// One file a host reads (or one section of it, for Claude Code's local scope).
#[derive(Debug, Clone)]
pub struct HostFile {
    /// Its scope.
    pub scope: Scope,
    /// Its path.
    pub path: PathBuf,
    /// Whether it exists.
    pub present: bool,
    /// Problems with the file as a whole.
    pub diagnostics: Vec<Diagnostic>,
    /// Its servers, in file order.
    pub entries: Vec<HostEntry>,
    /// Whether the host would load nothing from it (a trap such as one invalid entry).
    pub unusable: bool,
}

impl HostFile {
    fn absent(scope: Scope, path: PathBuf) -> Self {
        Self {
            scope,
            path,
            present: false,
            diagnostics: Vec::new(),
            entries: Vec::new(),
            unusable: false,
        }
    }

    /// Every diagnostic of the file and its entries.
    pub fn all_diagnostics(&self) -> impl Iterator<Item = &Diagnostic> {
        self.diagnostics
            .iter()
            .chain(self.entries.iter().flat_map(|e| e.diagnostics.iter()))
    }
}

/// A server as the host would see it.
#[derive(Debug, Clone)]
pub struct HostEffective {
    /// The winning entry.
    pub entry: HostEntry,
    /// Lower definitions of the same name it hides, highest first.
    pub shadowed: Vec<Origin>,
    /// Whether the host would actually load it (its file is usable and it is valid).
    pub loaded: bool,
}

/// A known trap of a host that applies here.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Trap {
    /// A stable kind.
    pub code: &'static str,
    /// What happens and what to do.
    pub message: String,
}

/// What one host would do for the project.
#[derive(Debug, Clone)]
pub struct HostReport {
    /// The host.
    pub host: HostId,
    /// The files it reads, lowest precedence first.
    pub files: Vec<HostFile>,
    /// Its effective servers, by name.
    pub servers: Vec<HostEffective>,
    /// Known traps that apply.
    pub traps: Vec<Trap>,
}

impl HostReport {
    /// Every diagnostic of every file.
    pub fn all_diagnostics(&self) -> impl Iterator<Item = &Diagnostic> {
        self.files.iter().flat_map(HostFile::all_diagnostics)
    }

    /// The effective server named `name`.
    pub fn server(&self, name: &str) -> Option<&HostEffective> {
        self.servers.iter().find(|s| s.entry.name == name)
    }

    /// Whether any file of this host exists.
    pub fn found(&self) -> bool {
        self.files.iter().any(|f| f.present)
    }
}

/// Reads what `host` would load for the project.
pub(crate) fn read(host: HostId, env: &HostEnv) -> HostReport {
    let (files, mut traps) = match host {
        HostId::ClaudeCode => claude_code::read(env),
        HostId::Cursor => cursor::read(env),
        HostId::VsCode => vscode::read(env),
        HostId::Codex => codex::read(env),
        HostId::Gemini => gemini::read(env),
        HostId::Windsurf => windsurf::read(env),
    };
    for f in &files {
        if f.unusable {
            traps.push(Trap {
                code: "file_disabled",
                message: format!(
                    "{} loads no server from {} while any entry in it is invalid",
                    host.name(),
                    f.path.display()
                ),
            });
        }
    }
    let servers = effective(&files);
    HostReport {
        host,
        files,
        servers,
        traps,
    }
}

/// Reads every host.
pub(crate) fn read_all(env: &HostEnv) -> Vec<HostReport> {
    HostId::ALL.into_iter().map(|h| read(h, env)).collect()
}

/// Every server that other hosts define in files inside `project` — `.cursor/mcp.json`,
/// `.vscode/mcp.json`, `.codex/config.toml`, `.gemini/settings.json` — valid or not, in host
/// then file order. This is project configuration too: project trust covers it. Claude Code's
/// `.mcp.json` is not listed because it is mcpdeck's own project file as well. Only the project
/// is read (no home directory is consulted).
pub(crate) fn project_entries(project: &Path) -> Vec<(HostId, HostEntry)> {
    let env = HostEnv {
        home: None,
        config_home: None,
        project: project.to_path_buf(),
        overrides: BTreeMap::new(),
    };
    let mut out = Vec::new();
    for host in HostId::ALL {
        if host == HostId::ClaudeCode {
            continue;
        }
        for file in read(host, &env).files {
            if file.scope == Scope::Project && file.path.starts_with(project) {
                out.extend(file.entries.into_iter().map(|e| (host, e)));
            }
        }
    }
    out
}

/// Layers files (lowest first): a higher definition of a name hides the whole lower one.
fn effective(files: &[HostFile]) -> Vec<HostEffective> {
    let mut servers: Vec<HostEffective> = Vec::new();
    for file in files {
        for entry in &file.entries {
            let loaded = !file.unusable && entry.def.is_some();
            match servers.iter_mut().find(|s| s.entry.name == entry.name) {
                Some(existing) => {
                    let lower = std::mem::replace(&mut existing.entry, entry.clone());
                    existing.shadowed.insert(0, lower.origin);
                    existing.loaded = loaded;
                }
                None => servers.push(HostEffective {
                    entry: entry.clone(),
                    shadowed: Vec::new(),
                    loaded,
                }),
            }
        }
    }
    servers.sort_by(|a, b| a.entry.name.cmp(&b.entry.name));
    servers
}

#[cfg(test)]
mod tests;
