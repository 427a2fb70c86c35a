//! The token side of a connection: rmcp's `AuthClient` around the transport's reqwest client,
//! with this server's stored tokens. It sends the access token (refreshed first when it is about
//! to expire), and on a 401 retries the refused request once, after one refresh shared by every
//! request refused with the same token ([`super::token_client`]); a rotated
//! refresh token replaces the old one in the store; `invalid_grant` drops the tokens. Requests go
//! only to the configured server URL (the transport follows same-origin redirects only), and
//! token requests only to the authorization server its metadata names.
//!
//! Also token revocation, for sign-out.

use std::time::Duration;

use oauth2::TokenResponse as _;
use rmcp::transport::auth::{
    AuthClient, AuthError, AuthorizationManager, OAuthClientConfig, OAuthTokenResponse,
};

use rmcp::transport::streamable_http_client::StreamableHttpClient;

use super::store::CredentialStore;
use super::token_client::TokenClient;
use super::{AuthTarget, store_key};

/// How long connect-time discovery (needed only to refresh) may take.
const DISCOVERY_TIMEOUT: Duration = Duration::from_secs(10);

/// The HTTP client of a connection. `target` is `None` for a server that does not use OAuth (a
/// configured `Authorization` header, or no store): then nothing is ever added to requests.
pub(crate) async fn auth_client<C: StreamableHttpClient + Send + Sync>(
    url: &str,
    inner: C,
    target: Option<(&AuthTarget, &CredentialStore)>,
) -> Result<TokenClient<C>, String> {
    crate::mcp::connection::http::install_crypto_provider();
    let mut manager = AuthorizationManager::new(url)
        .await
        .map_err(|_| "the server URL is not usable for OAuth".to_owned())?;
    let Some((target, store)) = target else {
        return Ok(TokenClient::new(AuthClient::new(inner, manager), None));
    };
    let key = store_key(url);
    let tokens = store.for_server(&key);
    manager.set_credential_store(tokens.clone());
    let stored = store.tokens(&key).map_err(|e| e.to_string())?;
    let dpop = dpop_key(store, &key, stored.as_ref());
    if let Some(creds) = stored.filter(|c| c.token_response.is_some()) {
        // Discovery configures the token endpoint for refreshes. When it fails the stored
        // access token is still sent; a refresh then fails and asks for sign-in.
        // The metadata is resolved here, not inside `initialize_from_store`, so that a token
        // endpoint that is plain `http` off loopback never gets the refresh token.
        let resolved = tokio::time::timeout(DISCOVERY_TIMEOUT, manager.resolve_metadata()).await;
        let mut as_key = creds.issuer.clone();
        if let Ok(Ok(resolution)) = resolved {
            if super::secure::require_secure_metadata(&resolution.metadata).is_err() {
                return Ok(with_secrets(
                    TokenClient::new(AuthClient::new(inner, manager), Some(tokens)),
                    target,
                )
                .with_dpop(dpop));
            }
            let current = super::flow::authorization_server_key(&resolution.metadata);
            if !bind_issuer(store, &key, &current, target) {
                // Tokens from before issuers were recorded, with nothing tying them to this
                // authorization server: sent as they are, never refreshed there.
                return Ok(with_secrets(
                    TokenClient::new(AuthClient::new(inner, manager), Some(tokens)),
                    target,
                )
                .with_dpop(dpop));
            }
            as_key.get_or_insert(current);
            manager =
                with_metadata(manager, url, &tokens, resolution.metadata, dpop.as_ref()).await?;
        }
        let mut initialized =
            tokio::time::timeout(DISCOVERY_TIMEOUT, manager.initialize_from_store()).await;
        if matches!(
            initialized,
            Ok(Err(AuthError::AuthorizationServerMismatch { .. }))
        ) {
            // A server without protected-resource metadata whose origin metadata names an
            // issuer path: the same 2025-03-26 rule that let sign-in through (see `legacy`).
            let origin =
                tokio::time::timeout(DISCOVERY_TIMEOUT, super::legacy::origin_metadata(url)).await;
            if let Ok(Ok(Some(metadata))) = origin
                && super::secure::require_secure_metadata(&metadata).is_ok()
            {
                as_key.get_or_insert(super::flow::authorization_server_key(&metadata));
                manager = with_metadata(manager, url, &tokens, metadata, dpop.as_ref()).await?;
                initialized =
                    tokio::time::timeout(DISCOVERY_TIMEOUT, manager.initialize_from_store()).await;
            }
        }
        if matches!(initialized, Ok(Ok(true))) {
            configure_secret(
                &mut manager,
                target,
                store,
                as_key.as_deref(),
                &creds.client_id,
            );
            tokens.refreshes_follow();
        }
    }
    Ok(with_secrets(
        TokenClient::new(AuthClient::new(inner, manager), Some(tokens)),
        target,
    )
    .with_dpop(dpop))
}

