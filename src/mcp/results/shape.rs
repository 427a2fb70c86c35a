//! Shaping a whole `tools/call` result into what an agent sees: every block
//! converted, structured content as pretty JSON with its `outputSchema` verdict, the 50 KiB /
//! 2,000-line bound applied with preview + spill basename, and `isError: true` turned into a
//! bounded tool error. The output carries spill entries for the console; the model-visible text
//! never contains a host path.

use std::io;

use rmcp::model::{CallToolResult, ContentBlock, JsonObject};
use serde_json::Value;

use super::bounded::{BoundedText, Overflow};
use super::content::{ShapeContext, convert_block, line_break};
use super::spill::SpillEntry;
use super::structured::{OutputVerdict, check_output};
use crate::mcp::sanitize::sanitize_capped;

/// Most bytes of a tool error's text shown.
pub const MAX_ERROR_TEXT_BYTES: usize = 8 * 1024;
/// Text blocks larger than this are not compared with structured content for duplication.
const DUPLICATE_CHECK_BYTES: usize = 1 << 20;

/// A result as the agent (and the console's "model view") receives it.
#[derive(Debug, Clone, PartialEq)]
pub struct ShapedResult {
    /// The server reported a tool error (`isError: true`).
    pub is_error: bool,
    /// The model-visible text, within the bounds.
    pub text: String,
    /// Every spill this result produced (media and overflow), for the console.
    pub spills: Vec<SpillEntry>,
    /// Set when the text overflowed into a spill.
    pub overflow: Option<Overflow>,
    /// The structured-output verdict, when the tool declares an output schema.
    pub verdict: Option<OutputVerdict>,
    /// The structured content, sanitised, for serve mode's `structuredContent`.
    pub structured: Option<Value>,
}

/// Every string in `value` (keys included) redacted and sanitised.
fn clean_json(ctx: &ShapeContext<'_>, value: &Value) -> Value {
    match value {
        Value::String(s) => Value::String(ctx.clean(s).into_owned()),
        Value::Array(items) => Value::Array(items.iter().map(|v| clean_json(ctx, v)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (ctx.clean(k).into_owned(), clean_json(ctx, v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// Whether a text block merely repeats the structured content (servers often send both).
fn duplicates(block: &ContentBlock, structured: Option<&Value>) -> bool {
    let (ContentBlock::Text(text), Some(structured)) = (block, structured) else {
        return false;
    };
    let trimmed = text.text.trim_start();
    text.text.len() <= DUPLICATE_CHECK_BYTES
        && (trimmed.starts_with('{') || trimmed.starts_with('['))
        && serde_json::from_str::<Value>(&text.text).is_ok_and(|v| &v == structured)
}

/// Shapes a tool call's result. `output_schema` is the tool's, from the catalog.
pub fn shape_tool_result(
    ctx: &ShapeContext<'_>,
    result: &CallToolResult,
    output_schema: Option<&JsonObject>,
) -> io::Result<ShapedResult> {
    if result.is_error == Some(true) {
        return Ok(shape_tool_error(ctx, result));
    }
    let structured = result.structured_content.as_ref();
    let mut out = BoundedText::new(ctx.spills, ctx.origin);
    let mut spills = Vec::new();
    for block in &result.content {
        if !duplicates(block, structured) {
            convert_block(ctx, block, &mut out, &mut spills)?;
        }
    }
    let verdict = check_output(output_schema, structured);
    if let Some(value) = structured {
        line_break(&mut out)?;
        let pretty = serde_json::to_string_pretty(value).unwrap_or_else(|_| "null".to_owned());
        out.push(&ctx.clean(&pretty))?;
    }
    if let Some(verdict) = verdict.as_ref().filter(|v| **v != OutputVerdict::Valid) {
        line_break(&mut out)?;
        out.push(&format!("[{verdict}]"))?;
    }
    if out.is_empty() {
        out.push("[the tool returned no content]")?;
    }
    let bounded = out.finish()?;
    let text = bounded.render();
    spills.extend(bounded.overflow.as_ref().map(|o| o.spill.clone()));
    Ok(ShapedResult {
        is_error: false,
        text,
        spills,
        overflow: bounded.overflow,
        verdict,
        structured: structured.map(|v| clean_json(ctx, v)),
    })
}

/// A tool error: its text blocks, sanitised, redacted and capped; other blocks are named only.
fn shape_tool_error(ctx: &ShapeContext<'_>, result: &CallToolResult) -> ShapedResult {
    // Gather at most twice the cap before redacting. If the gathering cut text off, the last
    // `max_len` bytes are dropped too: a secret cut at that boundary leaves no fragment.
    let budget = MAX_ERROR_TEXT_BYTES * 2;
    let mut text = String::new();
    for block in &result.content {
        if text.len() >= budget {
            break;
        }
        if !text.is_empty() {
            text.push('\n');
        }
        let piece = match block {
            ContentBlock::Text(t) => t.text.as_str(),
            _ => "[non-text content omitted from the error]",
        };
        let mut end = piece.len().min(budget.saturating_sub(text.len()));
        while !piece.is_char_boundary(end) {
            end -= 1;
        }
        text.push_str(&piece[..end]);
    }
    if text.len() >= budget {
        let mut end = text.len().saturating_sub(ctx.redactor.max_len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
    }
    if text.is_empty() {
        text.push_str("the tool reported an error without a message");
    }
    let text = sanitize_capped(&ctx.redactor.redact(&text), MAX_ERROR_TEXT_BYTES);
    ShapedResult {
        is_error: true,
        text,
        spills: Vec::new(),
        overflow: None,
        verdict: None,
        structured: None,
    }
}
