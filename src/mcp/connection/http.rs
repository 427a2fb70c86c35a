//! The Streamable HTTP transport (SPEC.md §4.2).
//!
//! Builds rmcp's reqwest transport with mcpdeck's rules: configured headers (already resolved)
//! are sent as custom headers, so any `Authorization` scheme works and nothing is prefixed with
//! `Bearer`; reserved header names are refused; the HTTP client follows only same-origin 307/308
//! redirects, so credentials never reach another origin; bodies and SSE events are capped at 16 MiB; SSE
//! reconnects are bounded; and rmcp's session-expired re-initialization is turned off, because it
//! re-sends the POST that failed. When a handshake fails in a way rmcp cannot explain, a single
//! probe request looks at the status, content type and redirect target, to say `not_mcp` or
//! where a redirect pointed. Header values are secrets: they are marked sensitive and never
//! formatted.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Once};
use std::time::Duration;

use http::{HeaderName, HeaderValue};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::auth::AuthClient;
use rmcp::transport::common::client_side_sse::ExponentialBackoff;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

use crate::mcp::auth::client::auth_client;
use crate::mcp::auth::{AuthTarget, CredentialStore};

use super::error::{ConnectError, ErrorClass, Redactor, classify_source, not_mcp, status_error};
use crate::mcp::sanitize::sanitize_capped;

/// Largest JSON body or SSE event accepted from an HTTP server.
pub const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

/// SSE stream reconnects allowed before the stream is given up.
pub const MAX_SSE_RECONNECTS: usize = 3;

/// Header names the transport owns; a configuration may not set them.
const RESERVED_HEADERS: &[&str] = &[
    "accept",
    "content-type",
    "content-length",
    "host",
    "transfer-encoding",
    "connection",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
];

/// Resolved configured headers, as rmcp's config takes them.
pub type HeaderMapOwned = HashMap<HeaderName, HeaderValue>;

/// The rmcp transport type used for HTTP servers: rmcp's OAuth client around reqwest (it adds
/// nothing to requests of a server that has no stored tokens).
pub type HttpTransport = StreamableHttpClientTransport<AuthClient<reqwest::Client>>;

/// Installs the ring crypto provider for rustls once per process.
pub fn install_crypto_provider() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // Err means another provider was installed first, which is fine.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// Converts resolved headers, refusing reserved and malformed ones (without echoing values).
pub fn build_headers(resolved: &BTreeMap<String, String>) -> Result<HeaderMapOwned, ConnectError> {
    let mut out = HashMap::new();
    for (name, value) in resolved {
        let trimmed = name.trim();
        let shown = sanitize_capped(trimmed, 64);
        let Ok(header) = HeaderName::from_bytes(trimmed.as_bytes()) else {
            return Err(ConnectError::new(
                ErrorClass::Protocol,
                format!("`{shown}` is not a valid HTTP header name"),
            ));
        };
        if RESERVED_HEADERS.contains(&header.as_str()) {
            return Err(ConnectError::new(
                ErrorClass::Protocol,
                format!("header `{shown}` is set by the transport and cannot be configured"),
            ));
        }
        let Ok(mut header_value) = HeaderValue::from_str(value) else {
            return Err(ConnectError::new(
                ErrorClass::Protocol,
                format!("the value of header `{shown}` is not a valid HTTP header value"),
            ));
        };
        header_value.set_sensitive(true);
        out.insert(header, header_value);
    }
    Ok(out)
}

/// Redirect hops followed for one request.
const MAX_REDIRECTS: usize = 5;

/// Follows only 307/308 redirects to the same origin (method, body and credentials stay on the
/// server they were configured for); anything else is returned as the redirect response.
fn same_origin_redirects() -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(|attempt| {
        let same_origin = attempt
            .previous()
            .first()
            .is_some_and(|first| first.origin() == attempt.url().origin());
        let keeps_method = matches!(attempt.status().as_u16(), 307 | 308);
        if same_origin && keeps_method && attempt.previous().len() <= MAX_REDIRECTS {
            attempt.follow()
        } else {
            attempt.stop()
        }
    })
}

/// The reqwest client: same-origin 307/308 redirects only, no idle pooling (rmcp's reason:
/// delayed-ACK stalls).
pub fn http_client(connect_timeout: Duration) -> Result<reqwest::Client, ConnectError> {
    install_crypto_provider();
    reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .redirect(same_origin_redirects())
        .connect_timeout(connect_timeout)
        .build()
        .map_err(|_| {
            ConnectError::new(
                ErrorClass::Tls,
                "the HTTP client could not be built (TLS configuration)",
            )
        })
}

