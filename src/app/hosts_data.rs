//! What the Hosts view shows, built from other hosts' reports and mcpdeck's configuration: each
//! host's files (found or absent) with positioned diagnostics, its effective servers with
//! provenance, variables (names and whether set, never values), shadowing and diagnostics, its
//! known traps, and the side-by-side matrix against mcpdeck. Built off the state machine (the
//! executor reads the files, then calls [`build`]); every string kept is sanitised here.

use super::info::{InfoLine, Tone, line};
use crate::mcp::config::{ConfigSet, Diagnostic, Severity};
use crate::mcp::hosts::compare::{Cell, Row, matrix};
use crate::mcp::hosts::convert::Places;
use crate::mcp::hosts::probe::{inputs, source_of};
use crate::mcp::hosts::{HostDef, HostEffective, HostEnv, HostId, HostReport, Piece};
use crate::mcp::sanitize::sanitize_capped;
use crate::mcp::status::var_is_set;

/// Everything the Hosts view shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostsData {
    /// The project the hosts were read for.
    pub project: String,
    /// Every host, in display order.
    pub hosts: Vec<HostPanel>,
    /// Every server name across mcpdeck and the hosts.
    pub matrix: Vec<MatrixRow>,
}

/// One host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostPanel {
    /// The host.
    pub host: HostId,
    /// Whether any of its files exists.
    pub found: bool,
    /// Its files, lowest precedence first, each with its diagnostics.
    pub files: Vec<InfoLine>,
    /// Its effective servers, by name.
    pub servers: Vec<HostServer>,
    /// Known traps that apply.
    pub traps: Vec<String>,
    /// Error and warning counts over its files.
    pub counts: (usize, usize),
}

/// One effective server of a host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostServer {
    /// The name as written.
    pub name: String,
    /// One summary line: transport, provenance, whether the host loads it, versus mcpdeck.
    pub summary: String,
    /// Whether the host would not load it (invalid, or its file is unusable).
    pub broken: bool,
    /// Its details: definition as written, variables, shadowing, diagnostics, comparison.
    pub detail: Vec<InfoLine>,
    /// The `${input:…}` ids a test-connect asks for.
    pub inputs: Vec<String>,
}

/// One server name across mcpdeck and the hosts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatrixRow {
    /// The server name.
    pub name: String,
    /// mcpdeck's state: `valid`, `invalid` or `-`.
    pub deck: &'static str,
    /// Each host's cell label, in [`HostId::ALL`] order.
    pub cells: Vec<&'static str>,
    /// In words, per host that defines the name: same, differs (which fields), only here.
    pub detail: Vec<InfoLine>,
}

/// A diagnostic without its file (the file is the heading above it): `line:col: error[code] at
/// path: message`, then its help.
fn diagnostic_lines(d: &Diagnostic, indent: &str) -> Vec<InfoLine> {
    let at = match (d.line, d.column) {
        (Some(l), Some(c)) => format!("{l}:{c}: "),
        (Some(l), None) => format!("{l}: "),
        _ => String::new(),
    };
    let (severity, tone) = match d.severity {
        Severity::Error => ("error", Tone::Error),
        Severity::Warning => ("warning", Tone::Warn),
    };
    let path = if d.path.is_empty() {
        String::new()
    } else {
        format!(" at {}", d.path)
    };
    let mut out = vec![line(
        format!("{indent}{at}{severity}[{}]{path}: {}", d.code, d.message),
        tone,
    )];
    if let Some(help) = &d.suggestion {
        out.push(line(format!("{indent}  help: {help}"), Tone::Dim));
    }
    out
}

/// Builds the view's data for `env`'s project.
pub fn build(config: &ConfigSet, reports: &[HostReport], env: &HostEnv) -> HostsData {
    let places = Places {
        project: &env.project,
        home: env.home.as_deref(),
    };
    let rows = matrix(config, reports, &places);
    HostsData {
        project: sanitize_capped(&env.project.display().to_string(), 512),
        hosts: reports.iter().map(|r| panel(r, &rows)).collect(),
        matrix: rows.iter().map(matrix_row).collect(),
    }
}

fn panel(report: &HostReport, rows: &[Row]) -> HostPanel {
    let mut files = Vec::new();
    for f in &report.files {
        let state = if !f.present {
            "absent".to_owned()
        } else if f.unusable {
            format!(
                "{} server(s), UNUSABLE: the host loads none",
                f.entries.len()
            )
        } else {
            format!("{} server(s)", f.entries.len())
        };
        let tone = match (f.present, f.unusable) {
            (false, _) => Tone::Dim,
            (true, true) => Tone::Error,
            (true, false) => Tone::Plain,
        };
        files.push(line(
            format!("{:<8} {}  {state}", f.scope.label(), f.path.display()),
            tone,
        ));
        for d in f.all_diagnostics() {
            files.extend(diagnostic_lines(d, "    "));
        }
    }
    let counts =
        report.all_diagnostics().fold(
            (0, 0),
            |(e, w), d| {
                if d.is_error() { (e + 1, w) } else { (e, w + 1) }
            },
        );
    HostPanel {
        host: report.host,
        found: report.found(),
        files,
        servers: report
            .servers
            .iter()
            .map(|s| server(report.host, s, rows))
            .collect(),
        traps: report
            .traps
            .iter()
            .map(|t| sanitize_capped(&t.message, 1024))
            .collect(),
        counts,
    }
}

