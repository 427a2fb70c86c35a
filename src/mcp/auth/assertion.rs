//! `private_key_jwt` client assertions (RFC 7523): an ES256-signed JWT whose `iss` and `sub` are
//! the client ID and whose `aud` is the authorization server's issuer, with a short lifetime and
//! a unique `jti`. Signed with `ring` (already in the tree through rustls) from a PKCS#8 PEM
//! key, which comes from an environment reference or from a key file that only its owner can
//! read ([`read_key_file`]).
//!
//! Nothing here prints; the key and every assertion are secrets, and no error text quotes them.

use base64::Engine as _;
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair};

use super::AuthFailure;

/// How long an assertion is valid: long enough for one token request.
const LIFETIME_SECS: u64 = 60;

/// An ES256 signing key.
pub(crate) struct SigningKey {
    pair: EcdsaKeyPair,
}

impl std::fmt::Debug for SigningKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SigningKey(ES256)")
    }
}

impl SigningKey {
    /// The key in `pem` (`-----BEGIN PRIVATE KEY-----`, PKCS#8, P-256).
    pub(crate) fn from_pem(pem: &str) -> Result<Self, AuthFailure> {
        if pem.contains("-----BEGIN EC PRIVATE KEY-----") {
            return Err(AuthFailure::new(
                "the private key is in SEC1 form; convert it to PKCS#8 (`openssl pkcs8 -topk8 \
                 -nocrypt -in KEY`)",
            ));
        }
        let body: String = pem
            .lines()
            .map(str::trim)
            .skip_while(|l| *l != "-----BEGIN PRIVATE KEY-----")
            .skip(1)
            .take_while(|l| *l != "-----END PRIVATE KEY-----")
            .collect();
        let der = base64::engine::general_purpose::STANDARD
            .decode(body.as_bytes())
            .ok()
            .filter(|d| !d.is_empty())
            .ok_or_else(|| {
                AuthFailure::new("the private key is not a PEM `PRIVATE KEY` (PKCS#8) block")
            })?;
        Self::from_pkcs8(&der)
    }

    /// The key in `der` (PKCS#8, P-256).
    pub(crate) fn from_pkcs8(der: &[u8]) -> Result<Self, AuthFailure> {
        let rng = ring::rand::SystemRandom::new();
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, der, &rng)
            .map_err(|_| AuthFailure::new("the private key is not a usable ES256 (P-256) key"))?;
        Ok(Self { pair })
    }

    /// The public point, uncompressed (`04`, then x and y, 32 bytes each).
    pub(crate) fn public_point(&self) -> &[u8] {
        use ring::signature::KeyPair as _;
        self.pair.public_key().as_ref()
    }

    /// A compact JWS over `header` and `claims` (both JSON objects).
    pub(crate) fn sign(
        &self,
        header: &serde_json::Value,
        claims: &serde_json::Value,
    ) -> Result<String, AuthFailure> {
        let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let input = format!(
            "{}.{}",
            b64.encode(header.to_string()),
            b64.encode(claims.to_string())
        );
        let rng = ring::rand::SystemRandom::new();
        let signature = self
            .pair
            .sign(&rng, input.as_bytes())
            .map_err(|_| AuthFailure::new("the client assertion could not be signed"))?;
        Ok(format!("{input}.{}", b64.encode(signature.as_ref())))
    }

    /// A client assertion for `client_id` at the authorization server `audience`.
    pub(crate) fn client_assertion(
        &self,
        client_id: &str,
        audience: &str,
        now_epoch_secs: u64,
    ) -> Result<String, AuthFailure> {
        let header = serde_json::json!({"alg": "ES256", "typ": "JWT"});
        let claims = serde_json::json!({
            "iss": client_id,
            "sub": client_id,
            "aud": audience,
            "iat": now_epoch_secs,
            "exp": now_epoch_secs + LIFETIME_SECS,
            "jti": unique_id()?,
        });
        self.sign(&header, &claims)
    }
}

/// 128 random bits, hex.
pub(crate) fn unique_id() -> Result<String, AuthFailure> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|_| AuthFailure::new("no randomness for a `jti`"))?;
    Ok(hex::encode(bytes))
}

/// Reads a key file, refusing one that another user owns or that its group or others may read
/// or write (it must be `0600` or stricter, like an SSH key). The mode and owner are those of the
/// file opened, so a swap between the check and the read cannot slip in.
pub(crate) fn read_key_file(path: &str) -> Result<String, AuthFailure> {
    use std::io::Read as _;
    let shown = crate::mcp::sanitize::sanitize_capped(path, 200);
    let mut file = std::fs::File::open(path).map_err(|e| {
        AuthFailure::new(format!(
            "the key file `{shown}` cannot be opened: {}",
            e.kind()
        ))
    })?;
    let meta = file.metadata().map_err(|e| {
        AuthFailure::new(format!(
            "the key file `{shown}` cannot be read: {}",
            e.kind()
        ))
    })?;
    check_private(&meta, &shown)?;
    let mut text = String::new();
    file.read_to_string(&mut text).map_err(|e| {
        AuthFailure::new(format!(
            "the key file `{shown}` cannot be read: {}",
            e.kind()
        ))
    })?;
    Ok(text)
}