/// `manager` knowing the authorization server's `metadata`; for DPoP-bound tokens, a manager
/// whose token requests (the refreshes) carry proofs of `dpop` instead, whichever way the
/// metadata was found (the protected-resource metadata, or a 2025-03-26 origin's).
async fn with_metadata(
    mut manager: AuthorizationManager,
    url: &str,
    tokens: &super::store::ServerTokens,
    metadata: rmcp::transport::auth::AuthorizationMetadata,
    dpop: Option<&std::sync::Arc<super::dpop::DpopKey>>,
) -> Result<AuthorizationManager, String> {
    if let Some(key) = dpop {
        return super::dpop::manager(url, tokens.clone(), metadata, key.clone())
            .await
            .map_err(|e| e.message);
    }
    manager.set_metadata(metadata);
    Ok(manager)
}

/// The key DPoP-bound tokens are presented with: the one kept beside them. Without it they
/// cannot be used at all, so they are sent as they are and the refusal asks for sign-in.
fn dpop_key(
    store: &CredentialStore,
    key: &str,
    stored: Option<&rmcp::transport::auth::StoredCredentials>,
) -> Option<std::sync::Arc<super::dpop::DpopKey>> {
    let tokens = stored?.token_response.as_ref()?;
    if !super::dpop_bound(tokens) {
        return None;
    }
    super::dpop::stored(store, key).ok().flatten()
}

/// `client` redacting with the target server's shared live secrets ([`super::minted`]: the
/// tokens it sends, the assertions and ID-JAGs minted for the server), with the target's own
/// secrets among them ([`secrets_of`]).
fn with_secrets<C>(client: TokenClient<C>, target: &AuthTarget) -> TokenClient<C> {
    let client = client.with_live(super::minted::live(&target.key()));
    let live = client.live();
    for secret in secrets_of(target) {
        live.add(&secret);
    }
    client
}

/// The target's client secret, private key, workload token, identity-provider secret and ID
/// token — resolved from the environment or read from their key files — and each PEM block's
/// body. They are never sent to the MCP server, so one that shows up in what it answers is
/// redacted all the same. A key file that cannot be read adds nothing here: the grant that
/// needs it says why.
pub(super) fn secrets_of(target: &AuthTarget) -> Vec<String> {
    let from_files = [
        &target.oauth.private_key_file,
        &target.oauth.workload_token_file,
        &target.oauth.id_token_file,
    ]
    .into_iter()
    .flatten()
    .filter_map(|path| super::assertion::read_key_file(path).ok())
    .map(|text| text.trim().to_owned());
    let resolved = [
        &target.client_secret,
        &target.private_key,
        &target.workload_token,
        &target.idp_client_secret,
        &target.id_token,
    ]
    .into_iter()
    .flatten()
    .cloned();
    let mut secrets = Vec::new();
    for secret in resolved.chain(from_files).filter(|s| !s.is_empty()) {
        if let Some(body) = pem_body(&secret) {
            secrets.push(body);
        }
        secrets.push(secret);
    }
    secrets
}

/// The base64 body of a PEM block (its lines joined), when `text` is one.
fn pem_body(text: &str) -> Option<String> {
    text.contains("-----BEGIN").then(|| {
        text.lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with("-----"))
            .collect()
    })
}

/// Binds issuer-less stored tokens to `current` when they belong to it ([`super::issuer`]);
/// false when they stay unbound (or the store cannot be written), so they must not be
/// refreshed there.
fn bind_issuer(store: &CredentialStore, key: &str, current: &str, target: &AuthTarget) -> bool {
    use super::issuer::{Binding, bind};
    let configured = target.oauth.client_id.as_deref();
    let unbound = store
        .read()
        .ok()
        .and_then(|doc| doc.servers.get(key).map(|c| c.issuer.is_none()))
        .unwrap_or(false);
    if !unbound {
        return true;
    }
    store
        .update(|doc| bind(doc, key, current, configured))
        .is_ok_and(|b| b != Binding::Unbound)
}

/// Gives the OAuth client its secret (a pre-registered one from the definition, or the
/// registration kept for the tokens' own authorization server, `as_key`), which rmcp's stored
/// credentials do not hold.
fn configure_secret(
    manager: &mut AuthorizationManager,
    target: &AuthTarget,
    store: &CredentialStore,
    as_key: Option<&str>,
    client_id: &str,
) {
    let (secret, redirect) = if target.oauth.client_id.as_deref() == Some(client_id) {
        (target.client_secret.clone(), None)
    } else {
        let kept = as_key.and_then(|as_key| {
            store
                .read()
                .ok()
                .and_then(|doc| super::issuer::registration_of(&doc, as_key, client_id))
        });
        match kept {
            Some(r) => (r.client_secret, Some(r.redirect_uri)),
            None => (None, None),
        }
    };
    let Some(secret) = secret else {
        return;
    };
    let redirect = redirect.unwrap_or_else(|| target.url.clone());
    let config = OAuthClientConfig::new(client_id, redirect).with_client_secret(secret);
    // A failure leaves the public client configured; the refresh then fails and asks for
    // sign-in rather than sending anything wrong.
    let _ = manager.configure_client(config);
}

