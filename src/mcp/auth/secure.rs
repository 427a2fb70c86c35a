//! The transport rule for everything OAuth talks to: the server URL (its protected-resource
//! metadata lives there), the authorization server's issuer and its authorization, token,
//! registration and revocation endpoints must be `https` unless they are on a loopback host
//! ([`opener::check_web_url`]). rmcp allows plain `http` on purpose; over it a code, the PKCE
//! verifier, a client secret or a refresh token would travel in clear text, so mcpdeck refuses
//! before it sends any of them. A challenge's `resource_metadata` URL that breaks the rule is
//! ignored (never fetched) rather than refused, as rmcp ignores one on a disallowed address:
//! discovery then uses the server's own well-known location.

use rmcp::transport::auth::AuthorizationMetadata;

use super::AuthFailure;
use crate::mcp::opener;

/// `url`, which OAuth will use as `what`, follows the rule; else the refusal, stating it.
pub(crate) fn require_secure(url: &str, what: &str) -> Result<(), AuthFailure> {
    opener::check_web_url(url).map(|_| ()).map_err(|why| {
        AuthFailure::new(format!(
            "sign-in refused: {what} is {why}. OAuth codes, PKCE verifiers, client secrets and \
             tokens are only sent over `https` (or to a loopback host), so nothing was sent to it"
        ))
    })
}

/// The challenge as discovery may use it: a `resource_metadata` URL that breaks the rule is
/// taken out (discovery then looks at the server's own well-known location, which the server
/// URL's check covers); the rest of the challenge (its `scope`) is kept.
pub(crate) fn secure_challenge(challenge: Option<String>) -> Option<String> {
    let challenge = challenge?;
    let Some((start, end, url)) = resource_metadata_param(&challenge) else {
        return Some(challenge);
    };
    if opener::check_web_url(&url).is_ok() {
        return Some(challenge);
    }
    let mut kept = challenge[..start]
        .trim_end()
        .trim_end_matches(',')
        .to_owned();
    let rest = challenge[end..]
        .trim_start()
        .trim_start_matches(',')
        .trim_start();
    if !rest.is_empty() {
        if !kept.trim().eq_ignore_ascii_case("bearer") {
            kept.push(',');
        }
        kept.push(' ');
        kept.push_str(rest);
    }
    Some(kept)
}

/// Every URL of the authorization server's metadata follows the rule.
pub(crate) fn require_secure_metadata(metadata: &AuthorizationMetadata) -> Result<(), AuthFailure> {
    if let Some(issuer) = &metadata.issuer {
        require_secure(issuer, "the authorization server")?;
    }
    require_secure(
        &metadata.authorization_endpoint,
        "the authorization endpoint",
    )?;
    require_secure(&metadata.token_endpoint, "the token endpoint")?;
    if let Some(register) = &metadata.registration_endpoint {
        require_secure(register, "the registration endpoint")?;
    }
    let revocation = metadata
        .additional_fields
        .get("revocation_endpoint")
        .and_then(serde_json::Value::as_str);
    if let Some(revoke) = revocation {
        require_secure(revoke, "the revocation endpoint")?;
    }
    Ok(())
}

/// The `resource_metadata` parameter of a `Bearer` challenge: where it starts and ends in the
/// challenge, and its URL.
fn resource_metadata_param(challenge: &str) -> Option<(usize, usize, String)> {
    let lower = challenge.to_ascii_lowercase();
    let at = lower.find("resource_metadata")?;
    let rest = challenge[at + "resource_metadata".len()..].trim_start();
    let rest = rest.strip_prefix('=')?.trim_start();
    let value_at = challenge.len() - rest.len();
    let (value, end) = if let Some(quoted) = rest.strip_prefix('"') {
        let value = quoted.split('"').next()?;
        (value, value_at + value.len() + 2)
    } else {
        let value = rest.split([',', ' ']).next()?;
        (value, value_at + value.len())
    };
    Some((at, end.min(challenge.len()), value.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_insecure_challenge_url_is_taken_out_and_the_rest_kept() {
        let c = r#"Bearer realm="x", resource_metadata="http://evil.test/prm", scope="a""#;
        assert_eq!(
            secure_challenge(Some(c.to_owned())).as_deref(),
            Some(r#"Bearer realm="x", scope="a""#)
        );
        let first = r#"Bearer resource_metadata="http://0.0.0.0:9/x", scope="read""#;
        assert_eq!(
            secure_challenge(Some(first.to_owned())).as_deref(),
            Some(r#"Bearer scope="read""#)
        );
        let bare = "Bearer resource_metadata=https://ok.test/prm, scope=a";
        assert_eq!(
            secure_challenge(Some(bare.to_owned())).as_deref(),
            Some(bare)
        );
        let loopback = r#"Bearer resource_metadata="http://127.0.0.1:8/prm""#;
        assert_eq!(
            secure_challenge(Some(loopback.to_owned())).as_deref(),
            Some(loopback)
        );
        assert_eq!(
            secure_challenge(Some("Bearer".to_owned())).as_deref(),
            Some("Bearer")
        );
    }
}
