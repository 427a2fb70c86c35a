//! What a tool definition costs an agent's context, in tokens.
//!
//! A definition is counted as hosts hand it to a model: the tool's JSON object with `name`,
//! `description` (when the server gave one) and `inputSchema`, serialised compactly
//! (`serde_json::to_string`, no whitespace, the schema's keys as `serde_json` keeps them).
//! Titles, annotations, `outputSchema` and `_meta` are not sent to the model by hosts, so they
//! are not counted. The tokenizer is `o200k_base` (the GPT-4o and later models' one): its
//! vocabulary is compressed into the binary by `build.rs` (each token as the pair of earlier
//! tokens it joins) and rebuilt once, on first use, into [`Encoder`].
//!
//! The counting is our own, not `tiktoken-rs`'s `CoreBPE`: `CoreBPE` keeps each of the 199,998
//! tokens as a vector of its own three times over (an encoder map, a decoder map and a sorted
//! list), about 40 MiB, which was a quarter of the console's memory at a 10,000-tool catalog.
//! [`Encoder`] holds every token's bytes end to end in one buffer and one table of ranks over
//! it (about 8 MiB), and only counts. It splits text with `tiktoken-rs`'s own `o200k_base`
//! pattern and merges byte pairs the way tiktoken does (the lowest rank first, the leftmost of
//! equals); the tests check its counts against `tiktoken-rs`'s encoder.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::sync::OnceLock;

use rmcp::model::Tool;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

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

/// The `o200k_base` encoder, for counting.
struct Encoder {
    /// The rank of every token, by its bytes (borrowed from one buffer that lives as long as
    /// the process: the encoder is built once, into a static).
    ranks: HashMap<&'static [u8], u32, foldhash::fast::FixedState>,
    /// `o200k_base`'s pre-tokenising pattern: byte pairs never merge across its pieces.
    pieces: fancy_regex::Regex,
}

impl Encoder {
    /// How many tokens `text` is.
    fn count(&self, text: &str) -> Result<usize, String> {
        let mut tokens = 0;
        for piece in self.pieces.find_iter(text) {
            let piece = piece
                .map_err(|e| format!("the tokenizer could not split the text: {e}"))?
                .as_str()
                .as_bytes();
            tokens += if self.ranks.contains_key(piece) {
                1
            } else {
                self.merged(piece)
            };
        }
        Ok(tokens)
    }

    /// How many tokens byte-pair merging leaves of `piece`: starting from its single bytes, the
    /// adjacent pair of parts whose joined bytes are the token of lowest rank is joined (the
    /// leftmost of equal ranks), again and again, until no adjacent pair joins into a token.
    /// The candidates wait in a heap and are checked when taken, so a long piece (a hostile
    /// description without spaces) costs n log n, not n².
    fn merged(&self, piece: &[u8]) -> usize {
        let n = piece.len();
        if n < 2 {
            return n;
        }
        let rank = |start: usize, end: usize| self.ranks.get(&piece[start..end]).copied();
        // Parts are named by where they start: `end[s]` is where the part starting at `s`
        // ends, `prev[s]` where the part before it starts; `alive[s]` whether a part still
        // starts at `s`.
        let mut end: Vec<usize> = (1..=n).collect();
        let mut prev: Vec<usize> = (0..n).map(|s| s.saturating_sub(1)).collect();
        let mut alive = vec![true; n];
        // (rank, left part, right part, the right part's end): a join as it was when found.
        let mut heap = BinaryHeap::with_capacity(n);
        for s in 0..n - 1 {
            if let Some(r) = rank(s, s + 2) {
                heap.push(Reverse((r, s, s + 1, s + 2)));
            }
        }
        let mut parts = n;
        while let Some(Reverse((_, left, right, stop))) = heap.pop() {
            if !alive[left] || end[left] != right || !alive[right] || end[right] != stop {
                continue;
            }
            alive[right] = false;
            end[left] = stop;
            parts -= 1;
            if stop < n {
                prev[stop] = left;
                if let Some(r) = rank(left, end[stop]) {
                    heap.push(Reverse((r, left, stop, end[stop])));
                }
            }
            if left > 0 {
                let before = prev[left];
                if let Some(r) = rank(before, stop) {
                    heap.push(Reverse((r, before, left, stop)));
                }
            }
        }
        parts
    }
}

/// The encoder, built once.
fn encoder() -> Result<&'static Encoder, String> {
    static ENCODER: OnceLock<Result<Encoder, String>> = OnceLock::new();
    ENCODER
        .get_or_init(build_encoder)
        .as_ref()
        .map_err(Clone::clone)
}

