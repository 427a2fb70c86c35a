//! One live connection to one configured server.
//!
//! Owns the transport (an owned child process or a Streamable HTTP client), the rmcp client
//! session on top of it, the secrets that were resolved for it (for the redactor), and the
//! request helpers that put a deadline on every request, send `notifications/cancelled` on
//! timeout or cancellation, and never retry or replay. References in the definition are resolved
//! here and only here, at connect time. This module knows nothing about terminals, catalogs or
//! policy.

pub mod declare;
pub mod discover;
pub mod error;
pub mod events;
pub mod faults;
pub mod frames;
pub mod http;
pub mod http_guard;
mod http_post;
pub mod orphans;
pub mod retry;
pub mod stderr_ring;
pub mod stdio;
pub mod traffic;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CancelledNotificationParam, ClientRequest, ProtocolVersion, ServerCapabilities, ServerResult,
};
use rmcp::service::{
    ClientInitializeError, Peer, PeerRequestOptions, RoleClient, RunningService, ServiceError,
};
use rmcp::{ClientCacheConfig, ClientLifecycleMode, ClientServiceExt};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

pub use error::{ConnectError, ErrorClass, Redactor, RequestError};
pub use events::{ConnectionEvent, EventSink, ProgressUpdate, ServerEvent};
pub use stdio::{ExitInfo, StdioProcess};

use crate::mcp::auth::{AuthTarget, CredentialStore};
use crate::mcp::config::{HttpDef, ProtocolChoice, ServerDef, StdioDef, Template, Transport};
use error::{classify_init, classify_service, millis};
use events::ClientEvents;

/// Upper bound on any request's total time, however much progress it reports.
pub const MAX_TOTAL_CAP: Duration = Duration::from_secs(30 * 60);

/// How long a closed stream waits for the process exit that explains it.
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// The default maximum total time for a request with this idle `timeout`:
/// 10× the timeout, at most 30 minutes.
pub fn max_total_for(timeout: Duration) -> Duration {
    timeout.saturating_mul(10).min(MAX_TOTAL_CAP)
}

/// What the server said about itself in the handshake.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerIdentity {
    /// The negotiated protocol version (always one of `ProtocolVersion::KNOWN_VERSIONS`).
    pub protocol_version: String,
    /// `serverInfo.name`, raw (None is possible with `server/discover`).
    pub name: Option<String>,
    /// `serverInfo.version`, raw.
    pub version: Option<String>,
    /// `serverInfo.title`, raw.
    pub title: Option<String>,
    /// The server's instructions, raw.
    pub instructions: Option<String>,
    /// What the server can do.
    pub capabilities: ServerCapabilities,
}

/// A live connection. Close it with [`Connection::close`]; dropping it also tears everything
/// down (the stdio process group gets SIGKILL at once).
pub struct Connection {
    name: Arc<str>,
    transport_kind: &'static str,
    service: RunningService<RoleClient, ClientEvents>,
    identity: ServerIdentity,
    redactor: Redactor,
    secrets: Vec<String>,
    stdio: Option<StdioProcess>,
    request_timeout: Duration,
    sink: EventSink,
    /// Whether the server signs in with OAuth (its refusals name `mcpdeck auth login`).
    oauth: bool,
    faults: Arc<faults::Faults>,
    routes: events::ProgressRoutes,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("name", &self.name)
            .field("transport", &self.transport_kind)
            .field("protocol_version", &self.identity.protocol_version)
            .finish_non_exhaustive()
    }
}

/// Connects with no event channel (notifications are discarded).
pub async fn connect(
    def: &ServerDef,
    file_dir: &Path,
    lookup: &(dyn Fn(&str) -> Option<String> + Sync),
) -> Result<Connection, ConnectError> {
    connect_with_events(def, file_dir, lookup, None).await
}

/// Connects, sending the connection's notifications to `events` (bounded; never blocks).
pub async fn connect_with_events(
    def: &ServerDef,
    file_dir: &Path,
    lookup: &(dyn Fn(&str) -> Option<String> + Sync),
    events: Option<mpsc::Sender<ServerEvent>>,
) -> Result<Connection, ConnectError> {
    connect_observed(def, file_dir, lookup, events, false).await
}

