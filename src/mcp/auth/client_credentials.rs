//! The client-credentials grant (the `io.modelcontextprotocol/oauth-client-credentials`
//! extension), for headless use such as CI: no browser, no redirect. mcpdeck discovers the
//! authorization server as for a sign-in, then asks its token endpoint for a token with the
//! configured client's own credentials — `client_secret_basic` (or `client_secret_post` when
//! that is all the server takes) with `oauth.clientSecret`, or `private_key_jwt` with an ES256
//! assertion signed by `oauth.privateKey` / `oauth.privateKeyFile` ([`super::assertion`]).
//!
//! The token is kept in the store like a sign-in's, bound to the issuer that minted it. Nothing
//! here prints; no message quotes a secret, a key, an assertion or a token.

use std::time::Duration;

use rmcp::transport::auth::{AuthorizationMetadata, OAuthTokenResponse};

use super::assertion::{SigningKey, read_key_file};
use super::store::CredentialStore;
use super::{AuthFailure, AuthTarget, SignedIn};
use crate::mcp::results::redact::Redactor;
use crate::mcp::sanitize::sanitize_capped;

/// RFC 7523's assertion type for client authentication.
const JWT_BEARER_ASSERTION: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// How the client authenticates at the token endpoint.
enum ClientAuth {
    /// `client_secret_basic`: the ID and secret in an `Authorization: Basic` header.
    Basic(String),
    /// `client_secret_post`: the ID and secret in the form.
    Post(String),
    /// `private_key_jwt`: a signed assertion in the form.
    Jwt(Box<SigningKey>),
}

impl ClientAuth {
    /// The configured credential, in the form the authorization server takes.
    fn choose(target: &AuthTarget, metadata: &AuthorizationMetadata) -> Result<Self, AuthFailure> {
        let listed = metadata
            .additional_fields
            .get("token_endpoint_auth_methods_supported")
            .and_then(|v| v.as_array())
            .map(|l| l.iter().filter_map(|m| m.as_str()).collect::<Vec<_>>());
        // Absent, the list defaults to `client_secret_basic` (RFC 8414).
        let takes = |m: &str| {
            listed
                .as_ref()
                .map_or(m == "client_secret_basic", |l| l.contains(&m))
        };
        let pem = match (&target.private_key, &target.oauth.private_key_file) {
            (Some(pem), _) => Some(pem.clone()),
            (None, Some(path)) => Some(read_key_file(path)?),
            (None, None) => None,
        };
        if let Some(pem) = pem {
            if listed.is_some() && !takes("private_key_jwt") {
                return Err(refused_method("private_key_jwt"));
            }
            return SigningKey::from_pem(&pem).map(|k| Self::Jwt(Box::new(k)));
        }
        let Some(secret) = target.client_secret.clone() else {
            return Err(AuthFailure::new(
                "the client-credentials grant needs `oauth.clientSecret`, `oauth.privateKey` or \
                 `oauth.privateKeyFile`",
            ));
        };
        if takes("client_secret_basic") {
            Ok(Self::Basic(secret))
        } else if takes("client_secret_post") {
            Ok(Self::Post(secret))
        } else {
            Err(refused_method("client_secret_basic"))
        }
    }

    fn method(&self) -> &'static str {
        match self {
            Self::Basic(_) => "client_secret_basic",
            Self::Post(_) => "client_secret_post",
            Self::Jwt(_) => "private_key_jwt",
        }
    }
}

fn refused_method(method: &str) -> AuthFailure {
    AuthFailure::new(format!(
        "the authorization server does not accept `{method}` client authentication"
    ))
}

