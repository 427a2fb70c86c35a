//! What a reloaded configuration changed, and what the engine rebuilt over it does about it:
//! which servers keep their connection, which start again, which went inert, and the one line
//! the console says about it. Pure: both configurations and trust states are given.

use std::collections::BTreeSet;
use std::path::Path;

use crate::mcp::config::{ConfigSet, Effective};
use crate::mcp::status::{ServerState, static_state};
use crate::mcp::trust::TrustState;

/// Whether two effective definitions of one name are the same definition: as written (`raw`,
/// what trust fingerprints), where (the layer and file: trust and a relative `cwd` depend on
/// it) and as the engine runs it (`def`, which carries a sandbox the user's `projectSandbox`
/// gives a project server without changing `raw`).
fn same_definition(old: &Effective, new: &Effective) -> bool {
    let (o, n) = (&old.entry, &new.entry);
    o.raw == n.raw
        && o.source.layer == n.source.layer
        && o.source.file == n.source.file
        && o.def == n.def
}

/// The names whose effective definition differs between `old` and `new` (or that only `new`
/// has). Each name is looked up in `old` by binary search (its servers are sorted by name), so
/// a configuration of 100,000 servers is compared in one pass, not pairwise.
pub fn changed_servers(old: &ConfigSet, new: &ConfigSet) -> Vec<String> {
    new.servers
        .iter()
        .filter(|n| {
            old.server(&n.entry.name)
                .is_none_or(|o| !same_definition(o, n))
        })
        .map(|n| n.entry.name.clone())
        .collect()
}

/// What a reload does, server by server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReloadPlan {
    /// Servers only the new configuration has.
    pub added: Vec<String>,
    /// Servers only the old configuration had (their connections close).
    pub removed: Vec<String>,
    /// Servers whose definition changed (they start again when next used).
    pub edited: Vec<String>,
    /// Servers whose definition and state are unchanged: their connection, catalogs and
    /// session approvals carry over to the rebuilt engine.
    pub kept: BTreeSet<String>,
    /// Servers that are inert now and were not (or are new and inert): the project needs trust.
    pub inert: Vec<String>,
    /// The project's trust, before and after.
    pub trust: (TrustState, TrustState),
    /// Whether any file appeared, went or has other diagnostics than before.
    pub files_changed: bool,
    /// Files whose diagnostics changed and that now have an error: the file's label and its
    /// first error ("line 3: expected `,`").
    pub broken: Vec<(String, String)>,
}

impl ReloadPlan {
    /// Compares `old` (under `old_trust`) with `new` (under `new_trust`).
    pub fn new(
        (old, old_trust): (&ConfigSet, TrustState),
        (new, new_trust): (&ConfigSet, TrustState),
    ) -> Self {
        let mut plan = Self {
            added: Vec::new(),
            removed: Vec::new(),
            edited: Vec::new(),
            kept: BTreeSet::new(),
            inert: Vec::new(),
            trust: (old_trust, new_trust),
            files_changed: false,
            broken: Vec::new(),
        };
        for file in &new.files {
            let before = old.files.iter().find(|f| f.path == file.path);
            let same = before.is_some_and(|b| {
                b.present == file.present && b.all_diagnostics().eq(file.all_diagnostics())
            });
            if same {
                continue;
            }
            plan.files_changed = true;
            if let Some(error) = file.all_diagnostics().find(|d| d.is_error()) {
                let at = error
                    .line
                    .map(|l| format!("line {l}: "))
                    .unwrap_or_default();
                plan.broken.push((
                    file_label(&file.path, &new.project_root),
                    format!("{at}{}", error.message),
                ));
            }
        }
        plan.files_changed |= old.files.len() != new.files.len();
        for n in &new.servers {
            let name = &n.entry.name;
            let state = static_state(n, new_trust);
            let before = old.server(name);
            match before {
                None => plan.added.push(name.clone()),
                Some(o) if !same_definition(o, n) => plan.edited.push(name.clone()),
                Some(o) if static_state(o, old_trust) == state => {
                    plan.kept.insert(name.clone());
                }
                Some(_) => {}
            }
            let was_inert =
                before.is_some_and(|o| static_state(o, old_trust) == ServerState::Inert);
            if state == ServerState::Inert && !was_inert {
                plan.inert.push(name.clone());
            }
        }
        plan.removed = old
            .servers
            .iter()
            .filter(|o| new.server(&o.entry.name).is_none())
            .map(|o| o.entry.name.clone())
            .collect();
        plan
    }

