//! DPoP (RFC 9449, the `io.modelcontextprotocol/auth/dpop` extension): sender-constrained
//! tokens. One P-256 key per server, generated at the first sign-in that uses DPoP and kept in
//! the credential store beside the tokens; every token request and every request to the MCP
//! server carries a fresh proof signed with it (`htm`, `htu` without query or fragment, `iat`, a
//! unique `jti`; `ath`, the hash of the access token, toward the MCP server), and the token is
//! presented as `Authorization: DPoP …`. A `use_dpop_nonce` answer (HTTP 400 from the token
//! endpoint, 401 from the MCP server) is retried once with the server's `DPoP-Nonce`, which is
//! then sent with every later proof to that server.
//!
//! DPoP is used when the authorization server's metadata lists ES256 in
//! `dpop_signing_alg_values_supported`, unless `oauth.dpop` is `false`; `oauth.dpop: true` refuses
//! a server that does not offer it. The key and every proof are secrets: nothing here prints
//! them, `Debug` hides them, and the connection's redactor learns each proof it sends.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine as _;
use rmcp::transport::auth::{
    AuthorizationMetadata, OAuthHttpClient, OAuthHttpClientError, OAuthHttpClientFuture,
    OAuthHttpRequest,
};
use serde::{Deserialize, Serialize};

use super::AuthFailure;
use super::assertion::{SigningKey, unique_id};
use super::store::CredentialStore;

/// The only proof algorithm mcpdeck signs with.
pub(crate) const ALG: &str = "ES256";

/// Largest token endpoint answer read.
const MAX_ANSWER: usize = 1 << 20;

/// A stored DPoP key: its PKCS#8 document, base64url. `Debug` never shows it.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct KeyRecord(String);

impl std::fmt::Debug for KeyRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("KeyRecord(..)")
    }
}

/// A server's DPoP key, with the nonces its servers asked for.
pub(crate) struct DpopKey {
    key: SigningKey,
    /// The public key as a JWK (`crv`, `kty`, `x`, `y`).
    jwk: serde_json::Value,
    /// The JWK thumbprint (RFC 7638): what a bound token's `cnf.jkt` names.
    thumbprint: String,
    /// The authorization server's last `DPoP-Nonce`.
    as_nonce: Mutex<Option<String>>,
    /// The MCP server's last `DPoP-Nonce`.
    rs_nonce: Mutex<Option<String>>,
}

impl std::fmt::Debug for DpopKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DpopKey")
            .field("thumbprint", &self.thumbprint)
            .finish_non_exhaustive()
    }
}

/// Which server a proof is for (whose nonce it carries).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Audience {
    /// The authorization server's token endpoint.
    TokenEndpoint,
    /// The MCP server.
    Resource,
}

