//! Everything a server says about itself, as raw JSON definitions: its tools, prompts and
//! resource templates (from this connection's cached catalogs, listed when needed) and its
//! `serverInfo` and `instructions` from the handshake. The poisoning scan reads them.

use crate::mcp::connection::ErrorClass;
use std::fmt::Write as _;

use super::ops::{self, OpContext};
use super::outcome::{Failure, Success};
use crate::mcp::api::{OpResult, PinReport, ScanReport};
use crate::mcp::pins::{ChangeKind, Drift, compare};
use crate::mcp::scan::{Definition, Kind, scan_definition};

/// The server itself as a definition: `serverInfo` and `instructions` from the handshake.
async fn server_definition(ctx: &OpContext<'_>) -> Definition {
    let conn = ctx.live.conn.read().await;
    let id = conn.identity();
    let value = serde_json::json!({
        "serverInfo": {"name": id.name, "title": id.title, "version": id.version},
        "instructions": id.instructions,
    });
    Definition::new(Kind::Server, value)
}

/// Every definition of the connected server, from its cached catalogs (listed when needed):
/// each is turned into JSON only as it is read ([`Definitions::iter`]), so a scan of 10,000
/// tools holds one tool's JSON at a time, not the whole catalog's a second time.
pub(super) struct Definitions {
    server: Definition,
    tools: std::sync::Arc<crate::mcp::catalog::ToolCatalog>,
    prompts: Option<std::sync::Arc<Vec<rmcp::model::Prompt>>>,
    listing: Option<std::sync::Arc<super::live::ResourceListing>>,
}

impl Definitions {
    /// The server itself first, then its tools, prompts and resource templates in the server's
    /// order.
    pub(super) fn iter(&self) -> impl Iterator<Item = Definition> + '_ {
        let as_json = |kind, value: Result<serde_json::Value, serde_json::Error>| {
            value.ok().map(|v| Definition::new(kind, v))
        };
        let prompts = self.prompts.iter().flat_map(|p| p.iter());
        let templates = self.listing.iter().flat_map(|l| l.templates.iter());
        std::iter::once(self.server.clone())
            .chain(
                self.tools
                    .tool_values()
                    .map(|v| Definition::new(Kind::Tool, v)),
            )
            .chain(prompts.filter_map(move |p| as_json(Kind::Prompt, serde_json::to_value(p))))
            .chain(
                templates
                    .filter_map(move |t| as_json(Kind::ResourceTemplate, serde_json::to_value(t))),
            )
    }
}

/// The definitions of the connected server (see [`Definitions`]).
pub(super) async fn definitions(ctx: &OpContext<'_>) -> Result<Definitions, Failure> {
    let server = server_definition(ctx).await;
    let tools = ops::tools(ctx).await?;
    let (resources, prompts) = ops::declared(ctx).await;
    let prompts = if prompts {
        Some(ops::prompts(ctx).await?)
    } else {
        None
    };
    let listing = if resources {
        Some(ops::resource_listing(ctx).await?)
    } else {
        None
    };
    Ok(Definitions {
        server,
        tools,
        prompts,
        listing,
    })
}

/// Compares a listing with the pins across restarts (on a blocking task: the store takes a
/// file lock), pinning what was never seen. None without a store, or when it is unusable.
async fn observe(ctx: &OpContext<'_>, defs: Vec<Definition>, kinds: Vec<Kind>) -> Option<Drift> {
    let store = ctx.pins?.clone();
    let key = ctx.slot.pin_key.clone();
    tokio::task::spawn_blocking(move || store.observe(&key, &defs, &kinds))
        .await
        .ok()?
        .ok()
}

/// A tool listing against the pins: the tools and the server itself. Each tool is turned into
/// JSON one at a time as the store compares it, so the catalog is not held twice.
pub(super) async fn observe_tools(
    ctx: &OpContext<'_>,
    catalog: &std::sync::Arc<crate::mcp::catalog::ToolCatalog>,
) -> Option<Drift> {
    let store = ctx.pins?.clone();
    let server = server_definition(ctx).await;
    let key = ctx.slot.pin_key.clone();
    let catalog = catalog.clone();
    tokio::task::spawn_blocking(move || {
        let current = || {
            std::iter::once(server.clone()).chain(
                catalog
                    .tool_values()
                    .map(|v| Definition::new(Kind::Tool, v)),
            )
        };
        store.observe_with(&key, current, &[Kind::Tool, Kind::Server])
    })
    .await
    .ok()?
    .ok()
}

