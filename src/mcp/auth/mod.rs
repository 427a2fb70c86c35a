//! OAuth sign-in for remote (Streamable HTTP) servers, as the MCP authorization specification
//! defines it, and the credential store that keeps its results.
//!
//! Built on rmcp's `auth` feature (discovery, PKCE, `resource`, refresh, the 401 retry); this
//! module adds what rmcp leaves to the host: the client identity order and kept registrations
//! ([`flow`], [`register`]), the loopback listener ([`listener`]), the store ([`store`]), and the
//! token-carrying HTTP client for connections, with one refresh per refused token ([`client`],
//! [`token_client`]). It never prints: faces show the authorization URL through
//! [`flow::SignInFace`]. Tokens never appear in a message, a `Debug`
//! output or anything this module returns.

pub(crate) mod assertion;
pub(crate) mod client;
pub(crate) mod client_credentials;
pub(crate) mod configured;
pub(crate) mod dpop;
pub(crate) mod flow;
pub(crate) mod issuer;
pub(crate) mod jwt_bearer;
pub(crate) mod keychain;
pub(crate) mod legacy;
pub(crate) mod listener;
pub(crate) mod minted;
pub(crate) mod register;
pub(crate) mod secure;
pub(crate) mod store;
pub(crate) mod token_client;

use oauth2::TokenResponse as _;
use rmcp::transport::auth::AuthError;

use crate::mcp::config::refs::Template;
use crate::mcp::config::{OAuthDef, ServerDef, Transport};
use crate::mcp::sanitize::sanitize_capped;
pub(crate) use flow::{SignInFace, Trigger, sign_in};
pub(crate) use store::{CredentialStore, StoreError};

/// A server that can sign in, with its OAuth settings resolved.
#[derive(Clone)]
pub(crate) struct AuthTarget {
    /// The configured server name.
    pub name: String,
    /// The server URL.
    pub url: String,
    /// The definition's `oauth` block (defaults when absent).
    pub oauth: OAuthDef,
    /// `oauth.clientSecret`, resolved.
    pub client_secret: Option<String>,
    /// `oauth.privateKey`, resolved (PKCS#8 PEM). `oauth.privateKeyFile` is read at sign-in.
    pub private_key: Option<String>,
    /// `oauth.workloadToken`, resolved. `oauth.workloadTokenFile` is read at sign-in.
    pub workload_token: Option<String>,
    /// `oauth.idpClientSecret`, resolved.
    pub idp_client_secret: Option<String>,
    /// `oauth.idToken`, resolved. `oauth.idTokenFile` is read at sign-in.
    pub id_token: Option<String>,
}

impl std::fmt::Debug for AuthTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthTarget")
            .field("name", &self.name)
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

impl AuthTarget {
    /// The target for a definition: an HTTP server without a configured `Authorization` header.
    pub(crate) fn from_def(
        def: &ServerDef,
        lookup: &(dyn Fn(&str) -> Option<String> + Sync),
    ) -> Result<Self, AuthFailure> {
        let Transport::Http(http) = &def.transport else {
            return Err(AuthFailure::new(format!(
                "`{}` is a stdio server; sign-in applies to HTTP servers",
                def.name
            )));
        };
        if !http.uses_oauth() {
            return Err(AuthFailure::new(format!(
                "`{}` has an `Authorization` header configured, so it does not use OAuth",
                def.name
            )));
        }
        let oauth = http.oauth.as_deref().cloned().unwrap_or_default();
        let resolve = |template: Option<&Template>, field: &str| {
            template
                .map(|t| {
                    t.resolve(lookup).map(|r| r.value).map_err(|missing| {
                        AuthFailure::new(format!(
                            "environment variable `{}` (used by `oauth.{field}`) is not set or is empty",
                            missing.name
                        ))
                    })
                })
                .transpose()
        };
        let client_secret = resolve(oauth.client_secret.as_ref(), "clientSecret")?;
        let private_key = resolve(oauth.private_key.as_ref(), "privateKey")?;
        let workload_token = resolve(oauth.workload_token.as_ref(), "workloadToken")?;
        let idp_client_secret = resolve(oauth.idp_client_secret.as_ref(), "idpClientSecret")?;
        let id_token = resolve(oauth.id_token.as_ref(), "idToken")?;
        Ok(Self {
            name: def.name.clone(),
            url: http.url.clone(),
            oauth,
            client_secret,
            private_key,
            workload_token,
            idp_client_secret,
            id_token,
        })
    }

