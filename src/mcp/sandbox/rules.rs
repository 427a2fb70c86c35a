//! A definition's `sandbox` block as written, its named presets and what they expand to, and
//! the one line that shows the rules wherever the server appears. Reads no environment and
//! touches no file (paths stay as written until [`super::profile`] resolves them).

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;

/// A named preset: a starting set of rules that the block's own fields add to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Preset {
    /// Read the project (the configuration file's directory), write nothing, no network.
    ReadOnlyProject,
    /// Read and write the project, no network.
    Project,
    /// Read, write and execute anything the user can; no network.
    NoNetwork,
}

impl Preset {
    /// Every preset, in the order the README lists them.
    pub const ALL: [Self; 3] = [Self::ReadOnlyProject, Self::Project, Self::NoNetwork];

    /// The name as written in configuration.
    pub fn name(self) -> &'static str {
        match self {
            Self::ReadOnlyProject => "read-only-project",
            Self::Project => "project",
            Self::NoNetwork => "no-network",
        }
    }

    /// The preset of that name.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }

    /// What the preset stands for, as if written out.
    pub fn expansion(self) -> SandboxDef {
        let dot = || vec![".".to_owned()];
        let root = || vec!["/".to_owned()];
        let base = SandboxDef {
            net: Some(NetRule::None),
            ..SandboxDef::default()
        };
        match self {
            Self::ReadOnlyProject => SandboxDef {
                read: dot(),
                ..base
            },
            Self::Project => SandboxDef {
                read: dot(),
                write: dot(),
                ..base
            },
            Self::NoNetwork => SandboxDef {
                read: root(),
                write: root(),
                exec: root(),
                ..base
            },
        }
    }
}

/// What the server may reach over the network.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum NetRule {
    /// No TCP connect or bind, no UDP, no raw sockets (the default).
    #[default]
    None,
    /// Unconfined.
    Any,
    /// TCP only to these ports (any host: Landlock confines TCP by port, not by host).
    Ports {
        /// Ports it may connect to.
        connect: Vec<u16>,
        /// Ports it may bind.
        bind: Vec<u16>,
    },
}

/// Resource limits, applied as the process's resource limits before the server starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Limits {
    /// Address space, in MiB (`RLIMIT_AS`).
    pub memory_mb: Option<u64>,
    /// Processes of the user (`RLIMIT_NPROC`).
    pub processes: Option<u64>,
}

/// The `sandbox` block of a stdio definition, as written. Absent fields are the tightest:
/// nothing readable beyond the system's libraries, nothing writable, no network.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SandboxDef {
    /// The preset the fields add to.
    pub preset: Option<Preset>,
    /// Paths readable (files, or directories with everything below).
    pub read: Vec<String>,
    /// Paths readable and writable.
    pub write: Vec<String>,
    /// Paths readable and executable (the definition's own command always is).
    pub exec: Vec<String>,
    /// The network rule; `None` when the block (and its preset) says nothing: no network.
    pub net: Option<NetRule>,
    /// Resource limits.
    pub limits: Limits,
    /// Start the server even when the kernel cannot enforce every rule (shown everywhere).
    pub best_effort: bool,
    /// Set when this block is the user's `projectSandbox`, applied to a project definition
    /// that has no `sandbox` of its own: the project root its relative paths resolve against
    /// (instead of the definition's file's directory).
    pub user_default: Option<Arc<Path>>,
}

impl SandboxDef {
    /// The rules in force: the preset's expansion with the block's own fields added (lists
    /// append; `net` and each limit replace the preset's).
    #[must_use]
    pub fn effective(&self) -> SandboxDef {
        let Some(preset) = self.preset else {
            return SandboxDef {
                net: Some(self.net.clone().unwrap_or_default()),
                ..self.clone()
            };
        };
        let mut out = preset.expansion();
        out.read.extend(self.read.iter().cloned());
        out.write.extend(self.write.iter().cloned());
        out.exec.extend(self.exec.iter().cloned());
        if let Some(net) = &self.net {
            out.net = Some(net.clone());
        }
        out.limits = self.limits;
        out.best_effort = self.best_effort;
        out.preset = Some(preset);
        out.user_default.clone_from(&self.user_default);
        out
    }

    /// This block as the user's default for a project definition without one, its relative
    /// paths resolving against `project_root`.
    #[must_use]
    pub fn as_user_default(&self, project_root: &Path) -> SandboxDef {
        SandboxDef {
            user_default: Some(Arc::from(project_root)),
            ..self.clone()
        }
    }

    /// The rules in one line, e.g. `read ., ~/data · write none · net none · 64 processes`
    /// (paths as written; the caller sanitises before showing it).
    pub fn summary(&self) -> String {
        let e = self.effective();
        let mut out = String::new();
        if let Some(p) = e.preset {
            let _ = write!(out, "{} · ", p.name());
        }
        let list = |v: &[String]| {
            if v.is_empty() {
                "none".to_owned()
            } else {
                v.join(", ")
            }
        };
        let _ = write!(
            out,
            "read {} · write {} · exec {}",
            list(&e.read),
            list(&e.write),
            if e.exec.is_empty() {
                "command".to_owned()
            } else {
                format!("command, {}", e.exec.join(", "))
            }
        );
        let _ = write!(out, " · net {}", net_words(&e.net.unwrap_or_default()));
        if let Some(mb) = e.limits.memory_mb {
            let _ = write!(out, " · {mb} MiB");
        }
        if let Some(n) = e.limits.processes {
            let _ = write!(out, " · {n} processes");
        }
        if e.best_effort {
            out.push_str(" · best effort");
        }
        if e.user_default.is_some() {
            out.push_str(" · from your projectSandbox");
        }
        out
    }
}

/// `none`, `any`, or `tcp connect 443, 8080; bind 3000`.
pub(crate) fn net_words(net: &NetRule) -> String {
    match net {
        NetRule::None => "none".to_owned(),
        NetRule::Any => "any".to_owned(),
        NetRule::Ports { connect, bind } => {
            let ports = |v: &[u16]| {
                if v.is_empty() {
                    "none".to_owned()
                } else {
                    v.iter().map(u16::to_string).collect::<Vec<_>>().join(", ")
                }
            };
            format!("tcp connect {}; bind {}", ports(connect), ports(bind))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_preset_expands_and_the_fields_add_to_it() {
        let def = SandboxDef {
            preset: Some(Preset::ReadOnlyProject),
            read: vec!["~/data".into()],
            limits: Limits {
                memory_mb: None,
                processes: Some(8),
            },
            ..SandboxDef::default()
        };
        let e = def.effective();
        assert_eq!(e.read, vec![".".to_owned(), "~/data".to_owned()]);
        assert!(e.write.is_empty());
        assert_eq!(e.net, Some(NetRule::None));
        assert_eq!(
            def.summary(),
            "read-only-project · read ., ~/data · write none · exec command · net none · 8 processes"
        );
    }

    #[test]
    fn an_empty_block_is_the_tightest() {
        let e = SandboxDef::default().effective();
        assert!(e.read.is_empty() && e.write.is_empty() && e.exec.is_empty());
        assert_eq!(e.net, Some(NetRule::None));
        let ports = NetRule::Ports {
            connect: vec![443],
            bind: vec![],
        };
        assert_eq!(net_words(&ports), "tcp connect 443; bind none");
    }
}
