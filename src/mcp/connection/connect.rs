//! Opening a connection: resolving the definition's references, spawning the child process or
//! building the Streamable HTTP client, and running the handshake over it.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rmcp::ClientServiceExt;
use rmcp::model::ProtocolVersion;
use tokio::sync::mpsc;

use super::error::{ConnectError, ErrorClass, Redactor, classify_init};
use super::events::{ClientEvents, EventSink, ProgressRoutes, ServerEvent};
use super::handshake::{
    Started, explain_http_failure, finish, handshake_timeout, is_transport_failure, lifecycle_for,
};
use super::{
    Connection, EXIT_GRACE, declare, era, faults, http, negotiation, probe_guard, stdio, task_asks,
    traffic,
};
use crate::mcp::auth::{AuthTarget, CredentialStore};
use crate::mcp::config::{
    Grant, HttpDef, ProtocolChoice, ServerDef, StdioDef, Template, Transport,
};

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
pub(crate) async fn connect_client(
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
            let first = connect_http(def, http_def, lookup, sink.clone(), traffic, client.clone());
            match first.await {
                Err(Attempt::Forward(refused)) => {
                    // Nothing ran: a 2026-only server refused `initialize`. Ask it the 2026 way.
                    let mut modern = def.clone();
                    modern.protocol = ProtocolChoice::Modern;
                    connect_http(&modern, http_def, lookup, sink, traffic, client)
                        .await
                        .map_err(|e| match e {
                            Attempt::Failed(e) => e,
                            Attempt::Forward(_) => refused,
                        })
                }
                other => other.map_err(Attempt::into_error),
            }
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

/// What both transports open with, before their transport exists: the definition's timeout
/// and lifecycle, its `env` or `headers` map with the references resolved, and the redactor
/// over the secrets those references produced.
struct Opening {
    timeout: Duration,
    /// The protocol version offered in `initialize`.
    offered: ProtocolVersion,
    lifecycle: rmcp::ClientLifecycleMode,
    /// The `env` (stdio) or `headers` (HTTP) map, resolved.
    resolved: BTreeMap<String, String>,
    secrets: Vec<String>,
    redactor: Redactor,
    faults: Arc<faults::Faults>,
    /// The capabilities declared beyond rmcp's typed ones (see [`extra_capabilities`]).
    extra: Option<serde_json::Map<String, serde_json::Value>>,
    log_level: Option<String>,
}

impl Opening {
    /// Resolves `map`; the first missing variable fails the connect before anything starts.
    fn new(
        def: &ServerDef,
        map: &BTreeMap<String, Template>,
        lookup: &(dyn Fn(&str) -> Option<String> + Sync),
        client: Option<&crate::mcp::client::ClientSide>,
    ) -> Result<Self, ConnectError> {
        let (offered, lifecycle) = lifecycle_for(def.protocol);
        let (resolved, secrets) = resolve_map(map, lookup)?;
        Ok(Self {
            timeout: def.request_timeout(),
            offered,
            lifecycle,
            resolved,
            redactor: Redactor::new(secrets.clone()),
            secrets,
            faults: Arc::new(faults::Faults::default()),
            extra: extra_capabilities(client),
            log_level: client.and_then(|c| c.log_level.clone()),
        })
    }

    /// In `auto`, the era kept for the server `key` names (see [`era`]): the lifecycle opens in
    /// it when one is known, and otherwise the probe gets mcpdeck's bound (stdio: [`era::PROBE_TIMEOUT`]
    /// and the idle rule; HTTP: [`era::http_probe_bound`]). `None` outside `auto`.
    fn with_era(&mut self, def: &ServerDef, key: u64, stdio: bool) -> Option<EraUse> {
        if def.protocol != ProtocolChoice::Auto {
            return None;
        }
        let cached = era::known(key);
        match cached {
            Some(known) => (self.offered, self.lifecycle) = era::lifecycle_in(known),
            None if stdio => self.faults.probe_within(era::PROBE_TIMEOUT),
            None => self
                .faults
                .probe_within(era::http_probe_bound(self.timeout)),
        }
        Some(EraUse { key, cached })
    }
}

/// A connection in `auto`: its era cache key, and the era it opens in when one was known.
#[derive(Clone, Copy)]
struct EraUse {
    key: u64,
    cached: Option<era::Era>,
}

impl EraUse {
    /// Keeps (`Ok`) or forgets (a failure in the cached era) what the connection found.
    fn record<T>(self, result: &Result<Connection, T>) {
        match result {
            Ok(conn) => era::remember(
                self.key,
                if conn.is_modern() {
                    era::Era::Modern
                } else {
                    era::Era::Legacy
                },
            ),
            Err(_) if self.cached.is_some() => era::forget(self.key),
            Err(_) => {}
        }
    }
}

/// The handler that serves the session, redacting with the connection's final `redactor`, and
/// the progress routes it reports to.
fn client_handler(
    sink: &EventSink,
    offered: ProtocolVersion,
    client: Option<crate::mcp::client::ClientSide>,
    redactor: &Redactor,
) -> (ClientEvents, ProgressRoutes) {
    let handler = ClientEvents::new(sink.clone(), offered, client).with_redactor(redactor.clone());
    let routes = handler.routes();
    (handler, routes)
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
    let mut opening = Opening::new(def, &stdio_def.env, lookup, client.as_ref())?;
    let key = era::stdio_key(
        &stdio_def.command,
        &stdio_def.args,
        def.resolved_cwd(file_dir).as_deref(),
        &opening.resolved,
    );
    let era_use = opening.with_era(def, key, true);
    let connected = start_stdio(
        def,
        stdio_def,
        file_dir,
        lookup,
        (sink, traffic, client),
        opening,
    )
    .await;
    if let Some(era_use) = era_use {
        era_use.record(&connected);
    }
    connected
}

/// Spawns the server and runs the handshake `opening` describes.
async fn start_stdio(
    def: &ServerDef,
    stdio_def: &StdioDef,
    file_dir: &Path,
    lookup: &(dyn Fn(&str) -> Option<String> + Sync),
    (sink, traffic, client): (EventSink, bool, Option<crate::mcp::client::ClientSide>),
    opening: Opening,
) -> Result<Connection, ConnectError> {
    let Opening {
        timeout,
        offered,
        lifecycle,
        resolved: env,
        secrets,
        redactor,
        faults,
        extra,
        log_level,
    } = opening;
    let sandbox = sandbox_profile(stdio_def, file_dir, &env, lookup)?;
    let spec = stdio::SpawnSpec {
        command: stdio_def.command.clone(),
        args: stdio_def.args.clone(),
        cwd: def.resolved_cwd(file_dir),
        env: env.into_iter().collect(),
        redactor: redactor.clone(),
        sandbox,
    };
    let (mut process, transport) = stdio::spawn(&spec, sink.clone(), faults.clone())?;
    let sandboxed = |e: ConnectError| explain_sandboxed(stdio_def.sandbox.as_deref(), e);
    let (handler, routes) = client_handler(&sink, offered, client, &redactor);
    let transport = task_asks::TaskAware::new(transport, faults.clone());
    let transport = traffic::Tapped::new(transport, &sink, &redactor, traffic)
        .counting(routes.clone())
        .keeping_raw(faults.clone());
    let transport = declare::Declared::new(transport, extra);
    // rmcp's own 10 s may end a busy server's probe before mcpdeck's bound does.
    let transport = probe_guard::ProbeGuard::new(transport);
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
            return Err(sandboxed(
                reason.unwrap_or_else(|| classify_init(&e, &redactor)),
            ));
        }
        Err(_) => {
            let reason = process.closed_reason(Duration::ZERO).await;
            process.shutdown().await;
            return Err(sandboxed(
                reason.unwrap_or_else(|| handshake_timeout(timeout)),
            ));
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
        oauth: None,
        routes,
        log_level,
        sandbox: stdio_def.sandbox.clone(),
    })
    .await
}

