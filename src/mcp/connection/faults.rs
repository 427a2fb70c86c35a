//! Frames that could not be decoded, and the requests they failed.
//!
//! A server may answer with a frame serde cannot turn into a JSON-RPC message: invalid UTF-8,
//! JSON nested deeper than the parser's limit, or a JSON value that is not a message at all.
//! rmcp would drop such a frame and leave the request waiting for its deadline. Where frames are
//! read (the stdio line reader, the HTTP event stream) this module turns an undecodable answer
//! into a JSON-RPC error for the same id, and remembers why, so the request fails at once with
//! the class recorded here (`protocol`, or `limit` for an oversized event). A frame without a
//! usable id (a notification, a request, or no id at all) is counted and skipped. Nothing here
//! keeps more than the id and a short reason of any frame. Frames are read without decoding
//! (their id, their size in values) by `faults_scan.rs`.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use rmcp::model::{
    CallToolResult, ClientRequest, ErrorCode, ErrorData, JsonRpcResponse, ListToolsResult,
    RequestId, ServerJsonRpcMessage, ServerResult,
};

use super::error::{ConnectError, ErrorClass};
use crate::mcp::catalog::{CatalogKind, PageLimits};
use crate::mcp::sanitize::sanitize_capped;
use scan::frame_ids;
pub(crate) use scan::{count_items, count_values, response_id};

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
    /// How long the `auto` probe waits for its answer (`None`: rmcp's own wait). Over stdio
    /// the idle rule of `frames` applies on top; over HTTP, `probe_guard`'s bound.
    probe: Mutex<Option<std::time::Duration>>,
    /// A probe that timed out: its late answer is dropped.
    late_discover: Mutex<Option<RequestId>>,
    /// The stdio server's pid (0: not known), whose CPU time tells a probe it is still busy.
    server_pid: std::sync::atomic::AtomicU32,
    /// Listing requests awaiting their page (stdio): id → what is listed.
    listings: Mutex<HashMap<RequestId, Listing>>,
    /// JSON values received so far in the current listing of each kind.
    listed_values: Mutex<HashMap<Listing, usize>>,
    /// `tools/call` requests awaiting their answer (stdio), decoded straight into their type.
    calls: Mutex<HashSet<RequestId>>,
    /// Where the JSON-RPC errors answering a server's undecodable requests go (stdio: a task
    /// writing them to the server's stdin); `None`: such requests are skipped.
    replies: Mutex<Option<tokio::sync::mpsc::Sender<String>>>,
    /// Undecodable server requests answered with an error.
    answered: AtomicU64,
    /// The requests whose response frame is kept as sent (`raw.rs`); the frame readers that
    /// share these faults hand it over as they decode it.
    pub(crate) raw: super::raw::RawFrames,
    /// Server requests sent as tasks, with the parameters rmcp's types drop (`task_asks`).
    pub(crate) task_asks: super::task_asks::TaskAsks,
    /// Tool results decoded from SSE events, waiting for their stand-ins (`decoded`).
    pub(crate) decoded: super::decoded::DecodedAnswers,
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

    /// Passes the answer to a pending `server/discover` through [`super::discover::usable_answer`];
    /// `None` for the late answer of a probe that timed out (the handshake moved on).
    pub fn check_discover(&self, message: ServerJsonRpcMessage) -> Option<ServerJsonRpcMessage> {
        let id = match &message {
            ServerJsonRpcMessage::Response(r) => Some(&r.id),
            ServerJsonRpcMessage::Error(e) => e.id.as_ref(),
            _ => None,
        };
        if id.is_none() {
            return Some(message);
        }
        let mut late = self
            .late_discover
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if late.as_ref() == id {
            *late = None;
            return None;
        }
        drop(late);
        let mut pending = self
            .discover
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if pending.as_ref() == id {
            *pending = None;
            drop(pending);
            return Some(super::discover::usable_answer(message));
        }
        Some(message)
    }

    /// Makes the `auto` probe give up on its `server/discover` after `timeout` (stdio).
    pub fn probe_within(&self, timeout: std::time::Duration) {
        *self
            .probe
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(timeout);
    }

    /// Notes the stdio server's pid.
    pub fn set_server_pid(&self, pid: u32) {
        self.server_pid.store(pid, Ordering::Relaxed);
    }

    /// The CPU time the server's process tree has used so far (see [`super::era::tree_cpu`]).
    pub fn server_cpu(&self) -> Option<u64> {
        match self.server_pid.load(Ordering::Relaxed) {
            0 => None,
            pid => super::era::tree_cpu(pid),
        }
    }

    /// Whether the probe `id` still waits for its answer.
    pub fn probe_pending(&self, id: &RequestId) -> bool {
        self.discover
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .as_ref()
            == Some(id)
    }

    /// How long the probe waits, if mcpdeck bounds it.
    pub fn probe_timeout(&self) -> Option<std::time::Duration> {
        *self
            .probe
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// When the probe `id` is still unanswered: the "method not found" that stands in for its
    /// answer (so rmcp falls back to `initialize` now), its late answer to be dropped.
    pub fn probe_expired(&self, id: &RequestId) -> Option<ServerJsonRpcMessage> {
        let mut pending = self
            .discover
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if pending.as_ref() != Some(id) {
            return None;
        }
        *pending = None;
        drop(pending);
        *self
            .late_discover
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(id.clone());
        Some(ServerJsonRpcMessage::error(
            ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                "no answer to server/discover from a server that went idle",
                None,
            ),
            Some(id.clone()),
        ))
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

    /// Notes that `id` is a `tools/call` request, so its answer is decoded as a tool result.
    pub fn expect_call(&self, id: RequestId) {
        let mut calls = self
            .calls
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if calls.len() >= MAX_REMEMBERED {
            calls.clear();
        }
        calls.insert(id);
    }

    /// Whether this frame answers a pending `tools/call` (removed: one answer per request).
    fn call_answered(&self, frame: &[u8]) -> bool {
        let mut calls = self
            .calls
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        !calls.is_empty() && response_id(frame).is_some_and(|id| calls.remove(&id))
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
    match decode_message(frame, faults, faults.call_answered(frame)) {
        Ok(message) => {
            super::task_asks::note(&message, frame, faults);
            Some(message)
        }
        Err(err) => fail_frame(frame, &reason(frame, &err), faults),
    }
}

/// Decodes one frame into a message: a listing page over its bounds becomes its refusal before
/// it is decoded, and a tools page and a tool result (`call`: the frame answers a `tools/call`)
/// are decoded straight into their types. rmcp's untagged result enum would first buffer the
/// whole frame as an intermediate tree, and copy every escaped string once more for each
/// untagged level it tries: a 15 MiB text result would be held three or four times over.
pub(crate) fn decode_message(
    frame: &[u8],
    faults: &Faults,
    call: bool,
) -> Result<ServerJsonRpcMessage, serde_json::Error> {
    if let Some((id, listing)) = faults.listing_answered(frame) {
        if let Some(refusal) = over_bounds(frame, id, listing, faults) {
            return Ok(refusal);
        }
        if listing == Listing::Tools
            && let Ok(page) = serde_json::from_slice::<JsonRpcResponse<ListToolsResult>>(frame)
        {
            return Ok(response(page, ServerResult::ListToolsResult));
        }
    }
    // A task, an `input_required` round or an error is not a tool result: decoded as any frame.
    if call && let Ok(answer) = serde_json::from_slice::<JsonRpcResponse<CallToolResult>>(frame) {
        return Ok(response(answer, ServerResult::CallToolResult));
    }
    serde_json::from_slice::<ServerJsonRpcMessage>(frame)
}

/// A response decoded into its own type, as rmcp's message.
fn response<R>(answer: JsonRpcResponse<R>, wrap: fn(R) -> ServerResult) -> ServerJsonRpcMessage {
    ServerJsonRpcMessage::Response(JsonRpcResponse {
        jsonrpc: answer.jsonrpc,
        id: answer.id,
        result: wrap(answer.result),
    })
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

#[path = "faults_scan.rs"]
mod scan;

#[cfg(test)]
#[path = "faults_tests.rs"]
mod tests;
