//! `mcpdeck hosts`: other agent hosts' MCP configurations side by side, one host in detail,
//! their diagnostics, and export of an mcpdeck server in a host's format. Import and
//! test-connect live in `hosts_io`. mcpdeck never writes another host's files.

use std::fmt::Write as _;

use clap::Subcommand;

use super::Context;
use super::config_cmd::{write_diagnostics, write_file_check};
use super::exit::Exit;
use super::output::{fail, print_done, print_error, print_json, print_text};
use crate::mcp::config::Counts;
use crate::mcp::connection::ErrorClass;
use crate::mcp::hosts::compare::{Cell, Row, matrix, matrix_view};
use crate::mcp::hosts::convert::Places;
use crate::mcp::hosts::export::{dropped_fields, export as export_snippet};
use crate::mcp::hosts::{
    HostEffective, HostEnv, HostId, HostReport, Piece, read, read_all, report_view,
};
use crate::mcp::status::var_is_set;

/// `mcpdeck hosts …`.
#[derive(Debug, Subcommand)]
pub enum HostsCommand {
    /// What one host would load for this project: servers, provenance, variables, diagnostics.
    Show {
        /// claude-code, cursor, vscode, codex, gemini or windsurf.
        #[arg(value_parser = host_parser())]
        host: HostId,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Every host's diagnostics under its own rules; exit 1 when any is an error.
    Check {
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Test-connect a host's definition through mcpdeck's engine (trust rules apply).
    Connect {
        /// The host.
        #[arg(value_parser = host_parser())]
        host: HostId,
        /// The server name in that host's configuration.
        server: String,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Convert a host's servers into mcpdeck's configuration (preview, then an atomic write).
    Import {
        /// The host.
        #[arg(value_parser = host_parser())]
        host: HostId,
        /// Only these servers (default: every valid one).
        servers: Vec<String>,
        /// Write into the user or the project mcpdeck file.
        #[arg(long, value_enum)]
        to: Target,
        /// Write without asking (for scripts).
        #[arg(long)]
        yes: bool,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
    /// Print an mcpdeck server as a snippet in a host's format (nothing is written).
    Export {
        /// The mcpdeck server.
        server: String,
        /// The host whose format to use.
        #[arg(long = "for", value_parser = host_parser())]
        host: HostId,
        /// One JSON object on stdout.
        #[arg(long)]
        json: bool,
    },
}

/// Where `hosts import` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Target {
    /// `$XDG_CONFIG_HOME/mcpdeck/mcp.json`.
    User,
    /// `<project>/.mcpdeck/mcp.json`.
    Project,
}

/// Host names as clap values: listed in `--help`, completed by the shells, checked by clap.
fn host_parser() -> impl clap::builder::TypedValueParser<Value = HostId> {
    use clap::builder::TypedValueParser as _;
    clap::builder::PossibleValuesParser::new(HostId::ALL.map(HostId::id))
        .try_map(|s: String| HostId::parse(&s).ok_or("unknown host"))
}

/// Runs a `hosts` subcommand (`None`: the matrix).
pub fn run(cx: &Context, command: Option<HostsCommand>, json: bool) -> Exit {
    let env = HostEnv::from_process(&cx.config.project_root);
    match command {
        None => show_matrix(cx, &env, json),
        Some(HostsCommand::Show { host, json }) => show(&read(host, &env), json),
        Some(HostsCommand::Check { json }) => check(&read_all(&env), json),
        Some(HostsCommand::Export { server, host, json }) => export(cx, &server, host, json),
        Some(HostsCommand::Import {
            host,
            servers,
            to,
            yes,
            json,
        }) => super::hosts_io::import(cx, &env, host, &servers, to, yes, json),
        Some(HostsCommand::Connect { host, server, json }) => {
            super::hosts_io::connect(cx, &env, host, &server, json)
        }
    }
}

/// What `${…}` pieces mean, where set-ness matters.
pub fn places(env: &HostEnv) -> Places<'_> {
    Places {
        project: &env.project,
        home: env.home.as_deref(),
    }
}

fn show_matrix(cx: &Context, env: &HostEnv, json: bool) -> Exit {
    let reports = read_all(env);
    let rows = matrix(&cx.config, &reports, &places(env));
    if json {
        print_json(&matrix_json(env, &reports, &rows));
        return Exit::Ok;
    }
    let mut out = format!("hosts for {}\n", env.project.display());
    write_host_lines(&mut out, &reports);
    if rows.is_empty() {
        out.push_str("\nno servers in mcpdeck or any host\n");
        print_text(&out);
        return Exit::Ok;
    }
    write_matrix(&mut out, &rows);
    out.push_str("\n`mcpdeck hosts show HOST` explains one host; `mcpdeck hosts check` lists every diagnostic.\n");
    print_text(&out);
    Exit::Ok
}

/// The `--json` envelope of the matrix.
fn matrix_json(env: &HostEnv, reports: &[HostReport], rows: &[Row]) -> serde_json::Value {
    let hosts: Vec<_> = reports
        .iter()
        .map(|r| {
            serde_json::json!({
                "host": r.host,
                "found": r.found(),
                "files": r.files.iter().map(|f| serde_json::json!({"scope": f.scope, "path": f.path, "present": f.present})).collect::<Vec<_>>(),
                "servers": r.servers.len(),
                "counts": Counts::of(r.all_diagnostics()),
            })
        })
        .collect();
    super::output::done_envelope(
        None,
        "hosts",
        &serde_json::json!({"project": env.project, "hosts": hosts, "servers": matrix_view(rows)}),
    )
}

/// One line per host: its servers, diagnostics and the files found.
fn write_host_lines(out: &mut String, reports: &[HostReport]) {
    for r in reports {
        let counts = Counts::of(r.all_diagnostics());
        let found: Vec<String> = r
            .files
            .iter()
            .filter(|f| f.present)
            .map(|f| format!("{} ({})", f.path.display(), f.scope.label()))
            .collect();
        let files = if found.is_empty() {
            "no files".to_owned()
        } else {
            found.join(", ")
        };
        let _ = writeln!(
            out,
            "  {:<12} {} server(s), {} error(s), {} warning(s)  {files}",
            r.host.id(),
            r.servers.len(),
            counts.errors,
            counts.warnings
        );
    }
}

/// The server × host table, then where a host's definition differs from mcpdeck's.
fn write_matrix(out: &mut String, rows: &[Row]) {
    let width = rows
        .iter()
        .map(|r| r.name.len())
        .max()
        .unwrap_or(6)
        .clamp(6, 32);
    let _ = write!(out, "\n{:<width$}  {:<8}", "SERVER", "mcpdeck");
    for host in HostId::ALL {
        let _ = write!(out, "  {:<11}", host.id());
    }
    out.push('\n');
    let mut differences = Vec::new();
    for row in rows {
        let deck = match row.deck {
            None => "-",
            Some(true) => "valid",
            Some(false) => "invalid",
        };
        let _ = write!(out, "{:<width$}  {deck:<8}", row.name);
        for (host, cell) in &row.cells {
            let _ = write!(out, "  {:<11}", cell.label());
            if let Cell::Differs(fields) = cell {
                differences.push(format!(
                    "  {} in {}: {}",
                    row.name,
                    host.id(),
                    fields.join(", ")
                ));
            }
        }
        out.push('\n');
    }
    if !differences.is_empty() {
        out.push_str("\ndiffers from mcpdeck's definition in:\n");
        for d in differences {
            let _ = writeln!(out, "{d}");
        }
    }
}

fn show(report: &HostReport, json: bool) -> Exit {
    if json {
        print_done(None, "hosts.show", &report_view(report));
        return Exit::Ok;
    }
    let mut out = format!(
        "{} ({})\n\nfiles, lowest precedence first\n",
        report.host.name(),
        report.host.id()
    );
    for f in &report.files {
        let state = if !f.present {
            "not present".to_owned()
        } else if f.unusable {
            format!("{} server(s), UNUSABLE for the host", f.entries.len())
        } else {
            format!("{} server(s)", f.entries.len())
        };
        let _ = writeln!(
            out,
            "  {:<8} {}  ({state})",
            f.scope.label(),
            f.path.display()
        );
        for d in &f.diagnostics {
            let _ = writeln!(out, "    {d}");
        }
    }
    if report.servers.is_empty() {
        out.push_str("\nno servers\n");
    } else {
        out.push_str("\nservers\n");
        for s in &report.servers {
            describe_server(&mut out, s);
        }
    }
    if !report.traps.is_empty() {
        out.push_str("\nknown traps\n");
        for t in &report.traps {
            let _ = writeln!(out, "  ! {}", t.message);
        }
    }
    print_text(&out);
    Exit::Ok
}

fn describe_server(out: &mut String, s: &HostEffective) {
    let e = &s.entry;
    let kind = e.def.as_ref().map_or("invalid", |d| d.transport.kind());
    let line = e.origin.line.map(|l| format!(":{l}")).unwrap_or_default();
    let state = match (&e.def, s.loaded) {
        (None, _) => "not loaded (invalid)",
        (Some(d), true) if d.disabled => "disabled",
        (Some(_), true) => "loaded",
        (Some(_), false) => "not loaded (its file is unusable)",
    };
    let _ = writeln!(
        out,
        "  {}  [{kind}]  {} {}{line}  {state}",
        e.name,
        e.origin.scope.label(),
        e.origin.file.display()
    );
    let pretty = serde_json::to_string_pretty(&e.raw).unwrap_or_default();
    for l in pretty.lines() {
        let _ = writeln!(out, "      {l}");
    }
    if let Some(note) = crate::mcp::hosts::hidden_note(&e.raw) {
        let _ = writeln!(out, "      {note}");
    }
    if let Some(def) = &e.def {
        for (field, text) in def.transport.fields() {
            for piece in text.variables() {
                let note = match piece {
                    Piece::Env(n) => format!("variable {n}: {}", set(n)),
                    Piece::EnvDefault(n, _) => format!("variable {n} (has a default): {}", set(n)),
                    Piece::Input(id) => format!("input `{id}`: the host prompts for it"),
                    Piece::Builtin(n) => format!("`${{{n}}}`: filled in by the host"),
                    Piece::File(p) => format!("file {p}: its contents are used"),
                    Piece::Lit(_) => continue,
                };
                let _ = writeln!(out, "    {note}  (in {field})");
            }
        }
    }
    for shadow in &s.shadowed {
        let line = shadow.line.map(|l| format!(":{l}")).unwrap_or_default();
        let _ = writeln!(
            out,
            "    shadows {} {}{line}",
            shadow.scope.label(),
            shadow.file.display()
        );
    }
    for d in &e.diagnostics {
        let _ = writeln!(out, "    {d}");
    }
}

fn set(name: &str) -> &'static str {
    if var_is_set(name) { "set" } else { "NOT SET" }
}

fn check(reports: &[HostReport], json: bool) -> Exit {
    let counts = Counts::of(reports.iter().flat_map(HostReport::all_diagnostics));
    if json {
        print_json(&serde_json::json!({
            "ok": counts.errors == 0,
            "operation": "hosts.check",
            "result": {"hosts": reports.iter().map(report_view).collect::<Vec<_>>(), "counts": counts},
        }));
    } else {
        let mut out = String::new();
        for r in reports {
            let _ = writeln!(out, "{} ({})", r.host.name(), r.host.id());
            for f in &r.files {
                let servers = f.present.then_some(f.entries.len());
                write_file_check(&mut out, "  ", (f.scope.label(), 8), &f.path, servers);
                write_diagnostics(&mut out, "    ", f.all_diagnostics());
            }
            for t in &r.traps {
                let _ = writeln!(out, "  ! {}", t.message);
            }
        }
        if counts.errors + counts.warnings == 0 {
            out.push_str("\nevery host's configuration is clean\n");
        } else {
            let _ = writeln!(
                out,
                "\n{} error(s), {} warning(s)",
                counts.errors, counts.warnings
            );
        }
        print_text(&out);
    }
    if counts.errors > 0 {
        Exit::Usage
    } else {
        Exit::Ok
    }
}

fn export(cx: &Context, name: &str, host: HostId, json: bool) -> Exit {
    let fail = |class: ErrorClass, message: &str| fail(json, "hosts.export", class, message);
    let Some(server) = cx.config.server(name) else {
        return fail(
            ErrorClass::UnknownServer,
            &format!("mcpdeck has no server named `{name}`"),
        );
    };
    let Some(def) = &server.entry.def else {
        return fail(
            ErrorClass::InvalidDefinition,
            &format!(
                "`{name}` has errors in mcpdeck's configuration; `mcpdeck config check` lists them"
            ),
        );
    };
    match export_snippet(def, host) {
        Ok((snippet, notes)) => {
            if json {
                print_done(
                    None,
                    "hosts.export",
                    &serde_json::json!({
                        "host": host,
                        "server": name,
                        "snippet": snippet,
                        "notes": notes,
                        "droppedFields": dropped_fields(def),
                    }),
                );
            } else {
                print_text(&snippet);
                for n in notes {
                    print_error(&format!("note: {n}"));
                }
            }
            Exit::Ok
        }
        Err(problems) => fail(
            ErrorClass::Inexpressible,
            &format!(
                "{} cannot express `{name}` as defined: {}",
                host.name(),
                problems.join("; ")
            ),
        ),
    }
}
