//! The credential store: OAuth tokens per server URL (bound to the authorization server that
//! issued them) and client registrations per authorization server.
//!
//! One JSON document holds everything: in the OS keychain when a keychain answers (a Secret
//! Service on Linux; the default `keychain` feature) (see [`super::keychain`]), else in
//! `$XDG_STATE_HOME/mcpdeck/credentials.json` (0600 in a 0700 directory, written atomically).
//! A document that does not parse is never overwritten: every operation that would write
//! reports it instead. Writers in every mcpdeck process are serialised by an advisory
//! lock on `credentials.lock` beside the file, held across a read-modify-write and across a token
//! refresh, so a rotated refresh token is never lost to a concurrent writer.
//!
//! Nothing here prints, logs or formats a token: `Debug` of the stored types is redacted.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use rmcp::transport::auth::{
    AuthError, CredentialRefreshGuard, CredentialStore as RmcpStore, StoredCredentials,
};
use serde::{Deserialize, Serialize};

/// A client registration mcpdeck obtained (dynamic registration) for one authorization server.
#[derive(Clone, Serialize, Deserialize, PartialEq, Eq)]
pub(crate) struct Registration {
    /// The client ID the authorization server issued.
    pub client_id: String,
    /// Its secret, when the server issued one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_secret: Option<String>,
    /// The redirect URI it was registered with (its port is reused at the next sign-in).
    pub redirect_uri: String,
    /// The token endpoint authentication method registered.
    pub auth_method: String,
}

impl std::fmt::Debug for Registration {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Registration")
            .field("client_id", &self.client_id)
            .field("has_secret", &self.client_secret.is_some())
            .field("redirect_uri", &self.redirect_uri)
            .field("auth_method", &self.auth_method)
            .finish()
    }
}

/// The whole stored document.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(crate) struct StoreDoc {
    /// Format version (1).
    #[serde(default)]
    pub version: u32,
    /// Tokens by canonical server URL; each records the issuer it is bound to.
    #[serde(default)]
    pub servers: BTreeMap<String, StoredCredentials>,
    /// Client registrations by authorization server (its issuer, or metadata origin).
    #[serde(default)]
    pub registrations: BTreeMap<String, Registration>,
    /// DPoP keys by canonical server URL, generated at the first sign-in that uses DPoP.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub dpop_keys: BTreeMap<String, super::dpop::KeyRecord>,
}

/// Why the store could not be used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum StoreError {
    /// The document exists but does not parse; it is left as it is.
    #[error(
        "the credential store {where_} is corrupt ({problem}); it was not changed — move it aside to start again"
    )]
    Corrupt {
        /// The file path.
        where_: String,
        /// What is wrong (no content is quoted).
        problem: String,
    },
    /// Reading or writing failed.
    #[error("the credential store {where_} could not be used: {problem}")]
    Io {
        /// The file path.
        where_: String,
        /// The OS or keychain error.
        problem: String,
    },
}

/// The credential store of this user.
#[derive(Debug, Clone)]
pub(crate) struct CredentialStore {
    /// The 0600 file.
    path: PathBuf,
    /// The document lives in the OS keychain instead of `path`.
    keychain: bool,
    /// The advisory lock file (beside the credentials file, also used with the keychain).
    lock_path: PathBuf,
}

/// `$XDG_STATE_HOME/mcpdeck` (else `~/.local/state/mcpdeck`).
pub(crate) fn state_dir() -> Option<PathBuf> {
    use etcetera::BaseStrategy as _;
    let xdg = etcetera::base_strategy::Xdg::new().ok()?;
    Some(xdg.state_dir()?.join("mcpdeck"))
}

impl CredentialStore {
    /// The user's store, under `state_dir`.
    pub(crate) fn open_default() -> Result<Self, StoreError> {
        let dir = state_dir().ok_or_else(|| StoreError::Io {
            where_: "$XDG_STATE_HOME/mcpdeck".into(),
            problem: "no home directory".into(),
        })?;
        let mut store = Self::file(&dir);
        // The lock file stays on disk either way: it serialises writers of both backends.
        store.keychain = !super::keychain::file_forced() && super::keychain::available();
        Ok(store)
    }

    /// The file store in `dir` (`credentials.json`).
    pub(crate) fn file(dir: &Path) -> Self {
        Self {
            path: dir.join("credentials.json"),
            keychain: false,
            lock_path: dir.join("credentials.lock"),
        }
    }

