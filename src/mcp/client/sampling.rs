//! A sampling request as a person reads it: the conversation with images and audio described
//! (never decoded or shown), the system prompt, the budget, model preferences and offered tools.
//! Works on the raw parameters so every content shape the protocol has (single or several
//! blocks, tool use and results) is described, not dropped.

use std::fmt::Write as _;

use serde_json::Value;

use super::SamplingAsk;
use crate::mcp::sanitize::sanitize_capped;

/// Longest message text kept for the operator.
const MESSAGE_CAP: usize = 16 * 1024;
/// Most messages shown.
const MAX_MESSAGES: usize = 64;

/// Builds the ask from `sampling/createMessage` parameters (raw JSON).
pub(crate) fn ask_from_params(server: &str, params: &Value) -> SamplingAsk {
    let messages = params
        .get("messages")
        .and_then(Value::as_array)
        .map(|m| {
            m.iter()
                .take(MAX_MESSAGES)
                .map(|msg| {
                    let role = msg
                        .get("role")
                        .and_then(Value::as_str)
                        .map_or_else(|| "?".to_owned(), |r| sanitize_capped(r, 32));
                    let text = match msg.get("content") {
                        Some(Value::Array(blocks)) => blocks
                            .iter()
                            .map(describe_block)
                            .collect::<Vec<_>>()
                            .join("\n"),
                        Some(block) => describe_block(block),
                        None => String::new(),
                    };
                    (role, text)
                })
                .collect()
        })
        .unwrap_or_default();
    let max_tokens = params
        .get("maxTokens")
        .and_then(Value::as_u64)
        .map_or(0, |n| u32::try_from(n).unwrap_or(u32::MAX));
    let tools = params
        .get("tools")
        .and_then(Value::as_array)
        .map(|t| {
            t.iter()
                .filter_map(|tool| tool.get("name").and_then(Value::as_str))
                .take(64)
                .map(|n| sanitize_capped(n, 128))
                .collect()
        })
        .unwrap_or_default();
    SamplingAsk {
        server: sanitize_capped(server, 128),
        system_prompt: params
            .get("systemPrompt")
            .and_then(Value::as_str)
            .map(|s| sanitize_capped(s, MESSAGE_CAP)),
        messages,
        max_tokens,
        model_preferences: params.get("modelPreferences").map(describe_preferences),
        tools,
    }
}

fn describe_block(block: &Value) -> String {
    let kind = block.get("type").and_then(Value::as_str).unwrap_or("");
    match kind {
        "text" => block
            .get("text")
            .and_then(Value::as_str)
            .map(|t| sanitize_capped(t, MESSAGE_CAP))
            .unwrap_or_default(),
        "image" | "audio" => {
            let mime = block
                .get("mimeType")
                .and_then(Value::as_str)
                .map_or_else(|| "unknown type".to_owned(), |m| sanitize_capped(m, 64));
            let bytes = block
                .get("data")
                .and_then(Value::as_str)
                .map_or(0, |d| d.len() / 4 * 3);
            format!("[{kind}: {mime}, about {bytes} bytes]")
        }
        "tool_use" => format!(
            "[tool use: {}]",
            block
                .get("name")
                .and_then(Value::as_str)
                .map(|n| sanitize_capped(n, 128))
                .unwrap_or_default()
        ),
        "tool_result" => "[tool result]".to_owned(),
        other => format!("[{} content]", sanitize_capped(other, 32)),
    }
}

fn describe_preferences(prefs: &Value) -> String {
    let mut out = String::new();
    if let Some(hints) = prefs.get("hints").and_then(Value::as_array) {
        let names: Vec<String> = hints
            .iter()
            .filter_map(|h| h.get("name").and_then(Value::as_str))
            .take(8)
            .map(|n| sanitize_capped(n, 64))
            .collect();
        if !names.is_empty() {
            let _ = write!(out, "hints: {}", names.join(", "));
        }
    }
    for key in ["costPriority", "speedPriority", "intelligencePriority"] {
        if let Some(n) = prefs.get(key).and_then(Value::as_f64) {
            if !out.is_empty() {
                out.push_str("; ");
            }
            let _ = write!(out, "{key} {n}");
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn conversation_is_described_not_decoded() {
        let ask = ask_from_params(
            "s",
            &json!({
                "messages": [
                    {"role": "user", "content": {"type": "text", "text": "hi\u{1b}[31m"}},
                    {"role": "user", "content": [{"type": "image", "mimeType": "image/png", "data": "AAAA"}, {"type": "text", "text": "see"}]}
                ],
                "systemPrompt": "be brief",
                "maxTokens": 100,
                "modelPreferences": {"hints": [{"name": "claude"}], "speedPriority": 0.5},
                "tools": [{"name": "lookup", "inputSchema": {}}]
            }),
        );
        assert_eq!(ask.messages[0].0, "user");
        assert!(!ask.messages[0].1.contains('\u{1b}'));
        assert_eq!(ask.messages[1].1, "[image: image/png, about 3 bytes]\nsee");
        assert_eq!(ask.system_prompt.as_deref(), Some("be brief"));
        assert_eq!(ask.max_tokens, 100);
        assert_eq!(
            ask.model_preferences.as_deref(),
            Some("hints: claude; speedPriority 0.5")
        );
        assert_eq!(ask.tools, ["lookup"]);
    }
}
