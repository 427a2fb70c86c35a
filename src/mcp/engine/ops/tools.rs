//! The tool operations: `tools.list`, `tools.search`, `tools.describe`, `tools.call` (plain or
//! as a task) and `ping`.

use crate::mcp::connection::ErrorClass;
use std::fmt::Write as _;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientRequest, RequestMetaObject, ServerResult,
};
use serde_json::Value;

use super::catalogs::relist_tools;
use super::{OpContext, bounded, tools, unexpected, with_raw};
use crate::mcp::api::{OpResult, SpillRef, ToolCall, ToolList, ToolMatch, ToolSearch};
use crate::mcp::catalog::ToolCatalog;
use crate::mcp::connection::raw::RawSlot;
use crate::mcp::connection::{Connection, max_total_for};
use crate::mcp::engine::Hint;
use crate::mcp::engine::outcome::{Failure, Success};
use crate::mcp::results::shape_tool_result;
use crate::mcp::sanitize::sanitize_capped;

/// `tools.list`.
pub(crate) async fn list_tools(ctx: &OpContext<'_>) -> Result<Success, Failure> {
    let catalog = tools(ctx).await?;
    let summaries = catalog.summaries();
    let mut text = super::heading(
        summaries.len(),
        ("tool", "tools"),
        &format!("on {}", ctx.slot.name),
    );
    for s in summaries {
        let _ = write!(text, "- {}", s.name);
        if let Some(title) = &s.title {
            let _ = write!(text, " ({title})");
        }
        if !s.description.is_empty() {
            let _ = write!(text, ": {}", s.description);
        }
        if !s.required.is_empty() {
            let _ = write!(text, " [required: {}]", s.required.join(", "));
        }
        if !s.flags.is_empty() {
            let flags: Vec<String> = s.flags.iter().map(ToString::to_string).collect();
            let _ = write!(text, " [flagged: {}]", flags.join(", "));
        }
        text.push('\n');
    }
    let (text, spills) = bounded(ctx, "tools.list", &text, Hint::ROOM)?;
    Ok(Success {
        result: OpResult::Tools(ToolList {
            count: summaries.len(),
            tools: summaries.to_vec(),
        }),
        text,
        spills,
    })
}

/// `tools.search`.
pub(crate) async fn search_tools(ctx: &OpContext<'_>, query: &str) -> Result<Success, Failure> {
    let catalog = tools(ctx).await?;
    let (hits, total) = catalog.search_counted(query);
    let shown_query = sanitize_capped(query, 200);
    let rest = format!("for \"{shown_query}\" on {}", ctx.slot.name);
    let mut text = if total > hits.len() {
        format!(
            "{} of {total} matches {rest} (the best shown):\n",
            hits.len()
        )
    } else {
        super::heading(hits.len(), ("match", "matches"), &rest)
    };
    let mut items = Vec::new();
    for (summary, rank) in &hits {
        let _ = writeln!(text, "- {}: {}", summary.name, summary.description);
        items.push(ToolMatch {
            tool: (*summary).clone(),
            rank: *rank,
        });
    }
    Ok(Success {
        result: OpResult::Search(ToolSearch {
            query: shown_query,
            matches: items,
            total,
        }),
        text,
        spills: Vec::new(),
    })
}

fn unknown_tool(catalog: &ToolCatalog, server: &str, tool: &str) -> Failure {
    let similar: Vec<String> = catalog
        .similar_names(tool)
        .into_iter()
        .map(|s| s.name.clone())
        .collect();
    let hint = if similar.is_empty() {
        String::new()
    } else {
        format!("; similar: {}", similar.join(", "))
    };
    Failure::new(
        ErrorClass::UnknownTool,
        format!(
            "server `{server}` has no tool `{}`{hint}",
            sanitize_capped(tool, 128)
        ),
    )
}

