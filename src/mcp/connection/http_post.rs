//! mcpdeck's own POST for listing requests (`tools/list`, `resources/list`, …) and tool calls
//! over Streamable HTTP.
//!
//! rmcp's reqwest client decodes a plain JSON answer into its model before anyone can look at
//! it, and a 15 MiB listing of schemas full of enums grows about thirtyfold while it is decoded.
//! A listing is therefore posted here instead: the body is read within the 16 MiB cap, counted
//! by the same cheap pre-scan as a stdio frame or an SSE event (entries and JSON values, see
//! `faults::check_listing`), and refused as `limit` before it is decoded when over its bounds.
//! An SSE answer gets the same per-event cap as rmcp's own stream. Every other outcome (a
//! challenge, 202, an expired session, an HTTP error, an unexpected content type) is reported
//! with the error rmcp's client gives for it, so the layers above see no difference. A tool
//! call's plain JSON answer is decoded straight into a tool result, so a 15 MiB text is held
//! once rather than once per untagged level of rmcp's message. A request whose answer is kept
//! as sent (`raw.rs`) is posted here too, and its body handed over as it is decoded. Every
//! other request still goes through rmcp's client.

use std::collections::HashMap;
use std::sync::Arc;

use futures_util::StreamExt as _;
use futures_util::stream::BoxStream;
use http::{HeaderName, HeaderValue, StatusCode, header};
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_client::{
    AuthRequiredError, HttpStatusError, InsufficientScopeError, SseError, StreamableHttpError,
    StreamableHttpPostResponse, StreamableHttpResponseLimits,
};
use sse_stream::Sse;

use super::faults::{Faults, decode_message, fail_frame, reason};

type HttpError = StreamableHttpError<reqwest::Error>;

/// Bytes of a refused body quoted in an error.
const PREVIEW_BYTES: usize = 256;

/// What a listing POST needs besides the message.
pub(super) struct ListingPost<'a> {
    /// The HTTP client (redirect rules and timeouts included).
    pub client: &'a reqwest::Client,
    /// The endpoint.
    pub uri: &'a str,
    /// The session, once the server gave one.
    pub session_id: Option<Arc<str>>,
    /// A bearer token from the OAuth layer.
    pub auth_header: Option<String>,
    /// Configured headers and the protocol-version header.
    pub custom_headers: HashMap<HeaderName, HeaderValue>,
    /// Body and event caps.
    pub limits: StreamableHttpResponseLimits,
}

/// Posts `message` and reads its answer within the bounds; see the module comment.
pub(super) async fn post_listing(
    post: ListingPost<'_>,
    message: &ClientJsonRpcMessage,
    faults: &Faults,
    call: bool,
) -> Result<StreamableHttpPostResponse, HttpError> {
    let body = serde_json::to_vec(message)?;
    let had_session = post.session_id.is_some();
    let limits = post.limits;
    let response = post
        .request()
        .body(body)
        .send()
        .await
        .map_err(StreamableHttpError::Client)?;
    let status = response.status();
    let headers = response.headers();
    let text_of = |name: header::HeaderName| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    if let Some(early) = no_body(status, text_of(header::WWW_AUTHENTICATE), had_session) {
        return early;
    }
    let content_type = text_of(header::CONTENT_TYPE);
    let session = text_of(HeaderName::from_static("mcp-session-id"));
    let retry_after = text_of(header::RETRY_AFTER);
    let is = |mime: &str| {
        content_type
            .as_deref()
            .and_then(|ct| ct.split(';').next())
            .is_some_and(|ct| ct.trim().eq_ignore_ascii_case(mime))
    };
    let (json, sse) = (is("application/json"), is("text/event-stream"));
    if !status.is_success() {
        return http_failure(response, status, json, retry_after, &limits).await;
    }
    if sse {
        let events = bounded_events(response, limits.max_sse_event_size);
        return Ok(StreamableHttpPostResponse::Sse(events, session));
    }
    if !json {
        return Err(StreamableHttpError::UnexpectedContentType(content_type));
    }
    let body = read_bounded(response, limits.max_json_response_size).await?;
    decode_listing(&body, session, faults, call)
}

impl ListingPost<'_> {
    /// The POST with its headers: JSON in, JSON or SSE out, the bearer token, the configured
    /// headers and the session.
    fn request(self) -> reqwest::RequestBuilder {
        let mut request = self
            .client
            .post(self.uri)
            .header(header::ACCEPT, "text/event-stream, application/json")
            .header(header::CONTENT_TYPE, "application/json");
        if let Some(token) = self.auth_header {
            request = request.bearer_auth(token);
        }
        for (name, value) in self.custom_headers {
            request = request.header(name, value);
        }
        if let Some(session) = &self.session_id {
            request = request.header("mcp-session-id", session.as_ref());
        }
        request
    }
}