/// Every ordinary token's bytes, in rank order, end to end, and where each token ends; rebuilt
/// from the pairs.
fn vocabulary() -> Result<(Vec<u8>, Vec<usize>), String> {
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
    let corrupt = || "the tokenizer's vocabulary is corrupt".to_owned();
    let mut bytes: Vec<u8> = Vec::with_capacity(left.len() * 8);
    let mut ends: Vec<usize> = Vec::with_capacity(left.len());
    for (a, b) in left.into_iter().zip(right) {
        if b == ONE_BYTE {
            bytes.push(u8::try_from(a).map_err(|_| corrupt())?);
        } else {
            let span = |rank: u32| {
                let rank = usize::try_from(rank).ok()?;
                let stop = *ends.get(rank)?;
                let start = rank
                    .checked_sub(1)
                    .map_or(Some(0), |r| ends.get(r).copied())?;
                Some(start..stop)
            };
            let (Some(a), Some(b)) = (span(a), span(b)) else {
                return Err(corrupt());
            };
            bytes.extend_from_within(a);
            bytes.extend_from_within(b);
        }
        ends.push(bytes.len());
    }
    Ok((bytes, ends))
}

fn build_encoder() -> Result<Encoder, String> {
    let (bytes, ends) = vocabulary()?;
    // Kept for the life of the process, as the encoder that borrows it is.
    let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
    let mut ranks =
        HashMap::with_capacity_and_hasher(ends.len(), foldhash::fast::FixedState::default());
    let mut start = 0;
    for (rank, &stop) in ends.iter().enumerate() {
        let rank = u32::try_from(rank).map_err(|_| "the tokenizer's vocabulary is too large")?;
        ranks.insert(&bytes[start..stop], rank);
        start = stop;
    }
    let pieces = fancy_regex::Regex::new(tiktoken_rs::O200K_BASE_PAT_STR)
        .map_err(|e| format!("the tokenizer does not build: {e}"))?;
    Ok(Encoder { ranks, pieces })
}

/// How many `o200k_base` tokens `text` is (special-token text counts as ordinary text).
pub fn count_tokens(text: &str) -> Result<usize, String> {
    encoder()?.count(text)
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
pub fn catalog_cost(tools: impl IntoIterator<Item = Tool>) -> Result<CatalogCost, String> {
    let tools = tools.into_iter();
    let mut out = Vec::with_capacity(tools.size_hint().0);
    for tool in tools {
        out.push(ToolCost {
            name: crate::mcp::sanitize::sanitize_capped(&tool.name, 256),
            tokens: tool_tokens(&tool)?,
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
        let (bytes, ends) = vocabulary().unwrap();
        assert_eq!(ends.len(), 199_998);
        let mut start = 0;
        for (rank, &stop) in ends.iter().enumerate() {
            let rank = u32::try_from(rank).unwrap();
            assert_eq!(
                reference.decode_bytes(&[rank]).unwrap(),
                &bytes[start..stop],
                "rank {rank}"
            );
            start = stop;
        }
        assert!(reference.decode_bytes(&[199_998]).is_err());
    }

    #[test]
    fn our_counts_are_tiktoken_rs_own_o200k_base() {
        let reference = tiktoken_rs::o200k_base().unwrap();
        let long_word = "antidisestablishmentarianism".repeat(40);
        let no_spaces: String = (0..3_000u32)
            .map(|i| char::from_u32(0x61 + (i * 7 + i / 13) % 26).unwrap())
            .collect();
        let mut texts = vec![
            "hello world".to_owned(),
            String::new(),
            "Grüße aus Köln — 東京 🚀 <|endoftext|>".to_owned(),
            proxy_definition(),
            "    indented\n\n\tcode() { return 42; }".to_owned(),
            long_word,
            no_spaces,
            "x".repeat(5_000),
            "0123456789".repeat(50),
            "\u{200b}\u{202e}zero width and bidi\u{feff}".to_owned(),
        ];
        for i in 0..200 {
            texts.push(format!(
                "{{\"name\":\"tool_{i:05}\",\"description\":\"Does operation {i} on the \
                 widget catalog; see the docs.\",\"inputSchema\":{{\"type\":\"object\"}}}}"
            ));
        }
        for text in &texts {
            assert_eq!(
                count_tokens(text).unwrap(),
                reference.encode_ordinary(text).len(),
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
        let cost = catalog_cost([full, bare]).unwrap();
        assert_eq!(cost.total, cost.tools[0].tokens + cost.tools[1].tokens);
        assert_eq!(cost.proxy_tool, count_tokens(&proxy_definition()).unwrap());
    }
}
