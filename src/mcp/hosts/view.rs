//! JSON views of what a host would do, shared by `mcpdeck hosts --json` and the console. Values
//! of variables are never included: only their names and whether they are set.

use serde_json::{Value, json};

use super::{HostDef, HostEffective, HostReport, Piece};
use crate::mcp::config::Counts;
use crate::mcp::status::var_is_set;

/// Every variable a definition needs, with the field that uses it.
pub(super) fn variables(def: &HostDef) -> Vec<Value> {
    let mut out = Vec::new();
    for (field, text) in def.transport.fields() {
        for piece in text.variables() {
            out.push(match piece {
                Piece::Env(name) => {
                    json!({"field": field, "kind": "env", "name": name, "set": var_is_set(name)})
                }
                Piece::EnvDefault(name, _) => {
                    json!({"field": field, "kind": "env-with-default", "name": name, "set": var_is_set(name)})
                }
                Piece::Input(id) => json!({"field": field, "kind": "input", "name": id}),
                Piece::Builtin(name) => json!({"field": field, "kind": "builtin", "name": name}),
                Piece::File(path) => json!({"field": field, "kind": "file", "name": path}),
                Piece::Lit(_) => continue,
            });
        }
    }
    out
}

/// One effective server.
pub(crate) fn entry_view(server: &HostEffective) -> Value {
    let entry = &server.entry;
    json!({
        "name": entry.name,
        "scope": entry.origin.scope,
        "file": entry.origin.file,
        "line": entry.origin.line,
        "loaded": server.loaded,
        "valid": entry.def.is_some(),
        "transport": entry.def.as_ref().map(|d| d.transport.kind()),
        "disabled": entry.def.as_ref().is_some_and(|d| d.disabled),
        "definition": entry.raw,
        "hiddenCredentials": super::values::hidden_count(&entry.raw),
        "variables": entry.def.as_ref().map(variables).unwrap_or_default(),
        "shadowed": server.shadowed,
        "diagnostics": entry.diagnostics,
    })
}

/// A whole host report.
pub(crate) fn report_view(report: &HostReport) -> Value {
    let files: Vec<Value> = report
        .files
        .iter()
        .map(|f| {
            json!({
                "scope": f.scope,
                "path": f.path,
                "present": f.present,
                "unusable": f.unusable,
                "servers": f.entries.len(),
                "diagnostics": f.all_diagnostics().collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "host": report.host,
        "name": report.host.name(),
        "found": report.found(),
        "files": files,
        "servers": report.servers.iter().map(entry_view).collect::<Vec<_>>(),
        "traps": report.traps,
        "counts": Counts::of(report.all_diagnostics()),
    })
}
