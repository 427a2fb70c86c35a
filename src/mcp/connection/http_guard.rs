//! The HTTP client under rmcp's Streamable HTTP transport, with mcpdeck's checks on what comes
//! back.
//!
//! It delegates every request to rmcp's reqwest client and looks at the answers before rmcp's
//! worker does: an SSE event that cannot be decoded (nested too deep, invalid UTF-8, not a
//! JSON-RPC message) or that is larger than the 16 MiB cap becomes a JSON-RPC error for the
//! request it answers, recorded in [`Faults`] with its class (`protocol` or `limit`), so the
//! request fails at once instead of waiting for its deadline; a JSON body nested too deep or with
//! invalid UTF-8 is treated the same way. A server's request on a stream that cannot be decoded answers
//! nothing of mcpdeck's, so it is answered instead: a JSON-RPC error posted to the endpoint
//! and session of the latest POST ([`GuardedClient::answering`]). A listing page sent as an event is counted before it
//! is decoded (entries and JSON values, as on stdio) and refused as `limit` when over its bounds;
//! a listing request is posted by mcpdeck itself (`http_post`), so a page sent as a plain JSON
//! body is counted the same way before it is decoded; so is a `tools/call`, whose plain JSON
//! answer is decoded straight into a tool result (a large text is held once, not four times),
//! and a request whose answer is kept as sent (`raw.rs`), whose body or event is handed to its
//! slot as it is decoded. An answer to `server/discover` that is not a usable discover result
//! (an empty result, any JSON-RPC error, an HTTP 400/404/405, a body that is not JSON) becomes
//! "method not found", which makes rmcp's `auto` lifecycle fall back to
//! `initialize` on the same transport. In `auto`, the probe's POST and the reading of its answer
//! are bounded (`probe_guard`): past the bound a "method not found" stands in and the late
//! answer is never read. Authentication refusals keep their own path.
//!
//! Every POST also carries the headers the 2026-07-28 transport asks of each one, whatever the
//! era: `MCP-Protocol-Version` (on `initialize` too, equal to the version its `_meta` names, see
//! `client_meta`), `Mcp-Method`, and `Mcp-Name` for the calls that name their target. rmcp sends
//! these itself in a 2026 session; they are added only where it left them out.

use std::collections::HashMap;
use std::sync::Arc;

use futures_util::StreamExt;
use http::{HeaderName, HeaderValue};
use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, ErrorCode, ErrorData, RequestId, ServerJsonRpcMessage,
    ServerResult,
};
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpError, StreamableHttpPostResponse,
};
use sse_stream::Sse;

use super::client_meta;
use super::discover;
use super::error::{ConnectError, ErrorClass};
use super::faults::{Faults, Listing, check_listing, fail_frame, undecodable};
use super::http_layer::{Get, HttpLayer, Post, SseStream};
use super::http_post::{ListingPost, post_listing};

type HttpError = StreamableHttpError<reqwest::Error>;

/// rmcp's reqwest client plus the checks above.
#[derive(Clone)]
pub(crate) struct GuardedClient {
    inner: reqwest::Client,
    faults: Arc<Faults>,
    /// Client capabilities rmcp's typed `initialize` cannot carry (see `declare`).
    extra: Option<Arc<serde_json::Map<String, serde_json::Value>>>,
    /// Where the last POST went (endpoint, session, credentials, headers): the errors answering
    /// a server's undecodable requests are posted there.
    last: Arc<std::sync::Mutex<Option<ReplyTarget>>>,
}

/// The endpoint and headers a reply to the server is posted with.
#[derive(Clone)]
struct ReplyTarget {
    uri: Arc<str>,
    session_id: Option<Arc<str>>,
    auth_header: Option<String>,
    headers: HashMap<HeaderName, HeaderValue>,
    limits: rmcp::transport::streamable_http_client::StreamableHttpResponseLimits,
}

impl GuardedClient {
    /// Wraps `inner`; failures are recorded in `faults`.
    pub(crate) fn new(inner: reqwest::Client, faults: Arc<Faults>) -> Self {
        Self {
            inner,
            faults,
            extra: None,
            last: Arc::default(),
        }
    }