    /// The store key: the server URL in canonical form (no fragment).
    pub(crate) fn key(&self) -> String {
        store_key(&self.url)
    }
}

/// What to do about a 401 from `name`, a server whose tokens come by `grant`: a browser
/// sign-in (`mcpdeck auth login`), or for a headless grant — which has run already, with no
/// one to ask — the settings its token is obtained with.
pub(crate) fn refusal_hint(name: &str, grant: crate::mcp::config::Grant) -> String {
    use crate::mcp::config::Grant;
    match grant {
        Grant::AuthorizationCode => format!("run `mcpdeck auth login {name}`"),
        Grant::ClientCredentials => format!(
            "`{name}` gets its token with the client-credentials grant: check its client \
             credentials (`oauth.clientId`, with `oauth.clientSecret`, `oauth.privateKey` or the \
             key file `oauth.privateKeyFile`)"
        ),
        Grant::WorkloadIdentity => format!(
            "`{name}` gets its token with workload identity federation: check its workload \
             token (`oauth.workloadToken`, or the token file `oauth.workloadTokenFile`, which \
             must hold a current token)"
        ),
        Grant::EnterpriseManaged => format!(
            "`{name}` gets its token with enterprise-managed authorization: check its ID token \
             (`oauth.idToken`, or the token file `oauth.idTokenFile`, which must hold a current \
             token) and the identity provider settings (`oauth.idpIssuer`, `oauth.idpClientId`)"
        ),
    }
}

/// What a refusal or error text from `target`'s authorization servers is shown through: the
/// target's own secrets and everything minted or sent for it ([`minted`]) are redacted.
pub(crate) fn redactor_for(target: &AuthTarget) -> crate::mcp::results::redact::Redactor {
    crate::mcp::results::redact::Redactor::new(client::secrets_of(target))
        .with_live(minted::live(&target.key()))
}

/// The store key of a server URL.
pub(crate) fn store_key(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) => {
            u.set_fragment(None);
            u.to_string()
        }
        Err(_) => url.to_owned(),
    }
}

/// A failed sign-in, sign-out or status, in words safe to show.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub(crate) struct AuthFailure {
    /// What went wrong.
    pub message: String,
}

impl AuthFailure {
    /// A failure with this message.
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }
}

/// rmcp's error in our words: its own text only where it carries no server body.
pub(crate) fn describe_auth_error(e: &AuthError) -> AuthFailure {
    let text = match e {
        AuthError::PkceUnsupported => {
            "the authorization server does not support PKCE S256; mcpdeck refuses to sign in without it".to_owned()
        }
        AuthError::AuthorizationServerMismatch { .. }
        | AuthError::AuthorizationServerMissingIssuer { .. } => {
            "the authorization server's metadata names another issuer than the one it was fetched for; sign-in refused".to_owned()
        }
        AuthError::ProtectedResourceMetadataInvalid { .. } => {
            "the server's protected-resource metadata is unusable (wrong resource or no authorization server)".to_owned()
        }
        AuthError::AuthorizationServersUnavailable { .. } | AuthError::DiscoveryRequestFailed { .. } => {
            "the authorization server's metadata could not be fetched".to_owned()
        }
        AuthError::NoAuthorizationSupport => "the server publishes no authorization metadata".to_owned(),
        AuthError::TokenExchangeFailed(_) => "the authorization server refused the code exchange".to_owned(),
        AuthError::TokenRefreshRejected(_) | AuthError::AuthorizationRequired => {
            "the stored sign-in is no longer valid; sign in again".to_owned()
        }
        AuthError::TokenRefreshFailed(_) => "the token refresh failed".to_owned(),
        AuthError::CredentialStoreError(text) => sanitize_capped(text, 300),
        AuthError::RegistrationFailed(_) => "client registration failed".to_owned(),
        AuthError::InternalError(text) if text.contains("state") => {
            "the sign-in callback does not belong to this sign-in (unknown state)".to_owned()
        }
        other => format!(
            "sign-in failed: {}",
            sanitize_capped(&other.to_string(), 200)
        ),
    };
    AuthFailure::new(text)
}

