//! The outline of a configuration file: its top-level members and the members of its
//! `mcpServers` object, each as a key and the byte range of its value, found in one pass
//! without building a tree.
//!
//! A file under the 4 MiB cap can hold 100,000 servers. Parsing it whole into a positioned tree
//! held the tree (and the parser's own syntax tree) for every server at once; with the outline,
//! each server's value is parsed on its own, checked and dropped before the next. The scanner
//! accepts strict JSON only and declines anything else (`None`), in which case the caller reads
//! the file the slow way, which also says precisely what is wrong. This module knows nothing
//! about the schema beyond the name `mcpServers`.

use std::ops::Range;

/// One object member: its key and where its value lies in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpanMember {
    /// The key, unescaped.
    pub key: String,
    /// Byte offset of the key's opening quote.
    pub key_start: usize,
    /// The value's bytes.
    pub value: Range<usize>,
}

/// The outline of a file whose top level is an object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outline {
    /// Every top-level member, in file order.
    pub top: Vec<SpanMember>,
    /// The members of `mcpServers` when it appears once and is an object.
    pub servers: Option<Vec<SpanMember>>,
}

/// Deeper nesting than this is left to the full parser.
const MAX_DEPTH: usize = 512;

/// The outline of `text`, or `None` when it is not strict JSON with an object at the top, or
/// names `mcpServers` more than once.
pub fn outline(text: &str) -> Option<Outline> {
    let mut scan = Scanner {
        text,
        bytes: text.as_bytes(),
        pos: 0,
    };
    scan.ws();
    let top = scan.members(0)?;
    scan.ws();
    if scan.pos != scan.bytes.len() {
        return None;
    }
    let mut named = top.iter().filter(|m| m.key == "mcpServers");
    let servers = match (named.next(), named.next()) {
        (Some(member), None) if text.as_bytes()[member.value.start] == b'{' => {
            let mut inner = Scanner {
                text,
                bytes: text.as_bytes(),
                pos: member.value.start,
            };
            Some(inner.members(1)?)
        }
        (_, Some(_)) => return None,
        _ => None,
    };
    Some(Outline { top, servers })
}

struct Scanner<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn eat(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.pos += 1)
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    /// The members of the object at the cursor, keys unescaped, values skipped.
    fn members(&mut self, depth: usize) -> Option<Vec<SpanMember>> {
        self.eat(b'{')?;
        let mut members = Vec::new();
        self.ws();
        if self.eat(b'}').is_some() {
            return Some(members);
        }
        loop {
            self.ws();
            let key_start = self.pos;
            self.string()?;
            let key = serde_json::from_str(&self.text[key_start..self.pos]).ok()?;
            self.ws();
            self.eat(b':')?;
            self.ws();
            let value_start = self.pos;
            self.value(depth + 1)?;
            members.push(SpanMember {
                key,
                key_start,
                value: value_start..self.pos,
            });
            self.ws();
            match self.peek()? {
                b',' => self.pos += 1,
                b'}' => {
                    self.pos += 1;
                    return Some(members);
                }
                _ => return None,
            }
        }
    }

    /// Skips one value, checking that it is strict JSON.
    fn value(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        match self.peek()? {
            b'"' => self.string(),
            b'{' => self.container(b'}', depth, true),
            b'[' => self.container(b']', depth, false),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    fn container(&mut self, close: u8, depth: usize, object: bool) -> Option<()> {
        self.pos += 1;
        self.ws();
        if self.eat(close).is_some() {
            return Some(());
        }
        loop {
            self.ws();
            if object {
                self.string()?;
                self.ws();
                self.eat(b':')?;
                self.ws();
            }
            self.value(depth + 1)?;
            self.ws();
            match self.peek()? {
                b',' => self.pos += 1,
                c if c == close => {
                    self.pos += 1;
                    return Some(());
                }
                _ => return None,
            }
        }
    }

    fn literal(&mut self, word: &[u8]) -> Option<()> {
        self.bytes.get(self.pos..)?.starts_with(word).then(|| {
            self.pos += word.len();
        })
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> Option<()> {
        let _ = self.eat(b'-');
        match self.peek()? {
            b'0' => self.pos += 1,
            b'1'..=b'9' => {
                self.digits();
            }
            _ => return None,
        }
        if self.eat(b'.').is_some() && self.digits() == 0 {
            return None;
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return None;
            }
        }
        Some(())
    }

    /// Skips a string; the text is `&str`, so it is valid UTF-8 already.
    fn string(&mut self) -> Option<()> {
        self.eat(b'"')?;
        loop {
            let rest = self.bytes.get(self.pos..)?;
            let at = memchr::memchr3(b'"', b'\\', b'\n', rest)?;
            if rest[..at].iter().any(|&b| b < 0x20) {
                return None;
            }
            self.pos += at;
            match self.bytes[self.pos] {
                b'"' => {
                    self.pos += 1;
                    return Some(());
                }
                b'\\' => {
                    self.pos += 1;
                    match self.peek()? {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => self.pos += 1,
                        b'u' => {
                            let hex = self.bytes.get(self.pos + 1..self.pos + 5)?;
                            if !hex.iter().all(u8::is_ascii_hexdigit) {
                                return None;
                            }
                            self.pos += 5;
                        }
                        _ => return None,
                    }
                }
                _ => return None,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn servers_are_outlined_with_their_spans() {
        let text = r#" {"mcpServers": {"a": {"command": "x\"y"}, "b\u0041": [1, -2.5e3, true, null]}, "x": 1} "#;
        let outline = outline(text).expect("strict JSON");
        assert_eq!(
            outline
                .top
                .iter()
                .map(|m| m.key.as_str())
                .collect::<Vec<_>>(),
            ["mcpServers", "x"]
        );
        let servers = outline.servers.expect("servers");
        assert_eq!(servers[0].key, "a");
        assert_eq!(&text[servers[0].value.clone()], r#"{"command": "x\"y"}"#);
        assert_eq!(servers[1].key, "bA");
        assert_eq!(text.as_bytes()[servers[1].key_start], b'"');
        assert_eq!(&text[servers[1].value.clone()], "[1, -2.5e3, true, null]");
    }

    #[test]
    fn anything_but_strict_json_is_declined() {
        for text in [
            "",
            "[]",
            "{\"a\": 1,}",
            "{a: 1}",
            "{\"a\": 'x'}",
            "// c\n{}",
            "{\"a\": 0x1}",
            "{\"a\": 01}",
            "{\"a\": 1.}",
            "{\"a\": \"\t\"}",
            "{\"a\": \"\\x\"}",
            "{\"a\": 1} x",
            "{\"mcpServers\": {}, \"mcpServers\": {}}",
        ] {
            assert_eq!(outline(text), None, "{text:?}");
        }
        let deep = format!("{{\"a\": {}{}}}", "[".repeat(600), "]".repeat(600));
        assert_eq!(outline(&deep), None);
    }

    #[test]
    fn a_non_object_server_list_has_no_servers() {
        let outline = outline(r#"{"mcpServers": [1]}"#).expect("strict JSON");
        assert_eq!(outline.servers, None);
    }
}
