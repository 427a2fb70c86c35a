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
pub(super) struct SpanMember {
    /// The key, unescaped.
    pub key: String,
    /// Byte offset of the key's opening quote.
    pub key_start: usize,
    /// The value's bytes.
    pub value: Range<usize>,
}

/// The outline of a file whose top level is an object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Outline {
    /// Every top-level member, in file order.
    pub top: Vec<SpanMember>,
    /// The members of `mcpServers` when it appears once and is an object.
    pub servers: Option<Vec<SpanMember>>,
}

/// Deeper nesting than this is left to the full parser.
pub(super) const MAX_DEPTH: usize = 512;

/// The outline of `text`, or `None` when it is not strict JSON with an object at the top, or
/// names `mcpServers` more than once.
pub(super) fn outline(text: &str) -> Option<Outline> {
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

/// The strict-JSON scanner (also used by `span_tree`, which builds a tree with it).
pub(super) struct Scanner<'a> {
    pub(super) text: &'a str,
    bytes: &'a [u8],
    pub(super) pos: usize,
}

impl<'a> Scanner<'a> {
    /// A scanner of `text` with its cursor at byte `pos`.
    pub(super) fn at(text: &'a str, pos: usize) -> Self {
        Self {
            text,
            bytes: text.as_bytes(),
            pos,
        }
    }
}

/// The unescaped text of the strict-JSON string `raw` (quotes included), borrowed from the
/// text when it holds no escape.
pub(super) fn unescape(raw: &str) -> Option<std::borrow::Cow<'_, str>> {
    let inner = raw.get(1..raw.len().checked_sub(1)?)?;
    if inner.contains('\\') {
        serde_json::from_str::<String>(raw)
            .ok()
            .map(std::borrow::Cow::Owned)
    } else {
        Some(std::borrow::Cow::Borrowed(inner))
    }
}