    /// The answer to a POST as rmcp should see it (see the module comment).
    fn checked_answer(
        &self,
        answer: Result<StreamableHttpPostResponse, HttpError>,
        posted: Posted,
        max_event: usize,
    ) -> Result<StreamableHttpPostResponse, HttpError> {
        match answer {
            Ok(StreamableHttpPostResponse::Sse(stream, sid)) => {
                Ok(StreamableHttpPostResponse::Sse(
                    guard_stream(stream, posted, self.faults.clone(), max_event),
                    sid,
                ))
            }
            Ok(StreamableHttpPostResponse::Json(message, sid)) if posted.discover => Ok(
                StreamableHttpPostResponse::Json(discover::usable_answer(message), sid),
            ),
            Ok(other) => Ok(other),
            Err(err) => {
                if let Some(id) = &posted.id {
                    if posted.discover
                        && let Some(fallback) = discover_fallback(&err, id)
                    {
                        return Ok(fallback);
                    }
                    if let Some(reason) = body_fault(&err) {
                        let stand_in = self.faults.fail(id.clone(), undecodable(reason));
                        return Ok(StreamableHttpPostResponse::Json(stand_in, None));
                    }
                }
                Err(err)
            }
        }
    }

    /// Keeps where the latest POST went, less the headers that name its method and target.
    fn remember_target(&self, mut target: ReplyTarget) {
        target
            .headers
            .remove(&HeaderName::from_static("mcp-method"));
        target.headers.remove(&HeaderName::from_static("mcp-name"));
        *self
            .last
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(target);
    }

    /// Answers the server's undecodable requests (a request on an event stream that is not a
    /// JSON-RPC message mcpdeck can read) with a JSON-RPC error, posted like any other message
    /// to the endpoint and session of the latest POST, so the server need not wait for its own
    /// deadline. Needs a Tokio runtime: a task does the posting, and ends with the connection
    /// (when `Faults` drops its sender).
    #[must_use]
    pub(crate) fn answering(self) -> Self {
        let (tx, mut rx) = tokio::sync::mpsc::channel::<String>(super::faults::QUEUED_REPLIES);
        self.faults.answer_requests_to(tx);
        let (inner, last) = (self.inner.clone(), self.last.clone());
        tokio::spawn(async move {
            while let Some(line) = rx.recv().await {
                let Ok(message) = serde_json::from_str::<ClientJsonRpcMessage>(line.trim_end())
                else {
                    continue;
                };
                let target = last
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .clone();
                let Some(t) = target else { continue };
                let post = Post {
                    uri: t.uri,
                    message,
                    session_id: t.session_id,
                    auth_header: t.auth_header,
                    headers: t.headers,
                    limits: t.limits,
                };
                // The server's answer to an error response is an empty 202; nothing waits on it.
                let _ = post.forward(&inner).await;
            }
        });
        self
    }

    /// Adds `extra` capabilities to the `initialize` request on the wire. Done here, under
    /// rmcp's HTTP worker, because the worker needs the typed request to manage the session;
    /// the body it posts is the only thing that changes.
    #[must_use]
    pub(crate) fn declaring(
        mut self,
        extra: Option<serde_json::Map<String, serde_json::Value>>,
    ) -> Self {
        self.extra = extra.map(Arc::new);
        self
    }
}

/// What a POST was: its id when it is a request, and whether it is `server/discover` or a
/// `tools/call`.
struct Posted {
    id: Option<RequestId>,
    discover: bool,
    call: bool,
}

impl Posted {
    fn of(message: &ClientJsonRpcMessage) -> Self {
        match message {
            ClientJsonRpcMessage::Request(r) => Self {
                id: Some(r.id.clone()),
                discover: matches!(r.request, ClientRequest::DiscoverRequest(_)),
                call: matches!(r.request, ClientRequest::CallToolRequest(_)),
            },
            _ => Self {
                id: None,
                discover: false,
                call: false,
            },
        }
    }
}

/// The `limit` error for an SSE event over the cap.
fn event_limit(max: usize) -> ConnectError {
    ConnectError::new(
        ErrorClass::Limit {
            bound: format!("SSE event {} MiB", max / (1024 * 1024)),
        },
        format!(
            "the server sent an SSE event larger than {} MiB; the request failed at once",
            max / (1024 * 1024)
        ),
    )
}

