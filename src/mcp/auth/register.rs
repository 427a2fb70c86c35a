//! Dynamic client registration (RFC 7591), done here rather than by rmcp so that the token
//! endpoint authentication method is chosen from what the authorization server supports
//! (`none`, then `client_secret_basic`, then `client_secret_post`) and the registration, secret
//! included, can be kept per authorization server and reused.

use std::time::Duration;

use rmcp::transport::auth::AuthorizationMetadata;

use super::store::Registration;
use crate::mcp::sanitize::sanitize_capped;

/// The methods mcpdeck can use, in the order it prefers them.
const METHODS: &[&str] = &["none", "client_secret_basic", "client_secret_post"];

/// The method to register with, from the server's `token_endpoint_auth_methods_supported`
/// (absent means the RFC 8414 default, `client_secret_basic`, plus public clients, which
/// registration endpoints generally accept).
pub(crate) fn choose_method(metadata: &AuthorizationMetadata) -> Result<&'static str, String> {
    let Some(listed) = metadata
        .additional_fields
        .get("token_endpoint_auth_methods_supported")
        .and_then(|v| v.as_array())
    else {
        return Ok("none");
    };
    METHODS
        .iter()
        .copied()
        .find(|m| listed.iter().any(|l| l.as_str() == Some(m)))
        .ok_or_else(|| {
            "the authorization server supports none of the client authentication methods \
             mcpdeck can use (none, client_secret_basic, client_secret_post)"
                .to_owned()
        })
}

/// The scopes to register for: those the sign-in asks for, plus `offline_access` when the
/// authorization server lists it, as the authorization request adds it (rmcp's rule) — a client
/// may ask only for scopes it registered. None when the sign-in names none.
fn registered_scopes(metadata: &AuthorizationMetadata, scopes: &[String]) -> Vec<String> {
    let mut out = scopes.to_vec();
    let listed = metadata
        .scopes_supported
        .as_ref()
        .is_some_and(|s| s.iter().any(|s| s == "offline_access"));
    if listed && !out.is_empty() && !out.iter().any(|s| s == "offline_access") {
        out.push("offline_access".to_owned());
    }
    out
}

/// Registers mcpdeck at `endpoint` for `redirect_uri`.
pub(crate) async fn register(
    endpoint: &str,
    metadata: &AuthorizationMetadata,
    redirect_uri: &str,
    scopes: &[String],
) -> Result<Registration, String> {
    let method = choose_method(metadata)?;
    let mut body = serde_json::json!({
        "client_name": "mcpdeck",
        "redirect_uris": [redirect_uri],
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
        "token_endpoint_auth_method": method,
        "application_type": "native",
    });
    let scopes = registered_scopes(metadata, scopes);
    if !scopes.is_empty() {
        body["scope"] = serde_json::Value::String(scopes.join(" "));
    }
    crate::mcp::connection::http::install_crypto_provider();
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(Duration::from_secs(30))
        .build()
        .map_err(|_| "the HTTP client could not be built".to_owned())?;
    let response = client
        .post(endpoint)
        .header(http::header::CONTENT_TYPE, "application/json")
        .header(http::header::ACCEPT, "application/json")
        .body(body.to_string())
        .send()
        .await
        .map_err(|_| "the registration endpoint could not be reached".to_owned())?;
    let status = response.status();
    let text = response
        .text()
        .await
        .map_err(|_| "the registration answer could not be read".to_owned())?;
    if !status.is_success() {
        let reason = serde_json::from_str::<serde_json::Value>(&text)
            .ok()
            .and_then(|v| v.get("error").and_then(|e| e.as_str()).map(str::to_owned))
            .map(|e| format!(" ({})", sanitize_capped(&e, 100)))
            .unwrap_or_default();
        return Err(format!(
            "dynamic client registration was refused: HTTP {}{reason}",
            status.as_u16()
        ));
    }
    let answer: serde_json::Value = serde_json::from_str(&text)
        .map_err(|_| "the registration answer is not JSON".to_owned())?;
    let Some(client_id) = answer.get("client_id").and_then(|v| v.as_str()) else {
        return Err("the registration answer has no client_id".to_owned());
    };
    let client_secret = answer
        .get("client_secret")
        .and_then(|v| v.as_str())
        .filter(|s| !s.is_empty())
        .map(str::to_owned);
    let auth_method = answer
        .get("token_endpoint_auth_method")
        .and_then(|v| v.as_str())
        .unwrap_or(method)
        .to_owned();
    Ok(Registration {
        client_id: client_id.to_owned(),
        client_secret,
        redirect_uri: redirect_uri.to_owned(),
        auth_method,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_methods(methods: Option<&[&str]>) -> AuthorizationMetadata {
        let mut m = AuthorizationMetadata::default();
        if let Some(methods) = methods {
            m.additional_fields.insert(
                "token_endpoint_auth_methods_supported".into(),
                serde_json::json!(methods),
            );
        }
        m
    }

    #[test]
    fn offline_access_is_registered_when_listed_and_scopes_are_asked_for() {
        let scopes = |list: &[&str]| list.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let mut listed = AuthorizationMetadata::default();
        listed.scopes_supported = Some(scopes(&["write", "offline_access"]));
        let mut unlisted = AuthorizationMetadata::default();
        unlisted.scopes_supported = Some(scopes(&["write"]));
        assert_eq!(
            registered_scopes(&listed, &scopes(&["write"])),
            scopes(&["write", "offline_access"])
        );
        assert_eq!(
            registered_scopes(&listed, &scopes(&["offline_access", "write"])),
            scopes(&["offline_access", "write"])
        );
        assert_eq!(
            registered_scopes(&unlisted, &scopes(&["write"])),
            scopes(&["write"])
        );
        assert!(registered_scopes(&listed, &[]).is_empty());
        assert!(registered_scopes(&AuthorizationMetadata::default(), &[]).is_empty());
    }

    #[test]
    fn the_method_comes_from_what_the_server_supports() {
        assert_eq!(choose_method(&with_methods(None)), Ok("none"));
        assert_eq!(
            choose_method(&with_methods(Some(&["client_secret_post", "none"]))),
            Ok("none")
        );
        assert_eq!(
            choose_method(&with_methods(Some(&[
                "client_secret_post",
                "client_secret_basic"
            ]))),
            Ok("client_secret_basic")
        );
        assert_eq!(
            choose_method(&with_methods(Some(&["client_secret_post"]))),
            Ok("client_secret_post")
        );
        assert!(choose_method(&with_methods(Some(&["private_key_jwt"]))).is_err());
    }
}