    /// Which store is in use, for `mcpdeck auth status`.
    pub(crate) fn describe(&self) -> String {
        if self.keychain {
            format!(
                "OS keychain (item {}/{})",
                super::keychain::SERVICE,
                super::keychain::ACCOUNT
            )
        } else {
            format!("file {}", self.path.display())
        }
    }

    fn where_(&self) -> String {
        if self.keychain {
            "in the OS keychain".to_owned()
        } else {
            self.path.display().to_string()
        }
    }

    /// Reads the document (an absent one is empty).
    pub(crate) fn read(&self) -> Result<StoreDoc, StoreError> {
        if self.keychain {
            let text = super::keychain::read().map_err(|problem| StoreError::Io {
                where_: self.where_(),
                problem,
            })?;
            let Some(text) = text else {
                return Ok(StoreDoc::default());
            };
            return serde_json::from_str(&text).map_err(|e| StoreError::Corrupt {
                where_: self.where_(),
                problem: format!("not valid JSON at line {}", e.line()),
            });
        }
        let text = match std::fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Ok(StoreDoc::default());
            }
            Err(e) => {
                return Err(StoreError::Io {
                    where_: self.where_(),
                    problem: e.kind().to_string(),
                });
            }
        };
        serde_json::from_str(&text).map_err(|e| StoreError::Corrupt {
            where_: self.where_(),
            problem: format!("not valid JSON at line {}", e.line()),
        })
    }

    /// Reads, changes and writes the document under the lock. A corrupt document is never
    /// replaced.
    pub(crate) fn update<T>(
        &self,
        change: impl FnOnce(&mut StoreDoc) -> T,
    ) -> Result<T, StoreError> {
        let _lock = self.lock()?;
        self.update_locked(change)
    }

    fn update_locked<T>(&self, change: impl FnOnce(&mut StoreDoc) -> T) -> Result<T, StoreError> {
        let mut doc = self.read()?;
        let out = change(&mut doc);
        doc.version = 1;
        self.write(&doc)?;
        Ok(out)
    }

    fn write(&self, doc: &StoreDoc) -> Result<(), StoreError> {
        let io = |e: std::io::Error| StoreError::Io {
            where_: self.where_(),
            problem: e.kind().to_string(),
        };
        let body = serde_json::to_string_pretty(doc).map_err(|e| StoreError::Io {
            where_: self.where_(),
            problem: e.to_string(),
        })?;
        if self.keychain {
            return super::keychain::write(&body).map_err(|problem| StoreError::Io {
                where_: self.where_(),
                problem,
            });
        }
        let dir = self.path.parent().unwrap_or(Path::new("."));
        create_private_dir(dir).map_err(io)?;
        let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(io)?;
        set_mode(tmp.as_file(), 0o600).map_err(io)?;
        tmp.write_all(body.as_bytes()).map_err(io)?;
        tmp.as_file().sync_all().map_err(io)?;
        tmp.persist(&self.path).map_err(|e| io(e.error))?;
        Ok(())
    }

    /// Takes the advisory lock (blocking).
    fn lock(&self) -> Result<std::fs::File, StoreError> {
        let io = |e: std::io::Error| StoreError::Io {
            where_: self.lock_path.display().to_string(),
            problem: e.kind().to_string(),
        };
        let dir = self.lock_path.parent().unwrap_or(Path::new("."));
        create_private_dir(dir).map_err(io)?;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&self.lock_path)
            .map_err(io)?;
        set_mode(&file, 0o600).map_err(io)?;
        rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive)
            .map_err(|e| io(e.into()))?;
        Ok(file)
    }

    /// The tokens stored for `server_url`.
    pub(crate) fn tokens(&self, server_url: &str) -> Result<Option<StoredCredentials>, StoreError> {
        Ok(self.read()?.servers.remove(server_url))
    }

    /// Forgets the tokens of `server_url`; true when there were some.
    pub(crate) fn forget(&self, server_url: &str) -> Result<bool, StoreError> {
        self.update(|doc| doc.servers.remove(server_url).is_some())
    }

    /// The registration kept for an authorization server.
    pub(crate) fn registration(&self, server: &str) -> Result<Option<Registration>, StoreError> {
        Ok(self.read()?.registrations.remove(server))
    }

    /// Forgets the DPoP key of `server_url` (at sign-out; a later sign-in makes a new one).
    pub(crate) fn forget_dpop_key(&self, server_url: &str) -> Result<(), StoreError> {
        self.update(|doc| {
            doc.dpop_keys.remove(server_url);
        })
    }

    /// Keeps a registration for an authorization server.
    pub(crate) fn keep_registration(
        &self,
        server: &str,
        reg: Registration,
    ) -> Result<(), StoreError> {
        self.update(|doc| {
            doc.registrations.insert(server.to_owned(), reg);
        })
    }

    /// rmcp's view of one server's tokens.
    pub(crate) fn for_server(&self, server_url: &str) -> ServerTokens {
        ServerTokens {
            store: Arc::new(self.clone()),
            key: server_url.to_owned(),
            refreshing: Arc::new(AtomicBool::new(false)),
            can_refresh: Arc::new(AtomicBool::new(false)),
            handed: Arc::new(std::sync::Mutex::new(None)),
        }
    }
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    std::fs::create_dir_all(dir)?;
    set_mode(&std::fs::File::open(dir)?, 0o700)
}

