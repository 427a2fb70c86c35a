//! Strict JSON with positions and duplicate keys kept.
//!
//! `serde_json` silently keeps the last of two equal keys and forgets where a value stood, so
//! configuration files are parsed here into a small tree that remembers the byte offset of every
//! value and key and keeps every member, duplicates included. Only strict JSON is accepted (no
//! comments, trailing commas or JSON5 forms). This module knows nothing about the schema.

use jsonc_parser::ast;
use jsonc_parser::common::Ranged;

/// A JSON value with the byte offset where it starts.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Spanned {
    /// The value.
    pub value: Json,
    /// Byte offset of the value's first character.
    pub start: usize,
    /// Byte offset just past the value's last character.
    pub end: usize,
}

/// One object member, in file order.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Member {
    /// The key, unescaped.
    pub key: String,
    /// Byte offset of the key's opening quote.
    pub key_start: usize,
    /// The member's value.
    pub value: Spanned,
}

/// A JSON value whose objects keep every member in order, duplicates included.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Json {
    /// An object.
    Object(Vec<Member>),
    /// An array.
    Array(Vec<Spanned>),
    /// A string.
    String(String),
    /// A number.
    Number(serde_json::Number),
    /// `true` or `false`.
    Bool(bool),
    /// `null`.
    Null,
}

impl Json {
    /// The JSON type's name, for messages ("expected a string, found an array").
    pub(crate) fn type_name(&self) -> &'static str {
        match self {
            Self::Object(_) => "an object",
            Self::Array(_) => "an array",
            Self::String(_) => "a string",
            Self::Number(_) => "a number",
            Self::Bool(_) => "a boolean",
            Self::Null => "null",
        }
    }

    /// Converts to a `serde_json::Value` (sorted keys; the last duplicate wins, which only
    /// matters for files that already carry a duplicate-key error).
    pub(crate) fn to_value(&self) -> serde_json::Value {
        match self {
            Self::Object(members) => serde_json::Value::Object(
                members
                    .iter()
                    .map(|m| (m.key.clone(), m.value.value.to_value()))
                    .collect(),
            ),
            Self::Array(items) => {
                serde_json::Value::Array(items.iter().map(|i| i.value.to_value()).collect())
            }
            Self::String(s) => serde_json::Value::String(s.clone()),
            Self::Number(n) => serde_json::Value::Number(n.clone()),
            Self::Bool(b) => serde_json::Value::Bool(*b),
            Self::Null => serde_json::Value::Null,
        }
    }
}

/// A syntax error with the byte offset where it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    /// Byte offset of the problem.
    pub offset: usize,
    /// What is wrong.
    pub message: String,
}

/// Parses strict JSON text.
pub(crate) fn parse(text: &str) -> Result<Spanned, SyntaxError> {
    parse_with(text, false)
}

/// Parses `text[range]`, one strict-JSON value, with every offset counted in the whole `text`.
pub(crate) fn parse_span(
    text: &str,
    range: std::ops::Range<usize>,
) -> Result<Spanned, SyntaxError> {
    let base = range.start;
    let slice = text.get(range).ok_or(SyntaxError {
        offset: base,
        message: "the value lies outside the text".to_owned(),
    })?;
    let mut value = parse(slice).map_err(|e| SyntaxError {
        offset: e.offset + base,
        message: e.message,
    })?;
    value.shift(base);
    Ok(value)
}

impl Spanned {
    /// Moves every offset `by` bytes later.
    fn shift(&mut self, by: usize) {
        self.start += by;
        self.end += by;
        match &mut self.value {
            Json::Object(members) => {
                for member in members {
                    member.key_start += by;
                    member.value.shift(by);
                }
            }
            Json::Array(items) => {
                for item in items {
                    item.shift(by);
                }
            }
            Json::String(_) | Json::Number(_) | Json::Bool(_) | Json::Null => {}
        }
    }
}

/// Parses JSON with comments and trailing commas (what VS Code and some hosts accept).
pub(crate) fn parse_jsonc(text: &str) -> Result<Spanned, SyntaxError> {
    parse_with(text, true)
}

fn parse_with(text: &str, jsonc: bool) -> Result<Spanned, SyntaxError> {
    let options = jsonc_parser::ParseOptions {
        allow_comments: jsonc,
        allow_loose_object_property_names: false,
        allow_trailing_commas: jsonc,
        allow_missing_commas: false,
        allow_single_quoted_strings: false,
        allow_hexadecimal_numbers: false,
        allow_unary_plus_numbers: false,
        allow_bare_decimal_point_numbers: false,
        allow_non_finite_numbers: false,
        allow_extended_string_escapes: false,
    };
    let result =
        jsonc_parser::parse_to_ast(text, &jsonc_parser::CollectOptions::default(), &options)
            .map_err(|e| SyntaxError {
                offset: e.range().start,
                message: e.kind().to_string(),
            })?;
    let Some(value) = result.value else {
        return Err(SyntaxError {
            offset: 0,
            message: "the file holds no JSON value".to_owned(),
        });
    };
    convert(&value)
}