impl DpopKey {
    fn from_record(record: &KeyRecord) -> Result<Self, AuthFailure> {
        let der = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(record.0.as_bytes())
            .map_err(|_| AuthFailure::new("the stored DPoP key is damaged"))?;
        let key = SigningKey::from_pkcs8(&der)?;
        let point = key.public_point();
        if point.len() != 65 || point[0] != 4 {
            return Err(AuthFailure::new("the stored DPoP key is not a P-256 key"));
        }
        let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let (x, y) = (b64.encode(&point[1..33]), b64.encode(&point[33..65]));
        // RFC 7638: the required members in lexicographic order, no whitespace.
        let canonical = format!(r#"{{"crv":"P-256","kty":"EC","x":"{x}","y":"{y}"}}"#);
        let thumbprint = b64.encode(ring::digest::digest(
            &ring::digest::SHA256,
            canonical.as_bytes(),
        ));
        Ok(Self {
            key,
            jwk: serde_json::json!({"kty": "EC", "crv": "P-256", "x": x, "y": y}),
            thumbprint,
            as_nonce: Mutex::new(None),
            rs_nonce: Mutex::new(None),
        })
    }

    fn generate() -> Result<(KeyRecord, Self), AuthFailure> {
        let rng = ring::rand::SystemRandom::new();
        let der = ring::signature::EcdsaKeyPair::generate_pkcs8(
            &ring::signature::ECDSA_P256_SHA256_FIXED_SIGNING,
            &rng,
        )
        .map_err(|_| AuthFailure::new("no DPoP key could be generated"))?;
        let record =
            KeyRecord(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(der.as_ref()));
        let key = Self::from_record(&record)?;
        Ok((record, key))
    }

    /// The JWK thumbprint of the public key (RFC 7638, SHA-256).
    #[cfg(test)]
    pub(crate) fn thumbprint(&self) -> &str {
        &self.thumbprint
    }

    fn nonce_of(&self, audience: Audience) -> &Mutex<Option<String>> {
        match audience {
            Audience::TokenEndpoint => &self.as_nonce,
            Audience::Resource => &self.rs_nonce,
        }
    }

    /// Remembers the nonce a server asked for.
    pub(crate) fn set_nonce(&self, audience: Audience, nonce: &str) {
        *self
            .nonce_of(audience)
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(nonce.to_owned());
    }

    /// A fresh proof for a `method` request to `url`; with `access_token`, bound to it (`ath`).
    pub(crate) fn proof(
        &self,
        audience: Audience,
        method: &str,
        url: &str,
        access_token: Option<&str>,
    ) -> Result<String, AuthFailure> {
        let header = serde_json::json!({"typ": "dpop+jwt", "alg": ALG, "jwk": self.jwk});
        let mut claims = serde_json::json!({
            "jti": unique_id()?,
            "htm": method,
            "htu": htu(url),
            "iat": now_epoch_secs(),
        });
        if let Some(token) = access_token {
            claims["ath"] = ath(token).into();
        }
        let nonce = self
            .nonce_of(audience)
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        if let Some(nonce) = nonce {
            claims["nonce"] = nonce.into();
        }
        self.key.sign(&header, &claims)
    }
}

/// `url` without its query and fragment, as a proof's `htu` names it.
pub(crate) fn htu(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut u) => {
            u.set_query(None);
            u.set_fragment(None);
            u.to_string()
        }
        Err(_) => url.split(['?', '#']).next().unwrap_or(url).to_owned(),
    }
}

/// The `ath` claim: base64url SHA-256 of the access token.
pub(crate) fn ath(access_token: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(ring::digest::digest(
        &ring::digest::SHA256,
        access_token.as_bytes(),
    ))
}

/// Whether the authorization server takes ES256 DPoP proofs.
pub(crate) fn offered(metadata: &AuthorizationMetadata) -> bool {
    metadata
        .additional_fields
        .get("dpop_signing_alg_values_supported")
        .and_then(|v| v.as_array())
        .is_some_and(|algs| algs.iter().any(|a| a.as_str() == Some(ALG)))
}

/// Whether a sign-in with `metadata` uses DPoP under the `oauth.dpop` setting `configured`.
pub(crate) fn wanted(
    configured: Option<bool>,
    metadata: &AuthorizationMetadata,
) -> Result<bool, AuthFailure> {
    match (configured, offered(metadata)) {
        (Some(false), _) | (None, false) => Ok(false),
        (_, true) => Ok(true),
        (Some(true), false) => Err(AuthFailure::new(
            "`oauth.dpop` is true, but the authorization server does not take ES256 DPoP proofs \
             (`dpop_signing_alg_values_supported`)",
        )),
    }
}

/// The DPoP key kept for the server `server_key`, when there is one.
pub(crate) fn stored(
    store: &CredentialStore,
    server_key: &str,
) -> Result<Option<Arc<DpopKey>>, AuthFailure> {
    let doc = store.read().map_err(|e| AuthFailure::new(e.to_string()))?;
    doc.dpop_keys
        .get(server_key)
        .map(|r| DpopKey::from_record(r).map(Arc::new))
        .transpose()
}

/// The server's DPoP key: the kept one, else a new one, kept in the store.
pub(crate) fn key_for(
    store: &CredentialStore,
    server_key: &str,
) -> Result<Arc<DpopKey>, AuthFailure> {
    if let Some(key) = stored(store, server_key)? {
        return Ok(key);
    }
    let (record, key) = DpopKey::generate()?;
    store
        .update(|doc| {
            doc.dpop_keys.insert(server_key.to_owned(), record);
        })
        .map_err(|e| AuthFailure::new(e.to_string()))?;
    Ok(Arc::new(key))
}

