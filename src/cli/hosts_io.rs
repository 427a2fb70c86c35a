//! `mcpdeck hosts import` (a host's servers into mcpdeck's own file: preview, confirmation,
//! atomic write with a backup) and `mcpdeck hosts connect` (a host's definition test-connected
//! through mcpdeck's engine, with the trust rules applied). Another host's files are only read.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::{BufRead as _, IsTerminal as _, Write as _};

use serde_json::{Map, Value, json};

use super::Context;
use super::ask::confirm;
use super::exit::Exit;
use super::hosts_cmd::{Target, places};
use super::output::{print_error, print_json, print_text};
use crate::mcp::config::Layer;
use crate::mcp::config::save::save_with_backup;
use crate::mcp::config::schema::{displayable, parse_file};
use crate::mcp::hosts::convert::{connect_def, to_deck};
use crate::mcp::hosts::{HostEnv, HostId, Piece, Scope, read};
use crate::mcp::sanitize::sanitize_capped;
use crate::mcp::trust::TrustState;

fn fail(operation: &str, json: bool, class: &str, message: &str, exit: Exit) -> Exit {
    if json {
        print_json(&json!({
            "ok": false,
            "operation": operation,
            "result": null,
            "error": {"class": class, "message": message},
        }));
    } else {
        print_error(message);
    }
    exit
}

