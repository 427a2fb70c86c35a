//! Frames that could not be decoded, and the requests they failed.
//!
//! A server may answer with a frame serde cannot turn into a JSON-RPC message: invalid UTF-8,
//! JSON nested deeper than the parser's limit, or a JSON value that is not a message at all.
//! rmcp would drop such a frame and leave the request waiting for its deadline. Where frames are
//! read (the stdio line reader, the HTTP event stream) this module turns an undecodable answer
//! into a JSON-RPC error for the same id, and remembers why, so the request fails at once with
//! the class recorded here (`protocol`, or `limit` for an oversized event). A frame without a
//! usable id (a notification, a request, or no id at all) is counted and skipped. Nothing here
//! keeps more than the id and a short reason of any frame.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use rmcp::model::{ErrorCode, ErrorData, RequestId, ServerJsonRpcMessage};

use super::error::{ConnectError, ErrorClass};
use crate::mcp::sanitize::sanitize_capped;

/// Deepest nesting `serde_json` accepts (its recursion limit is 128 and the 128th level fails).
pub const MAX_DEPTH: usize = 127;

/// Failures remembered at once; older ones are forgotten (their requests are long gone).
const MAX_REMEMBERED: usize = 1024;

/// Requests failed by an undecodable answer, and frames skipped because nothing awaited them.
#[derive(Debug, Default)]
pub struct Faults {
    failed: Mutex<HashMap<RequestId, ConnectError>>,
    skipped: AtomicU64,
    /// The id of a `server/discover` request awaiting its answer (stdio).
    discover: Mutex<Option<RequestId>>,
}

impl Faults {
    /// Records that the answer to `id` could not be used, and returns the JSON-RPC error that
    /// stands in for it (so the pending request ends now rather than at its deadline).
    pub fn fail(&self, id: RequestId, error: ConnectError) -> ServerJsonRpcMessage {
        let code = match error.class {
            ErrorClass::Limit { .. } => ErrorCode::INTERNAL_ERROR,
            _ => ErrorCode::PARSE_ERROR,
        };
        let stand_in = ErrorData::new(code, error.message.clone(), None);
        let mut failed = self
            .failed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if failed.len() >= MAX_REMEMBERED {
            failed.clear();
        }
        failed.insert(id.clone(), error);
        ServerJsonRpcMessage::error(stand_in, Some(id))
    }

    /// The recorded failure of request `id`, if its answer was undecodable.
    pub fn take(&self, id: &RequestId) -> Option<ConnectError> {
        self.failed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(id)
    }

    /// Any recorded failure (the handshake has only one request in flight).
    pub fn take_any(&self) -> Option<ConnectError> {
        let mut failed = self
            .failed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let id = failed.keys().next().cloned()?;
        failed.remove(&id)
    }

    /// Notes that `id` is a `server/discover` request, so its answer is checked.
    pub fn expect_discover(&self, id: RequestId) {
        *self
            .discover
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(id);
    }

    /// Passes the answer to a pending `server/discover` through [`super::discover::usable_answer`].
    pub fn check_discover(&self, message: ServerJsonRpcMessage) -> ServerJsonRpcMessage {
        let id = match &message {
            ServerJsonRpcMessage::Response(r) => Some(&r.id),
            ServerJsonRpcMessage::Error(e) => e.id.as_ref(),
            _ => None,
        };
        let mut pending = self
            .discover
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if id.is_some() && pending.as_ref() == id {
            *pending = None;
            drop(pending);
            return super::discover::usable_answer(message);
        }
        message
    }

    /// Counts a frame that was skipped because no request could be failed with it.
    pub fn skip(&self) {
        self.skipped.fetch_add(1, Ordering::Relaxed);
    }

    /// Undecodable frames skipped so far.
    pub fn skipped(&self) -> u64 {
        self.skipped.load(Ordering::Relaxed)
    }
}

/// The `protocol` error for an answer that could not be decoded.
pub fn undecodable(reason: &str) -> ConnectError {
    ConnectError::new(
        ErrorClass::Protocol,
        format!("the server's answer could not be decoded: {reason}; the request failed at once"),
    )
}

/// Says in plain words why `frame` failed to parse with `err`.
pub fn reason(frame: &[u8], err: &serde_json::Error) -> String {
    if let Err(bad) = std::str::from_utf8(frame) {
        return format!("it is not valid UTF-8 (at byte {})", bad.valid_up_to());
    }
    if err.to_string().starts_with("recursion limit exceeded") {
        return format!("its JSON is nested deeper than {MAX_DEPTH} levels");
    }
    if err.is_syntax() || err.is_eof() {
        return format!(
            "it is not valid JSON (column {})",
            err.column().max(err.line())
        );
    }
    // serde's data errors quote the offending value: server text, so it is sanitised and capped.
    format!(
        "it is not a JSON-RPC message ({})",
        sanitize_capped(&err.to_string(), 200)
    )
}