/// The OAuth HTTP client of a sign-in or refresh that uses DPoP: it sends only to the token
/// endpoint (whose metadata was checked before this client is made), each request with a fresh
/// proof, and retries once with the nonce a `use_dpop_nonce` refusal carries.
pub(crate) struct TokenEndpointClient {
    http: reqwest::Client,
    key: Arc<DpopKey>,
    token_endpoint: String,
}

impl TokenEndpointClient {
    /// A client for `token_endpoint` that proves possession of `key`.
    pub(crate) fn new(key: Arc<DpopKey>, token_endpoint: &str) -> Result<Self, AuthFailure> {
        crate::mcp::connection::http::install_crypto_provider();
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(30))
            .build()
            .map_err(|_| AuthFailure::new("the HTTP client could not be built"))?;
        Ok(Self {
            http,
            key,
            token_endpoint: token_endpoint.to_owned(),
        })
    }

    /// Whether a request to `url` may go out: only to the token endpoint.
    fn sends_to(&self, url: &str) -> bool {
        htu(url) == htu(&self.token_endpoint)
    }

    async fn send(
        &self,
        parts: &http::request::Parts,
        body: &[u8],
    ) -> Result<http::Response<Vec<u8>>, OAuthHttpClientError> {
        let url = parts.uri.to_string();
        let proof = self
            .key
            .proof(Audience::TokenEndpoint, parts.method.as_str(), &url, None)
            .map_err(|e| Box::new(e) as OAuthHttpClientError)?;
        let mut request = self
            .http
            .request(parts.method.clone(), &url)
            .headers(parts.headers.clone())
            .header("dpop", proof)
            .body(body.to_vec())
            .send()
            .await
            .map_err(|e| Box::new(e) as OAuthHttpClientError)?;
        let mut answer = http::Response::builder().status(request.status());
        for (name, value) in request.headers() {
            answer = answer.header(name, value);
        }
        let mut read = Vec::new();
        while let Some(chunk) = request
            .chunk()
            .await
            .map_err(|e| Box::new(e) as OAuthHttpClientError)?
        {
            if read.len() + chunk.len() > MAX_ANSWER {
                return Err("the token endpoint's answer is too large".into());
            }
            read.extend_from_slice(&chunk);
        }
        answer
            .body(read)
            .map_err(|e| Box::new(e) as OAuthHttpClientError)
    }
}

/// The nonce a refusal asks for: its `DPoP-Nonce` header.
pub(crate) fn nonce_header(headers: &http::HeaderMap) -> Option<String> {
    headers
        .get("dpop-nonce")
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|v| !v.is_empty() && v.bytes().all(|b| (0x21..=0x7e).contains(&b)))
        .map(str::to_owned)
}

/// Whether a token endpoint's answer is a `use_dpop_nonce` refusal.
fn asks_for_nonce(answer: &http::Response<Vec<u8>>) -> bool {
    answer.status() == http::StatusCode::BAD_REQUEST
        && serde_json::from_slice::<serde_json::Value>(answer.body())
            .ok()
            .is_some_and(|v| v["error"] == "use_dpop_nonce")
}

impl OAuthHttpClient for TokenEndpointClient {
    fn execute(&self, request: OAuthHttpRequest) -> OAuthHttpClientFuture<'_> {
        Box::pin(async move {
            let OAuthHttpRequest { request, .. } = request;
            let (parts, body) = request.into_parts();
            if !self.sends_to(&parts.uri.to_string()) {
                return Err("a DPoP sign-in sends only to the token endpoint".into());
            }
            let answer = self.send(&parts, &body).await?;
            if asks_for_nonce(&answer)
                && let Some(nonce) = nonce_header(answer.headers())
            {
                self.key.set_nonce(Audience::TokenEndpoint, &nonce);
                return self.send(&parts, &body).await;
            }
            Ok(answer)
        })
    }
}

/// An OAuth manager for `url` whose token requests (code exchange, refresh) carry proofs of
/// `key`, with `metadata` (already checked) and the server's stored tokens.
pub(crate) async fn manager(
    url: &str,
    tokens: super::store::ServerTokens,
    metadata: AuthorizationMetadata,
    key: Arc<DpopKey>,
) -> Result<rmcp::transport::auth::AuthorizationManager, AuthFailure> {
    let http = TokenEndpointClient::new(key, &metadata.token_endpoint)?;
    let mut manager = rmcp::transport::auth::AuthorizationManager::new_with_oauth_http_client(
        url,
        Arc::new(http),
    )
    .await
    .map_err(|e| super::describe_auth_error(&e))?;
    manager.set_credential_store(tokens);
    manager.set_metadata(metadata);
    Ok(manager)
}

