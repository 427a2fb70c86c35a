//! One server's row of the status report, borrowed from the configuration.
//!
//! `mcpdeck status --json` of a file of 100,000 servers serialises 100,000 rows; building each
//! as a [`ServerStatus`] copied its name, its file's path and its roots line first. A
//! [`StatusRow`] holds the same fields, borrowed where the configuration already has them, and
//! serialises to the same JSON ([`StatusRow::to_status`] gives the owned row).

use std::borrow::Cow;
use std::cell::OnceCell;
use std::fmt::Write as _;
use std::path::Path;

use crate::mcp::canonical::write_string;
use crate::mcp::config::{ConfigSet, Counts, Effective, Layer, ServerDef, Source};
use crate::mcp::status::{
    ReferenceView, RuntimeStatus, ServerState, ServerStatus, SourceView, static_state,
};
use crate::mcp::trust::TrustState;

/// What every row of one report shares: the roots line of the servers offered the project
/// directory alone (worked out once) and the runtime facts of a server never connected.
#[derive(Debug, Default)]
pub struct RowsShared {
    project_line: OnceCell<String>,
    runtime: RuntimeStatus,
}

/// Where a definition came from, borrowed (serialised as [`SourceView`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SourceRef<'a> {
    /// The configuration layer.
    pub layer: Layer,
    /// The file.
    pub file: &'a Path,
    /// The line of the server's key.
    pub line: Option<u32>,
}

impl<'a> From<&'a Source> for SourceRef<'a> {
    fn from(s: &'a Source) -> Self {
        Self {
            layer: s.layer,
            file: &s.file,
            line: s.line,
        }
    }
}

impl From<SourceRef<'_>> for SourceView {
    fn from(s: SourceRef<'_>) -> Self {
        Self {
            layer: s.layer,
            file: s.file.to_path_buf(),
            line: s.line,
        }
    }
}

/// One server in the status report: the fields of [`ServerStatus`], in its order and with its
/// names, so both serialise to the same JSON.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusRow<'a> {
    /// The configured name.
    pub name: &'a str,
    /// Its state.
    pub state: ServerState,
    /// `stdio` or `http`, when it can be told.
    pub transport: Option<&'static str>,
    /// Where the effective definition was written.
    pub source: SourceRef<'a>,
    /// Lower definitions it shadows, highest first.
    pub shadowed: Vec<SourceRef<'a>>,
    /// The references of the effective definition.
    pub references: Vec<ReferenceView>,
    /// Diagnostics of the effective entry.
    pub diagnostics: Counts,
    /// The sandbox it runs in, in one line (sanitised); `None`: unconfined.
    pub sandbox: Option<String>,
    /// The roots it is offered, in one line; `None` for an entry with no valid definition.
    pub roots: Option<Cow<'a, str>>,
    /// How the roots were narrowed, or how they widen it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub roots_notes: Vec<String>,
    /// What this process knows from connecting (nothing, for a report built from configuration).
    pub runtime: &'a RuntimeStatus,
}

