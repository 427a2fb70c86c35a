//! The proxy operations against one live connection: bounded discovery,
//! search, describe, calls, resources and prompts, each returning a [`Success`] whose
//! model-visible text is bounded and whose every string is sanitised and redacted.

use std::fmt::Write as _;
use std::sync::Arc;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientRequest, GetPromptRequest,
    GetPromptRequestParams, ListPromptsRequest, ListResourceTemplatesRequest, ListResourcesRequest,
    ListToolsRequest, PaginatedRequestParams, Prompt, ReadResourceRequest,
    ReadResourceRequestParams, ServerResult,
};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::outcome::{Failure, Success};
use super::slot::{Live, ResourceListing, Slot};
use crate::mcp::api::{
    OpResult, PromptGet, PromptList, ResourceList, ResourceRead, SpillRef, TemplateList,
    TemplateSummary, ToolCall, ToolList, ToolMatch, ToolSearch,
};
use crate::mcp::catalog::{
    CatalogKind, PageError, PageLimits, ToolCatalog, check_prompt_arguments, collect_pages,
    summarize_prompt, summarize_resources,
};
use crate::mcp::connection::{Connection, RequestError, max_total_for};
use crate::mcp::results::{
    BoundedText, ShapeContext, SpillDir, shape_prompt, shape_resource_read, shape_tool_result,
};
use crate::mcp::sanitize::sanitize_capped;

/// What an operation needs besides the connection.
pub struct OpContext<'a> {
    /// The server's slot.
    pub slot: &'a Slot,
    /// The connection.
    pub live: &'a Arc<Live>,
    /// This process's spills.
    pub spills: &'a SpillDir,
    /// Cancels the operation.
    pub cancel: &'a CancellationToken,
    /// Tells the face what happens (a task's status); serve mode hears nothing.
    pub note: &'a (dyn Fn(&str) + Send + Sync),
    /// Run a tool call as a task (the operator's choice for `optional` task support).
    pub as_task: bool,
    /// Where a tool call's progress reports go (serve mode's forwarding), if anywhere.
    pub progress: Option<&'a tokio::sync::mpsc::Sender<crate::mcp::connection::ProgressUpdate>>,
    /// Results keep the server's characters (see `ShapeContext::keep_data`).
    pub keep_data: bool,
}

impl OpContext<'_> {
    fn shape(&self, origin: &'_ str) -> (String, String) {
        (self.slot.name.clone(), origin.to_owned())
    }

    pub(super) async fn request(
        &self,
        conn: &Connection,
        request: ClientRequest,
    ) -> Result<ServerResult, Failure> {
        let timeout = conn.request_timeout();
        conn.request_cancellable(request, timeout, max_total_for(timeout), self.cancel)
            .await
            .map_err(|e| self.request_failure(&e))
    }

    pub(super) fn request_failure(&self, e: &RequestError) -> Failure {
        let failure = Failure::from_connect(e);
        if matches!(failure.class.as_str(), "exited" | "limit") {
            self.slot.on_exited();
        }
        failure
    }
}

fn unexpected(what: &str) -> Failure {
    Failure::new(
        "protocol",
        format!("the server answered {what} with an unexpected result type"),
        4,
    )
}

fn page_failure(e: PageError<Failure>) -> Failure {
    match e {
        PageError::Limit(limit) => Failure::limit(limit.to_string()),
        PageError::Fetch(f) => f,
    }
}

fn params(cursor: Option<String>) -> Option<PaginatedRequestParams> {
    cursor.map(|c| PaginatedRequestParams::default().with_cursor(Some(c)))
}

/// Every page of one catalog through `request(cursor)`, within the bounds of `kind`.
async fn list_pages<T>(
    ctx: &OpContext<'_>,
    conn: &Connection,
    kind: CatalogKind,
    request: impl Fn(Option<PaginatedRequestParams>) -> ClientRequest,
    extract: impl Fn(ServerResult) -> Option<(Vec<T>, Option<String>)>,
) -> Result<Vec<T>, PageError<Failure>> {
    collect_pages(kind, PageLimits::for_kind(kind), |cursor| {
        let request = request(params(cursor));
        let extract = &extract;
        async move {
            let result = ctx.request(conn, request).await?;
            extract(result).ok_or_else(|| unexpected(&format!("{kind} listing")))
        }
    })
    .await
}

