//! Reading a server's frame without decoding it: its top-level `id` and whether it has a
//! `method`, how many JSON values it holds, and how many items one listing array has. One
//! cheap pass over the bytes each, on invalid UTF-8 and at any depth, so [`super::faults`] can
//! answer a request whose frame serde cannot decode, and bound a listing before it is decoded.

use rmcp::model::RequestId;

/// Roughly how many JSON values a frame holds: its objects, arrays and separators outside
/// strings (each `,` starts another item or member). One cheap pass over the bytes.
pub(crate) fn count_values(frame: &[u8]) -> usize {
    let mut count = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for &b in frame {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' | b',' => count += 1,
            _ => {}
        }
    }
    count
}

/// How many elements the array `result.<key>` of a frame holds, counted without decoding it.
pub(crate) fn count_items(frame: &[u8], key: &[u8]) -> Option<usize> {
    let mut scan = Scanner {
        bytes: frame,
        pos: 0,
    };
    let mut depth = 0usize;
    let mut in_result = false;
    // The depth of the array being counted, and its count so far.
    let mut counting: Option<(usize, usize)> = None;
    while let Some(b) = scan.next() {
        match b {
            b'{' | b'[' => {
                depth += 1;
                if let Some((at, n)) = counting
                    && depth == at + 1
                    && n == 0
                {
                    counting = Some((at, 1));
                }
            }
            b'}' | b']' => {
                if let Some((at, n)) = counting
                    && depth == at
                {
                    return Some(n);
                }
                depth = depth.saturating_sub(1);
                if depth < 2 {
                    in_result = false;
                }
            }
            b',' => {
                if let Some((at, n)) = counting
                    && depth == at
                {
                    counting = Some((at, n + 1));
                }
            }
            b'"' => {
                let (start, end) = scan.string()?;
                if let Some((at, n)) = counting
                    && depth == at
                    && n == 0
                {
                    counting = Some((at, 1));
                }
                if scan.peek_non_ws() != Some(b':') {
                    continue;
                }
                let name = &frame[start..end];
                if depth == 1 && name == b"result" {
                    scan.pos += 1;
                    in_result = scan.peek_non_ws() == Some(b'{');
                } else if depth == 2 && in_result && name == key && counting.is_none() {
                    scan.pos += 1;
                    if scan.peek_non_ws() == Some(b'[') {
                        scan.pos += 1;
                        depth += 1;
                        counting = Some((depth, 0));
                    }
                }
            }
            other => {
                if let Some((at, n)) = counting
                    && depth == at
                    && n == 0
                    && !other.is_ascii_whitespace()
                {
                    counting = Some((at, 1));
                }
            }
        }
    }
    None
}

/// The top-level `id` of a frame that looks like an answer (has no top-level `method`), read
/// without parsing the frame: it works on invalid UTF-8 and on any depth. `None` when the frame
/// is a request or notification, or its id is missing, null or not a plain number or string.
pub(crate) fn response_id(frame: &[u8]) -> Option<RequestId> {
    match frame_ids(frame) {
        (id, false) => id,
        (_, true) => None,
    }
}

/// A frame's top-level `id`, and whether it has a top-level `method` (a request, when it has
/// an id too), found without decoding it.
pub(super) fn frame_ids(frame: &[u8]) -> (Option<RequestId>, bool) {
    let mut scan = Scanner {
        bytes: frame,
        pos: 0,
    };
    let mut depth = 0usize;
    let mut id = None;
    let mut has_method = false;
    while let Some(b) = scan.next() {
        match b {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'"' => {
                let Some((start, end)) = scan.string() else {
                    return (None, has_method);
                };
                if depth == 1 && scan.peek_non_ws() == Some(b':') {
                    scan.pos += 1;
                    let key = &frame[start..end];
                    if key == b"method" {
                        has_method = true;
                    } else if key == b"id" {
                        id = scan.id_value();
                    }
                }
            }
            _ => {}
        }
    }
    (id, has_method)
}

struct Scanner<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl Scanner<'_> {
    fn next(&mut self) -> Option<u8> {
        let b = *self.bytes.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }

    fn peek_non_ws(&mut self) -> Option<u8> {
        while let Some(b) = self.bytes.get(self.pos) {
            if !b.is_ascii_whitespace() {
                return Some(*b);
            }
            self.pos += 1;
        }
        None
    }

    /// Reads the rest of a string (after its opening quote); returns where its raw bytes are.
    fn string(&mut self) -> Option<(usize, usize)> {
        let start = self.pos;
        loop {
            match self.next()? {
                b'\\' => {
                    self.next()?;
                }
                b'"' => return Some((start, self.pos - 1)),
                _ => {}
            }
        }
    }

    /// Reads an id value: an integer or a string without escapes.
    fn id_value(&mut self) -> Option<RequestId> {
        match self.peek_non_ws()? {
            b'"' => {
                self.pos += 1;
                let (start, end) = self.string()?;
                let raw = &self.bytes[start..end];
                if raw.contains(&b'\\') {
                    return None;
                }
                let text = std::str::from_utf8(raw).ok()?;
                Some(RequestId::String(text.into()))
            }
            b'-' | b'0'..=b'9' => {
                let start = self.pos;
                self.pos += 1;
                while self.bytes.get(self.pos).is_some_and(u8::is_ascii_digit) {
                    self.pos += 1;
                }
                let text = std::str::from_utf8(&self.bytes[start..self.pos]).ok()?;
                text.parse().ok().map(RequestId::Number)
            }
            _ => None,
        }
    }
}