/// The outcomes decided by the status alone (and a challenge), before any body is read: a
/// sign-in or step-up challenge, an accepted notification, an expired session.
fn no_body(
    status: StatusCode,
    challenge: Option<String>,
    had_session: bool,
) -> Option<Result<StreamableHttpPostResponse, HttpError>> {
    match (status, challenge) {
        (StatusCode::UNAUTHORIZED, Some(challenge)) => {
            return Some(Err(StreamableHttpError::AuthRequired(
                AuthRequiredError::new(challenge),
            )));
        }
        (StatusCode::FORBIDDEN, Some(challenge)) => {
            let scope = scope_of(&challenge);
            return Some(Err(StreamableHttpError::InsufficientScope(
                InsufficientScopeError::new(challenge, scope),
            )));
        }
        _ => {}
    }
    if matches!(status, StatusCode::ACCEPTED | StatusCode::NO_CONTENT) {
        return Some(Ok(StreamableHttpPostResponse::Accepted));
    }
    if status == StatusCode::NOT_FOUND && had_session {
        return Some(Err(StreamableHttpError::SessionExpired));
    }
    None
}

/// A JSON answer, counted before it is decoded: a page over its bounds never becomes a model,
/// and a tool result (`call`) is decoded straight into its type (see `faults::decode_message`).
/// A body that does not decode becomes the frame failure a stdio frame would (or rmcp's error).
fn decode_listing(
    body: &[u8],
    session: Option<String>,
    faults: &Faults,
    call: bool,
) -> Result<StreamableHttpPostResponse, HttpError> {
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    match decode_message(body, faults, call) {
        Ok(message) => {
            faults.raw.offer(&message, body);
            Ok(StreamableHttpPostResponse::Json(message, session))
        }
        Err(err) => {
            let why = reason(body, &err);
            match fail_frame(body, &why, faults) {
                Some(stand_in) => Ok(StreamableHttpPostResponse::Json(stand_in, session)),
                None => Err(StreamableHttpError::UnexpectedServerResponse(
                    format!("could not parse JSON response: {err}: {}", preview(body)).into(),
                )),
            }
        }
    }
}

/// The outcome of an answer that is not a success, as rmcp's client reports it: a JSON-RPC
/// error in a JSON body is kept as the answer; 429, and 5xx without such an error, become an
/// HTTP status; anything else quotes the start of the body.
async fn http_failure(
    response: reqwest::Response,
    status: StatusCode,
    json: bool,
    retry_after: Option<String>,
    limits: &StreamableHttpResponseLimits,
) -> Result<StreamableHttpPostResponse, HttpError> {
    let session = response
        .headers()
        .get("mcp-session-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let status_error = (status == StatusCode::TOO_MANY_REQUESTS || status.is_server_error())
        .then(|| HttpStatusError::new(status.as_u16(), retry_after.clone()));
    if status_error.is_some() && (!json || status == StatusCode::TOO_MANY_REQUESTS) {
        return Err(HttpStatusError::new(status.as_u16(), retry_after).into());
    }
    let auth = matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN);
    let body = if json && !auth {
        match read_bounded(response, limits.max_json_response_size).await {
            Ok(body) => body,
            Err(error) => return Err(status_error.map_or(error, Into::into)),
        }
    } else {
        read_prefix(response, limits.max_error_response_size).await
    };
    if json
        && !auth
        && let Ok(message @ ServerJsonRpcMessage::Error(_)) = serde_json::from_slice(&body)
    {
        return Ok(StreamableHttpPostResponse::Json(message, session));
    }
    if let Some(error) = status_error {
        return Err(error.into());
    }
    Err(StreamableHttpError::UnexpectedServerResponse(
        format!("HTTP {status}: {}", preview(&body)).into(),
    ))
}

/// At most the first `max` bytes of the body (a read failure ends it).
async fn read_prefix(mut response: reqwest::Response, max: usize) -> Vec<u8> {
    let mut body = Vec::new();
    while body.len() < max {
        let Ok(Some(chunk)) = response.chunk().await else {
            break;
        };
        body.extend_from_slice(&chunk);
    }
    body.truncate(max);
    body
}

/// The start of a body, lossily decoded, for an error message (sanitised where it is shown).
fn preview(body: &[u8]) -> String {
    let end = body.len().min(PREVIEW_BYTES);
    String::from_utf8_lossy(&body[..end]).into_owned()
}

/// `scope="…"` of a `WWW-Authenticate` challenge.
fn scope_of(challenge: &str) -> Option<String> {
    let at = challenge.find("scope=\"")? + "scope=\"".len();
    let rest = &challenge[at..];
    Some(rest[..rest.find('"')?].to_owned())
}

