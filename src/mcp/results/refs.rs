//! Opaque resource references: `mcp-resource-` + 32 lowercase hex, derived with a
//! per-process random key from the server, the connection generation and the URI, so raw URIs
//! never become model-visible. A [`ResourceRefs`] table resolves a reference only for the
//! generation it was listed in. This module never reads resources or shows URIs to the model.

use std::collections::HashMap;
use std::fmt;

use sha2::{Digest, Sha256};

/// The prefix of every reference.
pub(crate) const REFERENCE_PREFIX: &str = "mcp-resource-";

/// Whether `text` has the shape of a reference (prefix + 32 lowercase hex characters).
pub(crate) fn is_resource_reference(text: &str) -> bool {
    text.strip_prefix(REFERENCE_PREFIX).is_some_and(|hex| {
        hex.len() == 32 && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    })
}

/// The per-process key references are derived with. Never shown, never persisted.
#[derive(Clone)]
pub(crate) struct RefKey([u8; 32]);

impl RefKey {
    /// A fresh random key from the operating system.
    pub(crate) fn random() -> std::io::Result<Self> {
        let mut key = [0u8; 32];
        getrandom::fill(&mut key).map_err(std::io::Error::other)?;
        Ok(Self(key))
    }

    /// A fixed key, for tests and reproducible fixtures.
    #[cfg(test)]
    pub(crate) fn from_bytes(key: [u8; 32]) -> Self {
        Self(key)
    }

    /// The reference for `uri` on `server`'s connection `generation`.
    pub(crate) fn derive(&self, server: &str, generation: u64, uri: &str) -> String {
        // Key first, then length-prefixed fields: no two inputs share an encoding, and the
        // truncated output cannot be extended without the key.
        let mut hasher = Sha256::new();
        hasher.update(b"mcpdeck resource reference v1\0");
        hasher.update(self.0);
        for part in [server.as_bytes(), uri.as_bytes()] {
            hasher.update((part.len() as u64).to_le_bytes());
            hasher.update(part);
        }
        hasher.update(generation.to_le_bytes());
        let digest = hasher.finalize();
        format!("{REFERENCE_PREFIX}{}", hex::encode(&digest[..16]))
    }
}

impl fmt::Debug for RefKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RefKey(..)")
    }
}

/// Why a reference did not resolve.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RefError {
    /// The reference was listed on an earlier connection generation.
    #[error("the resource reference is from an earlier connection; list resources again")]
    Stale,
    /// The reference was never listed for this server.
    #[error("unknown resource reference; list resources again")]
    Unknown,
}

/// One server's reference table for its current connection generation.
#[derive(Debug)]
pub(crate) struct ResourceRefs {
    key: RefKey,
    server: String,
    generation: u64,
    uris: HashMap<String, String>,
    retired: HashMap<String, u64>,
}

/// How many references of earlier generations are remembered to say "stale" not "unknown".
const RETIRED_MAX: usize = 10_000;

impl ResourceRefs {
    /// An empty table for `server`.
    pub(crate) fn new(key: RefKey, server: impl Into<String>) -> Self {
        Self {
            key,
            server: server.into(),
            generation: 0,
            uris: HashMap::new(),
            retired: HashMap::new(),
        }
    }

    /// Replaces the table with the resources listed on `generation`; returns their references
    /// in the order of `uris`.
    pub(crate) fn replace<'a>(
        &mut self,
        generation: u64,
        uris: impl IntoIterator<Item = &'a str>,
    ) -> Vec<String> {
        if generation != self.generation {
            if self.retired.len() + self.uris.len() > RETIRED_MAX {
                self.retired.clear();
            }
            let old = self.generation;
            self.retired
                .extend(self.uris.drain().map(|(reference, _)| (reference, old)));
            self.generation = generation;
        }
        self.uris.clear();
        uris.into_iter()
            .map(|uri| {
                let reference = self.key.derive(&self.server, generation, uri);
                self.uris.insert(reference.clone(), uri.to_owned());
                reference
            })
            .collect()
    }

    /// The URI behind `reference`, only if it was listed on `current_generation`.
    pub(crate) fn resolve(
        &self,
        current_generation: u64,
        reference: &str,
    ) -> Result<&str, RefError> {
        if self.generation != current_generation {
            return Err(if self.uris.contains_key(reference) {
                RefError::Stale
            } else {
                RefError::Unknown
            });
        }
        if let Some(uri) = self.uris.get(reference) {
            return Ok(uri);
        }
        if self.retired.contains_key(reference) {
            return Err(RefError::Stale);
        }
        Err(RefError::Unknown)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn table() -> ResourceRefs {
        ResourceRefs::new(RefKey::from_bytes([7; 32]), "docs")
    }

    #[test]
    fn references_have_the_documented_shape() {
        let r = RefKey::from_bytes([1; 32]).derive("s", 1, "file:///etc/passwd");
        assert!(is_resource_reference(&r), "{r}");
        assert!(!r.contains("passwd"));
        assert!(!is_resource_reference("mcp-resource-0123"));
        assert!(!is_resource_reference(
            "mcp-resource-0123456789ABCDEF0123456789abcdef"
        ));
    }

    #[test]
    fn references_depend_on_key_server_generation_and_uri() {
        let k = RefKey::from_bytes([1; 32]);
        let base = k.derive("s", 1, "u");
        assert_ne!(base, RefKey::from_bytes([2; 32]).derive("s", 1, "u"));
        assert_ne!(base, k.derive("t", 1, "u"));
        assert_ne!(base, k.derive("s", 2, "u"));
        assert_ne!(base, k.derive("s", 1, "v"));
        assert_eq!(base, k.derive("s", 1, "u"));
    }

    #[test]
    fn resolves_only_for_the_current_generation() {
        let mut refs = table();
        let listed = refs.replace(1, ["mem://a", "mem://b"]);
        assert_eq!(refs.resolve(1, &listed[1]), Ok("mem://b"));
        // The connection reconnected: generation 2, nothing listed yet.
        let err = refs.resolve(2, &listed[0]).unwrap_err();
        assert_eq!(err, RefError::Stale);
        assert!(err.to_string().contains("list resources again"));
        // Listed again on generation 2: the old reference stays refused.
        let fresh = refs.replace(2, ["mem://a"]);
        assert_ne!(fresh[0], listed[0]);
        assert_eq!(refs.resolve(2, &listed[0]), Err(RefError::Stale));
        assert_eq!(refs.resolve(2, &fresh[0]), Ok("mem://a"));
        let unknown = RefKey::from_bytes([9; 32]).derive("docs", 2, "mem://a");
        assert_eq!(refs.resolve(2, &unknown), Err(RefError::Unknown));
    }

    #[test]
    fn random_keys_differ() {
        let a = RefKey::random().unwrap().derive("s", 0, "u");
        let b = RefKey::random().unwrap().derive("s", 0, "u");
        assert_ne!(a, b);
    }
}
