//! The 2025-03-26 metadata fallback for servers without protected-resource metadata: the
//! authorization server's metadata is read at the MCP server's origin
//! (`/.well-known/oauth-authorization-server`). That revision derives the metadata location from
//! the server URL, not from an issuer identifier, so the strict RFC 8414 check (the issuer must
//! be the URL the well-known path was inserted into) does not apply there; rmcp applies it and
//! refuses an issuer such as `https://host/oauth`. This module accepts that metadata only when
//! the server publishes no protected-resource metadata at all and the issuer and every endpoint
//! are on the server's own origin, so tokens still go nowhere but the server's origin.

use std::time::Duration;

use rmcp::transport::auth::AuthorizationMetadata;
use url::Url;

use super::AuthFailure;

const TIMEOUT: Duration = Duration::from_secs(30);

/// The origin of `url` (`scheme://host[:port]`), when it has one.
fn origin(url: &Url) -> Option<String> {
    let o = url.origin();
    o.is_tuple().then(|| o.ascii_serialization())
}

/// Whether every URL the metadata names (issuer and endpoints) is on `origin`.
fn all_on(metadata: &AuthorizationMetadata, origin_: &str) -> bool {
    let Some(issuer) = metadata.issuer.as_deref() else {
        return false;
    };
    std::iter::once(issuer)
        .chain([
            metadata.authorization_endpoint.as_str(),
            metadata.token_endpoint.as_str(),
        ])
        .chain(metadata.registration_endpoint.as_deref())
        .all(|u| {
            Url::parse(u)
                .ok()
                .and_then(|u| origin(&u))
                .is_some_and(|o| o == origin_)
        })
}

/// The metadata at the origin of `server_url`, under the 2025-03-26 rules: `None` when the
/// server publishes protected-resource metadata (the current rules apply then), when there is
/// no metadata at its origin, or when it names another origin.
pub(crate) async fn origin_metadata(
    server_url: &str,
) -> Result<Option<AuthorizationMetadata>, AuthFailure> {
    let server =
        Url::parse(server_url).map_err(|_| AuthFailure::new("the server URL is not valid"))?;
    let Some(origin_) = origin(&server) else {
        return Ok(None);
    };
    crate::mcp::connection::http::install_crypto_provider();
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(TIMEOUT)
        .build()
        .map_err(|_| AuthFailure::new("the HTTP client could not be built"))?;
    let path = server.path().trim_end_matches('/');
    let mut prm = vec![format!("{origin_}/.well-known/oauth-protected-resource")];
    if !path.is_empty() {
        prm.insert(
            0,
            format!("{origin_}/.well-known/oauth-protected-resource{path}"),
        );
    }
    for url in prm {
        let found = client
            .get(&url)
            .send()
            .await
            .is_ok_and(|r| r.status().is_success());
        if found {
            return Ok(None);
        }
    }
    let Ok(response) = client
        .get(format!("{origin_}/.well-known/oauth-authorization-server"))
        .header(http::header::ACCEPT, "application/json")
        .send()
        .await
    else {
        return Ok(None);
    };
    if !response.status().is_success() {
        return Ok(None);
    }
    // Metadata documents are small; a huge one is not metadata.
    let Ok(body) = response.bytes().await else {
        return Ok(None);
    };
    if body.len() > 64 * 1024 {
        return Ok(None);
    }
    let Ok(metadata) = serde_json::from_slice::<AuthorizationMetadata>(&body) else {
        return Ok(None);
    };
    Ok(all_on(&metadata, &origin_).then_some(metadata))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metadata(issuer: &str, authorize: &str) -> AuthorizationMetadata {
        serde_json::from_value(serde_json::json!({
            "issuer": issuer,
            "authorization_endpoint": authorize,
            "token_endpoint": format!("{issuer}/token"),
        }))
        .expect("metadata")
    }

    #[test]
    fn only_metadata_wholly_on_the_servers_origin_is_taken() {
        let o = "http://127.0.0.1:8080";
        assert!(all_on(
            &metadata(
                "http://127.0.0.1:8080/oauth",
                "http://127.0.0.1:8080/oauth/authorize"
            ),
            o
        ));
        assert!(!all_on(
            &metadata(
                "http://127.0.0.1:8080/oauth",
                "https://evil.example/authorize"
            ),
            o
        ));
        assert!(!all_on(
            &metadata(
                "http://127.0.0.1:9999/oauth",
                "http://127.0.0.1:9999/authorize"
            ),
            o
        ));
    }
}