/// The tool catalog of this generation, listing it (bounded) when not cached.
pub async fn tools(ctx: &OpContext<'_>) -> Result<Arc<ToolCatalog>, Failure> {
    let mut cache = ctx.live.tools.lock().await;
    if let Some(catalog) = cache.as_ref() {
        return Ok(catalog.clone());
    }
    let conn = ctx.live.conn.read().await;
    let tools = list_pages(
        ctx,
        &conn,
        CatalogKind::Tools,
        |params| {
            ClientRequest::ListToolsRequest(ListToolsRequest {
                params,
                ..Default::default()
            })
        },
        |r| match r {
            ServerResult::ListToolsResult(r) => Some((r.tools, r.next_cursor)),
            _ => None,
        },
    )
    .await
    .map_err(page_failure)?;
    ctx.slot.observe_tools(&tools);
    let catalog = Arc::new(ToolCatalog::new(ctx.live.generation, tools));
    ctx.slot.record_sizes(Some(catalog.len()), None, None);
    *cache = Some(catalog.clone());
    Ok(catalog)
}

/// Which optional capabilities the server declared (nothing is listed from one it did not).
async fn declared(ctx: &OpContext<'_>) -> (bool, bool) {
    let conn = ctx.live.conn.read().await;
    let caps = &conn.identity().capabilities;
    (caps.resources.is_some(), caps.prompts.is_some())
}

/// The answer to a listing of a capability the server did not declare: empty, and said so.
fn undeclared(ctx: &OpContext<'_>, what: &str, result: OpResult) -> Success {
    Success {
        result,
        text: format!(
            "{} offers no {what} (it did not declare the capability; nothing was asked)\n",
            sanitize_capped(&ctx.slot.name, 128)
        ),
        spills: Vec::new(),
    }
}

pub(super) async fn resource_listing(ctx: &OpContext<'_>) -> Result<Arc<ResourceListing>, Failure> {
    let mut cache = ctx.live.resources.lock().await;
    if let Some(listing) = cache.as_ref() {
        return Ok(listing.clone());
    }
    if !declared(ctx).await.0 {
        let empty = Arc::new(ResourceListing {
            resources: Vec::new(),
            templates: Vec::new(),
        });
        *cache = Some(empty.clone());
        return Ok(empty);
    }
    let conn = ctx.live.conn.read().await;
    let resources = list_pages(
        ctx,
        &conn,
        CatalogKind::Resources,
        |params| {
            ClientRequest::ListResourcesRequest(ListResourcesRequest {
                params,
                ..Default::default()
            })
        },
        |r| match r {
            ServerResult::ListResourcesResult(r) => Some((r.resources, r.next_cursor)),
            _ => None,
        },
    )
    .await
    .map_err(page_failure)?;
    // Templates are optional: a server without them answers an error, which is not a failure of
    // the listing. Their bounds still hold.
    let templates = list_pages(
        ctx,
        &conn,
        CatalogKind::ResourceTemplates,
        |params| {
            ClientRequest::ListResourceTemplatesRequest(ListResourceTemplatesRequest {
                params,
                ..Default::default()
            })
        },
        |r| match r {
            ServerResult::ListResourceTemplatesResult(r) => {
                Some((r.resource_templates, r.next_cursor))
            }
            _ => None,
        },
    )
    .await;
    let templates = match templates {
        Ok(t) => t,
        Err(PageError::Limit(limit)) => return Err(Failure::limit(limit.to_string())),
        Err(PageError::Fetch(_)) => Vec::new(),
    };
    let listing = Arc::new(ResourceListing {
        resources,
        templates,
    });
    ctx.slot
        .record_sizes(None, Some(listing.resources.len()), None);
    *cache = Some(listing.clone());
    Ok(listing)
}

