//! Error classes for connections and requests, and the redactor.
//!
//! Owns the mapping from rmcp's `ClientInitializeError` / `ServiceError` (and the reqwest, io and
//! rustls errors buried in their `source()` chains) to a small, stable set of classes that are
//! safe to show. Messages are built from our own words plus sanitised, redacted, capped server
//! text: a resolved secret must never survive into a message, and rmcp's `Display` (which may
//! quote a response body) is never shown unredacted.

use std::error::Error as StdError;

use rmcp::service::{ClientInitializeError, ServiceError};
use rmcp::transport::streamable_http_client::StreamableHttpError;

pub use super::error_class::ErrorClass;
pub use crate::mcp::results::redact::{REDACTED, Redactor};
use crate::mcp::sanitize::sanitize_capped;

/// Redacts, sanitises and caps untrusted text for a message.
pub(crate) fn clean(redactor: &Redactor, text: &str) -> String {
    sanitize_capped(&redactor.redact(text), MAX_SERVER_TEXT)
}

/// Longest server-originated text kept in an error message.
const MAX_SERVER_TEXT: usize = 2048;

/// A classified failure with a message that is safe to show anywhere.
#[derive(Debug, Clone, PartialEq, serde::Serialize, thiserror::Error)]
#[error("{}: {message}", class.name())]
pub struct ConnectError {
    /// The class, with its details.
    #[serde(flatten)]
    pub class: ErrorClass,
    /// A one-paragraph explanation: our words plus sanitised, redacted server text.
    pub message: String,
}

/// Request failures use the same shape as connection failures.
pub type RequestError = ConnectError;

impl ConnectError {
    /// Builds an error; `message` must already be safe (use [`Redactor::clean`] for server text).
    pub fn new(class: ErrorClass, message: impl Into<String>) -> Self {
        Self {
            class,
            message: message.into(),
        }
    }
}

/// Classifies a failed handshake. `timeout` is the deadline that bounded it.
pub(crate) fn classify_init(err: &ClientInitializeError, redactor: &Redactor) -> ConnectError {
    match err {
        ClientInitializeError::Cancelled => {
            ConnectError::new(ErrorClass::Cancelled, "the handshake was cancelled")
        }
        ClientInitializeError::JsonRpcError(data) => super::negotiation::explain(data, redactor)
            .unwrap_or_else(|| {
                ConnectError::new(
                    ErrorClass::Protocol,
                    format!(
                        "the server rejected the handshake with JSON-RPC error {}: {}",
                        data.code.0,
                        clean(redactor, &data.message)
                    ),
                )
            }),
        ClientInitializeError::NoCompatibleProtocolVersion {
            client_supported,
            server_supported,
        } => super::negotiation::no_common_version(client_supported, server_supported, redactor),
        ClientInitializeError::LegacyFallbackFailed { fallback, .. } => {
            classify_init(fallback, redactor)
        }
        ClientInitializeError::TransportError { error, .. } => {
            classify_source(error.error.as_ref(), redactor).unwrap_or_else(|| {
                ConnectError::new(
                    ErrorClass::Protocol,
                    format!(
                        "the transport failed during the handshake: {}",
                        clean(redactor, &chain_text(error.error.as_ref()))
                    ),
                )
            })
        }
        ClientInitializeError::ExpectedInitResult(_)
        | ClientInitializeError::ExpectedInitResponse(_) => ConnectError::new(
            ErrorClass::Protocol,
            "the server answered the handshake with something other than its result \
             (an empty or unrelated result)",
        ),
        ClientInitializeError::ConnectionClosed(_) => ConnectError::new(
            ErrorClass::Protocol,
            "the connection closed during the handshake",
        ),
        other => ConnectError::new(
            ErrorClass::Protocol,
            format!(
                "the handshake failed: {}",
                clean(redactor, &chain_text(other))
            ),
        ),
    }
}

