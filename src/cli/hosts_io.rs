//! `mcpdeck hosts import` (a host's servers into mcpdeck's own file: preview, confirmation,
//! atomic write with a backup) and `mcpdeck hosts connect` (a host's definition test-connected
//! through mcpdeck's engine, with the trust rules applied). Another host's files are only read.

use std::fmt::Write as _;
use std::io::{BufRead as _, IsTerminal as _, Write as _};
use std::path::PathBuf;

use serde_json::json;

use super::Context;
use super::ask::confirm;
use super::exit::Exit;
use super::hosts_cmd::{Target, places};
use super::output::{print_done, print_text};
use crate::mcp::config::Layer;
use crate::mcp::connection::ErrorClass;
use crate::mcp::hosts::import::plan;
use crate::mcp::hosts::probe::{inputs, prepare, try_connect};
use crate::mcp::hosts::{HostEnv, HostId, read};
use crate::mcp::sanitize::sanitize_capped;

fn fail(operation: &str, json: bool, class: ErrorClass, message: &str) -> Exit {
    super::output::fail(json, operation, class, message)
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
    let plan = match plan(&report, names, (&path, layer), &places(env)) {
        Ok(plan) => plan,
        Err(e) => return fail(OP, json, e.class, &e.message),
    };
    let mut preview = plan.preview().join("\n");
    preview.push('\n');
    let done = |backup: Option<PathBuf>| json!({"file": plan.path, "added": plan.added, "unchanged": plan.unchanged, "backup": backup});
    if plan.text.is_none() {
        if json {
            print_done(None, OP, &done(None));
        } else {
            print_text(&format!("{preview}nothing to write\n"));
        }
        return Exit::Ok;
    }
    if !json {
        print_text(&preview);
    }
    if !yes {
        if !std::io::stdin().is_terminal() {
            let message =
                "not writing without a terminal to confirm on; pass --yes to import from a script";
            return fail(OP, json, ErrorClass::NotConfirmed, message);
        }
        if !confirm(&format!("Write {}? [y/N] ", path.display())) {
            return fail(OP, json, ErrorClass::NotConfirmed, "nothing written");
        }
    }
    let Some(backups) = crate::mcp::backup::backup_dir() else {
        let message = "no place for a backup: set HOME or XDG_STATE_HOME";
        return fail(OP, json, ErrorClass::WriteFailed, message);
    };
    match plan.write(&backups) {
        Ok(backup) => {
            if json {
                print_done(None, OP, &done(backup));
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
        Err(e) => fail(OP, json, ErrorClass::WriteFailed, &e),
    }
}

/// Test-connects `server` as `host` would define it, then closes the connection.
pub fn connect(cx: &Context, env: &HostEnv, host: HostId, server: &str, json: bool) -> Exit {
    const OP: &str = "hosts.connect";
    let report = read(host, env);
    let Some(effective) = report.server(server) else {
        let message = format!("{} defines no server named `{server}`", host.name());
        return fail(OP, json, ErrorClass::UnknownServer, &message);
    };
    let trust = cx.trust.state(&cx.config);
    // Inputs are asked on the terminal; without one, the refusal names them (trust first).
    let tty = std::io::stdin().is_terminal();
    let unasked = std::cell::Cell::new(false);
    let mut answer = |id: &str| -> Option<String> {
        if !tty {
            unasked.set(true);
            return None;
        }
        ask_input(id)
    };
    let prepared = match prepare(host, effective, trust, &places(env), &mut answer) {
        Ok(p) => p,
        Err(r) => {
            let needed = effective.entry.def.as_ref().map(inputs).unwrap_or_default();
            if unasked.get() {
                let message = format!(
                    "`{server}` needs {} (`{}`), which {} asks for; run on a terminal to answer (nothing is stored)",
                    if needed.len() == 1 {
                        "an input"
                    } else {
                        "inputs"
                    },
                    needed.join("`, `"),
                    host.name()
                );
                return fail(OP, json, ErrorClass::InputNeeded, &message);
            }
            // `untrusted` exits 2 (refused), the others 1: the class says which.
            return fail(OP, json, r.class, &r.message);
        }
    };
    let where_ = prepared.source.clone();
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            let message = format!("cannot start the async runtime: {e}");
            return fail(OP, json, ErrorClass::Internal, &message);
        }
    };
    match runtime.block_on(try_connect(prepared)) {
        Ok(found) if json => {
            let result = json!({
                "host": host, "server": server, "source": where_,
                "name": found.name, "version": found.version,
                "protocol": found.protocol, "tools": found.tools,
            });
            print_done(None, OP, &result);
            Exit::Ok
        }
        Ok(found) => {
            print_text(&found.describe(host, server, &where_));
            Exit::Ok
        }
        Err(e) => {
            let message = format!("{} `{server}` ({where_}): {e}", host.id());
            fail(OP, json, ErrorClass::HostConnect, &message)
        }
    }
}

/// Asks the terminal for an input's value (not echoed back, never stored); empty is none.
fn ask_input(id: &str) -> Option<String> {
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
}