async fn prompts(ctx: &OpContext<'_>) -> Result<Arc<Vec<Prompt>>, Failure> {
    let mut cache = ctx.live.prompts.lock().await;
    if let Some(prompts) = cache.as_ref() {
        return Ok(prompts.clone());
    }
    if !declared(ctx).await.1 {
        let empty = Arc::new(Vec::new());
        *cache = Some(empty.clone());
        return Ok(empty);
    }
    let conn = ctx.live.conn.read().await;
    let prompts = list_pages(
        ctx,
        &conn,
        CatalogKind::Prompts,
        |params| {
            ClientRequest::ListPromptsRequest(ListPromptsRequest {
                params,
                ..Default::default()
            })
        },
        |r| match r {
            ServerResult::ListPromptsResult(r) => Some((r.prompts, r.next_cursor)),
            _ => None,
        },
    )
    .await
    .map_err(page_failure)?;
    let prompts = Arc::new(prompts);
    ctx.slot.record_sizes(None, None, Some(prompts.len()));
    *cache = Some(prompts.clone());
    Ok(prompts)
}

/// Bounds a listing's text like any result: past 50 KiB / 2,000 lines the rest is spilled.
fn bounded(
    ctx: &OpContext<'_>,
    origin: &str,
    text: &str,
) -> Result<(String, Vec<crate::mcp::results::SpillEntry>), Failure> {
    let io = |e: std::io::Error| Failure::new("spill", format!("writing a spill failed: {e}"), 1);
    let mut out = BoundedText::new(ctx.spills, origin);
    out.push(text).map_err(io)?;
    let bounded = out.finish().map_err(io)?;
    let mut visible = bounded.text.clone();
    if let Some(note) = bounded.note() {
        let _ = write!(visible, "\n{note}");
    }
    let spills = bounded.overflow.map(|o| vec![o.spill]).unwrap_or_default();
    Ok((visible, spills))
}

/// `tools.list`.
pub async fn list_tools(ctx: &OpContext<'_>) -> Result<Success, Failure> {
    let catalog = tools(ctx).await?;
    let summaries = catalog.summaries();
    let mut text = format!("{} tools on {}:\n", summaries.len(), ctx.slot.name);
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
    text.push_str(super::outcome::hints::DESCRIBE);
    let (text, spills) = bounded(ctx, "tools.list", &text)?;
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
pub async fn search_tools(ctx: &OpContext<'_>, query: &str) -> Result<Success, Failure> {
    let catalog = tools(ctx).await?;
    let hits = catalog.search(query);
    let shown_query = sanitize_capped(query, 200);
    let mut text = format!(
        "{} matches for \"{shown_query}\" on {}:\n",
        hits.len(),
        ctx.slot.name
    );
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
        "unknown_tool",
        format!(
            "server `{server}` has no tool `{}`{hint}",
            sanitize_capped(tool, 128)
        ),
        1,
    )
}

/// `tools.describe`.
pub async fn describe_tool(ctx: &OpContext<'_>, tool: &str) -> Result<Success, Failure> {
    let catalog = tools(ctx).await?;
    let Some(description) = catalog.describe(tool) else {
        return Err(unknown_tool(&catalog, &ctx.slot.name, tool));
    };
    let text = serde_json::to_string_pretty(&description).unwrap_or_default();
    let (text, spills) = bounded(ctx, &format!("tools.describe {tool}"), &text)?;
    Ok(Success {
        result: OpResult::Describe(Box::new(description)),
        text,
        spills,
    })
}

