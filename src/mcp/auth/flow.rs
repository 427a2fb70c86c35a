//! One sign-in: discovery from the server's challenge, the client identity, the authorization
//! code flow with PKCE S256, `state` and `resource`, the loopback redirect (or a pasted redirect
//! URL), and the code exchange. rmcp's `auth` module does discovery (protected-resource
//! metadata, then authorization-server metadata in the specification's order, then the
//! 2025-03-26 fallbacks), PKCE, `resource`, the state check and the exchange; this module decides
//! the client identity, runs the redirect listener and keeps the results in the store.
//!
//! The face (CLI or console) is told the authorization URL through [`SignInFace`]; nothing here
//! prints, and no message carries a token.

use std::time::Duration;

use rmcp::transport::auth::{
    AuthorizationManager, AuthorizationMetadata, AuthorizationMetadataSource, AuthorizationRequest,
    AuthorizationSession,
};

use super::listener::{CALLBACK_TIMEOUT, RedirectListener, check_pasted};
use super::register::register;
use super::store::{CredentialStore, Registration};
use super::{AuthFailure, AuthTarget, SignedIn, describe_auth_error};
use crate::mcp::config::Grant;

/// How the operator takes part in a sign-in.
#[async_trait::async_trait]
pub(crate) trait SignInFace: Send + Sync {
    /// The authorization URL is ready: show it (and open it, where the face does that).
    fn authorize_url(&self, url: &str);
    /// With `--paste`: waits for the operator to paste the final redirect URL. `None` (the
    /// default) waits on the loopback listener instead.
    async fn pasted(&self) -> Option<String> {
        None
    }
}

/// What asked for the sign-in.
#[derive(Debug, Clone, Default)]
pub(crate) struct Trigger {
    /// The `WWW-Authenticate` challenge of the refusal, when there was one.
    pub challenge: Option<String>,
    /// Scopes a 403 `insufficient_scope` demanded (step-up): asked for together with the held
    /// ones.
    pub step_up: Option<Vec<String>>,
}

/// Runs one sign-in for `target` and keeps its tokens in `store`.
pub(crate) async fn sign_in(
    target: &AuthTarget,
    store: &CredentialStore,
    trigger: Trigger,
    face: &dyn SignInFace,
) -> Result<SignedIn, AuthFailure> {
    super::secure::require_secure(&target.url, "the server URL")?;
    let challenge = match trigger.challenge {
        Some(c) => Some(c),
        None => probe_challenge(&target.url).await?,
    };
    let challenge = super::secure::secure_challenge(challenge);
    let headless = target.oauth.grant.is_headless();
    let (manager, metadata) = discover(target, store, challenge.as_deref(), !headless).await?;
    super::secure::require_secure_metadata(&metadata)?;
    if headless {
        let scopes = headless_scopes(target, trigger.step_up.as_ref(), challenge.as_deref());
        return match target.oauth.grant {
            Grant::WorkloadIdentity => {
                super::jwt_bearer::workload(target, store, &metadata, &scopes).await
            }
            Grant::EnterpriseManaged => {
                super::jwt_bearer::enterprise(target, store, &metadata, &scopes).await
            }
            Grant::ClientCredentials | Grant::AuthorizationCode => {
                super::client_credentials::obtain(target, store, &metadata, &scopes).await
            }
        };
    }
    // DPoP: the code exchange (and later refreshes) prove possession of the server's key.
    let manager = if super::dpop::wanted(target.oauth.dpop, &metadata)? {
        let key = super::dpop::key_for(store, &target.key())?;
        let tokens = store.for_server(&target.key());
        super::dpop::manager(&target.url, tokens, metadata.clone(), key).await?
    } else {
        manager
    };
    let as_key = authorization_server_key(&metadata);

    let identity = Identity::choose(target, store, &metadata, &as_key)?;
    let listener = bind_listener(target, &identity).await?;
    let redirect_uri = listener.redirect_uri();

    let scopes = requested_scopes(
        target,
        store,
        trigger.step_up.as_ref(),
        challenge.as_deref(),
    )?;
    let mut request = AuthorizationRequest::new(redirect_uri.clone()).with_client_name("mcpdeck");
    if !scopes.is_empty() {
        request = request.with_scopes(scopes.clone());
    }
    let registrar = Registrar {
        store,
        metadata: &metadata,
        as_key: &as_key,
        redirect_uri: &redirect_uri,
        scopes: &scopes,
    };
    let request = registrar.identify(request, identity).await?;

    let session = AuthorizationSession::new(manager, request)
        .await
        .map_err(|(_, e)| describe_auth_error(&e))?;
    let callback = authorize(&session, face, listener, &redirect_uri).await?;
    session
        .handle_callback_url(&callback)
        .await
        .map_err(|e| describe_auth_error(&e))?;
    super::status_of(store, target)
        .map_err(|e| AuthFailure::new(e.to_string()))?
        .ok_or_else(|| AuthFailure::new("the tokens were not kept"))
}