fn convert(value: &ast::Value<'_>) -> Result<Spanned, SyntaxError> {
    let range = value.range();
    let (start, end) = (range.start, range.end);
    let json = match value {
        ast::Value::StringLit(s) => Json::String(s.value.to_string()),
        ast::Value::NumberLit(n) => Json::Number(n.value.parse().map_err(|_| SyntaxError {
            offset: start,
            message: format!("`{}` is not a JSON number this parser can hold", n.value),
        })?),
        ast::Value::BooleanLit(b) => Json::Bool(b.value),
        ast::Value::NullKeyword(_) => Json::Null,
        ast::Value::Array(a) => {
            Json::Array(a.elements.iter().map(convert).collect::<Result<_, _>>()?)
        }
        ast::Value::Object(o) => Json::Object(
            o.properties
                .iter()
                .map(|p| {
                    Ok(Member {
                        key: p.name.as_str().to_owned(),
                        key_start: p.name.range().start,
                        value: convert(&p.value)?,
                    })
                })
                .collect::<Result<_, SyntaxError>>()?,
        ),
    };
    Ok(Spanned {
        value: json,
        start,
        end,
    })
}

/// Maps byte offsets to 1-based line and column (columns count characters).
///
/// Locating is cheap even in a file that is one 4 MiB line: besides the line starts, the index
/// keeps how many characters precede every [`CHAR_BLOCK`]-byte mark, so a column is counted over
/// at most two partial blocks, never over the whole line.
#[derive(Debug, Clone)]
pub(crate) struct LineIndex {
    line_starts: Vec<usize>,
    /// `chars_before[k]`: characters starting in `text[..k * CHAR_BLOCK]`.
    chars_before: Vec<usize>,
}

/// Spacing of the character-count marks, in bytes.
const CHAR_BLOCK: usize = 4096;

impl LineIndex {
    /// Indexes `text`.
    pub(crate) fn new(text: &str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        let mut chars_before = vec![0];
        let mut total = 0;
        for block in text.as_bytes().chunks(CHAR_BLOCK) {
            total += char_starts(block);
            chars_before.push(total);
        }
        Self {
            line_starts,
            chars_before,
        }
    }

    /// Characters starting before byte `offset` (any offset; a character counts where its first
    /// byte is).
    fn chars_up_to(&self, bytes: &[u8], offset: usize) -> usize {
        let block = offset / CHAR_BLOCK;
        self.chars_before[block] + char_starts(&bytes[block * CHAR_BLOCK..offset])
    }

    /// The 1-based line of `offset`, without counting its column (a server's line in a
    /// one-line file of 100,000 servers is found without counting characters).
    pub(crate) fn line(&self, offset: usize) -> u32 {
        let line = self.line_starts.partition_point(|&s| s <= offset).max(1);
        u32::try_from(line).unwrap_or(u32::MAX)
    }

    /// The 1-based (line, column) of `offset` in `text`.
    pub(crate) fn locate(&self, text: &str, offset: usize) -> (u32, u32) {
        let line = self.line_starts.partition_point(|&s| s <= offset).max(1);
        let line_start = self.line_starts[line - 1];
        let end = offset.min(text.len());
        let bytes = text.as_bytes();
        let column =
            self.chars_up_to(bytes, end) - self.chars_up_to(bytes, line_start.min(end)) + 1;
        (
            u32::try_from(line).unwrap_or(u32::MAX),
            u32::try_from(column).unwrap_or(u32::MAX),
        )
    }
}

/// How many UTF-8 characters start in `bytes` (bytes that are not continuation bytes).
fn char_starts(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b & 0xC0) != 0x80).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_duplicates_and_offsets() {
        let text = "{\n  \"a\": 1,\n  \"a\": [true, null]\n}";
        let root = parse(text).expect("valid");
        let Json::Object(members) = root.value else {
            panic!("object expected");
        };
        assert_eq!(members.len(), 2);
        let index = LineIndex::new(text);
        assert_eq!(index.locate(text, members[1].key_start), (3, 3));
        assert_eq!(index.locate(text, members[1].value.start), (3, 8));
    }

    #[test]
    fn rejects_json5_forms() {
        for bad in [
            "{\"a\": 1,}",
            "{a: 1}",
            "{\"a\": 'x'}",
            "// c\n{}",
            "{\"a\": 0x1}",
            "",
        ] {
            assert!(parse(bad).is_err(), "{bad:?} should be rejected");
        }
    }

    #[test]
    fn syntax_error_has_position() {
        let text = "{\n  \"a\": 1\n  \"b\": 2\n}";
        let err = parse(text).expect_err("missing comma");
        let located = LineIndex::new(text).locate(text, err.offset);
        assert_eq!((located, err.message.as_str()), ((2, 9), "Expected comma"));
    }

    #[test]
    fn columns_on_one_long_line_count_characters() {
        let mut text = String::from("{\"k\": \"");
        text.push_str(&"é".repeat(10_000));
        text.push_str("\", \"z\": 1}");
        let index = LineIndex::new(&text);
        let z = text.find("\"z\"").expect("z");
        assert_eq!(index.locate(&text, z), (1, 7 + 10_000 + 3 + 1));
        let second = format!("{text}\n  x");
        let x = second.rfind('x').expect("x");
        assert_eq!(LineIndex::new(&second).locate(&second, x), (2, 3));
    }

    #[test]
    fn the_line_alone_is_the_line_locate_gives() {
        let text = "{\n  \"a\": 1,\n\n  \"b\": \"é\"\n}\n";
        let index = LineIndex::new(text);
        for offset in 0..=text.len() + 2 {
            let offset = if text.is_char_boundary(offset.min(text.len())) {
                offset
            } else {
                continue;
            };
            assert_eq!(index.line(offset), index.locate(text, offset).0, "{offset}");
        }
    }

    #[test]
    fn columns_count_characters() {
        let text = "{\"é\": \"x\"}";
        let root = parse(text).expect("valid");
        let Json::Object(members) = root.value else {
            panic!("object expected");
        };
        assert_eq!(
            LineIndex::new(text).locate(text, members[0].value.start),
            (1, 7)
        );
    }
}