/// Classifies a failed request.
pub(crate) fn classify_service(err: &ServiceError, redactor: &Redactor) -> ConnectError {
    match err {
        ServiceError::McpError(data) => ConnectError::new(
            ErrorClass::ServerError { code: data.code.0 },
            format!(
                "the server answered with JSON-RPC error {}: {}",
                data.code.0,
                clean(redactor, &data.message)
            ),
        ),
        ServiceError::Timeout { timeout } => ConnectError::new(
            ErrorClass::Timeout {
                after_ms: millis(*timeout),
            },
            format!(
                "no response within {} ms; the request was cancelled (notifications/cancelled sent)",
                millis(*timeout)
            ),
        ),
        ServiceError::Cancelled { .. } => {
            ConnectError::new(ErrorClass::Cancelled, "the request was cancelled")
        }
        ServiceError::TransportClosed => ConnectError::new(
            ErrorClass::Protocol,
            "the connection closed before the response arrived; the request was not retried",
        ),
        ServiceError::UnexpectedResponse => ConnectError::new(
            ErrorClass::Protocol,
            "the server answered with an unexpected response type",
        ),
        ServiceError::TransportSend(error) => classify_source(error.error.as_ref(), redactor)
            .unwrap_or_else(|| {
                ConnectError::new(
                    ErrorClass::Protocol,
                    format!(
                        "the transport failed: {}",
                        clean(redactor, &chain_text(error.error.as_ref()))
                    ),
                )
            }),
        other => ConnectError::new(
            ErrorClass::Protocol,
            format!(
                "the request failed: {}",
                clean(redactor, &chain_text(other))
            ),
        ),
    }
}

