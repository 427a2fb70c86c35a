//! The OS keychain backend of the credential store: the store's whole JSON document in one
//! keychain item (service `mcpdeck`, account `credentials`), through the `keyring` crate (the
//! Secret Service over D-Bus on Linux, Keychain Services on macOS, the Credential Manager on
//! Windows).
//!
//! The `keychain` cargo feature (on by default) builds it; on Linux it is the pure-Rust zbus
//! Secret Service client, nothing else of `keyring` (see `Cargo.toml`). The keychain is used when
//! it answers and `MCPDECK_CREDENTIAL_STORE` is not `file`; otherwise the file store is (a
//! machine with no session bus, or no Secret Service on it). `tests/cli/cli_keychain.rs` runs it
//! against a real one (gnome-keyring). Errors name the keychain, never the document.

/// The keychain item's service name.
pub(crate) const SERVICE: &str = "mcpdeck";
/// The keychain item's account name.
pub(crate) const ACCOUNT: &str = "credentials";

/// Whether the operator asked for the file store (`MCPDECK_CREDENTIAL_STORE=file`).
pub(crate) fn file_forced() -> bool {
    std::env::var("MCPDECK_CREDENTIAL_STORE").is_ok_and(|v| v.eq_ignore_ascii_case("file"))
}

#[cfg(feature = "keychain")]
mod os {
    fn entry() -> Result<keyring::Entry, String> {
        keyring::Entry::new(super::SERVICE, super::ACCOUNT).map_err(|e| e.to_string())
    }

    /// Whether a keychain answers: it can keep an item without asking anyone (on Linux: a
    /// Secret Service with an unlocked default collection), and the item can be looked up
    /// (found or not).
    pub(crate) fn available() -> bool {
        if !ready() || keyring::Entry::store_status().is_err() {
            return false;
        }
        match entry().map(|e| e.get_password()) {
            Ok(Ok(_) | Err(keyring::Error::NoEntry)) => true,
            Ok(Err(_)) | Err(_) => false,
        }
    }

    /// A Secret Service with a default collection that is unlocked. Without this check a
    /// session bus that merely can start gnome-keyring (a headless machine with the package
    /// installed) would be chosen, and every write would then fail, or wait for an unlock
    /// prompt nobody can see.
    #[cfg(all(
        unix,
        not(any(target_os = "macos", target_os = "ios", target_os = "android"))
    ))]
    fn ready() -> bool {
        use secret_service::EncryptionType;
        use secret_service::blocking::SecretService;
        let Ok(service) = SecretService::connect(EncryptionType::Plain) else {
            return false;
        };
        service
            .get_default_collection()
            .and_then(|collection| collection.is_locked())
            .is_ok_and(|locked| !locked)
    }

    /// Other systems' keychains (Keychain Services, the Credential Manager) are always there.
    #[cfg(not(all(
        unix,
        not(any(target_os = "macos", target_os = "ios", target_os = "android"))
    )))]
    fn ready() -> bool {
        true
    }

    /// The document's text, `None` when there is no item yet.
    pub(crate) fn read() -> Result<Option<String>, String> {
        match entry()?.get_password() {
            Ok(text) => Ok(Some(text)),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(e.to_string()),
        }
    }

    /// Replaces the document's text (one item: the write is whole).
    pub(crate) fn write(text: &str) -> Result<(), String> {
        entry()?.set_password(text).map_err(|e| e.to_string())
    }
}

#[cfg(not(feature = "keychain"))]
mod os {
    /// Never: this build has no keychain backend.
    pub fn available() -> bool {
        false
    }

    /// Unreachable in practice: the store only reads the keychain when it is available.
    pub fn read() -> Result<Option<String>, String> {
        Err("this build has no keychain backend".to_owned())
    }

    /// As [`read`].
    pub fn write(_text: &str) -> Result<(), String> {
        Err("this build has no keychain backend".to_owned())
    }
}

pub(crate) use os::{available, read, write};

#[cfg(test)]
mod tests {
    #[cfg(not(feature = "keychain"))]
    #[test]
    fn a_build_without_the_feature_uses_the_file_store() {
        assert!(!super::available());
        assert!(super::read().is_err() && super::write("{}").is_err());
        if let Ok(store) = super::super::CredentialStore::open_default() {
            assert!(
                store.describe().starts_with("file "),
                "{}",
                store.describe()
            );
        }
    }
}