/// Imports `names` (default: every valid server) from `host` into mcpdeck's `target` file.
pub fn import(
    cx: &Context,
    env: &HostEnv,
    host: HostId,
    names: &[String],
    target: Target,
    yes: bool,
    json: bool,
) -> Exit {
    const OP: &str = "hosts.import";
    let report = read(host, env);
    let (path, layer) = match target {
        Target::User => (cx.config_home.join("mcpdeck").join("mcp.json"), Layer::User),
        Target::Project => (
            cx.config.project_root.join(".mcpdeck").join("mcp.json"),
            Layer::ProjectDeck,
        ),
    };
    let chosen: Vec<_> = if names.is_empty() {
        report
            .servers
            .iter()
            .filter(|s| s.entry.def.is_some())
            .collect()
    } else {
        let mut out = Vec::new();
        for name in names {
            let Some(s) = report.server(name) else {
                let message = format!("{} defines no server named `{name}`", host.name());
                return fail(OP, json, "unknown_server", &message, Exit::Usage);
            };
            out.push(s);
        }
        out
    };
    if chosen.is_empty() {
        let message = format!("{} defines no valid server to import", host.name());
        return fail(OP, json, "nothing_to_import", &message, Exit::Usage);
    }
    let places = places(env);
    let mut converted: Vec<(String, Value)> = Vec::new();
    let mut problems = Vec::new();
    for s in &chosen {
        let name = &s.entry.name;
        let Some(def) = &s.entry.def else {
            let first = s
                .entry
                .diagnostics
                .iter()
                .find(|d| d.is_error())
                .map(ToString::to_string)
                .unwrap_or_default();
            problems.push(format!(
                "`{name}` is invalid under {}'s rules: {first}",
                host.name()
            ));
            continue;
        };
        match to_deck(def, name, &places, &path, layer) {
            Ok(v) => converted.push((name.clone(), v)),
            Err(reasons) => {
                for r in reasons {
                    problems.push(format!("`{name}`: {r}"));
                }
            }
        }
    }
    if !problems.is_empty() {
        let message = format!("not importing anything:\n  {}", problems.join("\n  "));
        return fail(OP, json, "refused", &message, Exit::Usage);
    }
    let existing = match std::fs::read_to_string(&path) {
        Ok(text) => {
            if let Ok(Value::Object(map)) = serde_json::from_str::<Value>(&text) {
                Some(map)
            } else {
                {
                    let message = format!(
                        "{} is not a valid mcpdeck configuration; fix it first (`mcpdeck config check`)",
                        path.display()
                    );
                    return fail(OP, json, "target_invalid", &message, Exit::Usage);
                }
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => {
            let message = format!("cannot read {}: {e}", path.display());
            return fail(OP, json, "target_invalid", &message, Exit::Usage);
        }
    };
    let mut doc = existing.clone().unwrap_or_default();
    let servers = doc
        .entry("mcpServers")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(servers) = servers.as_object_mut() else {
        let message = format!("`mcpServers` in {} is not an object", path.display());
        return fail(OP, json, "target_invalid", &message, Exit::Usage);
    };
    let mut added = Vec::new();
    let mut unchanged = Vec::new();
    for (name, value) in &converted {
        match servers.get(name) {
            Some(current) if current == value => unchanged.push(name.clone()),
            Some(_) => {
                let message = format!(
                    "{} already defines `{name}` differently; remove or rename it there first",
                    path.display()
                );
                return fail(OP, json, "conflict", &message, Exit::Usage);
            }
            None => {
                servers.insert(name.clone(), value.clone());
                added.push(name.clone());
            }
        }
    }
    let mut preview = format!(
        "import from {} into {} ({})\n",
        host.name(),
        path.display(),
        if existing.is_some() {
            "existing file"
        } else {
            "new file"
        }
    );
    for (name, value) in &converted {
        if added.contains(name) {
            let _ = writeln!(preview, "  + {name}: {}", displayable(value));
        } else {
            let _ = writeln!(preview, "  = {name}: already there, unchanged");
        }
    }
    if added.is_empty() {
        if json {
            print_json(
                &json!({"ok": true, "operation": OP, "result": {"file": path, "added": added, "unchanged": unchanged, "backup": null}}),
            );
        } else {
            print_text(&format!("{preview}nothing to write\n"));
        }
        return Exit::Ok;
    }
    let text = serde_json::to_string_pretty(&Value::Object(doc)).unwrap_or_default() + "\n";
    let check = parse_file(&text, &path, layer);
    if let Some(d) = check
        .diagnostics
        .iter()
        .chain(check.entries.iter().flat_map(|e| e.diagnostics.iter()))
        .find(|d| d.is_error())
    {
        let message = format!("the result would not be valid, nothing written: {d}");
        return fail(OP, json, "refused", &message, Exit::Usage);
    }
    if !json {
        print_text(&preview);
    }
    if !yes {
        if !std::io::stdin().is_terminal() {
            let message =
                "not writing without a terminal to confirm on; pass --yes to import from a script";
            return fail(OP, json, "refused", message, Exit::Refused);
        }
        if !confirm(&format!("Write {}? [y/N] ", path.display())) {
            return fail(OP, json, "refused", "nothing written", Exit::Refused);
        }
    }
    match save_with_backup(&path, &text) {
        Ok(backup) => {
            if json {
                print_json(
                    &json!({"ok": true, "operation": OP, "result": {"file": path, "added": added, "unchanged": unchanged, "backup": backup}}),
                );
            } else {
                let mut out = format!("wrote {}", path.display());
                if let Some(b) = backup {
                    let _ = write!(out, "; backup at {}", b.display());
                }
                if layer.is_project() {
                    out.push_str("\nproject servers stay inert until you run `mcpdeck trust`");
                }
                print_text(&out);
            }
            Exit::Ok
        }
        Err(e) => fail(OP, json, "write_failed", &e, Exit::Usage),
    }
}

/// Test-connects `server` as `host` would define it, then closes the connection.
pub fn connect(cx: &Context, env: &HostEnv, host: HostId, server: &str, json: bool) -> Exit {
    const OP: &str = "hosts.connect";
    let report = read(host, env);
    let Some(effective) = report.server(server) else {
        let message = format!("{} defines no server named `{server}`", host.name());
        return fail(OP, json, "unknown_server", &message, Exit::Usage);
    };
    let entry = &effective.entry;
    let Some(def) = &entry.def else {
        let first = entry
            .diagnostics
            .iter()
            .find(|d| d.is_error())
            .map(ToString::to_string)
            .unwrap_or_default();
        let message = format!(
            "`{server}` is invalid under {}'s rules: {first}",
            host.name()
        );
        return fail(OP, json, "invalid", &message, Exit::Usage);
    };
    let where_ = format!(
        "{} {}{}",
        entry.origin.scope.label(),
        entry.origin.file.display(),
        entry
            .origin
            .line
            .map(|l| format!(":{l}"))
            .unwrap_or_default()
    );
    if entry.origin.scope == Scope::Project {
        let state = cx.trust.state(&cx.config);
        if state != TrustState::Trusted {
            let why = match state {
                TrustState::NoProjectConfig => "this project has no mcpdeck project configuration to trust; import the server with `mcpdeck hosts import --to project`, then `mcpdeck trust`".to_owned(),
                other => format!("the project is {} in mcpdeck; run `mcpdeck trust` after reviewing it", other.label()),
            };
            let message = format!(
                "not connecting `{server}` ({where_}): a project file's definition is project configuration and stays inert until this project is trusted; {why}"
            );
            return fail(OP, json, "untrusted", &message, Exit::Refused);
        }
    }
    let mut inputs: Vec<String> = Vec::new();
    for (_, text) in def.transport.fields() {
        for piece in text.variables() {
            if let Piece::Input(id) = piece
                && !inputs.contains(id)
            {
                inputs.push(id.clone());
            }
        }
    }
    if !inputs.is_empty() && !std::io::stdin().is_terminal() {
        let message = format!(
            "`{server}` needs {} (`{}`), which {} asks for; run on a terminal to answer (nothing is stored)",
            if inputs.len() == 1 {
                "an input"
            } else {
                "inputs"
            },
            inputs.join("`, `"),
            host.name()
        );
        return fail(OP, json, "input_needed", &message, Exit::Refused);
    }
    let mut answer = |id: &str| -> Option<String> {
        let mut err = std::io::stderr().lock();
        let _ = write!(
            err,
            "value for input `{}` (not stored): ",
            sanitize_capped(id, 64)
        );
        let _ = err.flush();
        let mut line = String::new();
        std::io::stdin().lock().read_line(&mut line).ok()?;
        let v = line.trim_end_matches(['\r', '\n']).to_owned();
        (!v.is_empty()).then_some(v)
    };
    let (server_def, extra) = match connect_def(def, server, &places(env), &mut answer) {
        Ok(v) => v,
        Err(e) => {
            let message = format!("cannot test-connect `{server}`: {e}");
            return fail(OP, json, "unresolved", &message, Exit::Usage);
        }
    };
    let file_dir = entry
        .origin
        .file
        .parent()
        .map_or_else(|| env.project.clone(), std::path::Path::to_path_buf);
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            let message = format!("cannot start the async runtime: {e}");
            return fail(OP, json, "internal", &message, Exit::Usage);
        }
    };
    let outcome = runtime.block_on(try_connect(server_def, file_dir, extra));
    match outcome {
        Ok(found) => {
            let text = format!(
                "{} `{server}` ({where_}): connected to {} {} (protocol {}), {} tool(s); closed",
                host.id(),
                found.name,
                found.version,
                found.protocol,
                found
                    .tools
                    .map_or_else(|| "unknown number of".to_owned(), |n| n.to_string())
            );
            if json {
                print_json(&json!({
                    "ok": true,
                    "operation": OP,
                    "result": {
                        "host": host, "server": server, "source": where_,
                        "name": found.name, "version": found.version,
                        "protocol": found.protocol, "tools": found.tools,
                    },
                }));
            } else {
                print_text(&text);
            }
            Exit::Ok
        }
        Err(e) => {
            let message = format!("{} `{server}` ({where_}): {e}", host.id());
            fail(OP, json, "connection", &message, Exit::Connection)
        }
    }
}

struct Found {
    name: String,
    version: String,
    protocol: String,
    tools: Option<usize>,
}

async fn try_connect(
    def: crate::mcp::config::ServerDef,
    file_dir: std::path::PathBuf,
    extra: BTreeMap<String, String>,
) -> Result<Found, String> {
    let lookup = move |name: &str| {
        extra
            .get(name)
            .cloned()
            .or_else(|| std::env::var(name).ok())
    };
    let timeout = def.request_timeout();
    let mut conn = crate::mcp::connection::connect(&def, &file_dir, &lookup)
        .await
        .map_err(|e| format!("connection failed: {e}"))?;
    let id = conn.identity().clone();
    let tools = tokio::time::timeout(timeout, conn.peer().list_all_tools())
        .await
        .ok()
        .and_then(Result::ok)
        .map(|t| t.len());
    conn.close().await;
    Ok(Found {
        name: sanitize_capped(id.name.as_deref().unwrap_or("an unnamed server"), 128),
        version: sanitize_capped(id.version.as_deref().unwrap_or(""), 64),
        protocol: sanitize_capped(&id.protocol_version, 64),
        tools,
    })
}
