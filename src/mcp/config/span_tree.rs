//! One strict-JSON value of a configuration file as a positioned tree, built by the outline's
//! scanner instead of the general parser.
//!
//! A file of 100,000 servers parses each server's value on its own (see `outline`); the
//! general parser (`json::parse_span`) builds a syntax tree with tokens and ranges for every
//! one of them before it is turned into a [`Spanned`] tree. The span was already accepted by the
//! strict scanner, so it is read here straight into the tree: the same values, keys and offsets
//! as `json::parse_span` gives. `None` for anything it does not read the same way (a number
//! `serde_json` cannot hold, an escape it refuses): the caller then asks the general parser,
//! which reports it as before.

use std::ops::Range;

use super::json::{Json, Member, Spanned};
use super::outline::{MAX_DEPTH, Scanner, unescape};

/// The tree of the strict-JSON value `text[range]`, offsets counted in the whole `text`.
pub(super) fn parse_strict_span(text: &str, range: Range<usize>) -> Option<Spanned> {
    let mut scan = Scanner::at(text, range.start);
    scan.ws();
    let value = scan.tree(0)?;
    only_whitespace(text.get(scan.pos..range.end)?).then_some(value)
}

/// Whether `rest` (what follows a value in its span) is only JSON whitespace.
pub(super) fn only_whitespace(rest: &str) -> bool {
    rest.bytes()
        .all(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
}

impl Scanner<'_> {
    /// The value at the cursor as a tree; the cursor moves past it.
    fn tree(&mut self, depth: usize) -> Option<Spanned> {
        if depth > MAX_DEPTH {
            return None;
        }
        let start = self.pos;
        let value = match self.peek()? {
            b'"' => {
                self.string()?;
                Json::String(unescape(&self.text[start..self.pos])?.into_owned())
            }
            b'{' => Json::Object(self.tree_members(depth)?),
            b'[' => Json::Array(self.tree_items(depth)?),
            b't' => {
                self.literal(b"true")?;
                Json::Bool(true)
            }
            b'f' => {
                self.literal(b"false")?;
                Json::Bool(false)
            }
            b'n' => {
                self.literal(b"null")?;
                Json::Null
            }
            b'-' | b'0'..=b'9' => {
                self.number()?;
                Json::Number(self.text[start..self.pos].parse().ok()?)
            }
            _ => return None,
        };
        Some(Spanned {
            value,
            start,
            end: self.pos,
        })
    }

    fn tree_members(&mut self, depth: usize) -> Option<Vec<Member>> {
        self.delimited(b'{', b'}', |scan| {
            let (key, key_start) = scan.key()?;
            let value = scan.tree(depth + 1)?;
            Some(Member {
                key,
                key_start,
                value,
            })
        })
    }

    fn tree_items(&mut self, depth: usize) -> Option<Vec<Spanned>> {
        self.delimited(b'[', b']', |scan| scan.tree(depth + 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::config::json::parse_span;

    #[test]
    fn the_tree_is_the_general_parsers_tree() {
        for value in [
            r#"{"command": "x", "args": ["a\"b", "\u00e9\/\n", "\ud83d\ude00", ""], "env": {"K": "v", "K": "w"}}"#,
            r#"{ "n" : [ 0 , -0 , 1.50 , -2.5e3 , 1E+2 , 18446744073709551615 , -9223372036854775808 ] }"#,
            r#"{"t": true, "f": false, "z": null, "o": {}, "a": [], "é": {"deep": [[{"x": [1]}]]}}"#,
            r#""just text""#,
            "12",
            "[]",
        ] {
            // Inside a larger text, so that offsets are counted from its start.
            let text = format!("{{\"mcpServers\": {{\"s\": {value} }}}}");
            let start = text.find(value).expect("value");
            let range = start..start + value.len();
            let general = parse_span(&text, range.clone()).expect("general parser");
            assert_eq!(parse_strict_span(&text, range), Some(general), "{value}");
        }
    }

    #[test]
    fn what_it_does_not_read_the_same_way_is_left_to_the_general_parser() {
        for value in [
            r#"{"x": 1e400}"#,
            r#"{"x": "\ud800"}"#,
            "{\"x\": 1,}",
            "{\"x\": 01}",
        ] {
            let text = format!("[{value}]");
            assert_eq!(
                parse_strict_span(&text, 1..1 + value.len()),
                None,
                "{value}"
            );
        }
    }
}