fn server(host: HostId, s: &HostEffective, rows: &[Row]) -> HostServer {
    let e = &s.entry;
    let kind = e.def.as_ref().map_or("invalid", |d| d.transport.kind());
    let state = match (&e.def, s.loaded) {
        (None, _) => "not loaded (invalid)",
        (Some(d), true) if d.disabled => "disabled",
        (Some(_), true) => "loaded",
        (Some(_), false) => "not loaded (its file is unusable)",
    };
    let cell = rows
        .iter()
        .find(|r| r.name == e.name)
        .and_then(|r| r.cells.iter().find(|(h, _)| *h == host))
        .map_or(Cell::Absent, |(_, c)| c.clone());
    let mark = match &cell {
        Cell::Same => "  · same",
        Cell::Differs(_) => "  · differs",
        Cell::OnlyHere => "  · only here",
        Cell::Invalid | Cell::Absent => "",
    };
    let summary = format!("{kind:<5}  {:<7}  {state}{mark}", e.origin.scope.label());
    HostServer {
        name: sanitize_capped(&e.name, 128),
        summary: sanitize_capped(&summary, 256),
        broken: !s.loaded,
        detail: server_detail(s, state, &cell),
        inputs: e
            .def
            .as_ref()
            .map(inputs)
            .unwrap_or_default()
            .iter()
            .map(|i| sanitize_capped(i, 128))
            .collect(),
    }
}

/// A host server's detail: where it comes from and its state, its definition as written, its
/// variables, what it shadows, its diagnostics, and how it compares with mcpdeck's own.
fn server_detail(s: &HostEffective, state: &str, cell: &Cell) -> Vec<InfoLine> {
    let e = &s.entry;
    let mut detail = vec![line(format!("  {}  {state}", source_of(s)), Tone::Dim)];
    let pretty = serde_json::to_string_pretty(&e.raw).unwrap_or_default();
    detail.extend(
        pretty
            .lines()
            .map(|l| line(format!("    {l}"), Tone::Plain)),
    );
    if let Some(note) = crate::mcp::hosts::hidden_note(&e.raw) {
        detail.push(line(format!("    {note}"), Tone::Dim));
    }
    if let Some(def) = &e.def {
        detail.extend(variable_notes(def));
    }
    for shadow in &s.shadowed {
        detail.push(line(
            format!(
                "  shadows {} {}{}",
                shadow.scope.label(),
                shadow.file.display(),
                shadow.line.map(|l| format!(":{l}")).unwrap_or_default()
            ),
            Tone::Dim,
        ));
    }
    for d in &e.diagnostics {
        detail.extend(diagnostic_lines(d, "  "));
    }
    let versus = match cell {
        Cell::Same => Some(("same as mcpdeck".to_owned(), Tone::Plain)),
        Cell::Differs(fields) => Some((
            format!("differs from mcpdeck: {}", fields.join(", ")),
            Tone::Warn,
        )),
        Cell::OnlyHere => Some(("only here (not in mcpdeck)".to_owned(), Tone::Plain)),
        Cell::Invalid | Cell::Absent => None,
    };
    if let Some((text, tone)) = versus {
        detail.push(line(format!("  {text}"), tone));
    }
    detail
}

/// One line per variable, input, host-filled value or file a definition's fields use: whether
/// it is set (never its value).
fn variable_notes(def: &HostDef) -> Vec<InfoLine> {
    let mut notes = Vec::new();
    for (field, text) in def.transport.fields() {
        for piece in text.variables() {
            let (note, tone) = match piece {
                Piece::Env(n) | Piece::EnvDefault(n, _) if var_is_set(n) => {
                    (format!("variable {n}: set"), Tone::Dim)
                }
                Piece::Env(n) => (format!("variable {n}: NOT SET"), Tone::Warn),
                Piece::EnvDefault(n, _) => {
                    (format!("variable {n}: not set (has a default)"), Tone::Dim)
                }
                Piece::Input(id) => (
                    format!("input `{id}`: the host prompts for it (a test connect asks you)"),
                    Tone::Dim,
                ),
                Piece::Builtin(n) => (format!("`${{{n}}}`: filled in by the host"), Tone::Dim),
                Piece::File(p) => (format!("file {p}: its contents are used"), Tone::Dim),
                Piece::Lit(_) => continue,
            };
            notes.push(line(format!("  {note}  (in {field})"), tone));
        }
    }
    notes
}

fn matrix_row(row: &Row) -> MatrixRow {
    let deck = match row.deck {
        None => "-",
        Some(true) => "valid",
        Some(false) => "invalid",
    };
    let mut detail = Vec::new();
    for (host, cell) in &row.cells {
        let (text, tone) = match cell {
            Cell::Absent => continue,
            Cell::Same => ("same as mcpdeck".to_owned(), Tone::Plain),
            Cell::Differs(fields) => (format!("differs in {}", fields.join(", ")), Tone::Warn),
            Cell::OnlyHere => ("only here (not in mcpdeck)".to_owned(), Tone::Plain),
            Cell::Invalid => ("invalid under its own rules".to_owned(), Tone::Error),
        };
        detail.push(line(format!("  {:<12} {text}", host.id()), tone));
    }
    MatrixRow {
        name: sanitize_capped(&row.name, 128),
        deck,
        cells: row
            .cells
            .iter()
            .map(|(_, c)| match c {
                Cell::OnlyHere => "only",
                other => other.label(),
            })
            .collect(),
        detail,
    }
}
