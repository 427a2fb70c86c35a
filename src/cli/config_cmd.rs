//! `mcpdeck config check`, `mcpdeck config show` and `mcpdeck config schema`.

use std::fmt::Write as _;

use super::exit::Exit;
use super::output::{print_json, print_text};
use super::status_cmd::location;
use super::{ConfigCommand, Context};
use crate::mcp::config::Counts;
use crate::mcp::config::load::Effective;
use crate::mcp::config::schema::displayable;
use crate::mcp::status::{SourceView, static_state, var_is_set};
use crate::mcp::trust::TrustState;

/// `mcpdeck config ...`.
pub fn run(cx: &Context, command: ConfigCommand) -> Exit {
    match command {
        ConfigCommand::Check { json } => check(cx, json),
        ConfigCommand::Show { server, json } => show(cx, server.as_deref(), json),
        ConfigCommand::Schema => {
            let schema = crate::mcp::config::json_schema::mcp_json_schema();
            print_text(&serde_json::to_string_pretty(&schema).unwrap_or_default());
            Exit::Ok
        }
    }
}

/// Prints every diagnostic, files in precedence order; exit 1 when any is an error.
pub fn check(cx: &Context, json: bool) -> Exit {
    let counts = cx.config.counts();
    if json {
        let files: Vec<_> = cx
            .config
            .files
            .iter()
            .map(|f| {
                serde_json::json!({
                    "layer": f.layer,
                    "path": f.path,
                    "present": f.present,
                    "servers": f.entries.len(),
                    "diagnostics": f.all_diagnostics().collect::<Vec<_>>(),
                })
            })
            .collect();
        print_json(&serde_json::json!({
            "ok": counts.errors == 0,
            "operation": "config.check",
            "result": {"files": files, "counts": counts},
        }));
    } else {
        let mut out = String::new();
        for f in &cx.config.files {
            let servers = f.present.then_some(f.entries.len());
            write_file_check(&mut out, "", (f.layer.label(), 16), &f.path, servers);
            write_diagnostics(&mut out, "  ", f.all_diagnostics());
        }
        let _ = writeln!(out, "\n{}", summary(counts));
        print_text(&out);
    }
    if counts.errors > 0 {
        Exit::Usage
    } else {
        Exit::Ok
    }
}

/// One checked file's line: `LABEL  PATH  (N server(s))` or `(not present)`, after `indent`,
/// the label padded to `label.1` columns.
pub(super) fn write_file_check(
    out: &mut String,
    indent: &str,
    label: (&str, usize),
    path: &std::path::Path,
    servers: Option<usize>,
) {
    let state = servers.map_or_else(|| "not present".to_owned(), |n| format!("{n} server(s)"));
    let (label, width) = label;
    let _ = writeln!(out, "{indent}{label:<width$} {}  ({state})", path.display());
}

/// Each diagnostic on its own line after `indent`.
pub(super) fn write_diagnostics<'d>(
    out: &mut String,
    indent: &str,
    diagnostics: impl Iterator<Item = &'d crate::mcp::config::Diagnostic>,
) {
    for d in diagnostics {
        let _ = writeln!(out, "{indent}{d}");
    }
}

fn summary(c: Counts) -> String {
    if c.errors + c.warnings == 0 {
        "configuration is clean".to_owned()
    } else {
        format!("{} error(s), {} warning(s)", c.errors, c.warnings)
    }
}

/// Prints the effective definitions with provenance, references as written.
pub fn show(cx: &Context, only: Option<&str>, json: bool) -> Exit {
    let servers: Vec<_> = cx
        .config
        .servers
        .iter()
        .filter(|s| only.is_none_or(|name| s.entry.name == name))
        .collect();
    if let Some(name) = only
        && servers.is_empty()
    {
        return unknown_server(cx, name, json);
    }
    let trust = cx.trust.state(&cx.config);
    if json {
        print_json(&show_json(&servers, trust));
    } else {
        print_text(&show_text(&servers, trust));
    }
    Exit::Ok
}

/// `config show NAME` for a name no file defines: the error names the configured servers.
fn unknown_server(cx: &Context, name: &str, json: bool) -> Exit {
    let names: Vec<&str> = cx
        .config
        .servers
        .iter()
        .map(|s| s.entry.name.as_str())
        .collect();
    let message = format!(
        "no server named `{name}`; configured: {}",
        if names.is_empty() {
            "none".to_owned()
        } else {
            names.join(", ")
        }
    );
    super::output::fail(
        json,
        "config.show",
        crate::mcp::connection::ErrorClass::UnknownServer,
        &message,
    )
}

/// The `--json` envelope of `config show`.
fn show_json(servers: &[&Effective], trust: TrustState) -> serde_json::Value {
    let items: Vec<_> = servers
        .iter()
        .map(|s| {
            let refs: Vec<_> = s
                .entry
                .def
                .as_ref()
                .map(crate::mcp::config::ServerDef::references)
                .unwrap_or_default()
                .into_iter()
                .map(|(field, var)| serde_json::json!({"field": field, "variable": var, "set": var_is_set(&var)}))
                .collect();
            serde_json::json!({
                "name": s.entry.name,
                "state": static_state(s, trust),
                "source": SourceView::from(&s.entry.source),
                "definition": displayable(&s.entry.raw),
                "references": refs,
                "shadowed": s.shadowed.iter().map(SourceView::from).collect::<Vec<_>>(),
                "diagnostics": s.entry.diagnostics,
            })
        })
        .collect();
    super::output::done_envelope(None, "config.show", &serde_json::json!({"servers": items}))
}

/// The human text of `config show`.
fn show_text(servers: &[&Effective], trust: TrustState) -> String {
    let mut out = String::new();
    for s in servers {
        let source = SourceView::from(&s.entry.source);
        let _ = writeln!(
            out,
            "{}  [{}]  from {} {}",
            s.entry.name,
            static_state(s, trust).label(),
            source.layer.label(),
            location(&source)
        );
        let pretty = serde_json::to_string_pretty(&displayable(&s.entry.raw)).unwrap_or_default();
        for line in pretty.lines() {
            let _ = writeln!(out, "    {line}");
        }
        if let Some(def) = &s.entry.def {
            for (field, var) in def.references() {
                let set = if var_is_set(&var) { "set" } else { "NOT SET" };
                let _ = writeln!(out, "    ${{{var}}} in {field}: {set}");
            }
        }
        for shadow in &s.shadowed {
            let _ = writeln!(
                out,
                "    shadows {} {}",
                shadow.layer.label(),
                location(&SourceView::from(shadow))
            );
        }
        for d in &s.entry.diagnostics {
            let _ = writeln!(out, "    {d}");
        }
        out.push('\n');
    }
    if out.is_empty() {
        out.push_str("no servers configured\n");
    }
    out
}