/// Gets a token with the client-credentials grant for `target` and keeps it in `store`.
pub(crate) async fn obtain(
    target: &AuthTarget,
    store: &CredentialStore,
    metadata: &AuthorizationMetadata,
    scopes: &[String],
) -> Result<SignedIn, AuthFailure> {
    let Some(client_id) = target.oauth.client_id.clone() else {
        return Err(AuthFailure::new(
            "the client-credentials grant needs `oauth.clientId`",
        ));
    };
    let grants = metadata
        .additional_fields
        .get("grant_types_supported")
        .and_then(|v| v.as_array());
    if grants.is_some_and(|g| !g.iter().any(|g| g.as_str() == Some("client_credentials"))) {
        return Err(AuthFailure::new(
            "the authorization server does not offer the client-credentials grant",
        ));
    }
    let auth = ClientAuth::choose(target, metadata)?;
    let issuer = metadata.issuer.clone();
    let now = now_epoch_secs();
    let mut form: Vec<(&str, String)> = vec![
        ("grant_type", "client_credentials".to_owned()),
        ("resource", super::store_key(&target.url)),
    ];
    if !scopes.is_empty() {
        form.push(("scope", scopes.join(" ")));
    }
    let mut basic = None;
    match &auth {
        ClientAuth::Basic(secret) => basic = Some((client_id.as_str(), secret.as_str())),
        ClientAuth::Post(secret) => {
            form.push(("client_id", client_id.clone()));
            form.push(("client_secret", secret.clone()));
        }
        ClientAuth::Jwt(key) => {
            let Some(audience) = issuer.as_deref() else {
                return Err(AuthFailure::new(
                    "the authorization server's metadata names no issuer, which a \
                     `private_key_jwt` assertion must be addressed to",
                ));
            };
            let assertion = key.client_assertion(&client_id, audience, now)?;
            // Redacted from the moment it exists: an authorization server (or, through it,
            // anything else) that writes it back is shown `[redacted]`.
            super::minted::remember(&target.key(), &assertion);
            form.push(("client_id", client_id.clone()));
            form.push(("client_assertion_type", JWT_BEARER_ASSERTION.to_owned()));
            form.push(("client_assertion", assertion));
        }
    }
    let refusal = Refusal {
        grant: "client-credentials",
        method: auth.method(),
        redactor: super::redactor_for(target),
    };
    let text = post_form(&metadata.token_endpoint, &form, basic, &refusal).await?;
    let tokens: OAuthTokenResponse = serde_json::from_str(&text).map_err(|_| {
        AuthFailure::new("the token endpoint's answer is not a bearer token response")
    })?;
    let granted = granted_scopes(&tokens, scopes);
    super::jwt_bearer::keep(target, store, client_id, tokens, granted, issuer, now)
}

/// How a refused token request is reported.
pub(crate) struct Refusal {
    /// The grant, in words (`client-credentials`, `JWT-bearer`).
    pub grant: &'static str,
    /// The client authentication method (`client_secret_basic`, `none`, …).
    pub method: &'static str,
    /// What the authorization server's error code is redacted with before it is shown
    /// ([`super::redactor_for`]): one that writes a secret or an assertion back shows
    /// `[redacted]`.
    pub redactor: Redactor,
}

/// POSTs `form` to the token endpoint (with `basic` as `client_secret_basic` credentials);
/// the answer's body when it succeeded. A refusal is reported once, naming the grant and the
/// OAuth error code ([`Refusal`]), and never retried.
pub(crate) async fn post_form(
    endpoint: &str,
    form: &[(&str, String)],
    basic: Option<(&str, &str)>,
    refusal: &Refusal,
) -> Result<String, AuthFailure> {
    crate::mcp::connection::http::install_crypto_provider();
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(30))
        .build()
        .map_err(|_| AuthFailure::new("the HTTP client could not be built"))?;
    let mut request = client.post(endpoint);
    if let Some((id, secret)) = basic {
        // RFC 6749 (section 2.3.1): both are form-encoded before they are joined.
        request = request.basic_auth(form_encode(id), Some(form_encode(secret)));
    }
    let body = form
        .iter()
        .map(|(k, v)| format!("{k}={}", form_encode(v)))
        .collect::<Vec<_>>()
        .join("&");
    let response = request
        .header(
            http::header::CONTENT_TYPE,
            "application/x-www-form-urlencoded",
        )
        .header(http::header::ACCEPT, "application/json")
        .body(body)
        .send()
        .await
        .map_err(|_| AuthFailure::new("the token endpoint could not be reached"))?;
    let status = response.status();
    let text = response
        .text()
        .await
        .map_err(|_| AuthFailure::new("the token answer could not be read"))?;
    if !status.is_success() {
        return Err(refusal.describe(status.as_u16(), &text));
    }
    Ok(text)
}

/// The scopes the answer says were granted, else those asked for.
pub(crate) fn granted_scopes(tokens: &OAuthTokenResponse, asked: &[String]) -> Vec<String> {
    use oauth2::TokenResponse as _;
    tokens.scopes().map_or_else(
        || asked.to_vec(),
        |s| s.iter().map(|s| s.to_string()).collect(),
    )
}

impl Refusal {
    /// A refused token request in words: the status and the OAuth error code (redacted, then
    /// sanitised and capped), never the body or its `error_description`.
    fn describe(&self, status: u16, body: &str) -> AuthFailure {
        let code = serde_json::from_str::<serde_json::Value>(body)
            .ok()
            .and_then(|v| v.get("error").and_then(|e| e.as_str()).map(str::to_owned));
        let detail = match code.as_deref() {
            Some("invalid_client") => format!(
                " (invalid_client: the authorization server did not accept the client's \
                 credentials with `{}`)",
                self.method
            ),
            Some(code) => format!(" ({})", sanitize_capped(&self.redactor.redact(code), 60)),
            None => String::new(),
        };
        AuthFailure::new(format!(
            "the authorization server refused the {} token request: HTTP {status}{detail}",
            self.grant
        ))
    }
}

fn form_encode(value: &str) -> String {
    url::form_urlencoded::byte_serialize(value.as_bytes()).collect()
}

pub(crate) fn now_epoch_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}