/// `tools.call`: called once; never retried.
pub async fn call_tool(
    ctx: &OpContext<'_>,
    tool: &str,
    args: serde_json::Map<String, Value>,
) -> Result<Success, Failure> {
    // The catalog gives the output schema and a clear error for unknown tools. A catalog that
    // cannot be listed (a bound, an error) does not stop the call: it runs unvalidated.
    let catalog = tools(ctx).await.ok();
    if let Some(catalog) = &catalog
        && catalog.get(tool).is_none()
    {
        return Err(unknown_tool(catalog, &ctx.slot.name, tool));
    }
    let schema = catalog
        .as_ref()
        .and_then(|c| c.output_schema(tool).cloned());
    let conn = ctx.live.conn.read().await;
    let result = if ctx.as_task {
        call_as_task(ctx, &conn, tool, args).await?
    } else {
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(
            CallToolRequestParams::new(tool.to_owned()).with_arguments(args.clone()),
        ));
        let timeout = conn.request_timeout();
        match conn
            .request_routed(
                request,
                timeout,
                max_total_for(timeout),
                ctx.cancel,
                ctx.progress,
            )
            .await
        {
            Ok(ServerResult::CallToolResult(result))
                if crate::mcp::client::tasks::result_requires_task(&result) =>
            {
                (ctx.note)("the server runs this tool only as a task; running it as one");
                call_as_task(ctx, &conn, tool, args).await?
            }
            Ok(ServerResult::CallToolResult(result)) => result,
            Ok(_) => return Err(unexpected("tools/call")),
            Err(e) if crate::mcp::client::tasks::requires_task(&e) => {
                (ctx.note)("the server runs this tool only as a task; running it as one");
                call_as_task(ctx, &conn, tool, args).await?
            }
            Err(e) => return Err(ctx.request_failure(&e)),
        }
    };
    drop(conn);
    shape_call(ctx, tool, &result, schema.as_ref())
}