/// Discovery from `challenge`: the authorization server's metadata, checked for PKCE S256
/// (unless it came from the 2025-03-26 endpoint fallback, which has no metadata to check), and a
/// manager that knows it and keeps tokens in `store`.
async fn discover(
    target: &AuthTarget,
    store: &CredentialStore,
    challenge: Option<&str>,
    pkce: bool,
) -> Result<(AuthorizationManager, AuthorizationMetadata), AuthFailure> {
    crate::mcp::connection::http::install_crypto_provider();
    let mut manager = AuthorizationManager::new(target.url.as_str())
        .await
        .map_err(|e| describe_auth_error(&e))?;
    manager.set_credential_store(store.for_server(&target.key()));
    let (metadata, source) = match manager.resolve_metadata_from_challenge(challenge).await {
        Ok(resolution) => (resolution.metadata, resolution.source),
        // Origin metadata whose issuer is not the origin itself: allowed by the 2025-03-26
        // rules when the server has no protected-resource metadata (see `legacy`).
        Err(e @ rmcp::transport::auth::AuthError::AuthorizationServerMismatch { .. })
            if !challenge.is_some_and(|c| c.contains("resource_metadata")) =>
        {
            match super::legacy::origin_metadata(&target.url).await? {
                Some(metadata) => (
                    metadata,
                    AuthorizationMetadataSource::AuthorizationServerMetadata,
                ),
                None => return Err(describe_auth_error(&e)),
            }
        }
        Err(e) => return Err(describe_auth_error(&e)),
    };
    if pkce && source != AuthorizationMetadataSource::LegacyEndpointFallback {
        require_s256(&metadata)?;
    }
    manager.set_metadata(metadata.clone());
    Ok((manager, metadata))
}

/// The loopback redirect listener: on `oauth.redirectPort` when set, else on the port of the
/// kept registration's redirect URI (so the registration stays valid), else on any free port.
async fn bind_listener(
    target: &AuthTarget,
    identity: &Identity,
) -> Result<RedirectListener, AuthFailure> {
    let port = match (identity, target.oauth.redirect_port) {
        (_, Some(port)) if port != 0 => port,
        (Identity::Register(Some(reg)), _) => redirect_port_of(&reg.redirect_uri).unwrap_or(0),
        _ => 0,
    };
    match RedirectListener::bind(port).await {
        Ok(l) => Ok(l),
        // The remembered port is taken: a fresh port (and registration) instead.
        Err(_) if target.oauth.redirect_port.unwrap_or(0) == 0 && port != 0 => {
            RedirectListener::bind(0)
                .await
                .map_err(|e| listener_failed(&e))
        }
        Err(e) => Err(listener_failed(&e)),
    }
}

/// What setting the client identity needs to know about this sign-in: where to register (a
/// dynamic registration is made for this redirect URI and these scopes) and where to keep it.
struct Registrar<'a> {
    store: &'a CredentialStore,
    metadata: &'a AuthorizationMetadata,
    /// The key the registration is kept under ([`authorization_server_key`]).
    as_key: &'a str,
    redirect_uri: &'a str,
    scopes: &'a [String],
}