/// [`connect_with_events`], also reporting every JSON-RPC message as
/// [`ConnectionEvent::Traffic`] when `traffic` is set.
pub async fn connect_observed(
    def: &ServerDef,
    file_dir: &Path,
    lookup: &(dyn Fn(&str) -> Option<String> + Sync),
    events: Option<mpsc::Sender<ServerEvent>>,
    traffic: bool,
) -> Result<Connection, ConnectError> {
    connect_client(def, file_dir, lookup, events, traffic, None).await
}

/// [`connect_observed`] with a face's client side: with `client`, mcpdeck declares roots,
/// sampling, elicitation (and, over stdio, tasks) and answers through its broker; without,
/// it declares none and refuses such requests (-32601).
pub async fn connect_client(
    def: &ServerDef,
    file_dir: &Path,
    lookup: &(dyn Fn(&str) -> Option<String> + Sync),
    events: Option<mpsc::Sender<ServerEvent>>,
    traffic: bool,
    client: Option<crate::mcp::client::ClientSide>,
) -> Result<Connection, ConnectError> {
    let sink = EventSink::new(Arc::from(def.name.as_str()), events);
    let connected = match &def.transport {
        Transport::Stdio(stdio_def) => {
            connect_stdio(def, stdio_def, file_dir, lookup, sink, traffic, client).await
        }
        Transport::Http(http_def) => {
            connect_http(def, http_def, lookup, sink, traffic, client).await
        }
    };
    connected.map_err(|mut e| {
        // A legacy server refuses `server/discover`: say how to reach it.
        if def.protocol == ProtocolChoice::Modern && e.class == ErrorClass::Protocol {
            e.message.push_str(
                "; the server may speak only the older protocol (initialize): set \
                 \"protocolVersion\": \"auto\" to fall back to it",
            );
        }
        e
    })
}

async fn connect_stdio(
    def: &ServerDef,
    stdio_def: &StdioDef,
    file_dir: &Path,
    lookup: &(dyn Fn(&str) -> Option<String> + Sync),
    sink: EventSink,
    traffic: bool,
    client: Option<crate::mcp::client::ClientSide>,
) -> Result<Connection, ConnectError> {
    let timeout = def.request_timeout();
    let (offered, lifecycle) = lifecycle_for(def.protocol);
    let (env, secrets) = resolve_map(&stdio_def.env, lookup)?;
    let redactor = Redactor::new(secrets.clone());
    let spec = stdio::SpawnSpec {
        command: stdio_def.command.clone(),
        args: stdio_def.args.clone(),
        cwd: def.resolved_cwd(file_dir),
        env: env.into_iter().collect(),
        redactor: redactor.clone(),
    };
    let faults = Arc::new(faults::Faults::default());
    let (mut process, transport) = stdio::spawn(&spec, sink.clone(), faults.clone())?;
    let extra = extra_capabilities(client.as_ref());
    let log_level = client.as_ref().and_then(|c| c.log_level.clone());
    let handler = ClientEvents::new(sink.clone(), offered, client).with_redactor(redactor.clone());
    let routes = handler.routes();
    let transport =
        traffic::Tapped::new(transport, &sink, &redactor, traffic).counting(routes.clone());
    let transport = declare::Declared::new(transport, extra);
    let started =
        tokio::time::timeout(timeout, handler.serve_with_lifecycle(transport, lifecycle)).await;
    let service = match started {
        Ok(Ok(service)) => service,
        Ok(Err(e)) => {
            // A closed stream is explained by the exit (or the frame limit); a protocol answer
            // (a JSON-RPC error, no common version) is its own explanation, even though the
            // server then exits on the EOF that follows.
            let reason = if is_transport_failure(&e) {
                process.closed_reason(EXIT_GRACE).await
            } else {
                process
                    .frame_limit_hit()
                    .then(stdio::frame_limit_error)
                    .or_else(|| faults.take_any())
            };
            process.shutdown().await;
            return Err(reason.unwrap_or_else(|| classify_init(&e, &redactor)));
        }
        Err(_) => {
            let reason = process.closed_reason(Duration::ZERO).await;
            process.shutdown().await;
            return Err(reason.unwrap_or_else(|| handshake_timeout(timeout)));
        }
    };
    finish(Started {
        name: sink.server(),
        transport_kind: "stdio",
        service,
        redactor,
        secrets,
        stdio: Some(process),
        request_timeout: timeout,
        sink,
        faults,
        oauth: false,
        routes,
        log_level,
    })
    .await
}

