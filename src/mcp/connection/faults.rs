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

use rmcp::model::{
    ClientRequest, ErrorCode, ErrorData, JsonRpcResponse, ListToolsResult, RequestId,
    ServerJsonRpcMessage, ServerResult,
};

use super::error::{ConnectError, ErrorClass};
use crate::mcp::catalog::{CatalogKind, PageLimits};
use crate::mcp::sanitize::sanitize_capped;

/// Deepest nesting `serde_json` accepts (its recursion limit is 128 and the 128th level fails).
pub(crate) const MAX_DEPTH: usize = 127;

/// The most JSON values (objects, arrays and the items and members in them, as counted by
/// [`count_values`]) one listing may hold across its pages. Decoded, a JSON value costs about
/// 140 bytes, so this keeps a listing's model near 70 MiB however its bytes are shaped; real
/// catalogs of the maximum 10,000 tools with ordinary schemas stay well under it.
pub(crate) const MAX_LISTING_VALUES: usize = 500_000;

/// Failures remembered at once; older ones are forgotten (their requests are long gone).
const MAX_REMEMBERED: usize = 1024;

/// Requests failed by an undecodable answer, and frames skipped because nothing awaited them.
#[derive(Debug, Default)]
pub struct Faults {
    failed: Mutex<HashMap<RequestId, ConnectError>>,
    skipped: AtomicU64,
    /// The id of a `server/discover` request awaiting its answer (stdio).
    discover: Mutex<Option<RequestId>>,
    /// Listing requests awaiting their page (stdio): id → what is listed.
    listings: Mutex<HashMap<RequestId, Listing>>,
    /// JSON values received so far in the current listing of each kind.
    listed_values: Mutex<HashMap<Listing, usize>>,
    /// Where the JSON-RPC errors answering a server's undecodable requests go (stdio: a task
    /// writing them to the server's stdin); `None`: such requests are skipped.
    replies: Mutex<Option<tokio::sync::mpsc::Sender<String>>>,
    /// Undecodable server requests answered with an error.
    answered: AtomicU64,
}

/// Errors owed to a server's undecodable requests that may wait to be written; more are
/// dropped (a server flooding them gets no answer to the excess, and no memory).
pub(crate) const QUEUED_REPLIES: usize = 16;

/// What a listing request lists, for the checks made before its page is decoded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Listing {
    /// `tools/list`: `result.tools`.
    Tools,
    /// `resources/list`: `result.resources`.
    Resources,
    /// `resources/templates/list`: `result.resourceTemplates`.
    Templates,
    /// `prompts/list`: `result.prompts`.
    Prompts,
    /// `tasks/list`: `result.tasks`.
    Tasks,
}

impl Listing {
    /// The listing a request makes, if it is one, and whether it asks for the first page.
    pub fn of(request: &ClientRequest) -> Option<(Self, bool)> {
        let (listing, params) = match request {
            ClientRequest::ListToolsRequest(r) => (Self::Tools, &r.params),
            ClientRequest::ListResourcesRequest(r) => (Self::Resources, &r.params),
            ClientRequest::ListResourceTemplatesRequest(r) => (Self::Templates, &r.params),
            ClientRequest::ListPromptsRequest(r) => (Self::Prompts, &r.params),
            ClientRequest::CustomRequest(r) if r.method == "tasks/list" => {
                let first = r
                    .params
                    .as_ref()
                    .is_none_or(|p| p.get("cursor").is_none_or(serde_json::Value::is_null));
                return Some((Self::Tasks, first));
            }
            _ => return None,
        };
        let first = params.as_ref().is_none_or(|p| p.cursor.is_none());
        Some((listing, first))
    }