#[cfg(unix)]
fn set_mode(file: &std::fs::File, mode: u32) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt as _;
    file.set_permissions(std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn set_mode(_file: &std::fs::File, _mode: u32) -> std::io::Result<()> {
    Ok(())
}

/// One server's tokens, as rmcp's credential store trait sees them.
///
/// Concurrent operations share one refresh. rmcp refreshes an expiring token whenever it loads
/// one, and its refresh exchanges whatever refresh token is stored once it holds the guard —
/// also when another operation (another connection, another mcpdeck process) refreshed while it
/// waited. So [`RmcpStore::load`] takes the lock itself when the token it finds is expiring:
/// it waits for a refresh in progress and reads again. Still expiring, the lock is handed to the
/// refresh that follows (this instance's next guard); refreshed meanwhile, the new token is
/// returned and no second refresh happens.
#[derive(Clone)]
pub(crate) struct ServerTokens {
    store: Arc<CredentialStore>,
    key: String,
    /// Set while this instance holds the refresh guard.
    refreshing: Arc<AtomicBool>,
    /// Set once the connection can refresh (its OAuth client is configured): only then is a
    /// refresh sure to follow an expiring load, and the lock handed to it.
    can_refresh: Arc<AtomicBool>,
    /// The lock taken by `load` for an expiring token, with its hand-over number.
    handed: Arc<std::sync::Mutex<Option<(u64, std::fs::File)>>>,
}

/// How long a handed-over lock waits for its refresh before it is released anyway (a refresh
/// follows at once; this bounds an operation cancelled in between).
const HANDOVER_LIMIT: std::time::Duration = std::time::Duration::from_secs(10);

/// rmcp's rule for an access token that must be refreshed before use: less than
/// `min(30 s, lifetime / 2)` left (at least 1 s). Only tokens that can be refreshed count.
fn expiring(credentials: &StoredCredentials, now_epoch_secs: u64) -> bool {
    use oauth2::TokenResponse as _;
    let Some(tokens) = credentials.token_response.as_ref() else {
        return false;
    };
    if tokens.refresh_token().is_none() {
        return false;
    }
    let (Some(lifetime), Some(received)) = (tokens.expires_in(), credentials.token_received_at)
    else {
        return false;
    };
    let remaining = lifetime
        .as_secs()
        .saturating_sub(now_epoch_secs.saturating_sub(received));
    remaining < 30.min(lifetime.as_secs() / 2).max(1)
}

fn now_epoch_secs() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

impl ServerTokens {
    /// The connection's OAuth client is configured: an expiring load is followed by a refresh.
    pub(crate) fn refreshes_follow(&self) {
        self.can_refresh.store(true, Ordering::SeqCst);
    }

    /// After the server refused the access token `sent`: whether the stored token is another
    /// one by now (a refresh happened meanwhile, or the sign-in was dropped), looked at under
    /// the lock. When it is not, the lock is handed to the refresh that follows, so no other
    /// refresh can start in between.
    pub(crate) async fn replaced_since(&self, sent: &str) -> Result<bool, AuthError> {
        use oauth2::TokenResponse as _;
        drop(self.take_handed());
        let (store, key) = (self.store.clone(), self.key.clone());
        let (file, stored) = blocking(move || {
            let file = store.lock()?;
            let stored = store.tokens(&key)?;
            Ok((file, stored))
        })
        .await?;
        let current = stored
            .as_ref()
            .and_then(|c| c.token_response.as_ref())
            .map(|t| t.access_token().secret().as_str() == sent);
        if current != Some(true) {
            return Ok(true);
        }
        if self.can_refresh.load(Ordering::SeqCst) {
            self.hand_over(file);
        }
        Ok(false)
    }

    fn take_handed(&self) -> Option<std::fs::File> {
        self.handed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take()
            .map(|(_, file)| file)
    }

    /// Keeps the lock for this instance's next refresh guard, released after
    /// [`HANDOVER_LIMIT`] if that refresh never comes.
    fn hand_over(&self, file: std::fs::File) {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let number = NEXT.fetch_add(1, Ordering::SeqCst);
        *self
            .handed
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some((number, file));
        let handed = Arc::downgrade(&self.handed);
        tokio::spawn(async move {
            tokio::time::sleep(HANDOVER_LIMIT).await;
            let Some(handed) = handed.upgrade() else {
                return;
            };
            let mut slot = handed
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if slot.as_ref().is_some_and(|(n, _)| *n == number) {
                *slot = None;
            }
        });
    }
}

fn store_error(e: &StoreError) -> AuthError {
    AuthError::CredentialStoreError(e.to_string())
}

/// Runs blocking store work off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, StoreError> + Send + 'static,
) -> Result<T, AuthError> {
    match tokio::task::spawn_blocking(work).await {
        Ok(result) => result.map_err(|e| store_error(&e)),
        Err(_) => Err(AuthError::CredentialStoreError(
            "the credential store task failed".into(),
        )),
    }
}

