//! `mcpdeck status`: the status report as a table or as the `{}` proxy envelope.

use crate::mcp::connection::ErrorClass;
use std::fmt::Write as _;
use std::io::Write as _;

use super::Context;
use super::exit::Exit;
use crate::mcp::sanitize::{escape_json_text, sanitize};
use crate::mcp::status::{Overview, ServerStatus, SourceView, overview, var_is_set};
use crate::mcp::status_row::{RowJson, RowsShared, StatusRow, status_rows};
use crate::mcp::trust::TrustState;

/// Prints the status report; always exit 0 (problems are in the report).
///
/// The report is written one server at a time, so a file of 100,000 servers never holds its
/// whole table or JSON document in memory. The configuration is not freed: the process ends
/// once the report is written, and freeing 100,000 entries one at a time is work nobody waits
/// for (the operating system takes the memory back whole).
pub fn run(cx: Context, json: bool) -> Exit {
    let exit = report(&cx, json);
    std::mem::forget(cx);
    exit
}

/// Writes the report of `cx`'s configuration.
fn report(cx: &Context, json: bool) -> Exit {
    let overview = overview(&cx.config, &cx.trust);
    let trust = overview.project.trust;
    let shared = RowsShared::default();
    let rows = status_rows(&cx.config, trust, &var_is_set, &shared);
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, stdout_writer());
    let written = if json {
        write_json(&mut out, &overview, rows)
    } else {
        let rows = rows.map(|row| row.to_status());
        let width = cx
            .config
            .servers
            .iter()
            .map(|s| s.entry.name.chars().count())
            .max()
            .unwrap_or(6)
            .max(6);
        write_text(&mut out, &overview, rows, width)
    };
    // A closed stdout (`| head`) is not an error of the report.
    let _ = written.and_then(|()| out.flush());
    Exit::Ok
}

/// Standard output without the line buffering `std::io::stdout()` adds: that searched every
/// 64 KiB the report handed it for its last newline, and a `--json` report has one, at its end.
/// A copy of the descriptor, written whole; nothing else is written to standard output while
/// the report is.
fn stdout_writer() -> Box<dyn std::io::Write> {
    use std::os::fd::AsFd as _;
    match std::io::stdout().as_fd().try_clone_to_owned() {
        Ok(fd) => Box::new(std::fs::File::from(fd)),
        Err(_) => Box::new(std::io::stdout().lock()),
    }
}

/// The `--json` envelope shared with `mcpdeck proxy '{}'`, written piece by piece: the same
/// document as serialising the whole report, every piece escaped like any JSON output.
fn write_json<'a>(
    out: &mut impl std::io::Write,
    overview: &Overview,
    rows: impl Iterator<Item = StatusRow<'a>>,
) -> std::io::Result<()> {
    let mut buf = Vec::new();
    out.write_all(
        b"{\"ok\":true,\"server\":null,\"operation\":\"status\",\"result\":{\"project\":",
    )?;
    write_piece(out, &mut buf, &overview.project)?;
    out.write_all(b",\"servers\":[")?;
    let mut row_json = String::new();
    let mut same = RowJson::default();
    for (i, row) in rows.enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        row_json.clear();
        if row.write_json(&mut row_json, &mut same).is_none() {
            out.write_all(b"null")?;
            continue;
        }
        out.write_all(escape_json_text(&row_json).as_bytes())?;
    }
    out.write_all(b"],\"files\":")?;
    write_piece(out, &mut buf, &overview.files)?;
    out.write_all(b",\"diagnostics\":")?;
    write_piece(out, &mut buf, &overview.diagnostics)?;
    out.write_all(b"}}\n")
}

/// Writes one piece of the JSON document, escaped like any JSON output (`null` if it cannot be
/// serialised); `buf` is reused from piece to piece.
fn write_piece(
    out: &mut impl std::io::Write,
    buf: &mut Vec<u8>,
    value: &impl serde::Serialize,
) -> std::io::Result<()> {
    buf.clear();
    if serde_json::to_writer(&mut *buf, value).is_err() {
        return out.write_all(b"null");
    }
    // serde_json writes UTF-8 only.
    let json = std::str::from_utf8(buf).unwrap_or("null");
    out.write_all(escape_json_text(json).as_bytes())
}