/// The capabilities added to `initialize` beyond rmcp's typed ones: `tasks` when a face answers
/// the server's requests (serve mode declares nothing).
fn extra_capabilities(
    client: Option<&crate::mcp::client::ClientSide>,
) -> Option<serde_json::Map<String, serde_json::Value>> {
    client.map(|_| {
        let mut extra = serde_json::Map::new();
        extra.insert("tasks".to_owned(), crate::mcp::client::tasks_capability());
        extra
    })
}

async fn connect_http(
    def: &ServerDef,
    http_def: &HttpDef,
    lookup: &(dyn Fn(&str) -> Option<String> + Sync),
    sink: EventSink,
    traffic: bool,
    client: Option<crate::mcp::client::ClientSide>,
) -> Result<Connection, ConnectError> {
    let timeout = def.request_timeout();
    let (offered, lifecycle) = lifecycle_for(def.protocol);
    let (headers, secrets) = resolve_map(&http_def.headers, lookup)?;
    let redactor = Redactor::new(secrets.clone());
    let headers = http::build_headers(&headers)?;
    let oauth = oauth_target(def, http_def, lookup)?;
    let uses_oauth = oauth.is_some();
    let store = oauth
        .as_ref()
        .and_then(|_| CredentialStore::open_default().ok());
    let faults = Arc::new(faults::Faults::default());
    let refused = http::RefusedRedirect::default();
    let headers_configured = !headers.is_empty();
    let transport = http::transport(
        &http_def.url,
        headers,
        timeout,
        faults.clone(),
        refused.clone(),
        oauth.as_ref().zip(store.as_ref()),
        extra_capabilities(client.as_ref()),
    )
    .await?;
    let log_level = client.as_ref().and_then(|c| c.log_level.clone());
    let handler = ClientEvents::new(sink.clone(), offered, client).with_redactor(redactor.clone());
    let routes = handler.routes();
    let transport =
        traffic::Tapped::new(transport, &sink, &redactor, traffic).counting(routes.clone());
    let started =
        tokio::time::timeout(timeout, handler.serve_with_lifecycle(transport, lifecycle)).await;
    let service = match started {
        Ok(Ok(service)) => service,
        Ok(Err(e)) => {
            if let Some(fault) = faults.take_any() {
                return Err(fault);
            }
            let err = explain_http_failure(&e, headers_configured, &refused, &redactor);
            return Err(sign_in_hint(err, &def.name, uses_oauth));
        }
        Err(_) => return Err(handshake_timeout(timeout)),
    };
    finish(Started {
        name: sink.server(),
        transport_kind: "http",
        service,
        redactor,
        secrets,
        stdio: None,
        request_timeout: timeout,
        sink,
        faults,
        oauth: uses_oauth,
        routes,
        log_level,
    })
    .await
}

/// A 401 from a server that signs in with OAuth says how to sign in.
fn sign_in_hint(mut err: ConnectError, name: &str, oauth: bool) -> ConnectError {
    if oauth && matches!(err.class, ErrorClass::AuthRequired { code: 401, .. }) {
        err.message = format!(
            "the server asks for OAuth sign-in (HTTP 401): run `mcpdeck auth login {name}`"
        );
    }
    err
}