/// What rows of one report write alike, kept from row to row by [`StatusRow::write_json`]:
/// the JSON of the last file path and of the last runtime facts written (every row of a file
/// has the same path, every row of a report built from configuration the same runtime facts).
#[derive(Debug, Default)]
pub struct RowJson<'a> {
    file: Option<(&'a Path, String)>,
    runtime: Option<(&'a RuntimeStatus, String)>,
}

impl<'a> StatusRow<'a> {
    /// Appends the row's JSON to `out`: the same text as `serde_json::to_string(self)`, written
    /// in a few pieces (a report of 100,000 servers wrote each key and value through the
    /// serialiser). Returns `None` (with `out` as it was) if a piece cannot be serialised.
    pub fn write_json(&self, out: &mut String, same: &mut RowJson<'a>) -> Option<()> {
        let mark = out.len();
        let written = self.write_pieces(out, same);
        if written.is_none() {
            out.truncate(mark);
        }
        written
    }

    fn write_pieces(&self, out: &mut String, same: &mut RowJson<'a>) -> Option<()> {
        out.push_str("{\"name\":");
        write_string(self.name, out);
        out.push_str(",\"state\":\"");
        out.push_str(self.state.label());
        out.push_str("\",\"transport\":");
        write_optional(self.transport, out);
        out.push_str(",\"source\":{\"layer\":\"");
        out.push_str(self.source.layer.label());
        out.push_str("\",\"file\":");
        let file = self.source.file;
        match &same.file {
            Some((last, json)) if std::ptr::eq(*last, file) => out.push_str(json),
            _ => {
                let json = serde_json::to_string(file).ok()?;
                out.push_str(&json);
                same.file = Some((file, json));
            }
        }
        out.push_str(",\"line\":");
        match self.source.line {
            Some(line) => {
                let _ = write!(out, "{line}");
            }
            None => out.push_str("null"),
        }
        out.push_str("},\"shadowed\":");
        write_list(&self.shadowed, out)?;
        out.push_str(",\"references\":");
        write_list(&self.references, out)?;
        match self.diagnostics {
            Counts {
                errors: 0,
                warnings: 0,
            } => out.push_str(",\"diagnostics\":{\"errors\":0,\"warnings\":0},\"sandbox\":"),
            Counts { errors, warnings } => {
                let _ = write!(
                    out,
                    ",\"diagnostics\":{{\"errors\":{errors},\"warnings\":{warnings}}},\"sandbox\":"
                );
            }
        }
        write_optional(self.sandbox.as_deref(), out);
        out.push_str(",\"roots\":");
        write_optional(self.roots.as_deref(), out);
        if !self.roots_notes.is_empty() {
            out.push_str(",\"rootsNotes\":");
            write_list(&self.roots_notes, out)?;
        }
        out.push_str(",\"runtime\":");
        let runtime = self.runtime;
        match &same.runtime {
            Some((last, json)) if std::ptr::eq(*last, runtime) => out.push_str(json),
            _ => {
                let json = serde_json::to_string(runtime).ok()?;
                out.push_str(&json);
                same.runtime = Some((runtime, json));
            }
        }
        out.push('}');
        Some(())
    }

    /// The owned row.
    pub fn to_status(&self) -> ServerStatus {
        ServerStatus {
            name: self.name.to_owned(),
            state: self.state,
            transport: self.transport,
            source: self.source.into(),
            shadowed: self.shadowed.iter().map(|&s| s.into()).collect(),
            references: self.references.clone(),
            diagnostics: self.diagnostics,
            sandbox: self.sandbox.clone(),
            roots: self.roots.as_deref().map(str::to_owned),
            roots_notes: self.roots_notes.clone(),
            runtime: self.runtime.clone(),
        }
    }
}

/// A JSON string or `null`.
fn write_optional(text: Option<&str>, out: &mut String) {
    match text {
        Some(text) => write_string(text, out),
        None => out.push_str("null"),
    }
}

/// A JSON array (`[]` without the serialiser when empty).
fn write_list<T: serde::Serialize>(items: &[T], out: &mut String) -> Option<()> {
    if items.is_empty() {
        out.push_str("[]");
    } else {
        out.push_str(&serde_json::to_string(items).ok()?);
    }
    Some(())
}

/// Every server's row of the report, in order, borrowed from `config` and `shared`.
pub fn status_rows<'a>(
    config: &'a ConfigSet,
    trust: TrustState,
    is_set: &'a dyn Fn(&str) -> bool,
    shared: &'a RowsShared,
) -> impl Iterator<Item = StatusRow<'a>> + 'a {
    config
        .servers
        .iter()
        .map(move |server| status_row(server, trust, is_set, &config.project_root, shared))
}