/// The human table, written one server at a time; every piece is sanitised.
fn write_text(
    out: &mut impl std::io::Write,
    overview: &Overview,
    mut rows: impl Iterator<Item = ServerStatus>,
    width: usize,
) -> std::io::Result<()> {
    out.write_all(sanitize(&render_head(overview)).as_bytes())?;
    let Some(first) = rows.next() else {
        out.write_all(
            b"no servers configured (see `mcpdeck config check` for the files looked at)\n",
        )?;
        return out.write_all(sanitize(&render_tail(overview)).as_bytes());
    };
    writeln!(
        out,
        "{:<width$}  {:<12}  {:<9}  SOURCE",
        "SERVER", "STATE", "TRANSPORT"
    )?;
    for row in std::iter::once(first).chain(rows) {
        out.write_all(sanitize(&render_row(&row, width)).as_bytes())?;
    }
    out.write_all(sanitize(&render_tail(overview)).as_bytes())
}

/// `mcpdeck status --live`: connects to every server that can connect (in turn) and reports
/// what each answered. Exit 0 when every one answered, 4 when any did not.
pub fn live(cx: Context, json: bool) -> Exit {
    let plan: super::run_op::Plan =
        Box::new(move |engine, cancel| Box::pin(live_status(engine, cancel)));
    super::run_op::run_plan_with(cx, plan, super::run_op::Printing::json(json))
}

/// Probes every server that is not connected or failing already; the outcome fails (exit 4)
/// when any probe did.
async fn live_status(
    engine: &crate::mcp::engine::Engine,
    cancel: &tokio_util::sync::CancellationToken,
) -> crate::mcp::engine::Outcome {
    use crate::mcp::api::{LiveServer, LiveStatus, OpResult};
    use crate::mcp::engine::{Failure, Outcome, Success};
    use crate::mcp::status::ServerState;
    let status = engine.status();
    let mut rows = Vec::new();
    let mut text = String::new();
    for server in &status.servers {
        let name = server.name.clone();
        if server.state != ServerState::Disconnected {
            let _ = writeln!(text, "{name}  {} (not connected)", server.state.label());
            rows.push(LiveServer {
                name,
                state: server.state.label().to_owned(),
                probe: None,
                error: None,
                roots: server.roots.clone(),
            });
            continue;
        }
        let mut row = probe_row(engine, name, cancel, &mut text).await;
        // The roots the probe's connection was offered (decided before it connected).
        row.roots = engine
            .status()
            .servers
            .into_iter()
            .find(|s| s.name == row.name)
            .and_then(|s| s.roots);
        if let Some(roots) = &row.roots {
            let _ = writeln!(text, "    roots: {roots}");
        }
        rows.push(row);
    }
    let failed = rows.iter().filter(|row| row.error.is_some()).count();
    let result = LiveStatus { servers: rows };
    let body = if failed == 0 {
        Ok(Success {
            result: OpResult::Live(result),
            text,
            spills: Vec::new(),
        })
    } else {
        let mut failure = Failure::new(
            ErrorClass::Unreachable {
                servers: result.servers,
            },
            format!("{failed} server(s) did not answer"),
        );
        failure.text = Some(text);
        Err(failure)
    };
    Outcome {
        server: None,
        operation: "status.live".to_owned(),
        body,
    }
}