/// Why rmcp could not parse a JSON body, when it is one of the frame faults handled here.
fn body_fault(err: &HttpError) -> Option<&'static str> {
    let StreamableHttpError::UnexpectedServerResponse(text) = err else {
        return None;
    };
    if !text.starts_with("could not parse JSON response") {
        return None;
    }
    if text.contains("recursion limit exceeded") {
        Some("its JSON is nested too deep")
    } else if text.contains("invalid unicode code point") || text.contains("UTF-8") {
        Some("it is not valid UTF-8")
    } else {
        None
    }
}

fn to_sse(message: &ServerJsonRpcMessage) -> Sse {
    Sse {
        event: None,
        data: serde_json::to_string(message).ok(),
        id: None,
        retry: None,
    }
}

/// Checks each event of a response stream; see the module comment.
fn guard_stream(stream: SseStream, posted: Posted, faults: Arc<Faults>, max: usize) -> SseStream {
    let state = (stream, posted, faults, false);
    futures_util::stream::unfold(
        state,
        move |(mut stream, posted, faults, done)| async move {
            if done {
                return None;
            }
            let item = stream.next().await?;
            let (item, done) = match item {
                Ok(mut sse) => {
                    let is_message = matches!(sse.event.as_deref(), None | Some("" | "message"));
                    if is_message && let Some(data) = sse.data.take() {
                        sse.data = check_event(data, &posted, &faults);
                    }
                    (Ok(sse), false)
                }
                Err(e) => {
                    let text = e.to_string();
                    let fault = if text.contains("exceeded the maximum size") {
                        Some(event_limit(max))
                    } else if matches!(e, SseError::Utf8Parse(_)) {
                        Some(undecodable("it is not valid UTF-8"))
                    } else {
                        None
                    };
                    match (fault, posted.id.clone()) {
                        (Some(fault), Some(id)) => (Ok(to_sse(&faults.fail(id, fault))), true),
                        _ => (Err(e), false),
                    }
                }
            };
            Some((item, (stream, posted, faults, done)))
        },
    )
    .boxed()
}

/// The event's data as rmcp should see it: unchanged when it decodes, a stand-in error when it
/// answers a request and does not, nothing when it is undecodable and answers nothing.
fn check_event(data: String, posted: &Posted, faults: &Faults) -> Option<String> {
    // A listing page over its bounds is refused from a cheap count, before it is decoded.
    if let Some(refusal) = check_listing(data.as_bytes(), faults) {
        return serde_json::to_string(&refusal).ok();
    }
    // The answer to a tool call is decoded straight into a tool result (`decode_message`).
    match super::faults::decode_message(data.as_bytes(), faults, posted.call) {
        Ok(message) if posted.discover => {
            let checked = discover::usable_answer(message);
            serde_json::to_string(&checked).ok()
        }
        Ok(message) => {
            faults.raw.offer(&message, data.as_bytes());
            super::task_asks::note(&message, data.as_bytes(), faults);
            match (&message, &posted.id) {
                // Kept decoded; rmcp decodes a stand-in (`decoded.rs`).
                (ServerJsonRpcMessage::Response(r), Some(id))
                    if r.id == *id && matches!(r.result, ServerResult::CallToolResult(_)) =>
                {
                    Some(faults.decoded.keep(id.clone(), message))
                }
                _ => Some(data),
            }
        }
        Err(err) => {
            let reason = super::faults::reason(data.as_bytes(), &err);
            let stand_in = fail_frame(data.as_bytes(), &reason, faults)?;
            serde_json::to_string(&stand_in).ok()
        }
    }
}

/// The answer to a failed `server/discover` POST that lets `auto` fall back, when the failure
/// says the server does not speak the 2026 protocol (not an authentication refusal, not a
/// network failure).
fn discover_fallback(err: &HttpError, id: &RequestId) -> Option<StreamableHttpPostResponse> {
    let legacy = match err {
        StreamableHttpError::UnexpectedServerResponse(_)
        | StreamableHttpError::UnexpectedContentType(_)
        | StreamableHttpError::Deserialize(_)
        | StreamableHttpError::SessionExpired
        | StreamableHttpError::ServerDoesNotSupportSse => true,
        StreamableHttpError::HttpStatus(status) => status.status < 500 || status.status == 501,
        _ => false,
    };
    legacy.then(|| {
        StreamableHttpPostResponse::Json(
            ServerJsonRpcMessage::error(
                ErrorData::new(
                    ErrorCode::METHOD_NOT_FOUND,
                    "server/discover is not supported here",
                    None,
                ),
                Some(id.clone()),
            ),
            None,
        )
    })
}