    fn key(self) -> &'static [u8] {
        match self {
            Self::Tools => b"tools",
            Self::Resources => b"resources",
            Self::Templates => b"resourceTemplates",
            Self::Prompts => b"prompts",
            Self::Tasks => b"tasks",
        }
    }

    /// The most entries one page may hold: the whole listing's bound (a page over it could
    /// never be accepted, so it is refused before it is decoded).
    fn max_entries(self) -> usize {
        let kind = match self {
            Self::Tasks => return PageLimits::TASKS.max_entries,
            Self::Tools => CatalogKind::Tools,
            Self::Resources => CatalogKind::Resources,
            Self::Templates => CatalogKind::ResourceTemplates,
            Self::Prompts => CatalogKind::Prompts,
        };
        PageLimits::for_kind(kind).max_entries
    }

    fn name(self) -> &'static str {
        match self {
            Self::Tools => "tools",
            Self::Resources => "resources",
            Self::Templates => "resource templates",
            Self::Prompts => "prompts",
            Self::Tasks => "tasks",
        }
    }
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

    /// Notes that `id` is a listing request, so its page is checked before it is decoded.
    pub fn expect_listing(&self, id: RequestId, listing: Listing, first_page: bool) {
        if first_page {
            self.listed_values
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .insert(listing, 0);
        }
        let mut listings = self
            .listings
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if listings.len() >= MAX_REMEMBERED {
            listings.clear();
        }
        listings.insert(id, listing);
    }

    /// The pending listing this frame answers, if any (removed: one answer per request).
    fn listing_answered(&self, frame: &[u8]) -> Option<(RequestId, Listing)> {
        let mut listings = self
            .listings
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if listings.is_empty() {
            return None;
        }
        let id = response_id(frame)?;
        let listing = listings.remove(&id)?;
        Some((id, listing))
    }

    /// Adds a page's values to its listing's total; returns the new total.
    fn add_values(&self, listing: Listing, values: usize) -> usize {
        let mut totals = self
            .listed_values
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let total = totals.entry(listing).or_insert(0);
        *total = total.saturating_add(values);
        *total
    }

    /// Sends the errors answering a server's undecodable requests to `replies`.
    pub(crate) fn answer_requests_to(&self, replies: tokio::sync::mpsc::Sender<String>) {
        *self
            .replies
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(replies);
    }

    /// Answers the server's undecodable request `id` with a JSON-RPC error (`-32700` when the
    /// frame is not JSON, `-32600` otherwise), so it does not wait for its own deadline; `false`
    /// when nothing can carry the answer.
    fn answer_request(&self, id: &RequestId, reason: &str) -> bool {
        let replies = self
            .replies
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let Some(tx) = replies.as_ref() else {
            return false;
        };
        let code = if reason.starts_with("it is not valid") {
            crate::mcp::server_stdio::PARSE_ERROR_CODE
        } else {
            crate::mcp::server_stdio::REFUSED_CODE
        };
        let id = serde_json::to_string(id).unwrap_or_else(|_| "null".to_owned());
        let line = crate::mcp::server_stdio::error_line(
            Some(&id),
            code,
            &format!("mcpdeck could not decode this request: {reason}"),
        );
        if tx.try_send(line).is_err() {
            return false;
        }
        self.answered.fetch_add(1, Ordering::Relaxed);
        true
    }

    /// Undecodable server requests answered with an error so far.
    pub fn answered(&self) -> u64 {
        self.answered.load(Ordering::Relaxed)
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
pub(crate) fn undecodable(reason: &str) -> ConnectError {
    ConnectError::new(
        ErrorClass::Protocol,
        format!("the server's answer could not be decoded: {reason}; the request failed at once"),
    )
}

/// Says in plain words why `frame` failed to parse with `err`.
pub(crate) fn reason(frame: &[u8], err: &serde_json::Error) -> String {
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
pub(crate) fn decode(frame: &[u8], faults: &Faults) -> Option<ServerJsonRpcMessage> {
    let frame = frame.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(frame);
    if let Some((id, listing)) = faults.listing_answered(frame) {
        if let Some(refusal) = over_bounds(frame, id, listing, faults) {
            return Some(refusal);
        }
        if listing == Listing::Tools
            && let Ok(page) = serde_json::from_slice::<JsonRpcResponse<ListToolsResult>>(frame)
        {
            // Decoded straight into its type: rmcp's untagged result enum would first buffer
            // the whole page as an intermediate tree, several times the frame's size.
            return Some(ServerJsonRpcMessage::Response(JsonRpcResponse {
                jsonrpc: page.jsonrpc,
                id: page.id,
                result: ServerResult::ListToolsResult(page.result),
            }));
        }
    }
    match serde_json::from_slice::<ServerJsonRpcMessage>(frame) {
        Ok(message) => Some(message),
        Err(err) => fail_frame(frame, &reason(frame, &err), faults),
    }
}

/// The stand-in error for a listing page over its bounds (more entries than the listing may
/// hold, or more JSON values than a listing may carry), counted before the page is decoded.
/// Adds the page's values to its listing's total.
fn over_bounds(
    frame: &[u8],
    id: RequestId,
    listing: Listing,
    faults: &Faults,
) -> Option<ServerJsonRpcMessage> {
    let max = listing.max_entries();
    if count_items(frame, listing.key()).is_some_and(|n| n > max) {
        let error = ConnectError::new(
            ErrorClass::Limit {
                bound: format!("{max} {}", listing.name()),
            },
            format!(
                "{} listing stopped: one page holds more than {max} entries (refused before \
                     it was decoded)",
                listing.name()
            ),
        );
        return Some(faults.fail(id, error));
    }
    let total = faults.add_values(listing, count_values(frame));
    if total > MAX_LISTING_VALUES {
        let error = ConnectError::new(
            ErrorClass::Limit {
                bound: format!("{MAX_LISTING_VALUES} JSON values per listing"),
            },
            format!(
                "{} listing stopped: it holds more than {MAX_LISTING_VALUES} JSON values \
                     (schemas too large to keep in bounded memory; refused before decoding)",
                listing.name()
            ),
        );
        return Some(faults.fail(id, error));
    }
    None
}

/// For a frame that answers a pending listing request (see [`Faults::expect_listing`]): the
/// stand-in error when the page is over its bounds, checked before it is decoded. The HTTP
/// event path uses it; stdio frames get it through [`decode`].
pub(crate) fn check_listing(frame: &[u8], faults: &Faults) -> Option<ServerJsonRpcMessage> {
    let frame = frame.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(frame);
    let (id, listing) = faults.listing_answered(frame)?;
    over_bounds(frame, id, listing, faults)
}

/// Fails the request that `frame` answers with `reason`, or counts the frame as skipped.
pub(crate) fn fail_frame(
    frame: &[u8],
    reason: &str,
    faults: &Faults,
) -> Option<ServerJsonRpcMessage> {
    match frame_ids(frame) {
        (Some(id), false) => Some(faults.fail(id, undecodable(reason))),
        (Some(id), true) => {
            // A request of the server's: answered with an error for its id.
            if !faults.answer_request(&id, reason) {
                faults.skip();
            }
            None
        }
        (None, _) => {
            faults.skip();
            None
        }
    }
}

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
fn frame_ids(frame: &[u8]) -> (Option<RequestId>, bool) {
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

#[cfg(test)]
#[path = "faults_tests.rs"]
mod tests;
