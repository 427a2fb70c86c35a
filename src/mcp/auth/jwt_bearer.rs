//! The two headless grants built on the JWT-bearer grant (RFC 7523), with no browser and no
//! client registration:
//!
//! - **Workload identity federation** (`io.modelcontextprotocol/auth/wif`, `oauth.grant:
//!   "workload_identity"`): the workload's own JWT (`oauth.workloadToken`, an environment
//!   reference, or `oauth.workloadTokenFile`, a file only its owner can read) is the assertion.
//! - **Enterprise-managed authorization** (`io.modelcontextprotocol/enterprise-managed-authorization`,
//!   `oauth.grant: "enterprise_managed"`): an ID token from the enterprise identity provider
//!   (`oauth.idToken` / `oauth.idTokenFile`) is exchanged there (RFC 8693) for an ID-JAG whose
//!   audience is the authorization server's issuer and whose resource is the MCP server, and the
//!   ID-JAG is then the assertion. rmcp's `enterprise` module makes both requests and checks the
//!   ID-JAG's type, issuer, audience, client and resource before it is sent on.
//!
//! A refused request (`invalid_grant`, `invalid_scope`, `unauthorized_client`, …) is reported
//! as it is: never retried, and never answered with another grant. The token is kept in the
//! store like a sign-in's, bound to the issuer that minted it. Nothing here prints, and no
//! message quotes a token, an assertion or a secret.

use oauth2::ClientSecret;
use rmcp::transport::auth::enterprise::{
    EmaAuthorizationServer, EmaClientAuthentication, EmaError, EmaExchangeRequest,
};
use rmcp::transport::auth::{AuthorizationMetadata, OAuthTokenResponse, StoredCredentials};

use super::assertion::read_key_file;
use super::client_credentials::{Refusal, granted_scopes, now_epoch_secs, post_form};
use super::store::CredentialStore;
use super::{AuthFailure, AuthTarget, SignedIn};

/// RFC 7523's grant type.
pub(crate) const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// A configured secret: resolved from its reference, else read from its 0600 file.
fn secret_of(
    resolved: Option<&String>,
    file: Option<&String>,
    what: &str,
) -> Result<String, AuthFailure> {
    let text = match (resolved, file) {
        (Some(value), _) => value.clone(),
        (None, Some(path)) => read_key_file(path)?,
        (None, None) => return Err(AuthFailure::new(format!("the grant needs {what}"))),
    };
    let text = text.trim().to_owned();
    if text.is_empty() {
        return Err(AuthFailure::new(format!("{what} is empty")));
    }
    Ok(text)
}

/// Refuses an authorization server whose metadata lists grants without the JWT-bearer grant.
fn require_jwt_bearer(metadata: &AuthorizationMetadata) -> Result<(), AuthFailure> {
    let grants = metadata
        .additional_fields
        .get("grant_types_supported")
        .and_then(|v| v.as_array());
    if grants.is_some_and(|g| !g.iter().any(|g| g.as_str() == Some(JWT_BEARER))) {
        return Err(AuthFailure::new(
            "the authorization server does not offer the JWT-bearer grant",
        ));
    }
    Ok(())
}

/// Gets a token with the workload's JWT (workload identity federation) and keeps it.
pub(crate) async fn workload(
    target: &AuthTarget,
    store: &CredentialStore,
    metadata: &AuthorizationMetadata,
    scopes: &[String],
) -> Result<SignedIn, AuthFailure> {
    require_jwt_bearer(metadata)?;
    let assertion = secret_of(
        target.workload_token.as_ref(),
        target.oauth.workload_token_file.as_ref(),
        "`oauth.workloadToken` or `oauth.workloadTokenFile`",
    )?;
    let mut form: Vec<(&str, String)> = vec![
        ("grant_type", JWT_BEARER.to_owned()),
        ("assertion", assertion),
        ("resource", super::store_key(&target.url)),
    ];
    if !scopes.is_empty() {
        form.push(("scope", scopes.join(" ")));
    }
    if let Some(id) = &target.oauth.client_id {
        form.push(("client_id", id.clone()));
    }
    let now = now_epoch_secs();
    let refusal = Refusal {
        grant: "JWT-bearer",
        method: "none",
        redactor: super::redactor_for(target),
    };
    let text = post_form(&metadata.token_endpoint, &form, None, &refusal).await?;
    let tokens: OAuthTokenResponse = serde_json::from_str(&text).map_err(|_| {
        AuthFailure::new("the token endpoint's answer is not a bearer token response")
    })?;
    let granted = granted_scopes(&tokens, scopes);
    let client_id = target.oauth.client_id.clone().unwrap_or_default();
    keep(
        target,
        store,
        client_id,
        tokens,
        granted,
        metadata.issuer.clone(),
        now,
    )
}