/// Adds the client context to `initialize` and the standard headers `message` lacks.
fn with_context(
    message: ClientJsonRpcMessage,
    headers: &mut HashMap<HeaderName, HeaderValue>,
) -> ClientJsonRpcMessage {
    let version_header = HeaderName::from_static("mcp-protocol-version");
    let message = client_meta::stamp_initialize(message);
    if !headers.contains_key(&version_header)
        && let Some(version) = client_meta::version_of(&message)
        && let Ok(value) = HeaderValue::from_str(&version)
    {
        headers.insert(version_header, value);
    }
    for (name, value) in standard_headers(&message) {
        headers.entry(name).or_insert(value);
    }
    message
}

/// `Mcp-Method` for every request and notification, and `Mcp-Name` for `tools/call`,
/// `prompts/get` (the name) and `resources/read` (the URI), Base64-wrapped when it cannot travel
/// as it is.
fn standard_headers(message: &ClientJsonRpcMessage) -> Vec<(HeaderName, HeaderValue)> {
    let (method, name) = match message {
        ClientJsonRpcMessage::Request(r) => {
            let name = match &r.request {
                ClientRequest::CallToolRequest(c) => Some(c.params.name.as_ref()),
                ClientRequest::GetPromptRequest(p) => Some(p.params.name.as_str()),
                ClientRequest::ReadResourceRequest(read) => Some(read.params.uri.as_str()),
                _ => None,
            };
            (r.request.method().to_owned(), name.map(header_safe))
        }
        ClientJsonRpcMessage::Notification(n) => {
            let Ok(value) = serde_json::to_value(&n.notification) else {
                return Vec::new();
            };
            let Some(method) = value.get("method").and_then(serde_json::Value::as_str) else {
                return Vec::new();
            };
            (method.to_owned(), None)
        }
        _ => return Vec::new(),
    };
    let mut out = Vec::new();
    if let Ok(v) = HeaderValue::from_str(&method) {
        out.push((HeaderName::from_static("mcp-method"), v));
    }
    if let Some(name) = name
        && let Ok(v) = HeaderValue::from_str(&name)
    {
        out.push((HeaderName::from_static("mcp-name"), v));
    }
    out
}

/// `value` as it may travel in a header: unchanged when it is visible ASCII with no space at
/// either end (and not already in the wrapped form), otherwise `=?base64?…?=`.
fn header_safe(value: &str) -> String {
    use base64::Engine as _;
    let visible = value.bytes().all(|b| (0x20..0x7f).contains(&b));
    let padded = value.starts_with(' ') || value.ends_with(' ');
    let wrapped = value.starts_with("=?base64?") && value.ends_with("?=");
    let plain = visible && !padded && !wrapped;
    if plain {
        value.to_owned()
    } else {
        format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode(value)
        )
    }
}

impl HttpLayer for GuardedClient {
    type Inner = reqwest::Client;

    fn inner(&self) -> &reqwest::Client {
        &self.inner
    }

    async fn post(&self, post: Post) -> Result<StreamableHttpPostResponse, HttpError> {
        let probe = match &post.message {
            ClientJsonRpcMessage::Request(r)
                if matches!(r.request, ClientRequest::DiscoverRequest(_)) =>
            {
                self.faults
                    .probe_timeout()
                    .map(|bound| (bound, r.id.clone()))
            }
            _ => None,
        };
        match probe {
            Some((bound, id)) => super::probe_guard::within(bound, id, self.guarded(post)).await,
            None => self.guarded(post).await,
        }
    }

    /// A stream without a limit of the caller's gets [`super::http::MAX_BODY_BYTES`].
    async fn get(&self, get: Get) -> Result<SseStream, HttpError> {
        let max = get.max_event.unwrap_or(super::http::MAX_BODY_BYTES);
        let get = Get {
            max_event: Some(max),
            ..get
        };
        let stream = get.forward(&self.inner).await?;
        let posted = Posted {
            id: None,
            discover: false,
            call: false,
        };
        Ok(guard_stream(stream, posted, self.faults.clone(), max))
    }
}