/// Shapes a tool result (a call's, or a task's) into a success, or a `tool_error` failure.
pub(super) fn shape_call(
    ctx: &OpContext<'_>,
    tool: &str,
    result: &rmcp::model::CallToolResult,
    schema: Option<&serde_json::Map<String, Value>>,
) -> Result<Success, Failure> {
    let origin = format!("tools.call {tool}");
    let (server, origin) = ctx.shape(&origin);
    let shape_ctx = ShapeContext {
        server: &server,
        origin: &origin,
        spills: ctx.spills,
        redactor: &ctx.live.redactor,
        keep_data: ctx.keep_data,
    };
    let shaped = shape_tool_result(&shape_ctx, result, schema)
        .map_err(|e| Failure::new("spill", format!("writing a spill failed: {e}"), 1))?;
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
    };
    if shaped.is_error {
        let mut failure = Failure::new(
            "tool_error",
            format!("tool `{}` reported an error", sanitize_capped(tool, 128)),
            5,
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
    crate::mcp::client::tasks::call_as_task(conn, tool, args, ctx.cancel, ctx.note)
        .await
        .map_err(|e| ctx.request_failure(&e))
}

/// `ping`: the round trip on the live connection.
pub async fn ping(ctx: &OpContext<'_>) -> Result<Success, Failure> {
    let conn = ctx.live.conn.read().await;
    let started = std::time::Instant::now();
    ctx.request(
        &conn,
        ClientRequest::PingRequest(rmcp::model::PingRequest::default()),
    )
    .await?;
    let micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
    #[allow(clippy::cast_precision_loss)]
    let ms = micros as f64 / 1000.0;
    Ok(Success {
        text: format!("{} answered ping in {ms:.1} ms", ctx.slot.name),
        result: crate::mcp::api::OpResult::Ping(crate::mcp::api::PingResult { rtt_ms: ms }),
        spills: Vec::new(),
    })
}

/// `resources.list`: opaque references only, never raw URIs.
pub async fn list_resources(ctx: &OpContext<'_>) -> Result<Success, Failure> {
    if !declared(ctx).await.0 {
        let empty = OpResult::Resources(ResourceList {
            resources: Vec::new(),
            templates: Vec::new(),
            declared: false,
        });
        return Ok(undeclared(ctx, "resources", empty));
    }
    let listing = resource_listing(ctx).await?;
    let summaries = {
        let mut refs = ctx
            .live
            .refs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        summarize_resources(&listing.resources, &mut refs, ctx.live.generation)
    };
    let mut text = format!("{} resources on {}:\n", summaries.len(), ctx.slot.name);
    for s in &summaries {
        let _ = write!(text, "- {} {}", s.reference, s.name);
        if let Some(mime) = &s.mime_type {
            let _ = write!(text, " ({mime})");
        }
        if let Some(size) = s.size {
            let _ = write!(text, " {size} bytes");
        }
        if !s.description.is_empty() {
            let _ = write!(text, ": {}", s.description);
        }
        text.push('\n');
    }
    let templates: Vec<TemplateSummary> = listing
        .templates
        .iter()
        .map(|t| TemplateSummary {
            name: sanitize_capped(&t.name, 128),
            // The agents' listing shows no raw URI, templates included: the operator's
            // `resources.templates` fills these.
            uri_template: String::new(),
            variables: Vec::new(),
            title: t.title.as_deref().map(|x| sanitize_capped(x, 200)),
            description: t
                .description
                .as_deref()
                .map(|d| crate::mcp::catalog::summary::first_line(d, 200)),
            mime_type: t.mime_type.as_deref().map(|m| sanitize_capped(m, 128)),
        })
        .collect();
    if !templates.is_empty() {
        let _ = writeln!(
            text,
            "{} resource templates (listed for reference; read resources by reference).",
            templates.len()
        );
    }
    text.push_str(super::outcome::hints::READ);
    let (text, spills) = bounded(ctx, "resources.list", &text)?;
    Ok(Success {
        result: OpResult::Resources(ResourceList {
            resources: summaries,
            templates,
            declared: true,
        }),
        text,
        spills,
    })
}

/// `resources.templates` (the operator's): every template with its URI template and variables.
pub async fn list_templates(ctx: &OpContext<'_>) -> Result<Success, Failure> {
    if !declared(ctx).await.0 {
        let empty = OpResult::Templates(TemplateList {
            templates: Vec::new(),
        });
        return Ok(undeclared(ctx, "resources", empty));
    }
    let listing = resource_listing(ctx).await?;
    let templates: Vec<TemplateSummary> = listing
        .templates
        .iter()
        .map(|t| TemplateSummary {
            name: sanitize_capped(&t.name, 128),
            uri_template: sanitize_capped(&t.uri_template, 512),
            variables: crate::mcp::catalog::uri_template::variables(&t.uri_template)
                .iter()
                .map(|v| sanitize_capped(v, 128))
                .collect(),
            title: t.title.as_deref().map(|x| sanitize_capped(x, 200)),
            description: t
                .description
                .as_deref()
                .map(|d| crate::mcp::catalog::summary::first_line(d, 200)),
            mime_type: t.mime_type.as_deref().map(|m| sanitize_capped(m, 128)),
        })
        .collect();
    let mut text = format!(
        "{} resource templates on {}:\n",
        templates.len(),
        ctx.slot.name
    );
    for t in &templates {
        let _ = write!(text, "- {} {}", t.name, t.uri_template);
        if let Some(description) = &t.description {
            let _ = write!(text, ": {description}");
        }
        text.push('\n');
    }
    let (text, spills) = bounded(ctx, "resources.templates", &text)?;
    Ok(Success {
        result: OpResult::Templates(TemplateList { templates }),
        text,
        spills,
    })
}

/// `resources.read`: only references of the current generation resolve.
pub async fn read_resource(ctx: &OpContext<'_>, reference: &str) -> Result<Success, Failure> {
    let uri = {
        let refs = ctx
            .live
            .refs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        refs.resolve(ctx.live.generation, reference)
            .map(str::to_owned)
            .map_err(|e| Failure::new("stale_reference", e.to_string(), 1))?
    };
    read_uri(ctx, &uri, reference).await
}

/// Reads `uri` (the operator's read by URI, or a resolved reference, shown as `label`).
pub async fn read_uri(ctx: &OpContext<'_>, uri: &str, label: &str) -> Result<Success, Failure> {
    let uri = uri.to_owned();
    let reference = label;
    let request = ClientRequest::ReadResourceRequest(ReadResourceRequest::new(
        ReadResourceRequestParams::new(uri),
    ));
    let conn = ctx.live.conn.read().await;
    let contents = match ctx.request(&conn, request).await? {
        ServerResult::ReadResourceResult(r) => r.contents,
        _ => return Err(unexpected("resources/read")),
    };
    drop(conn);
    let (server, origin) = ctx.shape("resources.read");
    let shape_ctx = ShapeContext {
        server: &server,
        origin: &origin,
        spills: ctx.spills,
        redactor: &ctx.live.redactor,
        keep_data: ctx.keep_data,
    };
    let shaped = shape_resource_read(&shape_ctx, &contents).map_err(shape_failure)?;
    Ok(Success {
        result: OpResult::Read(ResourceRead {
            reference: reference.to_owned(),
            text: shaped.text.clone(),
        }),
        text: shaped.text,
        spills: shaped.spills,
    })
}

fn shape_failure(e: crate::mcp::results::ShapeError) -> Failure {
    match e {
        crate::mcp::results::ShapeError::Limit(limit) => Failure::limit(limit.to_string()),
        crate::mcp::results::ShapeError::Io(io) => {
            Failure::new("spill", format!("writing a spill failed: {io}"), 1)
        }
    }
}

/// `prompts.list`.
pub async fn list_prompts(ctx: &OpContext<'_>) -> Result<Success, Failure> {
    if !declared(ctx).await.1 {
        let empty = OpResult::Prompts(PromptList {
            prompts: Vec::new(),
            declared: false,
        });
        return Ok(undeclared(ctx, "prompts", empty));
    }
    let prompts = prompts(ctx).await?;
    let summaries: Vec<_> = prompts.iter().map(summarize_prompt).collect();
    let mut text = format!("{} prompts on {}:\n", summaries.len(), ctx.slot.name);
    for s in &summaries {
        let _ = write!(text, "- {}", s.name);
        if !s.description.is_empty() {
            let _ = write!(text, ": {}", s.description);
        }
        let args: Vec<String> = s
            .arguments
            .iter()
            .map(|a| {
                if a.required {
                    format!("{} (required)", a.name)
                } else {
                    a.name.clone()
                }
            })
            .collect();
        if !args.is_empty() {
            let _ = write!(text, " [arguments: {}]", args.join(", "));
        }
        text.push('\n');
    }
    let (text, spills) = bounded(ctx, "prompts.list", &text)?;
    Ok(Success {
        result: OpResult::Prompts(PromptList {
            prompts: summaries,
            declared: true,
        }),
        text,
        spills,
    })
}

/// `prompts.get`: arguments are checked against the declaration before any request.
pub async fn get_prompt(
    ctx: &OpContext<'_>,
    name: &str,
    arguments: &std::collections::BTreeMap<String, String>,
) -> Result<Success, Failure> {
    let prompts = prompts(ctx).await?;
    let Some(prompt) = prompts.iter().find(|p| p.name == name) else {
        return Err(Failure::new(
            "unknown_prompt",
            format!(
                "server `{}` has no prompt `{}`; list prompts again",
                ctx.slot.name,
                sanitize_capped(name, 128)
            ),
            1,
        ));
    };
    check_prompt_arguments(prompt, arguments).map_err(|e| Failure::invalid(e.to_string()))?;
    let args: serde_json::Map<String, Value> = arguments
        .iter()
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect();
    let request = ClientRequest::GetPromptRequest(GetPromptRequest::new(
        GetPromptRequestParams::new(name.to_owned()).with_arguments(args),
    ));
    let conn = ctx.live.conn.read().await;
    let ServerResult::GetPromptResult(result) = ctx.request(&conn, request).await? else {
        return Err(unexpected("prompts/get"));
    };
    drop(conn);
    let origin = format!("prompts.get {name}");
    let (server, origin) = ctx.shape(&origin);
    let shape_ctx = ShapeContext {
        server: &server,
        origin: &origin,
        spills: ctx.spills,
        redactor: &ctx.live.redactor,
        keep_data: ctx.keep_data,
    };
    let shaped = shape_prompt(&shape_ctx, result.description.as_deref(), &result.messages)
        .map_err(shape_failure)?;
    Ok(Success {
        result: OpResult::Prompt(PromptGet {
            prompt: sanitize_capped(name, 128),
            text: shaped.text.clone(),
            messages: result.messages.len(),
        }),
        text: shaped.text,
        spills: shaped.spills,
    })
}