    /// Whether nothing a face shows or runs differs.
    pub fn is_empty(&self) -> bool {
        !self.files_changed
            && self.added.is_empty()
            && self.removed.is_empty()
            && self.edited.is_empty()
            && self.inert.is_empty()
            && self.trust.0 == self.trust.1
    }

    /// The status line's account of the change, file by file: "`.mcp.json`: server `api`
    /// added; the project needs trust". Names are the configuration's own text: the caller
    /// sanitises before showing it.
    pub fn summary(&self, old: &ConfigSet, new: &ConfigSet) -> String {
        let mut by_file: Vec<(String, Vec<String>)> = Vec::new();
        let mut note = |config: &ConfigSet, name: &str, what: &str| {
            let Some(server) = config.server(name) else {
                return;
            };
            let file = file_label(&server.entry.source.file, &config.project_root);
            let line = format!("server `{name}` {what}");
            match by_file.iter_mut().find(|(f, _)| *f == file) {
                Some((_, lines)) => lines.push(line),
                None => by_file.push((file, vec![line])),
            }
        };
        for name in &self.added {
            note(new, name, "added");
        }
        for name in &self.edited {
            note(new, name, "changed");
        }
        for name in &self.removed {
            note(old, name, "removed");
        }
        let mut parts: Vec<String> = by_file
            .into_iter()
            .map(|(file, lines)| format!("`{file}`: {}", lines.join(", ")))
            .collect();
        parts.extend(
            self.broken
                .iter()
                .map(|(file, error)| format!("`{file}`: {error}")),
        );
        let (before, after) = self.trust;
        if !self.inert.is_empty() {
            parts.push(match after {
                TrustState::Changed => {
                    "the project changed since it was trusted: it needs trust again".to_owned()
                }
                _ => "the project needs trust".to_owned(),
            });
        } else if before != after && after == TrustState::Trusted {
            parts.push("the project is trusted".to_owned());
        } else if before != after {
            parts.push(format!("the project is {}", after.label()));
        }
        parts.join("; ")
    }
}