#[cfg(unix)]
fn check_private(meta: &std::fs::Metadata, shown: &str) -> Result<(), AuthFailure> {
    use std::os::unix::fs::MetadataExt as _;
    if !meta.is_file() {
        return Err(AuthFailure::new(format!(
            "the key file `{shown}` is not a regular file"
        )));
    }
    if meta.uid() != rustix::process::getuid().as_raw() {
        return Err(AuthFailure::new(format!(
            "the key file `{shown}` belongs to another user; mcpdeck reads only your own key files"
        )));
    }
    if meta.mode() & 0o077 != 0 {
        return Err(AuthFailure::new(format!(
            "the key file `{shown}` is readable by others (mode {:o}); run `chmod 600` on it",
            meta.mode() & 0o777
        )));
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_private(_meta: &std::fs::Metadata, _shown: &str) -> Result<(), AuthFailure> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use ring::signature::{ECDSA_P256_SHA256_FIXED, KeyPair as _, UnparsedPublicKey};

    fn pem_of(der: &[u8]) -> String {
        let body = base64::engine::general_purpose::STANDARD.encode(der);
        format!("-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----\n")
    }

    #[test]
    fn an_assertion_verifies_with_the_public_key_and_carries_the_claims() {
        let rng = ring::rand::SystemRandom::new();
        let der =
            EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).expect("key");
        let key = SigningKey::from_pem(&pem_of(der.as_ref())).expect("parsed");
        let jwt = key
            .client_assertion("ci-client", "https://as.example", 1_000)
            .expect("signed");
        let parts: Vec<&str> = jwt.split('.').collect();
        assert_eq!(parts.len(), 3);
        let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD;
        let public = UnparsedPublicKey::new(
            &ECDSA_P256_SHA256_FIXED,
            key.pair.public_key().as_ref().to_vec(),
        );
        let signature = b64.decode(parts[2]).expect("signature");
        public
            .verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &signature)
            .expect("the signature verifies");
        let header: serde_json::Value =
            serde_json::from_slice(&b64.decode(parts[0]).expect("header")).expect("json");
        assert_eq!(header["alg"], "ES256");
        let claims: serde_json::Value =
            serde_json::from_slice(&b64.decode(parts[1]).expect("claims")).expect("json");
        assert_eq!(claims["iss"], "ci-client");
        assert_eq!(claims["sub"], "ci-client");
        assert_eq!(claims["aud"], "https://as.example");
        assert_eq!(claims["iat"], 1_000);
        assert_eq!(claims["exp"], 1_060);
        let again = key
            .client_assertion("ci-client", "https://as.example", 1_000)
            .expect("signed");
        let jti = |jwt: &str| {
            let claims: serde_json::Value = serde_json::from_slice(
                &b64.decode(jwt.split('.').nth(1).expect("claims"))
                    .expect("b64"),
            )
            .expect("json");
            claims["jti"].clone()
        };
        assert_ne!(jti(&jwt), jti(&again), "every assertion has its own jti");
    }

    #[test]
    fn keys_that_are_not_pkcs8_p256_are_refused_without_quoting_them() {
        let sec1 = "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEEIBx\n-----END EC PRIVATE KEY-----";
        let e = SigningKey::from_pem(sec1).expect_err("sec1");
        assert!(e.message.contains("PKCS#8"), "{e}");
        let e = SigningKey::from_pem(
            "-----BEGIN PRIVATE KEY-----\nc2VjcmV0\n-----END PRIVATE KEY-----",
        )
        .expect_err("junk");
        assert!(!e.message.contains("c2VjcmV0"), "{e}");
        assert!(SigningKey::from_pem("no pem here").is_err());
    }

    #[cfg(unix)]
    #[test]
    fn a_key_file_others_can_read_is_refused() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().expect("dir");
        let path = dir.path().join("key.pem");
        std::fs::write(&path, "key").expect("written");
        let shown = path.to_str().expect("utf-8");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).expect("mode");
        let e = read_key_file(shown).expect_err("0644");
        assert!(e.message.contains("chmod 600"), "{e}");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("mode");
        assert_eq!(read_key_file(shown).expect("0600"), "key");
        assert!(read_key_file(dir.path().to_str().expect("utf-8")).is_err());
    }
}