#[async_trait::async_trait]
impl RmcpStore for ServerTokens {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        let (store, key) = (self.store.clone(), self.key.clone());
        if self.refreshing.load(Ordering::SeqCst) {
            // Inside this instance's refresh: it holds the lock already.
            return blocking(move || store.tokens(&key)).await;
        }
        // A lock handed to a refresh that did not come is released before anything else.
        drop(self.take_handed());
        let found = blocking(move || store.tokens(&key)).await?;
        let refresh_due = found
            .as_ref()
            .is_some_and(|c| expiring(c, now_epoch_secs()));
        if !refresh_due || !self.can_refresh.load(Ordering::SeqCst) {
            return Ok(found);
        }
        // Expiring: wait for a refresh in progress anywhere, then read again under the lock.
        let (store, key) = (self.store.clone(), self.key.clone());
        let (file, again) = blocking(move || {
            let file = store.lock()?;
            let again = store.tokens(&key)?;
            Ok((file, again))
        })
        .await?;
        if again
            .as_ref()
            .is_some_and(|c| expiring(c, now_epoch_secs()))
        {
            self.hand_over(file);
        }
        Ok(again)
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let (store, key) = (self.store.clone(), self.key.clone());
        // Inside a refresh this instance already holds the lock (through its guard); taking it
        // again would wait for ourselves.
        let held = self.refreshing.load(Ordering::SeqCst);
        blocking(move || {
            let change = |doc: &mut StoreDoc| {
                doc.servers.insert(key, credentials);
            };
            if held {
                store.update_locked(change)
            } else {
                store.update(change)
            }
        })
        .await
    }

    async fn clear(&self) -> Result<(), AuthError> {
        let (store, key) = (self.store.clone(), self.key.clone());
        blocking(move || store.forget(&key).map(|_| ())).await
    }

    async fn on_refresh_token_rejected(
        &self,
        credentials: &StoredCredentials,
    ) -> Result<(), AuthError> {
        // `invalid_grant`: these tokens are dead. Drop them, unless another writer has
        // already replaced them.
        let (store, key) = (self.store.clone(), self.key.clone());
        let rejected = refresh_of(credentials);
        blocking(move || {
            store.update_locked(|doc| {
                if doc.servers.get(&key).and_then(refresh_of) == rejected {
                    doc.servers.remove(&key);
                }
            })
        })
        .await
    }

    async fn acquire_refresh_guard(&self) -> Result<Option<CredentialRefreshGuard>, AuthError> {
        let file = if let Some(file) = self.take_handed() {
            file
        } else {
            let store = self.store.clone();
            blocking(move || store.lock()).await?
        };
        self.refreshing.store(true, Ordering::SeqCst);
        Ok(Some(CredentialRefreshGuard::new(RefreshLock {
            _file: file,
            refreshing: self.refreshing.clone(),
        })))
    }
}

/// The lock held across one refresh; dropping it releases the lock.
struct RefreshLock {
    _file: std::fs::File,
    refreshing: Arc<AtomicBool>,
}

impl Drop for RefreshLock {
    fn drop(&mut self) {
        self.refreshing.store(false, Ordering::SeqCst);
    }
}

fn refresh_of(credentials: &StoredCredentials) -> Option<String> {
    use oauth2::TokenResponse as _;
    credentials
        .token_response
        .as_ref()
        .and_then(|t| t.refresh_token())
        .map(|r| r.secret().clone())
}