/// One server's row of the report.
fn status_row<'a>(
    server: &'a Effective,
    trust: TrustState,
    is_set: &dyn Fn(&str) -> bool,
    project_root: &Path,
    shared: &'a RowsShared,
) -> StatusRow<'a> {
    let entry = &server.entry;
    let transport = entry.def.as_ref().map(|d| d.transport.kind()).or_else(|| {
        let raw = entry.raw.value();
        let raw = raw.as_object()?;
        match (raw.contains_key("command"), raw.contains_key("url")) {
            (true, false) => Some("stdio"),
            (false, true) => Some("http"),
            _ => None,
        }
    });
    let references = entry
        .def
        .as_ref()
        .map(|d| {
            d.references()
                .into_iter()
                .map(|(field, variable)| ReferenceView {
                    set: is_set(&variable),
                    field,
                    variable,
                })
                .collect()
        })
        .unwrap_or_default();
    let (roots, roots_notes) = match entry.def.as_ref() {
        None => (None, Vec::new()),
        Some(def) if crate::mcp::client::roots::offered_the_project(def) => {
            let line = shared.project_line.get_or_init(|| {
                crate::mcp::client::roots::offered_for(def, project_root, project_root)
                    .line(project_root)
            });
            (Some(Cow::Borrowed(line.as_str())), Vec::new())
        }
        Some(def) => {
            let file_dir = entry.source.file.parent().unwrap_or(project_root);
            let offered = crate::mcp::client::roots::offered_for(def, file_dir, project_root);
            (
                Some(Cow::Owned(offered.line(project_root))),
                offered.shown_notes(),
            )
        }
    };
    StatusRow {
        name: &entry.name,
        state: static_state(server, trust),
        transport,
        source: SourceRef::from(&entry.source),
        shadowed: server.shadowed.iter().map(SourceRef::from).collect(),
        references,
        diagnostics: Counts::of(&entry.diagnostics),
        sandbox: entry.def.as_ref().and_then(ServerDef::sandbox_line),
        roots,
        roots_notes,
        runtime: &shared.runtime,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::config::load::parsed_file as file;

    #[test]
    fn the_labels_written_by_hand_are_the_serialised_names() {
        let quoted = |label: &str| format!("\"{label}\"");
        for state in [
            ServerState::Disconnected,
            ServerState::Connecting,
            ServerState::Connected,
            ServerState::Failed,
            ServerState::Disabled,
            ServerState::Invalid,
            ServerState::Inert,
        ] {
            let json = serde_json::to_string(&state).expect("json");
            assert_eq!(json, quoted(state.label()));
        }
        for layer in [
            Layer::SharedUser,
            Layer::User,
            Layer::Project,
            Layer::ProjectDeck,
            Layer::CommandLine,
            Layer::Packaged,
        ] {
            let json = serde_json::to_string(&layer).expect("json");
            assert_eq!(json, quoted(layer.label()));
        }
    }

    #[test]
    fn a_borrowed_row_serialises_as_its_owned_row() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().join("p");
        std::fs::create_dir_all(root.join("sub")).expect("mkdir");
        let project = r#"{"mcpServers": {
            "a": {"command": "x", "env": {"T": "${TOKEN}", "U": "${UNSET}"}},
            "bad": {"command": 1},
            "odd": {"command": "x", "url": "https://e/mcp"},
            "h": {"url": "https://e/mcp", "headers": {"Authorization": "Bearer ${K}"}},
            "box": {"command": "x", "sandbox": "read-only-project"},
            "r": {"command": "x", "roots": ["sub"]},
            "plain": {"command": "x"},
            "off": {"command": "x", "disabled": true},
            "wide": {"command": "x", "args": ["ROOT/sub"]},
            "ctl\u001b": {"command": "x"}
        }}"#
        .replace("ROOT", &root.display().to_string());
        let deck = r#"{"mcpServers": {"plain": {"command": "y"}, "plain2": {"command": "z"}}}"#;
        let config = ConfigSet::from_files(
            root.clone(),
            vec![
                file(Layer::Project, root.join(".mcp.json"), &project),
                file(Layer::ProjectDeck, root.join(".mcpdeck/mcp.json"), deck),
            ],
        );
        let shared = RowsShared::default();
        let is_set = |name: &str| name == "TOKEN";
        let mut seen = Vec::new();
        let mut same = RowJson::default();
        let mut written = String::new();
        for trust in [TrustState::Trusted, TrustState::Untrusted] {
            for row in status_rows(&config, trust, &is_set, &shared) {
                let borrowed = serde_json::to_string(&row).expect("json");
                let owned = serde_json::to_string(&row.to_status()).expect("json");
                assert_eq!(borrowed, owned);
                // Written by hand, with the pieces kept from the rows before it.
                written.clear();
                row.write_json(&mut written, &mut same).expect("written");
                assert_eq!(written, owned);
                seen.push(borrowed);
            }
        }
        let all = seen.join("\n");
        // The rows carry every kind of field, so the comparison covers them.
        for part in [
            r#""shadowed":[{"layer":"#,
            r#""variable":"TOKEN","set":true"#,
            r#""sandbox":"read-only-project"#,
            r#""state":"invalid""#,
            r#""state":"inert""#,
            r#""transport":null"#,
            r#""roots":".""#,
            r#""runtime":{"protocolVersion":null"#,
            r#""state":"disabled""#,
            r#""state":"disconnected""#,
            r#""layer":"project-mcpdeck""#,
            r#""rootsNotes":["#,
            r#""name":"ctl\u001b""#,
        ] {
            assert!(all.contains(part), "{part} in {all}");
        }
    }
}