/// Converts a duration to whole milliseconds, saturating.
pub(crate) fn millis(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

type HttpError = StreamableHttpError<reqwest::Error>;

/// Walks an error's `source()` chain looking for something we can classify precisely.
pub(crate) fn classify_source(
    err: &(dyn StdError + 'static),
    redactor: &Redactor,
) -> Option<ConnectError> {
    let mut current: Option<&(dyn StdError + 'static)> = Some(err);
    while let Some(e) = current {
        if let Some(found) = classify_one(e, redactor) {
            return Some(found);
        }
        current = e.source();
    }
    // Some layers (hyper-util's connector) only say what happened in their text.
    let text = chain_text(err).to_ascii_lowercase();
    if text.contains("dns error") || text.contains("failed to lookup address") {
        return Some(ConnectError::new(
            ErrorClass::Dns,
            "the host name could not be resolved",
        ));
    }
    if text.contains("certificate") || text.contains("tls handshake") {
        return Some(ConnectError::new(
            ErrorClass::Tls,
            "the TLS handshake failed (certificate or protocol)",
        ));
    }
    None
}

fn classify_one(e: &(dyn StdError + 'static), redactor: &Redactor) -> Option<ConnectError> {
    if let Some(http) = e.downcast_ref::<HttpError>() {
        return classify_http(http, redactor);
    }
    if let Some(req) = e.downcast_ref::<reqwest::Error>() {
        if req.is_timeout() {
            return Some(ConnectError::new(
                ErrorClass::Timeout { after_ms: 0 },
                "the HTTP request timed out",
            ));
        }
        if let Some(status) = req.status() {
            return Some(status_error(status.as_u16()));
        }
        return None;
    }
    if e.downcast_ref::<rustls::Error>().is_some() {
        return Some(ConnectError::new(
            ErrorClass::Tls,
            format!(
                "the TLS handshake failed: {}",
                clean(redactor, &e.to_string())
            ),
        ));
    }
    if let Some(io) = e.downcast_ref::<std::io::Error>() {
        if let Some(tls) = rustls_inside(io) {
            return Some(ConnectError::new(
                ErrorClass::Tls,
                format!(
                    "the TLS handshake failed: {}",
                    clean(redactor, &tls.to_string())
                ),
            ));
        }
        return match io.kind() {
            std::io::ErrorKind::ConnectionRefused => Some(ConnectError::new(
                ErrorClass::Refused,
                "the connection was refused (nothing is listening there)",
            )),
            std::io::ErrorKind::TimedOut => Some(ConnectError::new(
                ErrorClass::Timeout { after_ms: 0 },
                "the connection attempt timed out",
            )),
            _ => None,
        };
    }
    None
}

/// The rustls error wrapped inside (possibly nested) `io::Error`s. `io::Error::source()` skips
/// the wrapped error itself, so the ordinary `source()` walk never sees it.
fn rustls_inside(io: &std::io::Error) -> Option<&rustls::Error> {
    let mut current: Option<&(dyn StdError + 'static)> =
        io.get_ref().map(|e| e as &(dyn StdError + 'static));
    while let Some(e) = current {
        if let Some(tls) = e.downcast_ref::<rustls::Error>() {
            return Some(tls);
        }
        current = match e.downcast_ref::<std::io::Error>() {
            Some(inner) => inner.get_ref().map(|e| e as &(dyn StdError + 'static)),
            None => e.source(),
        };
    }
    None
}

fn classify_http(err: &HttpError, redactor: &Redactor) -> Option<ConnectError> {
    match err {
        // A 401 after the handshake (a server that lets `initialize` through and guards the
        // operations) keeps its challenge's scope: signing in inline asks for it.
        StreamableHttpError::AuthRequired(a) => Some(ConnectError {
            class: ErrorClass::AuthRequired {
                code: 401,
                scope: challenge_scope(&a.www_authenticate_header).map(|s| sanitize_capped(s, 300)),
            },
            ..auth_error(401)
        }),
        StreamableHttpError::InsufficientScope(e) => Some(insufficient_scope(
            e.required_scope
                .as_deref()
                .or_else(|| challenge_scope(&e.www_authenticate_header)),
        )),
        StreamableHttpError::HttpStatus(status) => Some(status_error(status.status)),
        StreamableHttpError::ResponseBodyTooLarge { max_size } => Some(ConnectError::new(
            ErrorClass::Limit {
                bound: format!("response body {max_size} bytes"),
            },
            format!("the HTTP response body exceeded {max_size} bytes"),
        )),
        StreamableHttpError::UnexpectedServerResponse(text) => {
            // rmcp writes "HTTP <status>: <body prefix>"; the body may echo credentials, so only
            // the status is kept.
            if let Some(code) = parse_http_status_prefix(text) {
                return Some(status_error(code));
            }
            Some(ConnectError::new(
                ErrorClass::NotMcp { content_type: None },
                format!(
                    "the endpoint's answer is not a JSON-RPC message: {}",
                    clean(redactor, &text.chars().take(200).collect::<String>())
                ),
            ))
        }
        StreamableHttpError::UnexpectedContentType(ct) => Some(not_mcp(ct.as_deref())),
        StreamableHttpError::Deserialize(_) => Some(ConnectError::new(
            ErrorClass::NotMcp { content_type: None },
            "the endpoint answered with JSON that is not a JSON-RPC message",
        )),
        StreamableHttpError::SessionExpired => Some(ConnectError::new(
            ErrorClass::Protocol,
            "the server's session expired (HTTP 404); the request was not re-sent",
        )),
        StreamableHttpError::ReservedHeaderConflict(name) => Some(ConnectError::new(
            ErrorClass::Protocol,
            format!(
                "header `{}` is reserved by the transport",
                clean(redactor, name)
            ),
        )),
        StreamableHttpError::Client(inner) => classify_source(inner, redactor),
        _ => None,
    }
}

/// `auth_required` for 401/403, `http_status` otherwise.
pub(crate) fn status_error(code: u16) -> ConnectError {
    if code == 401 || code == 403 {
        return auth_error(code);
    }
    ConnectError::new(
        ErrorClass::HttpStatus { code },
        format!("the endpoint answered HTTP {code}"),
    )
}

/// A 403 `insufficient_scope`: the operation needs `scope` (step-up signs in again for it).
fn insufficient_scope(scope: Option<&str>) -> ConnectError {
    let scope = scope.map(|s| sanitize_capped(s, 300));
    let needs = scope
        .as_deref()
        .map_or_else(String::new, |s| format!(" (it asks for `{s}`)"));
    ConnectError::new(
        ErrorClass::AuthRequired { code: 403, scope },
        format!(
            "the server refused the operation for lack of scope{needs}; the request did not run"
        ),
    )
}

/// The `scope` parameter of a `WWW-Authenticate` challenge.
fn challenge_scope(header: &str) -> Option<&str> {
    let at = header.find("scope=\"")? + "scope=\"".len();
    let rest = &header[at..];
    rest.find('"').map(|end| &rest[..end])
}

fn auth_error(code: u16) -> ConnectError {
    ConnectError::new(
        ErrorClass::AuthRequired { code, scope: None },
        format!("the endpoint refused the credentials (HTTP {code}); check the configured headers"),
    )
}

/// The `WWW-Authenticate` challenge of a 401/403 somewhere in a handshake failure.
pub(crate) fn auth_challenge(err: &ClientInitializeError) -> Option<String> {
    let mut current: Option<&(dyn StdError + 'static)> = match err {
        ClientInitializeError::TransportError { error, .. } => Some(error.error.as_ref()),
        ClientInitializeError::LegacyFallbackFailed { fallback, .. } => {
            return auth_challenge(fallback);
        }
        _ => None,
    };
    while let Some(e) = current {
        if let Some(http) = e.downcast_ref::<HttpError>() {
            return match http {
                StreamableHttpError::AuthRequired(a) => Some(a.www_authenticate_header.clone()),
                StreamableHttpError::InsufficientScope(a) => {
                    Some(a.www_authenticate_header.clone())
                }
                _ => None,
            };
        }
        current = e.source();
    }
    None
}

/// Whether a `WWW-Authenticate` challenge asks for an OAuth bearer token.
pub(crate) fn asks_for_oauth(challenge: &str) -> bool {
    let lower = challenge.to_ascii_lowercase();
    lower.contains("resource_metadata") || lower.trim_start().starts_with("bearer")
}

/// `auth_required` for a server that asks for OAuth sign-in while no headers are configured
/// (the connection adds the `mcpdeck auth login NAME` to run).
pub(crate) fn oauth_required(code: u16) -> ConnectError {
    ConnectError::new(
        ErrorClass::AuthRequired { code, scope: None },
        format!("the server asks for OAuth sign-in (HTTP {code})"),
    )
}

/// `not_mcp` naming what the endpoint answered with.
pub(crate) fn not_mcp(content_type: Option<&str>) -> ConnectError {
    let shown = content_type.map(|c| sanitize_capped(c, 100));
    let what = match shown.as_deref() {
        Some(c) if c.to_ascii_lowercase().contains("html") => {
            format!("an HTML page ({c})")
        }
        Some(c) => format!("`{c}`, not JSON"),
        None => "a response without a content type".to_owned(),
    };
    ConnectError::new(
        ErrorClass::NotMcp {
            content_type: shown.clone(),
        },
        format!("this is not an MCP endpoint: it answered with {what}"),
    )
}

fn parse_http_status_prefix(text: &str) -> Option<u16> {
    let rest = text.strip_prefix("HTTP ")?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// Every message in an error chain, joined (for redacted fallback messages only).
fn chain_text(err: &(dyn StdError + 'static)) -> String {
    let mut parts = vec![err.to_string()];
    let mut current = err.source();
    while let Some(e) = current {
        let text = e.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        current = e.source();
    }
    parts.join(": ")
}

#[cfg(test)]
#[path = "error_tests.rs"]
mod tests;