impl Scanner<'_> {
    pub(super) fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    pub(super) fn eat(&mut self, byte: u8) -> Option<()> {
        (self.peek()? == byte).then(|| self.pos += 1)
    }

    pub(super) fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    /// The members of the object at the cursor, keys unescaped, values skipped.
    fn members(&mut self, depth: usize) -> Option<Vec<SpanMember>> {
        self.delimited(b'{', b'}', |scan| {
            let (key, key_start) = scan.key()?;
            let value_start = scan.pos;
            scan.value(depth + 1)?;
            Some(SpanMember {
                key,
                key_start,
                value: value_start..scan.pos,
            })
        })
    }

    /// The items of the object or array at the cursor (`open` … `close`, separated by commas),
    /// each read by `item`; the cursor moves past the closing byte.
    pub(super) fn delimited<T>(
        &mut self,
        open: u8,
        close: u8,
        mut item: impl FnMut(&mut Self) -> Option<T>,
    ) -> Option<Vec<T>> {
        self.eat(open)?;
        let mut items = Vec::new();
        self.ws();
        if self.eat(close).is_some() {
            return Some(items);
        }
        loop {
            self.ws();
            items.push(item(self)?);
            self.ws();
            match self.peek()? {
                b',' => self.pos += 1,
                c if c == close => {
                    self.pos += 1;
                    return Some(items);
                }
                _ => return None,
            }
        }
    }

    /// An object member's key at the cursor, unescaped, with its offset; the cursor moves past
    /// the `:` and the whitespace after it.
    pub(super) fn key(&mut self) -> Option<(String, usize)> {
        let key_start = self.pos;
        self.string()?;
        let key = unescape(&self.text[key_start..self.pos])?.into_owned();
        self.ws();
        self.eat(b':')?;
        self.ws();
        Some((key, key_start))
    }

    /// Moves past an object member's key, the `:` and the whitespace after it, checking the
    /// key as [`Scanner::key`] does without keeping it.
    fn skip_key(&mut self) -> Option<()> {
        let key_start = self.pos;
        self.string()?;
        unescape(&self.text[key_start..self.pos])?;
        self.ws();
        self.eat(b':')?;
        self.ws();
        Some(())
    }

    /// Skips one value, checking that it is strict JSON.
    pub(super) fn value(&mut self, depth: usize) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        match self.peek()? {
            b'"' => self.string(),
            // Items of no size: the lists are never allocated.
            b'{' => self
                .delimited(b'{', b'}', |scan| {
                    scan.skip_key()?;
                    scan.value(depth + 1)
                })
                .map(drop),
            b'[' => self
                .delimited(b'[', b']', |scan| scan.value(depth + 1))
                .map(drop),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    pub(super) fn literal(&mut self, word: &[u8]) -> Option<()> {
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

    pub(super) fn number(&mut self) -> Option<()> {
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
    pub(super) fn string(&mut self) -> Option<()> {
        self.eat(b'"')?;
        loop {
            let rest = self.bytes.get(self.pos..)?;
            // Most strings of a configuration are a few bytes long: a plain loop finds their
            // end sooner than a vector search sets itself up. A control byte ends the search
            // and is refused below.
            let at = rest
                .iter()
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
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

/// Appends the canonical text (object keys sorted by bytes at every level, no whitespace, of two
/// equal keys the last) of the strict-JSON value `text[range]` to `out`, exactly as
/// [`crate::mcp::canonical::write_canonical`] writes the parsed value, without building it: an
/// object's members are held as borrowed key and value spans one level at a time, so a
/// definition of 100,000 `env` keys costs a few megabytes, not a tree of them. `None` when the
/// span is not strict JSON (then `out` may hold part of the text).
pub(super) fn write_canonical_span(
    text: &str,
    range: Range<usize>,
    out: &mut String,
) -> Option<()> {
    let mut scan = Scanner {
        text,
        bytes: text.as_bytes(),
        pos: range.start,
    };
    scan.ws();
    scan.canonical(0, out)?;
    // What follows the value may be the file's whitespace after it: the span ends before that.
    super::span_tree::only_whitespace(text.get(scan.pos..range.end)?).then_some(())
}

impl Scanner<'_> {
    /// Writes the canonical text of the value at the cursor and moves past it.
    fn canonical(&mut self, depth: usize, out: &mut String) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        let start = self.pos;
        match self.peek()? {
            b'{' => return self.canonical_object(depth, out),
            b'[' => return self.canonical_array(depth, out),
            b'"' => {
                self.string()?;
                let raw = &self.text[start..self.pos];
                if raw.contains('\\') {
                    // Escapes are written the one way serde_json writes them.
                    let value: String = serde_json::from_str(raw).ok()?;
                    out.push_str(&serde_json::to_string(&value).ok()?);
                } else {
                    out.push_str(raw);
                }
            }
            b'-' | b'0'..=b'9' => {
                self.number()?;
                let value: serde_json::Value =
                    serde_json::from_str(&self.text[start..self.pos]).ok()?;
                out.push_str(&value.to_string());
            }
            _ => {
                self.value(depth)?;
                out.push_str(&self.text[start..self.pos]);
            }
        }
        Some(())
    }

    fn canonical_object(&mut self, depth: usize, out: &mut String) -> Option<()> {
        self.eat(b'{')?;
        let mut members: Vec<(std::borrow::Cow<'_, str>, usize)> = Vec::new();
        self.ws();
        if self.eat(b'}').is_none() {
            loop {
                self.ws();
                let key_start = self.pos;
                self.string()?;
                let raw = &self.text[key_start + 1..self.pos - 1];
                let key = if raw.contains('\\') {
                    std::borrow::Cow::Owned(
                        serde_json::from_str(&self.text[key_start..self.pos]).ok()?,
                    )
                } else {
                    std::borrow::Cow::Borrowed(raw)
                };
                self.ws();
                self.eat(b':')?;
                self.ws();
                members.push((key, self.pos));
                self.value(depth + 1)?;
                self.ws();
                match self.peek()? {
                    b',' => self.pos += 1,
                    b'}' => {
                        self.pos += 1;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        let end = self.pos;
        // A stable sort keeps equal keys in file order; the last of them is the one kept.
        members.sort_by(|a, b| a.0.cmp(&b.0));
        out.push('{');
        let mut first = true;
        for (i, (key, at)) in members.iter().enumerate() {
            if members.get(i + 1).is_some_and(|next| next.0 == *key) {
                continue;
            }
            if !first {
                out.push(',');
            }
            first = false;
            crate::mcp::canonical::write_string(key, out);
            out.push(':');
            self.pos = *at;
            self.canonical(depth + 1, out)?;
        }
        out.push('}');
        self.pos = end;
        Some(())
    }

    fn canonical_array(&mut self, depth: usize, out: &mut String) -> Option<()> {
        self.eat(b'[')?;
        out.push('[');
        self.ws();
        if self.eat(b']').is_some() {
            out.push(']');
            return Some(());
        }
        loop {
            self.ws();
            self.canonical(depth + 1, out)?;
            self.ws();
            match self.peek()? {
                b',' => {
                    self.pos += 1;
                    out.push(',');
                }
                b']' => {
                    self.pos += 1;
                    out.push(']');
                    return Some(());
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

    #[test]
    fn the_canonical_text_of_a_span_is_that_of_its_parsed_value() {
        for text in [
            r#"{"b": [1, 2.50, -0, 1e3, {"z": null, "a": true}], "a\u0041": "\u00e9\/\n", "é": "x"}"#,
            r#"{"k": 1, "k": 2, "j": {"k": "first", "k": "last"}}"#,
            r#"  "just \"text\"" "#,
            "[]",
            "{}",
        ] {
            let value: serde_json::Value = serde_json::from_str(text).expect("json");
            let mut from_span = String::new();
            write_canonical_span(text, 0..text.len(), &mut from_span).expect("strict JSON");
            assert_eq!(
                from_span,
                crate::mcp::canonical::canonical_json(&value),
                "{text}"
            );
        }
        assert!(write_canonical_span("{\"a\": 01}", 0..9, &mut String::new()).is_none());
        // A value followed by whitespace inside its file is still read from its span.
        let mut out = String::new();
        write_canonical_span("[{\"b\": 1, \"a\": 2} ]", 1..17, &mut out).expect("strict JSON");
        assert_eq!(out, r#"{"a":2,"b":1}"#);
    }
}