impl GuardedClient {
    /// Posts `post` with the checks of the module comment.
    async fn guarded(&self, post: Post) -> Result<StreamableHttpPostResponse, HttpError> {
        let Post {
            uri,
            message,
            session_id,
            auth_header,
            headers,
            limits,
        } = post;
        let posted = Posted::of(&message);
        let mut listing = false;
        let mut call = false;
        if let ClientJsonRpcMessage::Request(r) = &message {
            if let Some((kind, first_page)) = Listing::of(&r.request) {
                self.faults.expect_listing(r.id.clone(), kind, first_page);
                listing = true;
            }
            // rmcp's client decodes a JSON body before anyone sees it: an answer wanted as
            // sent is read here, like a listing, and handed over before it is decoded.
            listing |= self.faults.raw.wants(&r.id);
            call = matches!(r.request, ClientRequest::CallToolRequest(_));
        }
        let message = match &self.extra {
            Some(extra) => super::declare::with_capabilities(message, extra),
            None => message,
        };
        let mut custom_headers = headers;
        let message = with_context(message, &mut custom_headers);
        self.remember_target(ReplyTarget {
            uri: uri.clone(),
            session_id: session_id.clone(),
            auth_header: auth_header.clone(),
            headers: custom_headers.clone(),
            limits,
        });
        let answer = if listing || call {
            // Read and counted here, so a page over its bounds is never decoded, and a tool
            // result is decoded straight into its type.
            let post = ListingPost {
                client: &self.inner,
                uri: &uri,
                session_id,
                auth_header,
                custom_headers,
                limits,
            };
            post_listing(post, &message, &self.faults, call).await
        } else {
            let post = Post {
                uri,
                message,
                session_id,
                auth_header,
                headers: custom_headers,
                limits,
            };
            post.forward(&self.inner).await
        };
        self.checked_answer(answer, posted, limits.max_sse_event_size)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::connection::faults::MAX_DEPTH;

    #[test]
    fn every_post_names_its_method_and_target() {
        use rmcp::model::{CallToolRequest, CallToolRequestParams, NumberOrString};
        let call = ClientJsonRpcMessage::request(
            ClientRequest::CallToolRequest(CallToolRequest::new(CallToolRequestParams::new(
                "héllo",
            ))),
            NumberOrString::Number(4),
        );
        let mut headers = HashMap::new();
        let _ = with_context(call, &mut headers);
        let get = |name: &str| {
            headers
                .get(&HeaderName::from_bytes(name.as_bytes()).expect("name"))
                .map(|v| v.to_str().expect("ascii").to_owned())
        };
        assert_eq!(get("mcp-method").as_deref(), Some("tools/call"));
        assert_eq!(get("mcp-name").as_deref(), Some("=?base64?aMOpbGxv?="));
        assert_eq!(header_safe("echo"), "echo");
        assert_eq!(header_safe(" padded"), "=?base64?IHBhZGRlZA==?=");
        assert_eq!(header_safe("=?base64?x?="), "=?base64?PT9iYXNlNjQ/eD89?=");
    }

    #[test]
    fn deep_and_invalid_events_fail_the_posted_request() {
        let faults = Faults::default();
        let posted = Posted {
            id: Some(RequestId::Number(3)),
            discover: false,
            call: false,
        };
        let deep = format!("{}{}", "[".repeat(MAX_DEPTH + 5), "]".repeat(MAX_DEPTH + 5));
        let data = format!(r#"{{"jsonrpc":"2.0","id":3,"result":{{"x":{deep}}}}}"#);
        let out = check_event(data, &posted, &faults).expect("stand-in");
        assert!(out.contains("-32700"), "{out}");
        let fault = faults.take(&RequestId::Number(3)).expect("recorded");
        assert_eq!(fault.class, ErrorClass::Protocol);
        let ok = r#"{"jsonrpc":"2.0","id":3,"result":{}}"#.to_owned();
        assert_eq!(
            check_event(ok.clone(), &posted, &faults).as_deref(),
            Some(ok.as_str())
        );
        assert_eq!(
            check_event(r#"{"jsonrpc":"2.0","method":1}"#.into(), &posted, &faults),
            None
        );
        assert_eq!(faults.skipped(), 1);
    }
}