/// Gets a token with enterprise-managed authorization (ID token → ID-JAG → token) and keeps it.
pub(crate) async fn enterprise(
    target: &AuthTarget,
    store: &CredentialStore,
    metadata: &AuthorizationMetadata,
    scopes: &[String],
) -> Result<SignedIn, AuthFailure> {
    require_jwt_bearer(metadata)?;
    let oauth = &target.oauth;
    let (Some(client_id), Some(idp_issuer), Some(idp_client_id)) = (
        oauth.client_id.clone(),
        oauth.idp_issuer.clone(),
        oauth.idp_client_id.clone(),
    ) else {
        return Err(AuthFailure::new(
            "enterprise-managed authorization needs `oauth.clientId`, `oauth.idpIssuer` and \
             `oauth.idpClientId`",
        ));
    };
    let Some(issuer) = metadata.issuer.clone() else {
        return Err(AuthFailure::new(
            "the authorization server's metadata names no issuer, which the ID-JAG must be \
             addressed to",
        ));
    };
    let id_token = secret_of(
        target.id_token.as_ref(),
        oauth.id_token_file.as_ref(),
        "`oauth.idToken` or `oauth.idTokenFile`",
    )?;
    let idp_endpoint = match &oauth.idp_token_endpoint {
        Some(endpoint) => endpoint.clone(),
        None => idp_token_endpoint(&idp_issuer).await?,
    };
    super::secure::require_secure(&idp_endpoint, "the identity provider's token endpoint")?;
    let auth = |secret: Option<&String>| match secret {
        Some(s) => EmaClientAuthentication::ClientSecretBasic(ClientSecret::new(s.clone())),
        None => EmaClientAuthentication::None,
    };
    let idp = EmaAuthorizationServer::new(idp_issuer, idp_endpoint, idp_client_id)
        .with_client_authentication(auth(target.idp_client_secret.as_ref()));
    let resource_as =
        EmaAuthorizationServer::new(issuer.clone(), &metadata.token_endpoint, client_id.clone())
            .with_client_authentication(auth(target.client_secret.as_ref()));
    let resource = super::store_key(&target.url);
    crate::mcp::connection::http::install_crypto_provider();
    let http = rmcp::transport::auth::default_oauth_http_client()
        .map_err(|_| AuthFailure::new("the HTTP client could not be built"))?;
    let now = now_epoch_secs();
    let jag = EmaExchangeRequest::new_with_id_token(idp, resource_as, &resource, &id_token)
        .with_scopes(scopes.iter().cloned())
        .exchange_id_jag(&http)
        .await
        .map_err(|e| refused(&e))?;
    // The ID-JAG is a bearer assertion for this server's authorization server: redacted like
    // a client assertion from the moment mcpdeck holds it.
    super::minted::remember(&target.key(), jag.assertion().secret());
    let token = jag.exchange(&http).await.map_err(|e| refused(&e))?;
    let mut granted: Vec<String> = token.scopes.iter().cloned().collect();
    granted.sort();
    let mut answer = serde_json::json!({
        "access_token": token.access_token.secret(),
        "token_type": "Bearer",
    });
    if let Some(lifetime) = token.expires_in {
        answer["expires_in"] = lifetime.as_secs().into();
    }
    if !granted.is_empty() {
        answer["scope"] = granted.join(" ").into();
    }
    let tokens: OAuthTokenResponse = serde_json::from_value(answer)
        .map_err(|_| AuthFailure::new("the access token could not be kept"))?;
    keep(target, store, client_id, tokens, granted, Some(issuer), now)
}

/// The token endpoint in the identity provider's OpenID configuration, checked to be its own.
async fn idp_token_endpoint(issuer: &str) -> Result<String, AuthFailure> {
    super::secure::require_secure(issuer, "the identity provider")?;
    crate::mcp::connection::http::install_crypto_provider();
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(std::time::Duration::from_secs(30))
        .build()
        .map_err(|_| AuthFailure::new("the HTTP client could not be built"))?;
    let url = format!(
        "{}/.well-known/openid-configuration",
        issuer.trim_end_matches('/')
    );
    let unusable =
        || AuthFailure::new("the identity provider's OpenID configuration could not be used");
    let doc: serde_json::Value = client
        .get(&url)
        .send()
        .await
        .map_err(|_| unusable())?
        .error_for_status()
        .map_err(|_| unusable())?
        .json()
        .await
        .map_err(|_| unusable())?;
    if doc["issuer"].as_str() != Some(issuer) {
        return Err(AuthFailure::new(
            "the identity provider's OpenID configuration names another issuer",
        ));
    }
    doc["token_endpoint"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(unusable)
}

/// An enterprise exchange's failure in words (rmcp's errors carry no server text).
fn refused(e: &EmaError) -> AuthFailure {
    AuthFailure::new(format!("enterprise-managed authorization failed: {e}"))
}

/// Stores a headless grant's tokens under the target's key, bound to `issuer`, and reads back
/// what `auth status` will say about them.
pub(super) fn keep(
    target: &AuthTarget,
    store: &CredentialStore,
    client_id: String,
    tokens: OAuthTokenResponse,
    granted: Vec<String>,
    issuer: Option<String>,
    now: u64,
) -> Result<SignedIn, AuthFailure> {
    let creds =
        StoredCredentials::new(client_id, Some(tokens), granted, Some(now)).with_issuer(issuer);
    let key = target.key();
    store
        .update(|doc| {
            doc.servers.insert(key, creds);
        })
        .map_err(|e| AuthFailure::new(e.to_string()))?;
    super::status_of(store, target)
        .map_err(|e| AuthFailure::new(e.to_string()))?
        .ok_or_else(|| AuthFailure::new("the token was not kept"))
}
