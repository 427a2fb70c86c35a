//! The pin store file: `pins.json` in mcpdeck's state directory, 0600 in a 0700 directory,
//! read and written under one advisory lock (`pins.lock`, `flock`), replaced atomically (a
//! temporary file in the same directory, then rename), as the trust and credential stores
//! are. A corrupt file is reported and never overwritten.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Drift, Pin, ServerKey, compare, digest, entry_key, pinned_parts};
use crate::mcp::scan::{Definition, Kind};

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoreFile {
    version: u32,
    servers: Vec<StoredServer>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct StoredServer {
    #[serde(flatten)]
    key: ServerKey,
    pins: BTreeMap<String, Pin>,
}

/// Where pins are kept; cheap to clone, every operation opens the file under the lock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PinStore {
    path: PathBuf,
}

fn io(message: String) -> std::io::Error {
    std::io::Error::other(message)
}

impl PinStore {
    /// The store at `path` (its lock is `pins.lock` beside it).
    pub fn at(path: PathBuf) -> Self {
        Self { path }
    }

    /// The user's store: `$XDG_STATE_HOME/mcpdeck/pins.json` (else `~/.local/state/...`).
    pub fn user() -> Option<Self> {
        Some(Self::at(
            crate::mcp::auth::store::state_dir()?.join("pins.json"),
        ))
    }

    /// The file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn dir(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("."))
    }

    fn lock(&self) -> std::io::Result<std::fs::File> {
        let dir = self.dir();
        if !dir.is_dir() {
            std::fs::create_dir_all(dir)?;
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join("pins.lock"))?;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive)
            .map_err(std::io::Error::from)?;
        Ok(file)
    }

    fn read(&self) -> std::io::Result<StoreFile> {
        match std::fs::read(&self.path) {
            Ok(bytes) => match serde_json::from_slice::<StoreFile>(&bytes) {
                Ok(file) if file.version == 1 => Ok(file),
                Ok(file) => Err(io(format!(
                    "the pin store {} has unknown version {}; mcpdeck will not overwrite it",
                    self.path.display(),
                    file.version
                ))),
                Err(e) => Err(io(format!(
                    "the pin store {} is not valid ({e}); fix or remove it by hand, mcpdeck will not overwrite it",
                    self.path.display()
                ))),
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(StoreFile {
                version: 1,
                servers: Vec::new(),
            }),
            Err(e) => Err(e),
        }
    }

    fn write(&self, file: &StoreFile) -> std::io::Result<()> {
        let body = serde_json::to_vec_pretty(file).map_err(std::io::Error::other)?;
        let mut tmp = tempfile::NamedTempFile::new_in(self.dir())?;
        tmp.as_file()
            .set_permissions(std::fs::Permissions::from_mode(0o600))?;
        tmp.write_all(&body)?;
        tmp.as_file().sync_all()?;
        tmp.persist(&self.path).map_err(|e| e.error)?;
        Ok(())
    }

    /// Runs `change` on the pins of `key` under the lock, writing the file when it says so.
    fn update<T>(
        &self,
        key: &ServerKey,
        change: impl FnOnce(&mut BTreeMap<String, Pin>) -> (T, bool),
    ) -> std::io::Result<T> {
        let _lock = self.lock()?;
        let mut file = self.read()?;
        let index = if let Some(i) = file.servers.iter().position(|s| &s.key == key) {
            i
        } else {
            file.servers.push(StoredServer {
                key: key.clone(),
                pins: BTreeMap::new(),
            });
            file.servers.len() - 1
        };
        let server = &mut file.servers[index];
        let (out, dirty) = change(&mut server.pins);
        if dirty {
            file.servers.sort_by(|a, b| a.key.cmp(&b.key));
            self.write(&file)?;
        }
        Ok(out)
    }

    /// Compares a listing with the pins of `key` (only `kinds`), pinning what was never seen:
    /// on a server's first listing everything is its baseline; later, new definitions are
    /// pinned as first seen and reported as added until accepted.
    pub fn observe(
        &self,
        key: &ServerKey,
        current: &[Definition],
        kinds: &[Kind],
    ) -> std::io::Result<Drift> {
        self.update(key, |pins| {
            // The first listing of these kinds is their baseline, not a drift.
            let baseline = !pins.keys().any(|k| {
                super::split_key(k)
                    .0
                    .is_some_and(|kind| kinds.contains(&kind))
            });
            let drift = if baseline {
                Drift::default()
            } else {
                compare(pins, current, kinds)
            };
            let mut dirty = false;
            for def in current.iter().filter(|d| kinds.contains(&d.kind)) {
                let k = entry_key(def.kind, &def.name);
                if let std::collections::btree_map::Entry::Vacant(slot) = pins.entry(k) {
                    slot.insert(new_pin(def, !baseline));
                    dirty = true;
                }
            }
            (drift, dirty)
        })
    }

    /// Accepts a listing as the pins of `key` (only `kinds`): changed definitions are
    /// re-pinned, added ones are no longer pending, removed ones are forgotten.
    pub fn accept(
        &self,
        key: &ServerKey,
        current: &[Definition],
        kinds: &[Kind],
    ) -> std::io::Result<Drift> {
        self.update(key, |pins| {
            let drift = compare(pins, current, kinds);
            pins.retain(|k, _| {
                super::split_key(k)
                    .0
                    .is_none_or(|kind| !kinds.contains(&kind))
            });
            for def in current.iter().filter(|d| kinds.contains(&d.kind)) {
                pins.insert(entry_key(def.kind, &def.name), new_pin(def, false));
            }
            (drift, true)
        })
    }

    /// The accepted pins of `key` (pending additions left out).
    pub fn accepted(&self, key: &ServerKey) -> std::io::Result<BTreeMap<String, Pin>> {
        let _lock = self.lock()?;
        let file = self.read()?;
        Ok(file
            .servers
            .into_iter()
            .find(|s| &s.key == key)
            .map(|s| s.pins.into_iter().filter(|(_, p)| !p.pending).collect())
            .unwrap_or_default())
    }
}

fn new_pin(def: &Definition, pending: bool) -> Pin {
    let parts = pinned_parts(def);
    Pin {
        digest: digest(&parts),
        definition: parts,
        first_seen: crate::mcp::clock::now_rfc3339(),
        pending,
    }
}
