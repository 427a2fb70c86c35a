//! `mcpdeck status`: the status report as a table or as the `{}` proxy envelope.

use std::fmt::Write as _;

use super::Context;
use super::exit::Exit;
use super::output::{print_json, print_text};
use crate::mcp::status::{SourceView, StatusReport, report, var_is_set};
use crate::mcp::trust::TrustState;

/// Prints the status report; always exit 0 (problems are in the report).
pub fn run(cx: &Context, json: bool) -> Exit {
    let status = report(&cx.config, &cx.trust, &var_is_set);
    if json {
        print_json(&envelope(&status));
    } else {
        print_text(&render(&status));
    }
    Exit::Ok
}

/// `mcpdeck status --live`: connects to every server that can connect (in turn) and reports
/// what each answered. Exit 0 when every one answered, 4 when any did not.
pub fn live(cx: Context, json: bool) -> Exit {
    use crate::mcp::api::{LiveServer, LiveStatus, OpResult};
    use crate::mcp::engine::{Failure, Outcome, Success};
    use crate::mcp::status::ServerState;
    let plan: super::run_op::Plan = Box::new(move |engine, cancel| {
        Box::pin(async move {
            let status = engine.status();
            let mut rows = Vec::new();
            let mut text = String::new();
            let mut failed = 0;
            for server in &status.servers {
                let name = server.name.clone();
                if server.state != ServerState::Disconnected {
                    let _ = writeln!(text, "{name}  {} (not connected)", server.state.label());
                    rows.push(LiveServer {
                        name,
                        state: server.state.label().to_owned(),
                        probe: None,
                        error: None,
                    });
                    continue;
                }
                match engine.probe(&name, cancel).await {
                    Ok(probe) => {
                        let _ = writeln!(
                            text,
                            "{name}  ok  protocol {}  {} {}  ping {:.1} ms  connect {} ms\n    {}",
                            probe.protocol_version,
                            probe.server_name.as_deref().unwrap_or("(no name)"),
                            probe.server_version.as_deref().unwrap_or(""),
                            probe.ping_ms,
                            probe.connect_ms,
                            if probe.capabilities.is_empty() {
                                "no capabilities declared".to_owned()
                            } else {
                                probe.capabilities.join(", ")
                            }
                        );
                        rows.push(LiveServer {
                            name,
                            state: "connected".to_owned(),
                            probe: Some(probe),
                            error: None,
                        });
                    }
                    Err(failure) => {
                        failed += 1;
                        let _ = writeln!(
                            text,
                            "{name}  failed  {}: {}",
                            failure.class, failure.message
                        );
                        rows.push(LiveServer {
                            name,
                            state: "failed".to_owned(),
                            probe: None,
                            error: Some(serde_json::json!({
                                "class": failure.class,
                                "message": failure.message,
                            })),
                        });
                    }
                }
            }
            let result = LiveStatus { servers: rows };
            let body = if failed == 0 {
                Ok(Success {
                    result: OpResult::Live(result),
                    text,
                    spills: Vec::new(),
                })
            } else {
                let mut failure = Failure::new(
                    "unreachable",
                    format!("{failed} server(s) did not answer"),
                    4,
                );
                failure.detail = serde_json::to_value(&result).ok();
                failure.text = Some(text);
                Err(failure)
            };
            Outcome {
                server: None,
                operation: "status.live".to_owned(),
                body,
            }
        })
    });
    super::run_op::run_plan_with(cx, plan, super::run_op::Printing::json(json))
}

/// The `--json` shape shared with `mcpdeck proxy '{}'`.
pub fn envelope(status: &StatusReport) -> serde_json::Value {
    serde_json::json!({
        "ok": true,
        "server": null,
        "operation": "status",
        "result": status,
    })
}

/// `file:line` of a source.
pub fn location(source: &SourceView) -> String {
    match source.line {
        Some(line) => format!("{}:{line}", source.file.display()),
        None => source.file.display().to_string(),
    }
}

/// The human table.
pub fn render(status: &StatusReport) -> String {
    let mut out = String::new();
    let project = &status.project;
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
    if status.servers.is_empty() {
        out.push_str(
            "no servers configured (see `mcpdeck config check` for the files looked at)\n",
        );
    } else {
        let width = status
            .servers
            .iter()
            .map(|s| s.name.chars().count())
            .max()
            .unwrap_or(6)
            .max(6);
        let _ = writeln!(
            out,
            "{:<width$}  {:<12}  {:<9}  SOURCE",
            "SERVER", "STATE", "TRANSPORT"
        );
        for s in &status.servers {
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
            for r in &s.references {
                let set = if r.set { "set" } else { "NOT SET" };
                let _ = writeln!(
                    out,
                    "{:<width$}    ${{{}}} in {} ({set})",
                    "", r.variable, r.field
                );
            }
        }
    }
    let d = status.diagnostics;
    if d.errors + d.warnings > 0 {
        let _ = writeln!(
            out,
            "\n{} error(s), {} warning(s) in configuration: run `mcpdeck config check`",
            d.errors, d.warnings
        );
    }
    out
}