/// Probes one server: its row, and its line appended to `text`.
async fn probe_row(
    engine: &crate::mcp::engine::Engine,
    name: String,
    cancel: &tokio_util::sync::CancellationToken,
    text: &mut String,
) -> crate::mcp::api::LiveServer {
    use crate::mcp::api::LiveServer;
    match engine.probe(&name, cancel).await {
        Ok(probe) => {
            let _ = writeln!(
                text,
                "{name}  ok  protocol {} ({})  {} {}  {} {:.1} ms  connect {} ms\n    {}",
                probe.protocol_version,
                probe.era,
                probe.server_name.as_deref().unwrap_or("(no name)"),
                probe.server_version.as_deref().unwrap_or(""),
                probe.liveness,
                probe.ping_ms,
                probe.connect_ms,
                if probe.capabilities.is_empty() {
                    "no capabilities declared".to_owned()
                } else {
                    probe.capabilities.join(", ")
                }
            );
            LiveServer {
                name,
                state: "connected".to_owned(),
                probe: Some(probe),
                error: None,
                roots: None,
            }
        }
        Err(failure) => {
            let _ = writeln!(
                text,
                "{name}  failed  {}: {}",
                failure.class.name(),
                failure.message
            );
            LiveServer {
                name,
                state: "failed".to_owned(),
                probe: None,
                error: Some(failure),
                roots: None,
            }
        }
    }
}

/// `file:line` of a source.
pub fn location(source: &SourceView) -> String {
    match source.line {
        Some(line) => format!("{}:{line}", source.file.display()),
        None => source.file.display().to_string(),
    }
}

/// The project and trust lines above the table.
fn render_head(overview: &Overview) -> String {
    let mut out = String::new();
    let project = &overview.project;
    let _ = writeln!(out, "project  {}", project.root.display());
    let advice = match project.trust {
        TrustState::Untrusted => " — project servers are inert; review with `mcpdeck trust`",
        TrustState::Changed => {
            " — project definitions changed since trusted; inert until re-trusted (`mcpdeck trust`)"
        }
        TrustState::Trusted | TrustState::NoProjectConfig => "",
    };
    let _ = writeln!(out, "trust    {}{advice}", project.trust.label());
    if let Some(problem) = &project.trust_store_problem {
        let _ = writeln!(
            out,
            "         trust store unusable, treated as nothing trusted: {problem}"
        );
    }
    out.push('\n');
    out
}

/// One server's lines of the table.
fn render_row(s: &ServerStatus, width: usize) -> String {
    let mut out = String::new();
    let _ = write!(
        out,
        "{:<width$}  {:<12}  {:<9}  {} {}",
        s.name,
        s.state.label(),
        s.transport.unwrap_or("?"),
        s.source.layer.label(),
        location(&s.source),
    );
    if s.diagnostics.errors > 0 {
        let _ = write!(
            out,
            "  [{} error(s): `mcpdeck config check`]",
            s.diagnostics.errors
        );
    } else if s.diagnostics.warnings > 0 {
        let _ = write!(out, "  [{} warning(s)]", s.diagnostics.warnings);
    }
    out.push('\n');
    for shadow in &s.shadowed {
        let _ = writeln!(
            out,
            "{:<width$}    shadows {} {}",
            "",
            shadow.layer.label(),
            location(shadow)
        );
    }
    if let Some(sandbox) = &s.sandbox {
        let _ = writeln!(out, "{:<width$}    sandboxed: {sandbox}", "");
    }
    if let Some(roots) = &s.roots {
        let _ = writeln!(out, "{:<width$}    roots: {roots}", "");
    }
    for note in &s.roots_notes {
        let _ = writeln!(out, "{:<width$}    ({note})", "");
    }
    for r in &s.references {
        let set = if r.set { "set" } else { "NOT SET" };
        let _ = writeln!(
            out,
            "{:<width$}    ${{{}}} in {} ({set})",
            "", r.variable, r.field
        );
    }
    out
}

/// The diagnostics line below the table.
fn render_tail(overview: &Overview) -> String {
    let d = overview.diagnostics;
    if d.errors + d.warnings > 0 {
        format!(
            "\n{} error(s), {} warning(s) in configuration: run `mcpdeck config check`\n",
            d.errors, d.warnings
        )
    } else {
        String::new()
    }
}
