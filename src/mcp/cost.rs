//! What a tool definition costs an agent's context, in tokens.
//!
//! A definition is counted as hosts hand it to a model: the tool's JSON object with `name`,
//! `description` (when the server gave one) and `inputSchema`, serialised compactly
//! (`serde_json::to_string`, no whitespace, the schema's keys as `serde_json` keeps them).
//! Titles, annotations, `outputSchema` and `_meta` are not sent to the model by hosts, so they
//! are not counted. The tokenizer is `o200k_base` (the GPT-4o and later models' one), run by
//! `tiktoken-rs`'s encoder; its vocabulary is compressed into the binary by `build.rs` (each token as the
//! pair of earlier tokens it joins) and rebuilt once, on first use.

use std::sync::OnceLock;

use rmcp::model::Tool;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use tiktoken_rs::CoreBPE;

/// The tokenizer's name.
pub const TOKENIZER: &str = "o200k_base";

/// The vocabulary, one pair of ranks per rank, in rank order: the left halves (raw DEFLATE of
/// 3-byte little-endian values split into planes).
static LEFT: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/o200k.left"));
/// The right halves; [`ONE_BYTE`] marks a token that is one byte, the left value.
static RIGHT: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/o200k.right"));
/// The right half of a one-byte token.
const ONE_BYTE: u32 = 0x00ff_ffff;

/// The compressed vocabulary's size in the binary, in bytes.
pub fn vocabulary_bytes() -> usize {
    LEFT.len() + RIGHT.len()
}

/// The encoder, built once.
fn encoder() -> Result<&'static CoreBPE, String> {
    static ENCODER: OnceLock<Result<CoreBPE, String>> = OnceLock::new();
    ENCODER
        .get_or_init(build_encoder)
        .as_ref()
        .map_err(Clone::clone)
}

/// Every ordinary token's bytes, in rank order, rebuilt from the pairs.
fn vocabulary() -> Result<Vec<Vec<u8>>, String> {
    let values = |data: &[u8]| -> Result<Vec<u32>, String> {
        let planes = miniz_oxide::inflate::decompress_to_vec_with_limit(data, 8 << 20)
            .map_err(|e| format!("the tokenizer's vocabulary does not inflate: {e}"))?;
        let n = planes.len() / 3;
        Ok((0..n)
            .map(|i| u32::from_le_bytes([planes[i], planes[n + i], planes[2 * n + i], 0]))
            .collect())
    };
    let (left, right) = (values(LEFT)?, values(RIGHT)?);
    if left.len() != right.len() {
        return Err("the tokenizer's vocabulary is truncated".to_owned());
    }
    let mut tokens: Vec<Vec<u8>> = Vec::with_capacity(left.len());
    for (a, b) in left.into_iter().zip(right) {
        let token = if b == ONE_BYTE {
            vec![u8::try_from(a).map_err(|_| "the tokenizer's vocabulary is corrupt".to_owned())?]
        } else {
            let half = |r: u32| tokens.get(usize::try_from(r).unwrap_or(usize::MAX));
            let (Some(a), Some(b)) = (half(a), half(b)) else {
                return Err("the tokenizer's vocabulary is corrupt".to_owned());
            };
            [a.as_slice(), b.as_slice()].concat()
        };
        tokens.push(token);
    }
    Ok(tokens)
}

fn build_encoder() -> Result<CoreBPE, String> {
    let mut encoder = std::collections::HashMap::default();
    for (rank, token) in vocabulary()?.into_iter().enumerate() {
        let rank = u32::try_from(rank).map_err(|_| "the tokenizer's vocabulary is too large")?;
        encoder.insert(token, rank);
    }
    CoreBPE::new(
        encoder,
        std::collections::HashMap::default(),
        tiktoken_rs::O200K_BASE_PAT_STR,
    )
    .map_err(|e| format!("the tokenizer does not build: {e}"))
}

/// How many `o200k_base` tokens `text` is (special-token text counts as ordinary text).
pub fn count_tokens(text: &str) -> Result<usize, String> {
    Ok(encoder()?.encode_ordinary(text).len())
}

/// The definition as counted: `{"name":…,"description":…,"inputSchema":…}`, compact.
pub fn counted_definition(tool: &Tool) -> String {
    let mut object = Map::new();
    object.insert("name".to_owned(), Value::String(tool.name.to_string()));
    if let Some(description) = &tool.description {
        object.insert(
            "description".to_owned(),
            Value::String(description.to_string()),
        );
    }
    object.insert(
        "inputSchema".to_owned(),
        Value::Object((*tool.input_schema).clone()),
    );
    serde_json::to_string(&Value::Object(object)).unwrap_or_default()
}

