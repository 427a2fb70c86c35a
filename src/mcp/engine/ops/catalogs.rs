//! The catalogs of one connection generation (tools, resources with templates, prompts):
//! listed page by page within their bounds, cached until a `list_changed` or a reconnect.

use std::sync::Arc;

use rmcp::model::{
    ClientRequest, ListPromptsRequest, ListResourceTemplatesRequest, ListResourcesRequest,
    ListToolsRequest, PaginatedRequestParams, Prompt, ServerResult,
};

use super::{OpContext, page_failure, unexpected};
use crate::mcp::catalog::{
    CatalogKind, ListedTool, PageError, PageLimits, ToolCatalog, collect_pages,
};
use crate::mcp::connection::Connection;
use crate::mcp::engine::live::ResourceListing;
use crate::mcp::engine::outcome::Failure;

fn params(cursor: Option<String>) -> Option<PaginatedRequestParams> {
    cursor.map(|c| PaginatedRequestParams::default().with_cursor(Some(c)))
}

/// Every page of one catalog through `request(cursor)`, within the bounds of `kind`.
pub(super) async fn list_pages<T>(
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
pub(crate) async fn tools(ctx: &OpContext<'_>) -> Result<Arc<ToolCatalog>, Failure> {
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
            // Each page is made compact as it arrives: the listing never holds every page's
            // `Tool` values at once.
            ServerResult::ListToolsResult(r) => {
                Some((r.tools.iter().map(ListedTool::new).collect(), r.next_cursor))
            }
            _ => None,
        },
    )
    .await
    .map_err(page_failure)?;
    let catalog = Arc::new(ToolCatalog::from_listed(ctx.live.generation, tools));
    let persisted = crate::mcp::engine::definitions::observe_tools(ctx, &catalog).await;
    ctx.slot.observe_tools(&catalog, persisted);
    ctx.slot.record_sizes(Some(catalog.len()), None, None);
    *cache = Some(catalog.clone());
    Ok(catalog)
}

/// The tool catalog listed afresh: the cached one is dropped first (a 2026 server's
/// `-32020` says the listed input schema no longer matches the server's).
pub(crate) async fn relist_tools(ctx: &OpContext<'_>) -> Result<Arc<ToolCatalog>, Failure> {
    ctx.live.tools.lock().await.take();
    tools(ctx).await
}

/// Which optional capabilities the server declared (nothing is listed from one it did not).
pub(crate) async fn declared(ctx: &OpContext<'_>) -> (bool, bool) {
    let conn = ctx.live.conn.read().await;
    let caps = &conn.identity().capabilities;
    (caps.resources.is_some(), caps.prompts.is_some())
}

pub(crate) async fn resource_listing(ctx: &OpContext<'_>) -> Result<Arc<ResourceListing>, Failure> {
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
    crate::mcp::engine::definitions::observe_listed(
        ctx,
        crate::mcp::scan::Kind::ResourceTemplate,
        templates
            .iter()
            .filter_map(|t| serde_json::to_value(t).ok()),
    )
    .await;
    let listing = Arc::new(ResourceListing {
        resources,
        templates,
    });
    ctx.slot
        .record_sizes(None, Some(listing.resources.len()), None);
    *cache = Some(listing.clone());
    Ok(listing)
}

pub(crate) async fn prompts(ctx: &OpContext<'_>) -> Result<Arc<Vec<Prompt>>, Failure> {
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
    crate::mcp::engine::definitions::observe_listed(
        ctx,
        crate::mcp::scan::Kind::Prompt,
        prompts.iter().filter_map(|p| serde_json::to_value(p).ok()),
    )
    .await;
    let prompts = Arc::new(prompts);
    ctx.slot.record_sizes(None, None, Some(prompts.len()));
    *cache = Some(prompts.clone());
    Ok(prompts)
}
