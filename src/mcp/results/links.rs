//! The resource links of a tool result, kept for the operator's console: each link's name as
//! the model-visible text shows it (`[resource link: NAME (origin)]`) and its full URI, both
//! redacted and sanitised. They are never serialised: an agent sees only the name and the
//! origin, while the operator may open a link on the server that returned it.

use rmcp::model::{CallToolResult, ContentBlock};
use serde::{Deserialize, Serialize};

use super::content::ShapeContext;
use crate::mcp::sanitize::sanitize_capped;

/// Longest URI kept, in bytes.
const URI_BYTES: usize = 2048;

/// Links kept from one result at most.
pub(crate) const MAX_LINKS: usize = 100;

/// One resource link of a result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceLinkRef {
    /// The link's name, exactly as the result's text shows it.
    pub name: String,
    /// The resource's URI (redacted, sanitised).
    pub uri: String,
}

/// The resource links among `result`'s content, in order (at most [`MAX_LINKS`]).
pub(crate) fn resource_links(
    ctx: &ShapeContext<'_>,
    result: &CallToolResult,
) -> Vec<ResourceLinkRef> {
    result
        .content
        .iter()
        .filter_map(|block| match block {
            ContentBlock::ResourceLink(link) => Some(ResourceLinkRef {
                name: ctx.meta(&link.name),
                uri: sanitize_capped(&ctx.redactor.redact(&link.uri), URI_BYTES),
            }),
            _ => None,
        })
        .take(MAX_LINKS)
        .collect()
}
