//! Packaged server descriptors and what they resolve to: a stdio command line and the
//! configuration entry that carries it.
//!
//! Descriptors are immutable data; resolving a self-server needs the running executable's path,
//! which the caller supplies so that nothing here depends on process state.

use crate::mcp::sandbox::SandboxDef;
use std::collections::BTreeMap;
use std::path::Path;

use crate::mcp::config::raw::RawDef;
use crate::mcp::config::refs::Part;
use crate::mcp::config::{
    Diagnostic, Layer, ProtocolChoice, ReconnectPolicy, ServerDef, ServerEntry, Source, StdioDef,
    Template, Transport,
};

/// The pseudo-path shown as the source file of every packaged server.
pub(crate) const PACKAGED_SOURCE: &str = "<packaged>";

/// An executable with immutable arguments and an explicit environment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackagedServer {
    /// The server's name (a valid configuration server name).
    pub name: String,
    /// The executable name or path.
    pub command: String,
    /// Fixed arguments.
    pub args: Vec<String>,
    /// Exact additions to the child's minimal environment (literal values, never references).
    pub env: BTreeMap<String, String>,
}

/// The running mcpdeck binary (`std::env::current_exe`) with a fixed subcommand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PackagedSelfServer {
    /// The server's name (a valid configuration server name).
    pub name: String,
    /// The subcommand and its fixed arguments, e.g. `["demo-server"]`.
    pub subcommand_args: Vec<String>,
    /// The sandbox it runs in (`None`: unconfined).
    pub sandbox: Option<SandboxDef>,
}

/// Any packaged server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PackagedDescriptor {
    /// Another executable.
    Executable(PackagedServer),
    /// The mcpdeck binary itself.
    SelfServer(PackagedSelfServer),
}

impl From<PackagedServer> for PackagedDescriptor {
    fn from(server: PackagedServer) -> Self {
        Self::Executable(server)
    }
}

impl From<PackagedSelfServer> for PackagedDescriptor {
    fn from(server: PackagedSelfServer) -> Self {
        Self::SelfServer(server)
    }
}

/// When a registered packaged server is part of the configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    /// Always (e.g. the workspace server).
    Always,
    /// Only with `--demo`, or when no configuration file defines any server.
    Demo,
}

/// A packaged server's command line, ready for the stdio transport.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedCommand {
    /// The executable.
    pub command: String,
    /// Its fixed arguments.
    pub args: Vec<String>,
    /// Its explicit environment additions.
    pub env: BTreeMap<String, String>,
    /// The sandbox it runs in.
    pub sandbox: Option<SandboxDef>,
}

impl PackagedDescriptor {
    /// The server's name.
    pub fn name(&self) -> &str {
        match self {
            Self::Executable(s) => &s.name,
            Self::SelfServer(s) => &s.name,
        }
    }

    /// The command line, with `self_exe` standing for the running mcpdeck binary.
    pub fn resolve(&self, self_exe: &Path) -> Result<ResolvedCommand, String> {
        match self {
            Self::Executable(s) => Ok(ResolvedCommand {
                command: s.command.clone(),
                args: s.args.clone(),
                env: s.env.clone(),
                sandbox: None,
            }),
            Self::SelfServer(s) => {
                let command = self_exe.to_str().ok_or_else(|| {
                    format!(
                        "the mcpdeck executable's path is not UTF-8: {}",
                        self_exe.display()
                    )
                })?;
                Ok(ResolvedCommand {
                    command: command.to_owned(),
                    args: s.subcommand_args.clone(),
                    env: BTreeMap::new(),
                    sandbox: s.sandbox.clone(),
                })
            }
        }
    }

    /// Why this descriptor cannot be registered, if it cannot.
    pub(super) fn problem(&self) -> Option<String> {
        match self {
            Self::Executable(s) => {
                if s.command.trim().is_empty() {
                    return Some("the command is empty".into());
                }
                s.env
                    .iter()
                    .find_map(|(key, value)| env_problem(key, value))
            }
            Self::SelfServer(s) => s
                .subcommand_args
                .is_empty()
                .then(|| "a self-server needs a subcommand".into()),
        }
    }
}

fn env_problem(key: &str, value: &str) -> Option<String> {
    if !crate::mcp::config::refs::is_var_name(key) {
        return Some(format!("`{key}` is not an environment variable name"));
    }
    literal_template(value)
        .err()
        .map(|_| format!("env `{key}`: the value cannot be passed literally"))
}

/// A template that stands for exactly `value`, with no references.
fn literal_template(value: &str) -> Result<Template, crate::mcp::config::refs::RefError> {
    Template::from_parts(vec![Part::Literal(value.to_owned())])
}

impl ResolvedCommand {
    /// The definition as configuration would write it (for `config show` and status).
    pub fn raw(&self) -> serde_json::Value {
        let mut raw = serde_json::json!({
            "type": "stdio",
            "command": self.command,
            "args": self.args,
        });
        if !self.env.is_empty()
            && let Some(object) = raw.as_object_mut()
        {
            object.insert("env".into(), serde_json::json!(self.env));
        }
        raw
    }

    /// The configuration entry of server `name`.
    pub fn entry(&self, name: &str) -> ServerEntry {
        let env: Result<BTreeMap<String, Template>, _> = self
            .env
            .iter()
            .map(|(k, v)| literal_template(v).map(|t| (k.clone(), t)))
            .collect();
        let Ok(env) = env else {
            // Registration refuses such values; keep failing closed if one slips through.
            return unavailable_entry(name, "an env value cannot be passed literally");
        };
        ServerEntry {
            name: name.to_owned(),
            source: packaged_source(),
            raw: RawDef::from_value(self.raw()),
            def: Some(ServerDef {
                name: name.to_owned(),
                transport: Transport::Stdio(StdioDef {
                    command: self.command.clone(),
                    args: self.args.clone(),
                    cwd: None,
                    env,
                    sandbox: self.sandbox.clone().map(Box::new),
                }),
                request_timeout_ms: None,
                task_timeout_ms: None,
                reconnect: ReconnectPolicy::default(),
                disabled: false,
                protocol: ProtocolChoice::Legacy,
                roots: None,
            }),
            diagnostics: Vec::new(),
        }
    }
}

/// Where every packaged entry comes from.
pub(super) fn packaged_source() -> Source {
    Source {
        layer: Layer::Packaged,
        file: Path::new(PACKAGED_SOURCE).into(),
        line: None,
    }
}

/// An invalid packaged entry (no definition) that says why it cannot run.
pub(super) fn unavailable_entry(name: &str, message: &str) -> ServerEntry {
    ServerEntry {
        name: name.to_owned(),
        source: packaged_source(),
        raw: RawDef::from_value(serde_json::json!({})),
        def: None,
        diagnostics: vec![Diagnostic::file_error(
            Path::new(PACKAGED_SOURCE),
            "packaged_unavailable",
            format!("packaged server `{name}`: {message}"),
        )],
    }
}
