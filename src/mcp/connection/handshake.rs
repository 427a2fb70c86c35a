//! The handshake's outcome: the protocol lifecycle offered, how a failed handshake is explained,
//! and the checks that turn a started rmcp session into a [`Connection`].

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{ProtocolVersion, ServerCapabilities};
use rmcp::service::{ClientInitializeError, RoleClient, RunningService};
use rmcp::{ClientCacheConfig, ClientLifecycleMode};

use super::error::{self, ConnectError, ErrorClass, Redactor, classify_init, millis};
use super::events::{self, ClientEvents, ConnectionEvent, EventSink};
use super::{Connection, ServerIdentity, StdioProcess, faults, http};
use crate::mcp::config::{Grant, ProtocolChoice};

/// The version offered in `initialize` and the rmcp lifecycle for a protocol choice.
pub(super) fn lifecycle_for(choice: ProtocolChoice) -> (ProtocolVersion, ClientLifecycleMode) {
    match choice {
        ProtocolChoice::Unset | ProtocolChoice::Legacy => (
            ProtocolVersion::V_2025_11_25,
            ClientLifecycleMode::Initialize,
        ),
        ProtocolChoice::Auto => (
            ProtocolVersion::V_2025_11_25,
            ClientLifecycleMode::Auto {
                preferred_versions: vec![
                    ProtocolVersion::V_2026_07_28,
                    ProtocolVersion::V_2025_11_25,
                ],
                legacy_version: Some(ProtocolVersion::V_2025_11_25),
            },
        ),
        ProtocolChoice::Modern => (
            ProtocolVersion::V_2026_07_28,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        ),
    }
}

/// Whether a handshake failed because the stream broke (rather than by a protocol answer).
pub(super) fn is_transport_failure(e: &ClientInitializeError) -> bool {
    match e {
        ClientInitializeError::ConnectionClosed(_)
        | ClientInitializeError::TransportError { .. } => true,
        ClientInitializeError::LegacyFallbackFailed { fallback, .. } => {
            is_transport_failure(fallback)
        }
        _ => false,
    }
}

pub(super) fn handshake_timeout(timeout: Duration) -> ConnectError {
    ConnectError::new(
        ErrorClass::Timeout {
            after_ms: millis(timeout),
        },
        format!(
            "the server did not complete the handshake within {} ms",
            millis(timeout)
        ),
    )
}

/// Explains an HTTP handshake failure from what the failed attempt received: a refused redirect
/// names its target, and a 401 that asks for OAuth (a `Bearer` or `resource_metadata`
/// challenge) when no headers are configured says so. Nothing more is sent to the server.
pub(super) fn explain_http_failure(
    err: &ClientInitializeError,
    headers_configured: bool,
    refused: &http::RefusedRedirect,
    redactor: &Redactor,
) -> ConnectError {
    let classified = classify_init(err, redactor);
    let refused = refused.lock().ok().and_then(|slot| slot.clone());
    if let (ErrorClass::HttpStatus { .. }, Some((code, target))) = (&classified.class, refused) {
        return http::redirect_error(code, &target);
    }
    if let ErrorClass::AuthRequired { code, .. } = classified.class
        && !headers_configured
        && error::auth_challenge(err).is_some_and(|c| error::asks_for_oauth(&c))
    {
        return error::oauth_required(code);
    }
    classified
}

pub(super) struct Started {
    pub(super) name: Arc<str>,
    pub(super) transport_kind: &'static str,
    pub(super) service: RunningService<RoleClient, ClientEvents>,
    pub(super) redactor: Redactor,
    pub(super) secrets: Vec<String>,
    pub(super) stdio: Option<StdioProcess>,
    pub(super) request_timeout: Duration,
    pub(super) sink: EventSink,
    pub(super) oauth: Option<Grant>,
    pub(super) faults: Arc<faults::Faults>,
    pub(super) routes: events::ProgressRoutes,
    pub(super) log_level: Option<String>,
    /// The sandbox a stdio server runs in (its failures say so).
    pub(super) sandbox: Option<Box<crate::mcp::sandbox::SandboxDef>>,
}

/// Checks the negotiated version, disables the response cache and builds the connection.
pub(super) async fn finish(s: Started) -> Result<Connection, ConnectError> {
    let Some(info) = s.service.peer_info() else {
        let mut conn = s.into_connection(empty_identity());
        conn.close().await;
        return Err(ConnectError::new(
            ErrorClass::Protocol,
            "the handshake finished without server information",
        ));
    };
    let log_level = s.log_level.clone();
    let version = info.protocol_version.clone();
    let identity = ServerIdentity {
        protocol_version: version.as_str().to_owned(),
        name: info.server_info.as_ref().map(|i| i.name.clone()),
        version: info.server_info.as_ref().map(|i| i.version.clone()),
        title: info.server_info.as_ref().and_then(|i| i.title.clone()),
        instructions: info.instructions.clone(),
        capabilities: info.capabilities.clone(),
    };
    let known = ProtocolVersion::KNOWN_VERSIONS.contains(&version);
    let mut conn = s.into_connection(identity);
    if !known {
        let shown = error::clean(&conn.redactor, version.as_str());
        conn.close().await;
        return Err(ConnectError::new(
            ErrorClass::Protocol,
            format!("the server chose protocol version `{shown}`, which mcpdeck does not know"),
        ));
    }
    // Honest refreshes: never serve a stale list or read after an error.
    conn.service
        .set_response_cache_config(ClientCacheConfig::disabled())
        .await;
    if let Some(level) = log_level
        && let Some(problem) = conn.set_log_level(&level).await
        && let Ok(level) = serde_json::from_value(serde_json::json!("warning"))
    {
        {
            conn.sink.emit(ConnectionEvent::Log {
                level,
                logger: Some("mcpdeck".to_owned()),
                data: serde_json::Value::String(format!("logging/setLevel: {problem}")),
            });
        }
    }
    Ok(conn)
}

fn empty_identity() -> ServerIdentity {
    ServerIdentity {
        protocol_version: String::new(),
        name: None,
        version: None,
        title: None,
        instructions: None,
        capabilities: ServerCapabilities::default(),
    }
}

impl Started {
    fn into_connection(self, identity: ServerIdentity) -> Connection {
        Connection {
            name: self.name,
            transport_kind: self.transport_kind,
            service: self.service,
            identity,
            redactor: self.redactor,
            secrets: self.secrets,
            stdio: self.stdio,
            request_timeout: self.request_timeout,
            sink: self.sink,
            oauth: self.oauth,
            faults: self.faults,
            routes: self.routes,
            sandbox: self.sandbox,
            log_level: std::sync::Mutex::new(None),
            listening: tokio::sync::Mutex::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lifecycles_offer_the_documented_versions() {
        let (v, mode) = lifecycle_for(ProtocolChoice::Legacy);
        assert_eq!(v, ProtocolVersion::V_2025_11_25);
        assert!(matches!(mode, ClientLifecycleMode::Initialize));
        let (_, mode) = lifecycle_for(ProtocolChoice::Auto);
        assert!(matches!(
            mode,
            ClientLifecycleMode::Auto { preferred_versions, .. }
                if preferred_versions == [ProtocolVersion::V_2026_07_28, ProtocolVersion::V_2025_11_25]
        ));
    }
}