/// `tools.describe`.
pub(crate) async fn describe_tool(ctx: &OpContext<'_>, tool: &str) -> Result<Success, Failure> {
    let catalog = tools(ctx).await?;
    let Some(description) = catalog.describe(tool) else {
        return Err(unknown_tool(&catalog, &ctx.slot.name, tool));
    };
    let text = serde_json::to_string_pretty(&description).unwrap_or_default();
    let (text, spills) = bounded(ctx, &format!("tools.describe {tool}"), &text, 0)?;
    Ok(Success {
        result: OpResult::Describe(Box::new(description)),
        text,
        spills,
    })
}

/// `tools.call`: called once, except that a 2026 HTTP server's `-32020` (its `Mcp-Param-*`
/// headers, built from the listed schema, did not match what it expects now) is answered the
/// way the protocol asks: the tool listing is dropped and listed again, and the call is sent
/// once more with the headers the new schema gives. A second refusal is the answer.
pub(crate) async fn call_tool(
    ctx: &OpContext<'_>,
    tool: &str,
    args: serde_json::Map<String, Value>,
) -> Result<Success, Failure> {
    // The catalog gives the output schema and a clear error for unknown tools. A catalog that
    // cannot be listed (a bound, an error) does not stop the call: it runs unvalidated.
    let catalog = tools(ctx).await.ok();
    if let Some(catalog) = &catalog
        && !catalog.contains(tool)
    {
        return Err(unknown_tool(catalog, &ctx.slot.name, tool));
    }
    let mut schema = catalog.as_ref().and_then(|c| c.output_schema(tool));
    let mut conn = ctx.live.conn.read().await;
    // The answer's frame as the server sent it, for the raw view (a task's is not kept).
    let raw = RawSlot::default();
    let (result, frame) = if ctx.as_task {
        (call_as_task(ctx, &conn, tool, args).await?, None)
    } else {
        let mut answer = send_call(ctx, &conn, tool, &args, &raw).await;
        if let Err(e) = &answer
            && header_mismatch(&conn, e)
        {
            (ctx.note)(
                "the server refused the call's headers (JSON-RPC -32020); listing its tools \
                 again and sending the call once more",
            );
            drop(conn);
            let catalog = relist_tools(ctx).await?;
            if !catalog.contains(tool) {
                return Err(unknown_tool(&catalog, &ctx.slot.name, tool));
            }
            schema = catalog.output_schema(tool);
            conn = ctx.live.conn.read().await;
            answer = send_call(ctx, &conn, tool, &args, &raw).await;
        }
        match answer {
            Ok(ServerResult::CallToolResult(result))
                if crate::mcp::client::tasks::result_requires_task(&result) =>
            {
                (ctx.note)("the server runs this tool only as a task; running it as one");
                (call_as_task(ctx, &conn, tool, args).await?, None)
            }
            Ok(ServerResult::CallToolResult(result)) => (result, raw.take()),
            // A 2026 server's task handle (the tasks extension, checked as it arrived).
            Ok(ServerResult::CreateTaskResult(created)) => (
                conn.follow_task(created.task, ctx.task_timeout, ctx.cancel, ctx.note)
                    .await
                    .map_err(|e| ctx.request_failure(&e))?,
                None,
            ),
            Ok(_) => return Err(unexpected("tools/call")),
            Err(e) if crate::mcp::client::tasks::requires_task(&e) => {
                (ctx.note)("the server runs this tool only as a task; running it as one");
                (call_as_task(ctx, &conn, tool, args).await?, None)
            }
            Err(e) => return Err(ctx.request_failure(&e)),
        }
    };
    drop(conn);
    shape_call(ctx, tool, &result, schema.as_ref(), frame)
}

/// One `tools/call` request (with its input-required rounds).
async fn send_call(
    ctx: &OpContext<'_>,
    conn: &Connection,
    tool: &str,
    args: &serde_json::Map<String, Value>,
    raw: &RawSlot,
) -> Result<ServerResult, crate::mcp::connection::RequestError> {
    let mut params = CallToolRequestParams::new(tool.to_owned()).with_arguments(args.clone());
    if let Some(meta) = ctx.meta {
        // rmcp adds the protocol's own entries (version, client, progress token) as it sends.
        params.meta = Some(RequestMetaObject::from(meta.clone()));
    }
    let request = with_raw(
        ClientRequest::CallToolRequest(CallToolRequest::new(params)),
        raw,
    );
    let timeout = conn.request_timeout();
    conn.request_routed(
        request,
        timeout,
        max_total_for(timeout),
        ctx.cancel,
        ctx.progress,
    )
    .await
}