impl Registrar<'_> {
    /// `request` with the client identity set. A kept registration is reused only when its
    /// redirect URI is this sign-in's; otherwise mcpdeck registers again and keeps the result.
    async fn identify(
        &self,
        request: AuthorizationRequest,
        identity: Identity,
    ) -> Result<AuthorizationRequest, AuthFailure> {
        let (id, secret) = match identity {
            Identity::PreRegistered { id, secret } => (id, secret),
            Identity::MetadataDocument(url) => return Ok(request.with_client_metadata_url(url)),
            Identity::Register(kept) => {
                let reg = match kept.filter(|r| r.redirect_uri == self.redirect_uri) {
                    Some(reg) => reg,
                    None => self.register().await?,
                };
                (reg.client_id, reg.client_secret)
            }
        };
        let request = request.with_preregistered_client(id);
        Ok(match secret {
            Some(s) => request.with_client_secret(s),
            None => request,
        })
    }

    /// A dynamic registration for this sign-in's redirect URI, kept in the store.
    async fn register(&self) -> Result<Registration, AuthFailure> {
        let Some(endpoint) = self.metadata.registration_endpoint.as_deref() else {
            return Err(no_identity());
        };
        let reg = register(endpoint, self.metadata, self.redirect_uri, self.scopes)
            .await
            .map_err(AuthFailure::new)?;
        self.store
            .keep_registration(self.as_key, reg.clone())
            .map_err(|e| AuthFailure::new(e.to_string()))?;
        Ok(reg)
    }
}

/// Tells the face the authorization URL and waits for the redirect that answers it: pasted by
/// the operator, or caught by the loopback listener. The redirect must carry the request's
/// `state`.
async fn authorize(
    session: &AuthorizationSession,
    face: &dyn SignInFace,
    listener: RedirectListener,
    redirect_uri: &str,
) -> Result<String, AuthFailure> {
    let auth_url = session.get_authorization_url().to_owned();
    let Some(state) = url::Url::parse(&auth_url).ok().and_then(|u| {
        u.query_pairs()
            .find(|(k, _)| k == "state")
            .map(|(_, v)| v.into_owned())
    }) else {
        return Err(AuthFailure::new("the authorization URL has no state"));
    };
    face.authorize_url(&auth_url);
    match face.pasted().await {
        Some(pasted) => {
            drop(listener);
            check_pasted(&pasted, redirect_uri, &state)
        }
        None => listener.wait(&state, CALLBACK_TIMEOUT).await,
    }
    .map_err(|e| AuthFailure::new(e.to_string()))
}

/// The client identity, in the specification's order.
enum Identity {
    /// `oauth.clientId` (and its secret) from the definition.
    PreRegistered { id: String, secret: Option<String> },
    /// `oauth.clientMetadataUrl`, used when the server supports metadata documents.
    MetadataDocument(String),
    /// Dynamic registration, reusing the registration kept for this server when there is one.
    Register(Option<Registration>),
}

impl Identity {
    fn choose(
        target: &AuthTarget,
        store: &CredentialStore,
        metadata: &AuthorizationMetadata,
        as_key: &str,
    ) -> Result<Self, AuthFailure> {
        if let Some(id) = &target.oauth.client_id {
            return Ok(Self::PreRegistered {
                id: id.clone(),
                secret: target.client_secret.clone(),
            });
        }
        let cimd = metadata
            .additional_fields
            .get("client_id_metadata_document_supported")
            .and_then(serde_json::Value::as_bool)
            .unwrap_or(false);
        if let Some(url) = &target.oauth.client_metadata_url
            && cimd
        {
            return Ok(Self::MetadataDocument(url.clone()));
        }
        let kept = store
            .registration(as_key)
            .map_err(|e| AuthFailure::new(e.to_string()))?;
        if kept.is_none() && metadata.registration_endpoint.is_none() {
            return Err(no_identity());
        }
        Ok(Self::Register(kept))
    }
}

fn no_identity() -> AuthFailure {
    AuthFailure::new(
        "the authorization server offers no way for mcpdeck to identify itself (no dynamic \
         registration, no client metadata documents): set `oauth.clientId` in the server's \
         definition",
    )
}

fn listener_failed(e: &std::io::Error) -> AuthFailure {
    AuthFailure::new(format!(
        "the loopback redirect listener could not be bound on 127.0.0.1: {}",
        e.kind()
    ))
}

/// PKCE is mandatory: a server whose metadata does not list S256 is refused.
fn require_s256(metadata: &AuthorizationMetadata) -> Result<(), AuthFailure> {
    let listed = metadata
        .code_challenge_methods_supported
        .as_ref()
        .is_some_and(|methods| methods.iter().any(|m| m == "S256"));
    if listed {
        Ok(())
    } else {
        Err(AuthFailure::new(
            "the authorization server does not list PKCE S256 in its metadata; mcpdeck refuses \
             to sign in without it",
        ))
    }
}