/// The tokens one tool's definition adds to an agent's context.
pub fn tool_tokens(tool: &Tool) -> Result<usize, String> {
    count_tokens(&counted_definition(tool))
}

/// The tokens of `mcpdeck serve`'s one tool, `mcp`, counted the same way: what an agent's
/// context holds however many servers stand behind it.
pub fn proxy_tool_tokens() -> Result<usize, String> {
    let schema = match crate::mcp::proxy::request_schema() {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    let tool = Tool::new(
        "mcp",
        crate::mcp::proxy::TOOL_DESCRIPTION,
        std::sync::Arc::new(schema),
    );
    tool_tokens(&tool)
}

/// One tool's cost.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCost {
    /// The tool's name (sanitised).
    pub name: String,
    /// Its definition's tokens.
    pub tokens: usize,
}

/// A server's catalog cost (`tools.cost`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CatalogCost {
    /// The tokenizer (`o200k_base`).
    pub tokenizer: String,
    /// Every tool, in the server's order.
    pub tools: Vec<ToolCost>,
    /// The sum over the tools.
    pub total: usize,
    /// What `mcpdeck serve`'s one `mcp` tool costs instead.
    pub proxy_tool: usize,
}

/// The cost of every tool in `tools`, their sum, and serve's `mcp` tool beside it.
pub fn catalog_cost(tools: &[Tool]) -> Result<CatalogCost, String> {
    let mut out = Vec::with_capacity(tools.len());
    for tool in tools {
        out.push(ToolCost {
            name: crate::mcp::sanitize::sanitize_capped(&tool.name, 256),
            tokens: tool_tokens(tool)?,
        });
    }
    Ok(CatalogCost {
        tokenizer: TOKENIZER.to_owned(),
        total: out.iter().map(|t| t.tokens).sum(),
        tools: out,
        proxy_tool: proxy_tool_tokens()?,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_vocabulary_in_the_binary_is_at_most_three_quarters_of_a_mebibyte() {
        assert!(vocabulary_bytes() <= 3 << 18, "{}", vocabulary_bytes());
    }

    #[test]
    fn every_rebuilt_token_is_tiktoken_rs_own() {
        let reference = tiktoken_rs::o200k_base().unwrap();
        let tokens = vocabulary().unwrap();
        assert_eq!(tokens.len(), 199_998);
        for (rank, token) in tokens.iter().enumerate() {
            let rank = u32::try_from(rank).unwrap();
            assert_eq!(
                &reference.decode_bytes(&[rank]).unwrap(),
                token,
                "rank {rank}"
            );
        }
        assert!(reference.decode_bytes(&[199_998]).is_err());
    }

    #[test]
    fn the_rebuilt_encoder_matches_tiktoken_rs_own_o200k_base() {
        let reference = tiktoken_rs::o200k_base().unwrap();
        let ours = encoder().unwrap();
        for text in [
            "hello world",
            "",
            "Grüße aus Köln — 東京 🚀 <|endoftext|>",
            &proxy_definition(),
            "    indented\n\n\tcode() { return 42; }",
        ] {
            assert_eq!(
                ours.encode_ordinary(text),
                reference.encode_ordinary(text),
                "{text}"
            );
        }
        assert_eq!(count_tokens("hello world").unwrap(), 2);
    }

    fn proxy_definition() -> String {
        let schema = match crate::mcp::proxy::request_schema() {
            Value::Object(map) => map,
            _ => Map::new(),
        };
        counted_definition(&Tool::new(
            "mcp",
            crate::mcp::proxy::TOOL_DESCRIPTION,
            std::sync::Arc::new(schema),
        ))
    }

    #[test]
    fn the_definition_counted_is_name_description_and_input_schema_only() {
        let full: Tool = serde_json::from_value(serde_json::json!({
            "name": "add", "title": "Add", "description": "Add two numbers",
            "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object", "properties": {"sum": {"type": "number"}}},
            "annotations": {"readOnlyHint": true}, "_meta": {"x": 1}
        }))
        .unwrap();
        let counted: Value = serde_json::from_str(&counted_definition(&full)).unwrap();
        assert_eq!(
            counted,
            serde_json::json!({"name": "add", "description": "Add two numbers",
                "inputSchema": {"type": "object"}})
        );
        let text = counted_definition(&full);
        assert!(
            !text.contains(": ") && !text.contains(", "),
            "compact: {text}"
        );
        let mut bare = full.clone();
        bare.description = None;
        assert!(tool_tokens(&full).unwrap() > tool_tokens(&bare).unwrap());
        let cost = catalog_cost(&[full, bare]).unwrap();
        assert_eq!(cost.total, cost.tools[0].tokens + cost.tools[1].tokens);
        assert_eq!(cost.proxy_tool, count_tokens(&proxy_definition()).unwrap());
    }
}