fn now_epoch_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claims_of(jwt: &str) -> (serde_json::Value, serde_json::Value) {
        let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let part = |i: usize| -> serde_json::Value {
            serde_json::from_slice(
                &b64.decode(jwt.split('.').nth(i).expect("part"))
                    .expect("b64"),
            )
            .expect("json")
        };
        (part(0), part(1))
    }

    #[test]
    fn a_proof_names_the_request_binds_the_token_and_verifies_with_its_jwk() {
        let (_, key) = DpopKey::generate().expect("key");
        let proof = key
            .proof(
                Audience::Resource,
                "POST",
                "https://mcp.example/mcp?x=1#f",
                Some("tok"),
            )
            .expect("proof");
        let (header, claims) = claims_of(&proof);
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert!(header["jwk"].get("d").is_none(), "no private part");
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://mcp.example/mcp");
        assert_eq!(claims["ath"], ath("tok"));
        assert!(claims.get("nonce").is_none());
        // The signature verifies with the public key the header carries.
        let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let mut point = vec![4u8];
        point.extend(
            b64.decode(header["jwk"]["x"].as_str().expect("x"))
                .expect("x"),
        );
        point.extend(
            b64.decode(header["jwk"]["y"].as_str().expect("y"))
                .expect("y"),
        );
        let (input, signature) = proof.rsplit_once('.').expect("signed");
        ring::signature::UnparsedPublicKey::new(&ring::signature::ECDSA_P256_SHA256_FIXED, point)
            .verify(input.as_bytes(), &b64.decode(signature).expect("sig"))
            .expect("verifies");
        let again = key
            .proof(
                Audience::Resource,
                "POST",
                "https://mcp.example/mcp",
                Some("tok"),
            )
            .expect("proof");
        assert_ne!(
            claims["jti"],
            claims_of(&again).1["jti"],
            "a fresh jti each time"
        );
    }

    #[test]
    fn the_thumbprint_hashes_the_canonical_jwk_and_a_nonce_is_sent_to_its_own_server_only() {
        let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let (_, key) = DpopKey::generate().expect("key");
        let x = key.jwk["x"].as_str().expect("x");
        let y = key.jwk["y"].as_str().expect("y");
        let mine = format!(r#"{{"crv":"P-256","kty":"EC","x":"{x}","y":"{y}"}}"#);
        assert_eq!(
            key.thumbprint(),
            b64.encode(ring::digest::digest(&ring::digest::SHA256, mine.as_bytes()))
        );
        assert_eq!(key.thumbprint().len(), 43, "a base64url SHA-256");
        key.set_nonce(Audience::TokenEndpoint, "n-as");
        let to_as = key
            .proof(
                Audience::TokenEndpoint,
                "POST",
                "https://as.example/token",
                None,
            )
            .expect("proof");
        let to_rs = key
            .proof(
                Audience::Resource,
                "POST",
                "https://mcp.example/mcp",
                Some("t"),
            )
            .expect("proof");
        assert_eq!(claims_of(&to_as).1["nonce"], "n-as");
        assert!(claims_of(&to_as).1.get("ath").is_none());
        assert!(claims_of(&to_rs).1.get("nonce").is_none());
    }

    #[test]
    fn the_token_request_client_sends_to_the_token_endpoint_only() {
        let (_, key) = DpopKey::generate().expect("key");
        let client =
            TokenEndpointClient::new(Arc::new(key), "https://as.example/token").expect("client");
        assert!(client.sends_to("https://as.example/token"));
        assert!(client.sends_to("https://as.example/token?x=1"));
        assert!(!client.sends_to("https://as.example/register"));
        assert!(!client.sends_to("https://other.example/token"));
    }

    #[test]
    fn a_stored_key_comes_back_the_same() {
        let (record, key) = DpopKey::generate().expect("key");
        let again = DpopKey::from_record(&record).expect("parsed");
        assert_eq!(key.thumbprint(), again.thumbprint());
        assert_eq!(format!("{record:?}"), "KeyRecord(..)");
    }
}