/// Checks the URL's scheme and returns it parsed.
pub fn parse_url(url: &str) -> Result<url::Url, ConnectError> {
    let parsed = url::Url::parse(url).map_err(|_| {
        ConnectError::new(
            ErrorClass::Protocol,
            "the configured URL is not a valid URL",
        )
    })?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(ConnectError::new(
            ErrorClass::Protocol,
            "the configured URL must use http or https",
        ));
    }
    Ok(parsed)
}

/// Builds the transport for `url` with resolved `headers`; `oauth` carries the server's sign-in
/// and the store when the server uses OAuth.
pub async fn transport(
    url: &str,
    headers: HeaderMapOwned,
    connect_timeout: Duration,
    oauth: Option<(&AuthTarget, &CredentialStore)>,
) -> Result<HttpTransport, ConnectError> {
    parse_url(url)?;
    let client = auth_client(url, http_client(connect_timeout)?, oauth)
        .await
        .map_err(|message| ConnectError::new(ErrorClass::Protocol, message))?;
    let mut backoff = ExponentialBackoff::default();
    backoff.max_times = Some(MAX_SSE_RECONNECTS);
    backoff.base_duration = Duration::from_millis(500);
    backoff.max_delay = Some(Duration::from_secs(5));
    let mut config = StreamableHttpClientTransportConfig::with_uri(url)
        .custom_headers(headers)
        .max_json_response_size(MAX_BODY_BYTES)
        .max_sse_event_size(MAX_BODY_BYTES)
        .max_error_response_size(8 * 1024)
        // rmcp would re-initialize and then re-send the POST that hit the expired session:
        // that is a replay, which SPEC.md §4.3 forbids.
        .reinit_on_expired_session(false);
    config.retry_config = Arc::new(backoff);
    Ok(StreamableHttpClientTransport::with_client(client, config))
}

/// Sends one `initialize` POST to explain a failed handshake: a redirect (and where to), an
/// authentication refusal, or an answer that is not MCP at all. `None` when nothing stands out.
pub async fn probe(
    url: &str,
    headers: &HeaderMapOwned,
    timeout: Duration,
    redactor: &Redactor,
) -> Option<ConnectError> {
    let client = http_client(timeout).ok()?;
    let body = serde_json::json!({
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "mcpdeck", "version": env!("CARGO_PKG_VERSION")},
        },
    });
    let mut request = client
        .post(url)
        .header(http::header::ACCEPT, "application/json, text/event-stream")
        .header(http::header::CONTENT_TYPE, "application/json")
        .body(body.to_string())
        .timeout(timeout);
    for (name, value) in headers {
        request = request.header(name, value);
    }
    let response = match request.send().await {
        Ok(r) => r,
        Err(e) => return classify_source(&e, redactor),
    };
    let status = response.status();
    let content_type = response
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    if status.is_redirection() {
        let target = response
            .headers()
            .get(http::header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|loc| url::Url::parse(url).ok()?.join(loc).ok())
            .map(|u| sanitize_capped(&u.origin().ascii_serialization(), 200));
        let code = status.as_u16();
        let to = target.map_or_else(|| "an unknown location".to_owned(), |t| format!("`{t}`"));
        return Some(ConnectError::new(
            ErrorClass::HttpStatus { code },
            format!(
                "the endpoint answered HTTP {code}, a redirect to {to}; mcpdeck follows only \
                 same-origin 307/308 redirects (credentials are never sent to another origin): \
                 configure the final URL instead"
            ),
        ));
    }
    if matches!(status.as_u16(), 401 | 403) {
        return Some(status_error(status.as_u16()));
    }
    let is_mcp_type = content_type.as_deref().is_some_and(|ct| {
        let ct = ct.to_ascii_lowercase();
        ct.starts_with("application/json") || ct.starts_with("text/event-stream")
    });
    let is_html = content_type
        .as_deref()
        .is_some_and(|ct| ct.to_ascii_lowercase().contains("html"));
    // A 2xx that is not JSON or SSE, or any HTML page, is not an MCP endpoint; other error
    // statuses keep their code.
    if (status.is_success() && !is_mcp_type) || is_html {
        return Some(not_mcp(content_type.as_deref()));
    }
    if !status.is_success() {
        return Some(status_error(status.as_u16()));
    }
    None
}