/// How the status line names a configuration file: relative to the project when inside it,
/// else its last two components (`mcpdeck/mcp.json`).
fn file_label(file: &Path, project_root: &Path) -> String {
    if let Ok(inside) = file.strip_prefix(project_root) {
        return inside.display().to_string();
    }
    let mut tail: Vec<_> = file.components().rev().take(2).collect();
    tail.reverse();
    tail.iter()
        .collect::<std::path::PathBuf>()
        .display()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::config::Layer;
    use crate::mcp::config::load::read_file;

    /// A configuration of the user's file `user` and the project's `.mcp.json` `project`
    /// (either `None` for a file that does not exist), in `dir`.
    fn config(dir: &Path, user: Option<&str>, project: Option<&str>) -> ConfigSet {
        let (home, proj) = (dir.join("home"), dir.join("proj"));
        std::fs::create_dir_all(&home).expect("mkdir");
        std::fs::create_dir_all(&proj).expect("mkdir");
        let mut files = Vec::new();
        for (layer, path, text) in [
            (Layer::User, home.join("mcp.json"), user),
            (Layer::Project, proj.join(".mcp.json"), project),
        ] {
            match text {
                Some(text) => std::fs::write(&path, text).expect("write"),
                None => {
                    let _ = std::fs::remove_file(&path);
                }
            }
            files.push(read_file(layer, path, false));
        }
        ConfigSet::from_files(proj, files)
    }

    #[test]
    fn changed_servers_are_the_edited_and_the_added() {
        let dir = tempfile::tempdir().expect("tempdir");
        let old = config(
            dir.path(),
            Some(r#"{"mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}}}"#),
            None,
        );
        let new = config(
            dir.path(),
            Some(
                r#"{"mcpServers": {"a": {"command": "x"}, "b": {"command": "z"}, "c": {"command": "w"}}}"#,
            ),
            None,
        );
        assert_eq!(changed_servers(&old, &new), ["b", "c"]);
        assert!(changed_servers(&new, &new).is_empty());
    }

    #[test]
    fn a_definition_moved_to_another_file_is_changed_though_written_the_same() {
        let dir = tempfile::tempdir().expect("tempdir");
        let text = r#"{"mcpServers": {"a": {"command": "x"}}}"#;
        let old = config(dir.path(), Some(text), None);
        let new = config(dir.path(), None, Some(text));
        assert_eq!(changed_servers(&old, &new), ["a"], "raw alone is the same");
    }

    #[test]
    fn a_user_project_sandbox_changes_project_servers_whose_text_did_not() {
        let dir = tempfile::tempdir().expect("tempdir");
        let project = r#"{"mcpServers": {"p": {"command": "x"}}}"#;
        let old = config(dir.path(), Some(r#"{"mcpServers": {}}"#), Some(project));
        let new = config(
            dir.path(),
            Some(r#"{"mcpServers": {}, "projectSandbox": {"net": "none"}}"#),
            Some(project),
        );
        assert_eq!(changed_servers(&old, &new), ["p"]);
    }

    #[test]
    fn a_new_project_file_adds_inert_servers_and_keeps_the_user_ones() {
        let dir = tempfile::tempdir().expect("tempdir");
        let user = r#"{"mcpServers": {"u": {"command": "x"}}}"#;
        let old = config(dir.path(), Some(user), None);
        let new = config(
            dir.path(),
            Some(user),
            Some(r#"{"mcpServers": {"api": {"command": "y"}}}"#),
        );
        let plan = ReloadPlan::new(
            (&old, TrustState::NoProjectConfig),
            (&new, TrustState::Untrusted),
        );
        assert_eq!(plan.added, ["api"]);
        assert_eq!(plan.inert, ["api"]);
        assert!(plan.edited.is_empty() && plan.removed.is_empty());
        assert_eq!(
            plan.kept,
            BTreeSet::from(["u".to_owned()]),
            "u keeps running"
        );
        assert_eq!(
            plan.summary(&old, &new),
            "`.mcp.json`: server `api` added; the project needs trust"
        );
    }

    #[test]
    fn editing_a_trusted_project_file_makes_every_project_server_inert() {
        let dir = tempfile::tempdir().expect("tempdir");
        let user = r#"{"mcpServers": {"u": {"command": "x"}}}"#;
        let old = config(
            dir.path(),
            Some(user),
            Some(r#"{"mcpServers": {"p": {"command": "y"}, "q": {"command": "z"}}}"#),
        );
        let new = config(
            dir.path(),
            Some(user),
            Some(r#"{"mcpServers": {"p": {"command": "y2"}, "q": {"command": "z"}}}"#),
        );
        let plan = ReloadPlan::new((&old, TrustState::Trusted), (&new, TrustState::Changed));
        assert_eq!(plan.edited, ["p"]);
        assert_eq!(
            plan.inert,
            ["p", "q"],
            "q's text is the same, but trust is gone"
        );
        assert_eq!(
            plan.kept,
            BTreeSet::from(["u".to_owned()]),
            "q starts again, inert"
        );
        assert_eq!(
            plan.summary(&old, &new),
            "`.mcp.json`: server `p` changed; the project changed since it was trusted: it needs trust again"
        );
    }

    #[test]
    fn trust_granted_elsewhere_restarts_the_project_servers_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let config = config(
            dir.path(),
            Some(r#"{"mcpServers": {"u": {"command": "x"}}}"#),
            Some(r#"{"mcpServers": {"p": {"command": "y"}}}"#),
        );
        let plan = ReloadPlan::new(
            (&config, TrustState::Untrusted),
            (&config, TrustState::Trusted),
        );
        assert!(plan.added.is_empty() && plan.edited.is_empty() && plan.inert.is_empty());
        assert_eq!(
            plan.kept,
            BTreeSet::from(["u".to_owned()]),
            "p starts again, usable"
        );
        assert!(!plan.is_empty());
        assert_eq!(plan.summary(&config, &config), "the project is trusted");
    }

    #[test]
    fn removing_a_server_and_an_unchanged_reload() {
        let dir = tempfile::tempdir().expect("tempdir");
        let old = config(
            dir.path(),
            Some(r#"{"mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}}}"#),
            None,
        );
        let new = config(
            dir.path(),
            Some(r#"{"mcpServers": {"a": {"command": "x"}}}"#),
            None,
        );
        let trust = TrustState::NoProjectConfig;
        let plan = ReloadPlan::new((&old, trust), (&new, trust));
        assert_eq!(plan.removed, ["b"]);
        assert_eq!(
            plan.summary(&old, &new),
            "`home/mcp.json`: server `b` removed"
        );
        let same = ReloadPlan::new((&new, trust), (&new, trust));
        assert!(same.is_empty(), "{same:?}");
        assert_eq!(same.kept.len(), 1);
    }
}