/// A prompt or template listing against the pins.
pub(super) async fn observe_listed(
    ctx: &OpContext<'_>,
    kind: Kind,
    values: impl Iterator<Item = serde_json::Value>,
) {
    if ctx.pins.is_none() {
        return;
    }
    let defs = values.map(|v| Definition::new(kind, v)).collect();
    observe(ctx, defs, vec![kind]).await;
}

const ALL_KINDS: [Kind; 4] = [
    Kind::Server,
    Kind::Tool,
    Kind::Prompt,
    Kind::ResourceTemplate,
];

/// `pins`: every definition against the pins across restarts; `accept` makes the listing the
/// pins.
pub(super) async fn pins(ctx: &OpContext<'_>, accept: bool) -> Result<Success, Failure> {
    let Some(store) = ctx.pins.cloned() else {
        return Err(Failure::new(
            ErrorClass::NoState,
            "there is no state directory for pins: set HOME or XDG_STATE_HOME".to_owned(),
        ));
    };
    let defs = definitions(ctx).await?;
    let key = ctx.slot.pin_key.clone();
    // Compared one definition at a time (the console asks for this after every tool list); an
    // accept, which the operator asks for, holds them all.
    let result = tokio::task::spawn_blocking(move || {
        if accept {
            let all: Vec<Definition> = defs.iter().collect();
            store.accept(&key, &all, &ALL_KINDS)
        } else {
            store.observe_with(&key, || defs.iter(), &ALL_KINDS)
        }
    })
    .await
    .map_err(|e| Failure::new(ErrorClass::Pins, e.to_string()))?
    .map_err(|e| Failure::new(ErrorClass::Pins, e.to_string()))?;
    Ok(pin_success(ctx, result, accept))
}

/// `pins check`: every definition against pins from a file (no store involved).
pub(super) async fn check(
    ctx: &OpContext<'_>,
    pins: &std::collections::BTreeMap<String, crate::mcp::pins::Pin>,
) -> Result<Success, Failure> {
    let defs: Vec<Definition> = definitions(ctx).await?.iter().collect();
    Ok(pin_success(ctx, compare(pins, &defs, &ALL_KINDS), false))
}

fn pin_success(ctx: &OpContext<'_>, drift: Drift, accepted: bool) -> Success {
    let report = PinReport {
        server: ctx.slot.name.clone(),
        scope: ctx.slot.pin_key.scope.clone(),
        clean: drift.is_empty(),
        accepted,
        changes: drift.changes,
    };
    Success {
        text: pins_text(&report),
        result: OpResult::Pins(report),
        spills: Vec::new(),
    }
}

/// The drift as text: a summary line, then each change with its ratings and diff.
pub(crate) fn pins_text(report: &PinReport) -> String {
    let mut text = format!("{} ({}): ", report.server, report.scope);
    if report.clean {
        text.push_str("matches its pins\n");
        return text;
    }
    let _ = writeln!(
        text,
        "{} changes{}",
        report.changes.len(),
        if report.accepted { ", accepted" } else { "" }
    );
    for c in &report.changes {
        let what = match c.change {
            ChangeKind::Added => "added",
            ChangeKind::Removed => "removed",
            ChangeKind::Changed => "changed",
            ChangeKind::Renamed => "renamed",
        };
        let _ = write!(text, "{what} {} {}", c.kind.label(), c.name);
        if let Some(from) = &c.renamed_from {
            let _ = write!(text, " (renamed from {from})");
        }
        if !c.ratings.is_empty() {
            let ratings: Vec<String> = c
                .ratings
                .iter()
                .map(|r| {
                    serde_json::to_value(r)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_owned))
                        .unwrap_or_default()
                })
                .collect();
            let _ = write!(text, " [{}]", ratings.join(", "));
        }
        text.push('\n');
        for line in &c.diff {
            let _ = writeln!(text, "    {line}");
        }
    }
    text
}

/// `scan`: every definition through every rule.
pub(super) async fn scan_server(ctx: &OpContext<'_>) -> Result<Success, Failure> {
    let definitions = definitions(ctx).await?;
    let mut counts = std::collections::HashMap::new();
    let mut findings = Vec::new();
    for definition in definitions.iter() {
        *counts.entry(definition.kind).or_insert(0) += 1;
        findings.extend(scan_definition(&definition));
    }
    let count = |kind| counts.get(&kind).copied().unwrap_or(0);
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