/// `e` with the sentence that the server runs sandboxed (its rules, and the rule its stderr
/// suggests is missing), when it does.
pub(super) fn explain_sandboxed(
    sandbox: Option<&crate::mcp::sandbox::SandboxDef>,
    mut e: ConnectError,
) -> ConnectError {
    if let Some(def) = sandbox {
        let tail = match &e.class {
            ErrorClass::Exited { stderr_tail, .. } => stderr_tail.clone(),
            _ => Vec::new(),
        };
        e.message.push_str(&crate::mcp::sandbox::note(def, &tail));
    }
    e
}

/// The resolved sandbox of a definition that has one, refused here (before anything starts)
/// when the kernel cannot enforce a rule it asks for.
fn sandbox_profile(
    stdio_def: &StdioDef,
    file_dir: &Path,
    env: &BTreeMap<String, String>,
    lookup: &(dyn Fn(&str) -> Option<String> + Sync),
) -> Result<Option<crate::mcp::sandbox::Profile>, ConnectError> {
    use crate::mcp::sandbox::{self, Profile};
    let Some(def) = &stdio_def.sandbox else {
        return Ok(None);
    };
    let child_env = |name: &str| env.get(name).cloned().or_else(|| lookup(name));
    let path_var = child_env("PATH");
    let profile = Profile::resolve(
        def,
        file_dir,
        &stdio_def.command,
        path_var.as_deref(),
        &child_env,
    )
    .map_err(|e| {
        ConnectError::new(
            ErrorClass::MissingEnv {
                variable: e.variable.clone(),
            },
            format!(
                "the sandbox of this server names `${{{}}}`, which is unset or empty",
                e.variable
            ),
        )
    })?;
    let abi = sandbox::abi();
    if let Some((rule, said)) = sandbox::refusal(&profile, abi) {
        return Err(ConnectError::new(
            ErrorClass::SandboxRefused {
                rule: rule.to_owned(),
                kernel_abi: abi,
            },
            said,
        ));
    }
    Ok(Some(profile))
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

/// How one HTTP connection attempt ended when it did not connect.
enum Attempt {
    Failed(ConnectError),
    /// With no `protocolVersion` written, the server refused `initialize` as a 2026-only
    /// server does; the error is what to report if the 2026 attempt cannot even start.
    Forward(ConnectError),
}

impl Attempt {
    fn into_error(self) -> ConnectError {
        match self {
            Self::Failed(e) | Self::Forward(e) => e,
        }
    }
}

impl From<ConnectError> for Attempt {
    fn from(e: ConnectError) -> Self {
        Self::Failed(e)
    }
}

async fn connect_http(
    def: &ServerDef,
    http_def: &HttpDef,
    lookup: &(dyn Fn(&str) -> Option<String> + Sync),
    sink: EventSink,
    traffic: bool,
    client: Option<crate::mcp::client::ClientSide>,
) -> Result<Connection, Attempt> {
    let mut opening = Opening::new(def, &http_def.headers, lookup, client.as_ref())?;
    let era_use = opening.with_era(def, era::http_key(&http_def.url), false);
    let connected = start_http(def, http_def, lookup, (sink, traffic, client), opening).await;
    if let Some(era_use) = era_use {
        era_use.record(&connected);
    }
    connected
}

/// Builds the Streamable HTTP client and runs the handshake `opening` describes.
async fn start_http(
    def: &ServerDef,
    http_def: &HttpDef,
    lookup: &(dyn Fn(&str) -> Option<String> + Sync),
    (sink, traffic, client): (EventSink, bool, Option<crate::mcp::client::ClientSide>),
    opening: Opening,
) -> Result<Connection, Attempt> {
    let Opening {
        timeout,
        offered,
        lifecycle,
        resolved: headers,
        secrets,
        redactor,
        faults,
        extra,
        log_level,
    } = opening;
    let headers = http::build_headers(&headers)?;
    let oauth = oauth_target(def, http_def, lookup)?;
    let uses_oauth = oauth.as_ref().map(|t| t.oauth.grant);
    let store = oauth
        .as_ref()
        .and_then(|_| CredentialStore::open_default().ok());
    let refused = http::RefusedRedirect::default();
    let headers_configured = !headers.is_empty();
    let (transport, tokens) = http::transport(
        &http_def.url,
        headers,
        timeout,
        faults.clone(),
        refused.clone(),
        oauth.as_ref().zip(store.as_ref()),
        extra,
    )
    .await?;
    // The OAuth tokens its requests carry are secrets too, from the moment each is sent.
    let redactor = redactor.with_live(tokens);
    let (handler, routes) = client_handler(&sink, offered, client, &redactor);
    let transport = task_asks::TaskAware::new(transport, faults.clone());
    let transport = traffic::Tapped::new(transport, &sink, &redactor, traffic)
        .counting(routes.clone())
        .keeping_raw(faults.clone());
    // A probe's answer that comes after the fallback `initialize` is never the handshake's.
    let transport = probe_guard::ProbeGuard::new(transport);
    let started =
        tokio::time::timeout(timeout, handler.serve_with_lifecycle(transport, lifecycle)).await;
    let service = match started {
        Ok(Ok(service)) => service,
        Ok(Err(e)) => {
            if let Some(fault) = faults.take_any() {
                return Err(fault.into());
            }
            let err = explain_http_failure(&e, headers_configured, &refused, &redactor);
            let err = sign_in_hint(err, &def.name, uses_oauth);
            if def.protocol == ProtocolChoice::Unset && negotiation::refuses_initialize(&e) {
                return Err(Attempt::Forward(err));
            }
            return Err(err.into());
        }
        Err(_) => return Err(handshake_timeout(timeout).into()),
    };
    Ok(finish(Started {
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
        sandbox: None,
    })
    .await?)
}

/// A 401 from a server that signs in with OAuth says what to do, for the server's `grant`
/// ([`crate::mcp::auth::refusal_hint`]).
pub(super) fn sign_in_hint(
    mut err: ConnectError,
    name: &str,
    grant: Option<Grant>,
) -> ConnectError {
    if let Some(grant) = grant
        && matches!(err.class, ErrorClass::AuthRequired { code: 401, .. })
    {
        err.message = format!(
            "the server asks for OAuth sign-in (HTTP 401): {}",
            crate::mcp::auth::refusal_hint(name, grant)
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