/// Decodes one frame from a server. An undecodable frame that answers a request becomes a
/// JSON-RPC error for that request (recorded in `faults`); any other undecodable frame is
/// counted and skipped (`None`).
pub fn decode(frame: &[u8], faults: &Faults) -> Option<ServerJsonRpcMessage> {
    let frame = frame.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(frame);
    match serde_json::from_slice::<ServerJsonRpcMessage>(frame) {
        Ok(message) => Some(message),
        Err(err) => fail_frame(frame, &reason(frame, &err), faults),
    }
}

/// Fails the request that `frame` answers with `reason`, or counts the frame as skipped.
pub fn fail_frame(frame: &[u8], reason: &str, faults: &Faults) -> Option<ServerJsonRpcMessage> {
    let Some(id) = response_id(frame) else {
        faults.skip();
        return None;
    };
    Some(faults.fail(id, undecodable(reason)))
}

/// The top-level `id` of a frame that looks like an answer (has no top-level `method`), read
/// without parsing the frame: it works on invalid UTF-8 and on any depth. `None` when the frame
/// is a request or notification, or its id is missing, null or not a plain number or string.
pub fn response_id(frame: &[u8]) -> Option<RequestId> {
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
                let (start, end) = scan.string()?;
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
    if has_method { None } else { id }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(depth: usize) -> String {
        format!("{}{}", "[".repeat(depth), "]".repeat(depth))
    }

    #[test]
    fn max_depth_is_serdes_limit() {
        assert!(serde_json::from_str::<serde_json::Value>(&nested(MAX_DEPTH)).is_ok());
        let err = serde_json::from_str::<serde_json::Value>(&nested(MAX_DEPTH + 1))
            .expect_err("too deep");
        assert!(reason(nested(MAX_DEPTH + 1).as_bytes(), &err).contains("nested deeper"));
    }

    #[test]
    fn finds_the_id_of_answers_only() {
        let deep = nested(200);
        let frame = format!(r#"{{"jsonrpc":"2.0","result":{{"x":{deep},"id":9}},"id":7}}"#);
        assert_eq!(response_id(frame.as_bytes()), Some(RequestId::Number(7)));
        assert_eq!(
            response_id(br#"{"id" : "a-1", "result": "\xff"}"#),
            Some(RequestId::String("a-1".into()))
        );
        assert_eq!(response_id(br#"{"id":3,"method":"ping"}"#), None);
        assert_eq!(response_id(br#"{"id":null,"result":{}}"#), None);
        assert_eq!(response_id(br#"{"result":{"id":4}}"#), None);
        assert_eq!(response_id(br#"{"id":"a\"b","result":1}"#), None);
        assert_eq!(
            response_id(br#"{"key":"id","id":-2,"error":{}}"#),
            Some(RequestId::Number(-2))
        );
    }

    #[test]
    fn undecodable_answers_fail_their_request_and_others_are_counted() {
        let faults = Faults::default();
        let deep = nested(130);
        let frame = format!(r#"{{"jsonrpc":"2.0","id":5,"result":{{"content":{deep}}}}}"#);
        let Some(ServerJsonRpcMessage::Error(e)) = decode(frame.as_bytes(), &faults) else {
            panic!("expected a stand-in error");
        };
        assert_eq!(e.id, Some(RequestId::Number(5)));
        let recorded = faults.take(&RequestId::Number(5)).expect("recorded");
        assert_eq!(recorded.class, ErrorClass::Protocol);
        assert!(
            recorded.message.contains("nested deeper"),
            "{}",
            recorded.message
        );
        let bad_utf8 = b"{\"jsonrpc\":\"2.0\",\"id\":6,\"result\":{\"t\":\"\xff\"}}";
        assert!(decode(bad_utf8, &faults).is_some());
        assert!(
            faults
                .take(&RequestId::Number(6))
                .expect("recorded")
                .message
                .contains("UTF-8")
        );
        assert!(decode(br#"{"jsonrpc":"2.0","method":"x","params":"#, &faults).is_none());
        assert!(decode(br#"{"jsonrpc":"2.0"}"#, &faults).is_none());
        assert_eq!(faults.skipped(), 2);
        assert!(decode(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#, &faults).is_some());
        assert_eq!(faults.skipped(), 2);
    }
}