/// The key registrations are kept under: the issuer, else the authorization endpoint's origin.
pub(crate) fn authorization_server_key(metadata: &AuthorizationMetadata) -> String {
    metadata.issuer.clone().unwrap_or_else(|| {
        url::Url::parse(&metadata.authorization_endpoint).map_or_else(
            |_| metadata.authorization_endpoint.clone(),
            |u| u.origin().ascii_serialization(),
        )
    })
}

fn redirect_port_of(uri: &str) -> Option<u16> {
    url::Url::parse(uri).ok()?.port()
}

/// Explicit scopes for the request: a step-up asks for the held scopes plus the demanded ones;
/// otherwise `oauth.scopes` when the challenge names none. Empty: rmcp's selection (the
/// challenge's `scope`, else the metadata's `scopes_supported`, else none).
fn requested_scopes(
    target: &AuthTarget,
    store: &CredentialStore,
    step_up: Option<&Vec<String>>,
    challenge: Option<&str>,
) -> Result<Vec<String>, AuthFailure> {
    if let Some(demanded) = step_up {
        let held = store
            .tokens(&target.key())
            .map_err(|e| AuthFailure::new(e.to_string()))?
            .map(|c| c.granted_scopes)
            .unwrap_or_default();
        let mut scopes = held;
        for s in demanded {
            if !scopes.contains(s) {
                scopes.push(s.clone());
            }
        }
        return Ok(scopes);
    }
    let challenge_has_scope = challenge.is_some_and(|c| c.contains("scope="));
    if challenge_has_scope {
        return Ok(Vec::new());
    }
    Ok(target.oauth.scopes.clone())
}

/// The scopes of a client-credentials token request: a step-up's demand, else the challenge's
/// `scope`, else `oauth.scopes` (none: the authorization server's default).
fn headless_scopes(
    target: &AuthTarget,
    step_up: Option<&Vec<String>>,
    challenge: Option<&str>,
) -> Vec<String> {
    if let Some(demanded) = step_up {
        return demanded.clone();
    }
    let from_challenge = challenge.and_then(|c| {
        let at = c.find("scope=\"")? + "scope=\"".len();
        let rest = &c[at..];
        rest.find('"').map(|end| &rest[..end])
    });
    match from_challenge {
        Some(s) => s.split_whitespace().map(str::to_owned).collect(),
        None => target.oauth.scopes.clone(),
    }
}

/// Asks the server for its challenge: an unauthenticated `initialize` POST, then (when that is
/// let through, as a 2026-07-28 server or one that guards only later requests may do) an
/// unauthenticated `server/discover` POST. `None` when it answered 401/403 without a challenge;
/// an error when neither request is refused.
async fn probe_challenge(url: &str) -> Result<Option<String>, AuthFailure> {
    crate::mcp::connection::http::install_crypto_provider();
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(30))
        .build()
        .map_err(|_| AuthFailure::new("the HTTP client could not be built"))?;
    let client_info = serde_json::json!({"name": "mcpdeck", "version": env!("CARGO_PKG_VERSION")});
    let initialize = serde_json::json!({
        "jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": client_info,
        },
    });
    let discover = serde_json::json!({
        "jsonrpc": "2.0", "id": 0, "method": "server/discover",
        "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": client_info,
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    });
    let mut statuses = Vec::new();
    for (body, version) in [(initialize, None), (discover, Some("2026-07-28"))] {
        let mut request = client
            .post(url)
            .header(http::header::ACCEPT, "application/json, text/event-stream")
            .header(http::header::CONTENT_TYPE, "application/json");
        if let Some(version) = version {
            request = request.header("mcp-protocol-version", version);
        }
        let response = request
            .body(body.to_string())
            .send()
            .await
            .map_err(|_| AuthFailure::new("the server could not be reached"))?;
        let status = response.status().as_u16();
        if matches!(status, 401 | 403) {
            return Ok(bearer_challenge(response.headers()));
        }
        statuses.push(status.to_string());
    }
    Err(AuthFailure::new(format!(
        "the server does not ask for sign-in (it answered HTTP {} without credentials)",
        statuses.join(", then ")
    )))
}

/// The `Bearer` (or `DPoP`) challenge among a response's `WWW-Authenticate` headers.
fn bearer_challenge(headers: &http::HeaderMap) -> Option<String> {
    headers
        .get_all(http::header::WWW_AUTHENTICATE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .find(|v| {
            let lower = v.trim_start().to_ascii_lowercase();
            lower.starts_with("bearer") || lower.starts_with("dpop")
        })
        .map(str::to_owned)
}