/// The sign-in target of a server that uses OAuth (no `Authorization` header configured).
fn oauth_target(
    def: &ServerDef,
    http_def: &HttpDef,
    lookup: &(dyn Fn(&str) -> Option<String> + Sync),
) -> Result<Option<AuthTarget>, ConnectError> {
    if !http_def.uses_oauth() {
        return Ok(None);
    }
    AuthTarget::from_def(def, lookup).map(Some).map_err(|e| {
        let variable = http_def
            .oauth
            .as_ref()
            .and_then(|o| o.client_secret.as_ref())
            .and_then(|t| t.var_names().first().map(|v| (*v).to_owned()))
            .unwrap_or_default();
        ConnectError::new(ErrorClass::MissingEnv { variable }, e.message)
    })
}

/// The version offered in `initialize` and the rmcp lifecycle for a protocol choice.
fn lifecycle_for(choice: ProtocolChoice) -> (ProtocolVersion, ClientLifecycleMode) {
    match choice {
        ProtocolChoice::Legacy => (
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

/// Resolves every template of a map; the first missing variable fails the whole connect.
fn resolve_map(
    map: &BTreeMap<String, Template>,
    lookup: &(dyn Fn(&str) -> Option<String> + Sync),
) -> Result<(BTreeMap<String, String>, Vec<String>), ConnectError> {
    let mut values = BTreeMap::new();
    let mut secrets = Vec::new();
    for (key, template) in map {
        let resolved = template.resolve(lookup).map_err(|missing| {
            ConnectError::new(
                ErrorClass::MissingEnv {
                    variable: missing.name.clone(),
                },
                format!(
                    "environment variable `{}` (used by `{key}`) is not set or is empty",
                    missing.name
                ),
            )
        })?;
        secrets.extend(resolved.secrets);
        values.insert(key.clone(), resolved.value);
    }
    Ok((values, secrets))
}

/// Whether a handshake failed because the stream broke (rather than by a protocol answer).
fn is_transport_failure(e: &ClientInitializeError) -> bool {
    match e {
        ClientInitializeError::ConnectionClosed(_)
        | ClientInitializeError::TransportError { .. } => true,
        ClientInitializeError::LegacyFallbackFailed { fallback, .. } => {
            is_transport_failure(fallback)
        }
        _ => false,
    }
}

fn handshake_timeout(timeout: Duration) -> ConnectError {
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
fn explain_http_failure(
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

struct Started {
    name: Arc<str>,
    transport_kind: &'static str,
    service: RunningService<RoleClient, ClientEvents>,
    redactor: Redactor,
    secrets: Vec<String>,
    stdio: Option<StdioProcess>,
    request_timeout: Duration,
    sink: EventSink,
    oauth: bool,
    faults: Arc<faults::Faults>,
    routes: events::ProgressRoutes,
    log_level: Option<String>,
}

/// Checks the negotiated version, disables the response cache and builds the connection.
async fn finish(s: Started) -> Result<Connection, ConnectError> {
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
        }
    }
}

impl Connection {
    /// The configured server name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// `stdio` or `http`.
    pub fn transport_kind(&self) -> &'static str {
        self.transport_kind
    }

    /// The rmcp peer, for typed requests. Prefer [`Connection::request`], which bounds them.
    pub fn peer(&self) -> &Peer<RoleClient> {
        self.service.peer()
    }

    /// What the server said about itself, and the negotiated version.
    pub fn identity(&self) -> &ServerIdentity {
        &self.identity
    }

    /// The negotiated protocol version.
    pub fn protocol_version(&self) -> &str {
        &self.identity.protocol_version
    }

    /// The resolved values of every reference, for the redactor. Never display them.
    pub fn secrets(&self) -> &[String] {
        &self.secrets
    }

    /// The redactor for this connection's secrets.
    pub fn redactor(&self) -> &Redactor {
        &self.redactor
    }

    /// The per-request timeout of the definition.
    pub fn request_timeout(&self) -> Duration {
        self.request_timeout
    }

    /// The stdio process, for stderr, counters and exit status (None for HTTP).
    pub fn process(&self) -> Option<&StdioProcess> {
        self.stdio.as_ref()
    }

    /// Undecodable frames skipped because they answered no pending request.
    pub fn undecodable_frames(&self) -> u64 {
        self.faults.skipped()
    }

    /// Notifications that did not fit the event channel.
    pub fn dropped_events(&self) -> u64 {
        self.sink.dropped()
    }

    /// Whether the transport is still usable (rmcp's `is_closed()` is not a liveness check).
    pub fn is_alive(&self) -> bool {
        !self.service.is_transport_closed()
            && self
                .stdio
                .as_ref()
                .is_none_or(|p| p.exit_info().is_none() && !p.frame_limit_hit())
    }

    /// Sends one request with an idle `timeout` (reset by progress) and a hard `max_total`.
    /// On timeout rmcp sends `notifications/cancelled`. The request is never re-sent.
    pub async fn request(
        &self,
        request: ClientRequest,
        timeout: Duration,
        max_total: Duration,
    ) -> Result<ServerResult, RequestError> {
        self.request_cancellable(request, timeout, max_total, &CancellationToken::new())
            .await
    }

    /// Like [`Connection::request`] with the definition's timeout and the default total cap.
    pub async fn request_default(
        &self,
        request: ClientRequest,
    ) -> Result<ServerResult, RequestError> {
        let timeout = self.request_timeout;
        self.request(request, timeout, max_total_for(timeout)).await
    }

    /// Like [`Connection::request`], and cancelling `cancel` sends `notifications/cancelled`
    /// for this request and returns `cancelled` at once (a late response is ignored).
    pub async fn request_cancellable(
        &self,
        request: ClientRequest,
        timeout: Duration,
        max_total: Duration,
        cancel: &CancellationToken,
    ) -> Result<ServerResult, RequestError> {
        self.request_routed(request, timeout, max_total, cancel, None)
            .await
    }

    /// Like [`Connection::request_cancellable`], also sending the request's progress reports
    /// to `progress` (at most [`events::PROGRESS_QUEUE`] waiting; more are dropped).
    pub async fn request_routed(
        &self,
        request: ClientRequest,
        timeout: Duration,
        max_total: Duration,
        cancel: &CancellationToken,
        progress: Option<&mpsc::Sender<ProgressUpdate>>,
    ) -> Result<ServerResult, RequestError> {
        if cancel.is_cancelled() {
            return Err(cancelled());
        }
        let mut request = request;
        let pending = progress.map(|tx| events::PendingRoute::new(tx.clone()));
        if let Some(pending) = &pending {
            // Opened by the transport under the request's token as the request is sent.
            rmcp::model::GetExtensions::extensions_mut(&mut request).insert(pending.clone());
        }
        let options = PeerRequestOptions::with_timeout(timeout)
            .reset_timeout_on_progress()
            .with_max_total_timeout(max_total.min(MAX_TOTAL_CAP));
        let handle = match self
            .service
            .peer()
            .send_request_with_option(request, options)
            .await
        {
            Ok(handle) => handle,
            Err(e) => return Err(self.map_service_error(&e).await),
        };
        let route = pending.map(|pending| RouteGuard {
            routes: self.routes.clone(),
            token: handle.progress_token.clone(),
            pending,
        });
        let id = handle.id.clone();
        let peer = handle.peer.clone();
        tokio::select! {
            result = handle.await_response() => match result {
                Ok(r) => {
                    // Reports sent before the answer reach the caller before the answer does.
                    // Bounded only against a report rmcp never hands to the handler (one that
                    // names a subscription); normally this ends as soon as they are routed.
                    if let Some(route) = &route {
                        let _ = tokio::time::timeout(DRAIN_BOUND, route.drained()).await;
                    }
                    Ok(r)
                }
                Err(e) => match self.faults.take(&id) {
                    Some(fault) => Err(fault),
                    None => Err(self.map_service_error(&e).await),
                },
            },
            () = cancel.cancelled() => {
                let param = CancelledNotificationParam::new(
                    Some(id),
                    Some("cancelled by the operator".to_owned()),
                );
                let _ = peer.notify_cancelled(param).await;
                Err(cancelled())
            }
        }
    }

    /// Sends `logging/setLevel` when the server declared `logging`; a refusal is reported as
    /// a log event, never as a connection failure.
    #[allow(deprecated)]
    pub async fn set_log_level(&self, level: &str) -> Option<String> {
        if self.identity.capabilities.logging.is_none() {
            return Some("the server declared no logging".to_owned());
        }
        let Ok(params) = serde_json::from_value(serde_json::json!({ "level": level })) else {
            return Some(format!("`{level}` is not a log level"));
        };
        let request = ClientRequest::SetLevelRequest(rmcp::model::SetLevelRequest::new(params));
        self.request_default(request).await.err().map(|e| e.message)
    }

    /// Sends `notifications/roots/list_changed` (the server may then ask `roots/list` again).
    #[allow(deprecated)]
    pub async fn notify_roots_changed(&self) -> Result<(), String> {
        self.service
            .peer()
            .notify_roots_list_changed()
            .await
            .map_err(|e| error::clean(&self.redactor, &e.to_string()))
    }

    /// Maps a request failure, explaining a closed stdio stream by the process's exit.
    async fn map_service_error(&self, e: &ServiceError) -> RequestError {
        if matches!(
            e,
            ServiceError::TransportClosed | ServiceError::TransportSend(_)
        ) && let Some(process) = &self.stdio
            && let Some(reason) = process.closed_reason(EXIT_GRACE).await
        {
            return reason;
        }
        let mut error = sign_in_hint(classify_service(e, &self.redactor), &self.name, self.oauth);
        if let ErrorClass::Timeout { after_ms } = error.class
            && self.cancels_by_closing()
        {
            error.message = format!(
                "no response within {after_ms} ms; the request was cancelled by closing its \
                 stream (this protocol version sends no notifications/cancelled over HTTP)"
            );
        }
        error
    }

    /// Whether a cancelled request is ended by closing its HTTP stream rather than by
    /// `notifications/cancelled` (Streamable HTTP from protocol 2026-07-28 on).
    fn cancels_by_closing(&self) -> bool {
        self.transport_kind == "http"
            && self.identity.protocol_version.as_str() >= ProtocolVersion::V_2026_07_28.as_str()
    }

    /// Closes the session and the transport: for stdio, closes stdin, then SIGTERM and SIGKILL
    /// the process group as needed, and reaps. Returns how the process ended (stdio only).
    pub async fn close(&mut self) -> Option<ExitInfo> {
        if let Some(process) = &self.stdio {
            process.begin_close();
        }
        let _ = self.service.close_with_timeout(stdio::SHUTDOWN_STEP).await;
        match &mut self.stdio {
            Some(process) => process.shutdown().await,
            None => None,
        }
    }
}

/// Closes a progress route when its request ends.
struct RouteGuard {
    routes: events::ProgressRoutes,
    token: rmcp::model::ProgressToken,
    pending: events::PendingRoute,
}

impl RouteGuard {
    /// Waits until the reports that arrived before the answer have been routed.
    async fn drained(&self) {
        self.routes.drained(&self.token).await;
    }
}

impl Drop for RouteGuard {
    fn drop(&mut self) {
        self.routes.close(&self.token, &self.pending);
    }
}

/// The longest an answered request waits for its earlier progress reports to be routed.
const DRAIN_BOUND: Duration = Duration::from_secs(5);

fn cancelled() -> RequestError {
    ConnectError::new(ErrorClass::Cancelled, "the request was cancelled")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn connection_can_be_shared_across_tasks() {
        assert_send_sync::<Connection>();
        assert_send_sync::<ConnectError>();
    }

    #[test]
    fn max_total_is_ten_times_capped_at_thirty_minutes() {
        assert_eq!(
            max_total_for(Duration::from_secs(60)),
            Duration::from_secs(600)
        );
        assert_eq!(max_total_for(Duration::from_secs(600)), MAX_TOTAL_CAP);
    }

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
