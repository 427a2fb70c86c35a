//! The Streamable HTTP transport.
//!
//! Builds rmcp's reqwest transport with mcpdeck's rules: configured headers (already resolved)
//! are sent as custom headers, so any `Authorization` scheme works and nothing is prefixed with
//! `Bearer`; reserved header names are refused; the HTTP client follows only same-origin 307/308
//! redirects, so credentials never reach another origin; bodies and SSE events are capped at
//! 16 MiB; SSE reconnects are bounded; and rmcp's session-expired re-initialization is turned
//! off, because it re-sends the POST that failed. A failed handshake is explained from what that
//! attempt received (status, challenge, content type, the refused redirect's target): nothing
//! is sent to find out. Header values are secrets: they are marked sensitive and never
//! formatted.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, Once};
use std::time::Duration;

use http::{HeaderName, HeaderValue};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::common::client_side_sse::ExponentialBackoff;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

use super::error::{ConnectError, ErrorClass};
use super::faults::Faults;
use super::http_guard::GuardedClient;
use super::http_layer::Layered;
use crate::mcp::auth::client::auth_client;
use crate::mcp::auth::token_client::TokenClient;
use crate::mcp::auth::{AuthTarget, CredentialStore};
use crate::mcp::results::redact::LiveSecrets;
use crate::mcp::sanitize::sanitize_capped;

/// Largest JSON body or SSE event accepted from an HTTP server.
pub(crate) const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

/// SSE stream reconnects allowed before the stream is given up.
pub(crate) const MAX_SSE_RECONNECTS: usize = 3;

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
pub(crate) type HeaderMapOwned = HashMap<HeaderName, HeaderValue>;

/// The rmcp transport type used for HTTP servers: the OAuth token client (which adds nothing to
/// the requests of a server without stored tokens) around the guarded reqwest client.
pub(crate) type HttpTransport =
    StreamableHttpClientTransport<Layered<TokenClient<Layered<GuardedClient>>>>;

/// Installs the ring crypto provider for rustls once per process.
pub fn install_crypto_provider() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // Err means another provider was installed first, which is fine.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// Converts resolved headers, refusing reserved and malformed ones (without echoing values).
pub(crate) fn build_headers(
    resolved: &BTreeMap<String, String>,
) -> Result<HeaderMapOwned, ConnectError> {
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

/// The last redirect the client refused to follow: its status and the target's origin.
pub(crate) type RefusedRedirect = Arc<Mutex<Option<(u16, String)>>>;

/// Follows only 307/308 redirects to the same origin (method, body and credentials stay on the
/// server they were configured for); anything else is returned as the redirect response, and
/// noted in `refused` so a failed connect can say where it pointed without asking again.
fn same_origin_redirects(refused: RefusedRedirect) -> reqwest::redirect::Policy {
    reqwest::redirect::Policy::custom(move |attempt| {
        let same_origin = attempt
            .previous()
            .first()
            .is_some_and(|first| first.origin() == attempt.url().origin());
        let keeps_method = matches!(attempt.status().as_u16(), 307 | 308);
        if same_origin && keeps_method && attempt.previous().len() <= MAX_REDIRECTS {
            attempt.follow()
        } else {
            let origin = sanitize_capped(&attempt.url().origin().ascii_serialization(), 200);
            if let Ok(mut slot) = refused.lock() {
                *slot = Some((attempt.status().as_u16(), origin));
            }
            attempt.stop()
        }
    })
}

/// The reqwest client: same-origin 307/308 redirects only (a refused one is noted in
/// `refused`), no idle pooling (rmcp's reason: delayed-ACK stalls).
pub(crate) fn http_client(
    connect_timeout: Duration,
    refused: RefusedRedirect,
) -> Result<reqwest::Client, ConnectError> {
    install_crypto_provider();
    reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .redirect(same_origin_redirects(refused))
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
pub(crate) fn parse_url(url: &str) -> Result<url::Url, ConnectError> {
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
/// and the store when the server uses OAuth. Also returns the tokens its requests carry (for
/// the connection's redactor).
pub(crate) async fn transport(
    url: &str,
    headers: HeaderMapOwned,
    connect_timeout: Duration,
    faults: Arc<Faults>,
    refused: RefusedRedirect,
    oauth: Option<(&AuthTarget, &CredentialStore)>,
    extra: Option<serde_json::Map<String, serde_json::Value>>,
) -> Result<(HttpTransport, LiveSecrets), ConnectError> {
    parse_url(url)?;
    let guarded = Layered(
        GuardedClient::new(http_client(connect_timeout, refused)?, faults)
            .declaring(extra)
            .answering(),
    );
    let client = auth_client(url, guarded, oauth)
        .await
        .map_err(|message| ConnectError::new(ErrorClass::Protocol, message))?;
    let live = client.live();
    let client = Layered(client);
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
        // that is a replay: a request with side effects must never be sent twice.
        .reinit_on_expired_session(false);
    config.retry_config = Arc::new(backoff);
    Ok((
        StreamableHttpClientTransport::with_client(client, config),
        live,
    ))
}

/// The `http_status` error for a redirect that was not followed, naming its target's origin.
pub(crate) fn redirect_error(code: u16, target: &str) -> ConnectError {
    ConnectError::new(
        ErrorClass::HttpStatus { code },
        format!(
            "the endpoint answered HTTP {code}, a redirect to `{target}`; mcpdeck follows only \
             same-origin 307/308 redirects (credentials are never sent to another origin): \
             configure the final URL instead"
        ),
    )
}