/// What the store says about one server's sign-in. Never a token.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SignedIn {
    /// Granted scopes.
    pub scopes: Vec<String>,
    /// When the access token expires (seconds since the epoch), when known.
    pub expires_at: Option<u64>,
    /// Whether a refresh token is held.
    pub refreshable: bool,
    /// The authorization server that issued the tokens.
    pub issuer: Option<String>,
    /// How the tokens were obtained (`authorization_code`, `client_credentials`).
    pub grant: &'static str,
    /// Whether the access token is DPoP-bound (`token_type` `DPoP`) rather than a bearer token.
    pub dpop_bound: bool,
}

/// The sign-in stored for `target`, if any.
pub(crate) fn status_of(
    store: &CredentialStore,
    target: &AuthTarget,
) -> Result<Option<SignedIn>, StoreError> {
    let Some(creds) = store.tokens(&target.key())? else {
        return Ok(None);
    };
    let Some(tokens) = &creds.token_response else {
        return Ok(None);
    };
    let expires_at = match (tokens.expires_in(), creds.token_received_at) {
        (Some(d), Some(at)) => Some(at + d.as_secs()),
        _ => None,
    };
    let dpop_bound = dpop_bound(tokens);
    Ok(Some(SignedIn {
        scopes: creds.granted_scopes.clone(),
        expires_at,
        refreshable: tokens.refresh_token().is_some(),
        issuer: creds.issuer.clone(),
        grant: target.oauth.grant.as_str(),
        dpop_bound,
    }))
}

/// Whether `tokens` are DPoP-bound (`token_type` `DPoP`) rather than bearer tokens.
pub(crate) fn dpop_bound(tokens: &rmcp::transport::auth::OAuthTokenResponse) -> bool {
    matches!(tokens.token_type(),
        oauth2::basic::BasicTokenType::Extension(t) if t.eq_ignore_ascii_case("dpop"))
}

/// The issuer (the registration key, [`flow::authorization_server_key`]) of the authorization
/// server that `target`'s protected-resource metadata names now; `None` when discovery fails.
pub(crate) async fn current_issuer(target: &AuthTarget) -> Option<String> {
    crate::mcp::connection::http::install_crypto_provider();
    let manager = rmcp::transport::auth::AuthorizationManager::new(target.url.as_str())
        .await
        .ok()?;
    let resolved = tokio::time::timeout(
        std::time::Duration::from_secs(10),
        manager.resolve_metadata(),
    )
    .await
    .ok()?
    .ok()?;
    Some(flow::authorization_server_key(&resolved.metadata))
}

/// What `logout` did.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct LoggedOut {
    /// Whether tokens were stored.
    pub had_tokens: bool,
    /// Whether the authorization server accepted the revocation.
    pub revoked: bool,
}

/// Revokes the stored tokens at the revocation endpoint when there is one, then forgets them.
pub(crate) async fn logout(
    store: &CredentialStore,
    target: &AuthTarget,
) -> Result<LoggedOut, AuthFailure> {
    let creds = store
        .tokens(&target.key())
        .map_err(|e| AuthFailure::new(e.to_string()))?;
    let Some(creds) = creds else {
        return Ok(LoggedOut {
            had_tokens: false,
            revoked: false,
        });
    };
    let revoked = match &creds.token_response {
        Some(tokens) => {
            client::revoke(
                store,
                target,
                &creds.client_id,
                creds.issuer.as_deref(),
                tokens,
            )
            .await
        }
        None => false,
    };
    store
        .forget(&target.key())
        .and_then(|_| store.forget_dpop_key(&target.key()))
        .map_err(|e| AuthFailure::new(e.to_string()))?;
    Ok(LoggedOut {
        had_tokens: true,
        revoked,
    })
}
