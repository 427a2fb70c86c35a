//! Shaping `resources/read` and `prompts/get` results: refused above 8 MiB or
//! above 100 prompt messages (error class `limit`), otherwise converted like tool content and
//! wrapped as untrusted data, with the same 50 KiB / 2,000-line bound and spills. Raw URIs never
//! appear in the output.

use std::fmt::Write as _;
use std::io;

use rmcp::model::{PromptMessage, ResourceContents, Role};

use super::bounded::BoundedText;
use super::content::{ShapeContext, block_size, convert_block, convert_resource, line_break};
use super::shape::ShapedResult;
use super::untrusted::{DataKind, wrap_untrusted};

/// Largest resource or prompt response accepted, in bytes of content.
pub(crate) const MAX_RESPONSE_BYTES: usize = 8 * 1024 * 1024;
/// Most prompt messages accepted.
pub(crate) const MAX_PROMPT_MESSAGES: usize = 100;

/// A bound on a read or get that was hit (error class `limit`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResultLimit {
    /// The response's content is larger than [`MAX_RESPONSE_BYTES`].
    #[error("the {kind} response is larger than {max} bytes ({size} bytes); refused")]
    TooLarge {
        /// `resource` or `prompt`.
        kind: &'static str,
        /// Its size.
        size: usize,
        /// The bound.
        max: usize,
    },
    /// The prompt has more than [`MAX_PROMPT_MESSAGES`] messages.
    #[error("the prompt has {count} messages, more than {max}; refused")]
    TooManyMessages {
        /// How many it had.
        count: usize,
        /// The bound.
        max: usize,
    },
}

/// Why a read or get could not be shaped.
#[derive(Debug, thiserror::Error)]
pub enum ShapeError {
    /// A bound was hit.
    #[error(transparent)]
    Limit(#[from] ResultLimit),
    /// Writing a spill failed.
    #[error("writing a spill failed: {0}")]
    Io(#[from] io::Error),
}

fn finish(
    ctx: &ShapeContext<'_>,
    kind: DataKind,
    out: BoundedText<'_>,
    mut spills: Vec<super::spill::SpillEntry>,
) -> io::Result<ShapedResult> {
    let bounded = out.finish()?;
    let mut text = wrap_untrusted(ctx.server, kind, &bounded.text);
    if let Some(note) = bounded.note() {
        let _ = write!(text, "\n{note}");
    }
    spills.extend(bounded.overflow.as_ref().map(|o| o.spill.clone()));
    Ok(ShapedResult {
        is_error: false,
        text,
        spills,
        overflow: bounded.overflow,
        verdict: None,
        structured: None,
    })
}

/// Shapes a resource read's contents.
pub fn shape_resource_read(
    ctx: &ShapeContext<'_>,
    contents: &[ResourceContents],
) -> Result<ShapedResult, ShapeError> {
    let size: usize = contents.iter().map(super::content::resource_size).sum();
    if size > MAX_RESPONSE_BYTES {
        return Err(ResultLimit::TooLarge {
            kind: "resource",
            size,
            max: MAX_RESPONSE_BYTES,
        }
        .into());
    }
    let mut out = BoundedText::new(ctx.spills, ctx.origin);
    let mut spills = Vec::new();
    for item in contents {
        line_break(&mut out)?;
        convert_resource(ctx, item, &mut out, &mut spills)?;
    }
    if out.is_empty() {
        out.push("[the resource is empty]")?;
    }
    Ok(finish(ctx, DataKind::Resource, out, spills)?)
}

/// Shapes a prompt's description and messages.
pub fn shape_prompt(
    ctx: &ShapeContext<'_>,
    description: Option<&str>,
    messages: &[PromptMessage],
) -> Result<ShapedResult, ShapeError> {
    if messages.len() > MAX_PROMPT_MESSAGES {
        return Err(ResultLimit::TooManyMessages {
            count: messages.len(),
            max: MAX_PROMPT_MESSAGES,
        }
        .into());
    }
    let size = description.map_or(0, str::len)
        + messages
            .iter()
            .map(|m| block_size(&m.content))
            .sum::<usize>();
    if size > MAX_RESPONSE_BYTES {
        return Err(ResultLimit::TooLarge {
            kind: "prompt",
            size,
            max: MAX_RESPONSE_BYTES,
        }
        .into());
    }
    let mut out = BoundedText::new(ctx.spills, ctx.origin);
    let mut spills = Vec::new();
    if let Some(description) = description.filter(|d| !d.is_empty()) {
        out.push("[description]\n")?;
        out.push(&ctx.clean(description))?;
    }
    for message in messages {
        line_break(&mut out)?;
        let role = match message.role {
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        out.push(&format!("[{role}]\n"))?;
        convert_block(ctx, &message.content, &mut out, &mut spills)?;
    }
    Ok(finish(ctx, DataKind::Prompt, out, spills)?)
}
