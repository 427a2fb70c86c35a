//! The resource operations: `resources.list` (opaque references), the operator's
//! `resources.templates`, and reads by reference or by URI.

use crate::mcp::connection::ErrorClass;
use std::fmt::Write as _;

use rmcp::model::{ClientRequest, ReadResourceRequest, ReadResourceRequestParams, ServerResult};

use super::catalogs::declared;
use super::{OpContext, bounded, resource_listing, shape_failure, undeclared, unexpected};
use crate::mcp::api::{OpResult, ResourceList, ResourceRead, TemplateList, TemplateSummary};
use crate::mcp::catalog::summarize_resources;
use crate::mcp::connection::raw::RawSlot;
use crate::mcp::engine::Hint;
use crate::mcp::engine::outcome::{Failure, Success};
use crate::mcp::results::shape_resource_read;
use crate::mcp::sanitize::sanitize_capped;

/// `resources.list`: opaque references only, never raw URIs.
pub(crate) async fn list_resources(ctx: &OpContext<'_>) -> Result<Success, Failure> {
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
    let mut text = super::heading(
        summaries.len(),
        ("resource", "resources"),
        &format!("on {}", ctx.slot.name),
    );
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
        if let Some(annotations) = &s.annotations {
            let _ = write!(text, " [annotations: {annotations}]");
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
        // Named only, as agents see them (no URI template): they read by reference.
        let names: Vec<&str> = templates.iter().map(|t| t.name.as_str()).collect();
        let _ = writeln!(
            text,
            "{} (listed for reference; read resources by reference): {}.",
            super::counted(templates.len(), "resource template", "resource templates"),
            names.join(", ")
        );
    }
    let (text, spills) = bounded(ctx, "resources.list", &text, Hint::ROOM)?;
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
pub(crate) async fn list_templates(ctx: &OpContext<'_>) -> Result<Success, Failure> {
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
    let mut text = super::heading(
        templates.len(),
        ("resource template", "resource templates"),
        &format!("on {}", ctx.slot.name),
    );
    for t in &templates {
        let _ = write!(text, "- {} {}", t.name, t.uri_template);
        if let Some(description) = &t.description {
            let _ = write!(text, ": {description}");
        }
        text.push('\n');
    }
    let (text, spills) = bounded(ctx, "resources.templates", &text, 0)?;
    Ok(Success {
        result: OpResult::Templates(TemplateList { templates }),
        text,
        spills,
    })
}

/// `resources.read`: only references of the current generation resolve.
pub(crate) async fn read_resource(
    ctx: &OpContext<'_>,
    reference: &str,
) -> Result<Success, Failure> {
    let uri = {
        let refs = ctx
            .live
            .refs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        refs.resolve(ctx.live.generation, reference)
            .map(str::to_owned)
            .map_err(|e| Failure::new(ErrorClass::StaleReference, e.to_string()))?
    };
    read_uri(ctx, &uri, reference).await
}

/// What `resources/read` of `uri` returned, as the server sent it.
pub(super) async fn read_contents(
    ctx: &OpContext<'_>,
    uri: &str,
) -> Result<Vec<rmcp::model::ResourceContents>, Failure> {
    read_contents_kept(ctx, uri, None).await
}

/// [`read_contents`], with the answer's frame as the server sent it in `raw` when given.
async fn read_contents_kept(
    ctx: &OpContext<'_>,
    uri: &str,
    raw: Option<&RawSlot>,
) -> Result<Vec<rmcp::model::ResourceContents>, Failure> {
    let mut request = ClientRequest::ReadResourceRequest(ReadResourceRequest::new(
        ReadResourceRequestParams::new(uri.to_owned()),
    ));
    if let Some(raw) = raw {
        request = super::with_raw(request, raw);
    }
    let conn = ctx.live.conn.read().await;
    let contents = match ctx.request(&conn, request).await? {
        ServerResult::ReadResourceResult(r) => r.contents,
        _ => return Err(unexpected("resources/read")),
    };
    drop(conn);
    Ok(contents)
}

/// Reads `uri` (the operator's read by URI, or a resolved reference, shown as `label`).
pub(crate) async fn read_uri(
    ctx: &OpContext<'_>,
    uri: &str,
    label: &str,
) -> Result<Success, Failure> {
    let reference = label;
    let raw = RawSlot::default();
    let contents = read_contents_kept(ctx, uri, Some(&raw)).await?;
    let shape_ctx = ctx.shape_context("resources.read");
    let shaped = shape_resource_read(&shape_ctx, &contents).map_err(shape_failure)?;
    Ok(Success {
        result: OpResult::Read(ResourceRead {
            reference: reference.to_owned(),
            text: shaped.text.clone(),
            raw: super::kept_raw(&shape_ctx, raw.take())?,
        }),
        text: shaped.text,
        spills: shaped.spills,
    })
}