/// Whether `e` is a 2026 HTTP server's `HeaderMismatch`: the only refusal a fresh listing can
/// cure (the `Mcp-Param-*` headers come from the listed input schema).
fn header_mismatch(conn: &Connection, e: &crate::mcp::connection::RequestError) -> bool {
    conn.is_modern()
        && conn.transport_kind() == "http"
        && e.class
            == (ErrorClass::ServerError {
                code: HEADER_MISMATCH,
            })
}

/// JSON-RPC `HeaderMismatch` (2026-07-28, Streamable HTTP).
const HEADER_MISMATCH: i32 = -32020;

/// Shapes a tool result (a call's, or a task's) into a success, or a `tool_error` failure;
/// `frame` is the answer as the server sent it, when it was kept.
pub(crate) fn shape_call(
    ctx: &OpContext<'_>,
    tool: &str,
    result: &rmcp::model::CallToolResult,
    schema: Option<&serde_json::Map<String, Value>>,
    frame: Option<Vec<u8>>,
) -> Result<Success, Failure> {
    let origin = format!("tools.call {tool}");
    let shape_ctx = ctx.shape_context(&origin);
    let shaped = shape_tool_result(&shape_ctx, result, schema)
        .map_err(|e| Failure::new(ErrorClass::Spill, format!("writing a spill failed: {e}")))?;
    let raw = super::kept_raw(&shape_ctx, frame)?;
    let result = ToolCall {
        is_error: shaped.is_error,
        text: shaped.text.clone(),
        structured_content: shaped.structured.clone(),
        output_schema_verdict: shaped.verdict.clone(),
        spills: shaped
            .spills
            .iter()
            .map(|s| SpillRef {
                basename: s.basename.clone(),
                size: s.size,
                mime: s.mime.clone(),
            })
            .collect(),
        links: crate::mcp::results::links::resource_links(&shape_ctx, result),
        annotations: crate::mcp::results::annotations::of_blocks(&shape_ctx, &result.content),
        raw,
    };
    if shaped.is_error {
        let mut failure = Failure::new(
            ErrorClass::ToolError,
            format!("tool `{}` reported an error", sanitize_capped(tool, 128)),
        );
        failure.text = Some(shaped.text);
        failure.call = Some(Box::new(result));
        return Err(failure);
    }
    Ok(Success {
        result: OpResult::Call(result),
        text: shaped.text,
        spills: shaped.spills,
    })
}

async fn call_as_task(
    ctx: &OpContext<'_>,
    conn: &Connection,
    tool: &str,
    args: serde_json::Map<String, Value>,
) -> Result<rmcp::model::CallToolResult, Failure> {
    let call = crate::mcp::client::tasks::TaskCall {
        tool,
        args,
        meta: ctx.meta,
        deadline: ctx.task_timeout,
    };
    crate::mcp::client::tasks::call_as_task(conn, call, ctx.cancel, ctx.note)
        .await
        .map_err(|e| ctx.request_failure(&e))
}

/// `ping`: the round trip of the liveness check on the live connection (`ping`, or
/// `server/discover` on 2026-07-28, which has no ping).
pub(crate) async fn ping(ctx: &OpContext<'_>) -> Result<Success, Failure> {
    let conn = ctx.live.conn.read().await;
    let started = std::time::Instant::now();
    let (check, liveness) = conn.liveness_request();
    ctx.request(&conn, check).await?;
    let micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
    #[allow(clippy::cast_precision_loss)]
    let ms = micros as f64 / 1000.0;
    Ok(Success {
        text: format!("{} answered {liveness} in {ms:.1} ms", ctx.slot.name),
        result: crate::mcp::api::OpResult::Ping(crate::mcp::api::PingResult { rtt_ms: ms }),
        spills: Vec::new(),
    })
}