/// The whole body, refused as too large past `max` bytes (before reading when the length is
/// announced).
async fn read_bounded(mut response: reqwest::Response, max: usize) -> Result<Vec<u8>, HttpError> {
    let too_large = || StreamableHttpError::ResponseBodyTooLarge { max_size: max };
    if response
        .content_length()
        .is_some_and(|len| len > max as u64)
    {
        return Err(too_large());
    }
    // An announced length is allocated once, so a 15 MiB body never sits in a doubled buffer.
    let announced = response
        .content_length()
        .and_then(|len| usize::try_from(len).ok())
        .unwrap_or(0);
    let mut body = Vec::with_capacity(announced);
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(StreamableHttpError::Client)?
    {
        if body.len() + chunk.len() > max {
            return Err(too_large());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// The answer's SSE events, each refused once it grows past `max` bytes.
///
/// The body is handed to the SSE parser in whole lines (`Lines`): a line split over many
/// chunks would otherwise be gathered in the parser's own buffer, which keeps its size (16 MiB
/// after a 15 MiB `data:` line) for as long as the stream lives, beside the event's text.
fn bounded_events(
    response: reqwest::Response,
    max: usize,
) -> BoxStream<'static, Result<Sse, SseError>> {
    let state = (response, EventSize::new(max), Lines::default(), false);
    let bytes = futures_util::stream::unfold(
        state,
        |(mut response, mut size, mut lines, failed)| async move {
            if failed {
                return None;
            }
            loop {
                match response.chunk().await {
                    Ok(Some(chunk)) => {
                        if let Err(err) = size.feed(&chunk) {
                            return Some((Err(err), (response, size, lines, true)));
                        }
                        if let Some(whole) = lines.feed(&chunk) {
                            return Some((Ok(whole), (response, size, lines, false)));
                        }
                    }
                    Ok(None) => {
                        let rest = lines.rest()?;
                        return Some((Ok(rest), (response, size, lines, false)));
                    }
                    Err(err) => {
                        let err = std::io::Error::other(err);
                        return Some((Err(err), (response, size, lines, true)));
                    }
                }
            }
        },
    );
    sse_stream::SseStream::from_bytes_stream(bytes).boxed()
}

/// Gathers a body's chunks into runs of whole lines (up to the last line end received).
#[derive(Default)]
struct Lines {
    pending: Vec<u8>,
}

impl Lines {
    /// Takes `chunk`; returns everything up to its last line end, when it holds one.
    fn feed(&mut self, chunk: &[u8]) -> Option<std::io::Cursor<Vec<u8>>> {
        let Some(end) = memchr::memrchr2(b'\n', b'\r', chunk) else {
            self.pending.extend_from_slice(chunk);
            return None;
        };
        let mut whole = std::mem::take(&mut self.pending);
        whole.extend_from_slice(&chunk[..=end]);
        self.pending.extend_from_slice(&chunk[end + 1..]);
        Some(std::io::Cursor::new(whole))
    }

    /// What is left at the end of the body, when anything is.
    fn rest(&mut self) -> Option<std::io::Cursor<Vec<u8>>> {
        (!self.pending.is_empty()).then(|| std::io::Cursor::new(std::mem::take(&mut self.pending)))
    }
}

/// The size of the SSE event being received: bytes since the last blank line.
struct EventSize {
    max: usize,
    size: usize,
    line_empty: bool,
    after_cr: bool,
}

impl EventSize {
    fn new(max: usize) -> Self {
        Self {
            max,
            size: 0,
            line_empty: true,
            after_cr: false,
        }
    }

    fn feed(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        for &byte in bytes {
            match byte {
                b'\n' if self.after_cr => self.after_cr = false,
                b'\n' | b'\r' => {
                    self.after_cr = byte == b'\r';
                    if self.line_empty {
                        self.size = 0;
                    }
                    self.line_empty = true;
                }
                _ => {
                    self.after_cr = false;
                    self.line_empty = false;
                    self.size += 1;
                    if self.size > self.max {
                        return Err(std::io::Error::other(format!(
                            "SSE event exceeded the maximum size of {} bytes",
                            self.max
                        )));
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_is_measured_from_the_last_blank_line() {
        let mut size = EventSize::new(10);
        assert!(size.feed(b"data: 12\n\ndata: 1234\r\n\r\n").is_ok());
        assert!(size.feed(b"data: 12").is_ok());
        assert!(size.feed(b"345").is_err());
        let mut lines = EventSize::new(10);
        // Lines of one event add up even when each is short.
        assert!(lines.feed(b"data: 1\ndata: 2\n").is_err());
    }

    #[test]
    fn a_body_is_handed_on_in_whole_lines() {
        let mut lines = Lines::default();
        let taken = |c: Option<std::io::Cursor<Vec<u8>>>| c.map(std::io::Cursor::into_inner);
        assert_eq!(taken(lines.feed(b"data: 12")), None);
        assert_eq!(taken(lines.feed(b"34")), None);
        assert_eq!(
            taken(lines.feed(b"5\n\ndata: 6\r")).as_deref(),
            Some(&b"data: 12345\n\ndata: 6\r"[..])
        );
        assert_eq!(taken(lines.feed(b"\nda")).as_deref(), Some(&b"\n"[..]));
        assert_eq!(taken(lines.rest()).as_deref(), Some(&b"da"[..]));
        assert_eq!(taken(lines.rest()), None);
    }

    #[test]
    fn the_scope_of_a_challenge() {
        assert_eq!(
            scope_of(r#"Bearer error="insufficient_scope", scope="a b""#).as_deref(),
            Some("a b")
        );
        assert_eq!(scope_of("Bearer"), None);
    }
}
