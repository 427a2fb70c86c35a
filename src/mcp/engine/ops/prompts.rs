//! The prompt operations: `prompts.list` and `prompts.get`.

use crate::mcp::connection::ErrorClass;
use std::fmt::Write as _;

use rmcp::model::{ClientRequest, GetPromptRequest, GetPromptRequestParams, ServerResult};
use serde_json::Value;

use super::catalogs::{declared, prompts};
use super::{OpContext, bounded, shape_failure, undeclared, unexpected};
use crate::mcp::api::{OpResult, PromptGet, PromptList};
use crate::mcp::catalog::{check_prompt_arguments, summarize_prompt};
use crate::mcp::engine::outcome::{Failure, Success};
use crate::mcp::results::shape_prompt;
use crate::mcp::sanitize::sanitize_capped;

/// `prompts.list`.
pub(crate) async fn list_prompts(ctx: &OpContext<'_>) -> Result<Success, Failure> {
    if !declared(ctx).await.1 {
        let empty = OpResult::Prompts(PromptList {
            prompts: Vec::new(),
            declared: false,
        });
        return Ok(undeclared(ctx, "prompts", empty));
    }
    let prompts = prompts(ctx).await?;
    let summaries: Vec<_> = prompts.iter().map(summarize_prompt).collect();
    let mut text = super::heading(
        summaries.len(),
        ("prompt", "prompts"),
        &format!("on {}", ctx.slot.name),
    );
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
    let (text, spills) = bounded(ctx, "prompts.list", &text, 0)?;
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
pub(crate) async fn get_prompt(
    ctx: &OpContext<'_>,
    name: &str,
    arguments: &std::collections::BTreeMap<String, String>,
) -> Result<Success, Failure> {
    let prompts = prompts(ctx).await?;
    let Some(prompt) = prompts.iter().find(|p| p.name == name) else {
        return Err(Failure::new(
            ErrorClass::UnknownPrompt,
            format!(
                "server `{}` has no prompt `{}`; list prompts again",
                ctx.slot.name,
                sanitize_capped(name, 128)
            ),
        ));
    };
    check_prompt_arguments(prompt, arguments).map_err(|e| Failure::invalid(e.to_string()))?;
    let args: serde_json::Map<String, Value> = arguments
        .iter()
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect();
    let raw = crate::mcp::connection::raw::RawSlot::default();
    let request = super::with_raw(
        ClientRequest::GetPromptRequest(GetPromptRequest::new(
            GetPromptRequestParams::new(name.to_owned()).with_arguments(args),
        )),
        &raw,
    );
    let conn = ctx.live.conn.read().await;
    let ServerResult::GetPromptResult(result) = ctx.request(&conn, request).await? else {
        return Err(unexpected("prompts/get"));
    };
    drop(conn);
    let origin = format!("prompts.get {name}");
    let shape_ctx = ctx.shape_context(&origin);
    let shaped = shape_prompt(&shape_ctx, result.description.as_deref(), &result.messages)
        .map_err(shape_failure)?;
    Ok(Success {
        result: OpResult::Prompt(PromptGet {
            prompt: sanitize_capped(name, 128),
            text: shaped.text.clone(),
            messages: result.messages.len(),
            raw: super::kept_raw(&shape_ctx, raw.take())?,
        }),
        text: shaped.text,
        spills: shaped.spills,
    })
}
