//! The transport rule for everything OAuth talks to: the server URL (its protected-resource
//! metadata lives there), the challenge's `resource_metadata` URL, the authorization server's
//! issuer and its authorization, token, registration and revocation endpoints must be `https`
//! unless they are on a loopback host ([`opener::check_web_url`]). rmcp allows plain `http` on
//! purpose; over it a code, the PKCE verifier, a client secret or a refresh token would travel
//! in clear text, so mcpdeck refuses before it sends any of them.

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

/// The challenge's `resource_metadata` URL, when it names one, follows the rule.
pub(crate) fn require_secure_challenge(challenge: Option<&str>) -> Result<(), AuthFailure> {
    let Some(url) = challenge.and_then(resource_metadata_url) else {
        return Ok(());
    };
    require_secure(
        &url,
        "the protected-resource metadata URL the server's challenge names",
    )
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

/// The `resource_metadata` parameter of a `Bearer` challenge.
fn resource_metadata_url(challenge: &str) -> Option<String> {
    let lower = challenge.to_ascii_lowercase();
    let at = lower.find("resource_metadata")?;
    let rest = challenge[at + "resource_metadata".len()..].trim_start();
    let rest = rest.strip_prefix('=')?.trim_start();
    let value = match rest.strip_prefix('"') {
        Some(quoted) => quoted.split('"').next()?,
        None => rest.split([',', ' ']).next()?,
    };
    Some(value.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_challenge_url_is_found_quoted_or_bare() {
        let c = r#"Bearer realm="x", resource_metadata="http://evil.test/prm", scope="a""#;
        assert_eq!(
            resource_metadata_url(c).as_deref(),
            Some("http://evil.test/prm")
        );
        assert!(require_secure_challenge(Some(c)).is_err());
        let bare = "Bearer resource_metadata=https://ok.test/prm, scope=a";
        assert_eq!(
            resource_metadata_url(bare).as_deref(),
            Some("https://ok.test/prm")
        );
        assert!(require_secure_challenge(Some(bare)).is_ok());
        assert!(require_secure_challenge(Some("Bearer")).is_ok());
    }
}
