//! Everything a server says about itself, as raw JSON definitions: its tools, prompts and
//! resource templates (from this connection's cached catalogs, listed when needed) and its
//! `serverInfo` and `instructions` from the handshake. The poisoning scan reads them.

use std::fmt::Write as _;

use super::ops::{self, OpContext};
use super::outcome::{Failure, Success};
use crate::mcp::api::{OpResult, ScanReport};
use crate::mcp::scan::{Definition, Kind, scan};

/// Every definition of the connected server: the server itself first, then its tools,
/// prompts and resource templates in the server's order.
pub(super) async fn definitions(ctx: &OpContext<'_>) -> Result<Vec<Definition>, Failure> {
    let server = {
        let conn = ctx.live.conn.read().await;
        let id = conn.identity();
        serde_json::json!({
            "serverInfo": {"name": id.name, "title": id.title, "version": id.version},
            "instructions": id.instructions,
        })
    };
    let mut out = vec![Definition::new(Kind::Server, server)];
    let as_json = |kind, value: Result<serde_json::Value, serde_json::Error>| {
        value.ok().map(|v| Definition::new(kind, v))
    };
    let tools = ops::tools(ctx).await?;
    out.extend(
        tools
            .tools()
            .iter()
            .filter_map(|t| as_json(Kind::Tool, serde_json::to_value(t))),
    );
    let (resources, prompts) = ops::declared(ctx).await;
    if prompts {
        let listed = ops::prompts(ctx).await?;
        out.extend(
            listed
                .iter()
                .filter_map(|p| as_json(Kind::Prompt, serde_json::to_value(p))),
        );
    }
    if resources {
        let listing = ops::resource_listing(ctx).await?;
        out.extend(
            listing
                .templates
                .iter()
                .filter_map(|t| as_json(Kind::ResourceTemplate, serde_json::to_value(t))),
        );
    }
    Ok(out)
}

/// `scan`: every definition through every rule.
pub(super) async fn scan_server(ctx: &OpContext<'_>) -> Result<Success, Failure> {
    let definitions = definitions(ctx).await?;
    let count = |kind| definitions.iter().filter(|d| d.kind == kind).count();
    let findings = scan(&definitions);
    let report = ScanReport {
        server: ctx.slot.name.clone(),
        tools: count(Kind::Tool),
        prompts: count(Kind::Prompt),
        resource_templates: count(Kind::ResourceTemplate),
        clean: findings.is_empty(),
        findings,
    };
    let text = scan_text(&report);
    Ok(Success {
        result: OpResult::Scan(report),
        text,
        spills: Vec::new(),
    })
}

/// The scan as text: a summary line, then one line per finding.
pub(crate) fn scan_text(report: &ScanReport) -> String {
    let mut text = format!(
        "{}: scanned the server, {} tools, {} prompts, {} resource templates: ",
        report.server, report.tools, report.prompts, report.resource_templates
    );
    if report.clean {
        text.push_str("no findings\n");
        return text;
    }
    let _ = writeln!(text, "{} findings", report.findings.len());
    for f in &report.findings {
        let _ = writeln!(
            text,
            "{} {} {}:{}:{} [{}] {}",
            f.kind.label(),
            f.name,
            f.field,
            f.line,
            f.column,
            f.rule,
            f.excerpt
        );
    }
    text
}