/// Revokes the tokens at the authorization server's revocation endpoint (RFC 7009), when it
/// has one. True when the server accepted the revocation.
pub(crate) async fn revoke(
    store: &CredentialStore,
    target: &AuthTarget,
    client_id: &str,
    issuer: Option<&str>,
    tokens: &OAuthTokenResponse,
) -> bool {
    crate::mcp::connection::http::install_crypto_provider();
    let Ok(manager) = AuthorizationManager::new(target.url.as_str()).await else {
        return false;
    };
    let Ok(Ok(resolution)) =
        tokio::time::timeout(DISCOVERY_TIMEOUT, manager.resolve_metadata()).await
    else {
        return false;
    };
    let Some(endpoint) = resolution
        .metadata
        .additional_fields
        .get("revocation_endpoint")
        .and_then(|v| v.as_str())
        .map(str::to_owned)
    else {
        return false;
    };
    if super::secure::require_secure(&endpoint, "the revocation endpoint").is_err() {
        return false;
    }
    let current = super::flow::authorization_server_key(&resolution.metadata);
    // Tokens and a client ID go only to the issuer they came from: after a migration the old
    // tokens are forgotten without a revocation the new server could not honour anyway.
    if issuer.is_some_and(|i| i != current) {
        return false;
    }
    let as_key = current;
    let secret = if target.oauth.client_id.as_deref() == Some(client_id) {
        target.client_secret.clone()
    } else {
        store.read().ok().and_then(|doc| {
            super::issuer::registration_of(&doc, &as_key, client_id).and_then(|r| r.client_secret)
        })
    };
    crate::mcp::connection::http::install_crypto_provider();
    let Ok(client) = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(DISCOVERY_TIMEOUT)
        .build()
    else {
        return false;
    };
    let mut candidates = Vec::new();
    if let Some(refresh) = tokens.refresh_token() {
        candidates.push((refresh.secret().clone(), "refresh_token"));
    }
    candidates.push((tokens.access_token().secret().clone(), "access_token"));
    let mut accepted = false;
    for (token, hint) in candidates {
        let mut form = vec![("token", token), ("token_type_hint", hint.to_owned())];
        let mut request = client.post(&endpoint);
        match &secret {
            Some(s) => request = request.basic_auth(client_id, Some(s)),
            None => form.push(("client_id", client_id.to_owned())),
        }
        let body = form
            .iter()
            .map(|(k, v)| format!("{k}={}", form_encode(v)))
            .collect::<Vec<_>>()
            .join("&");
        let sent = request
            .header(
                http::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .body(body)
            .send()
            .await;
        accepted |= sent.is_ok_and(|r| r.status().is_success());
    }
    accepted
}

fn form_encode(value: &str) -> String {
    url::form_urlencoded::byte_serialize(value.as_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt as _;

    use super::{AuthTarget, secrets_of};
    use crate::mcp::config::oauth::OAuthDef;

    fn target(oauth: OAuthDef) -> AuthTarget {
        AuthTarget {
            name: "web".to_owned(),
            url: "https://mcp.example.com/mcp".to_owned(),
            oauth,
            client_secret: Some("env-secret".to_owned()),
            private_key: None,
            workload_token: None,
            idp_client_secret: None,
            id_token: None,
        }
    }

    #[test]
    fn secrets_read_from_key_files_are_redacted_like_resolved_ones() {
        let dir = tempfile::tempdir().expect("dir");
        let write = |name: &str, text: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).expect("write");
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("mode");
            path.display().to_string()
        };
        let key = "-----BEGIN PRIVATE KEY-----\nQUJD\nREVG\n-----END PRIVATE KEY-----\n";
        let oauth = OAuthDef {
            private_key_file: Some(write("key.pem", key)),
            workload_token_file: Some(write("workload.jwt", "eyJ.workload.sig\n")),
            id_token_file: Some(write("id.jwt", "eyJ.id.sig")),
            ..OAuthDef::default()
        };
        let secrets = secrets_of(&target(oauth));
        for wanted in [
            "env-secret",
            key.trim(),
            "QUJDREVG",
            "eyJ.workload.sig",
            "eyJ.id.sig",
        ] {
            assert!(
                secrets.iter().any(|s| s == wanted),
                "{wanted:?} is not redacted: {secrets:?}"
            );
        }
    }

    #[test]
    fn a_key_file_others_may_read_adds_nothing() {
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("workload.jwt");
        std::fs::write(&path, "eyJ.open.sig").expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("mode");
        let oauth = OAuthDef {
            workload_token_file: Some(path.display().to_string()),
            ..OAuthDef::default()
        };
        assert_eq!(secrets_of(&target(oauth)), ["env-secret"]);
    }
}
