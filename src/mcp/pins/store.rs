//! The pin store: one file per server in `pins/` of mcpdeck's state directory (see
//! `server_file.rs`), 0600 in 0700 directories, read and written under one advisory lock
//! (`pins.lock`, `flock`), each file replaced atomically, as the trust and credential stores
//! are. A corrupt file is reported and never overwritten. A listing that matches its pins
//! reads only their digests and writes nothing.

use std::collections::{BTreeMap, HashSet};
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use super::server_file::{self, ServerFile};
use super::{Drift, Pin, ServerKey, compare, definition_digest, entry_key, pinned_parts};
use crate::mcp::scan::{Definition, Kind};

/// Where pins are kept; cheap to clone, every operation opens its file under the lock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PinStore {
    path: PathBuf,
}

impl PinStore {
    /// The store whose one-file form (of earlier versions) is `path`: its lock is `pins.lock`
    /// beside it, each server's file is in `pins/` beside it.
    pub fn at(path: PathBuf) -> Self {
        Self { path }
    }

    /// The user's store: `$XDG_STATE_HOME/mcpdeck/` (else `~/.local/state/...`).
    pub fn user() -> Option<Self> {
        Some(Self::at(
            crate::mcp::auth::store::state_dir()?.join("pins.json"),
        ))
    }

    /// The path of the one-file store of earlier versions (migrated on first use).
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file holding the pins of `key`.
    pub fn server_path(&self, key: &ServerKey) -> PathBuf {
        server_file::path_of(&self.servers_dir(), key)
    }

    fn dir(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("."))
    }

    fn servers_dir(&self) -> PathBuf {
        self.dir().join("pins")
    }

    /// Takes the lock, migrating the one-file store first if it is there.
    fn lock(&self) -> std::io::Result<std::fs::File> {
        let dir = self.dir();
        server_file::ensure_dir(dir)?;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join("pins.lock"))?;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
        rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive)
            .map_err(std::io::Error::from)?;
        server_file::migrate(&self.path, &self.servers_dir())?;
        Ok(file)
    }

    /// Runs `change` on the pins of `key` under the lock, writing its file when it says so.
    fn update<T>(
        &self,
        key: &ServerKey,
        parsed: Option<ServerFile>,
        change: impl FnOnce(&mut BTreeMap<String, Pin>) -> (T, bool),
    ) -> std::io::Result<T> {
        let path = self.server_path(key);
        let mut file = if let Some(file) = parsed {
            file
        } else {
            let bytes = server_file::read_bytes(&path)?;
            server_file::parse(&path, bytes.as_deref(), key)?
        };
        let (out, dirty) = change(&mut file.pins);
        if dirty {
            server_file::ensure_dir(&self.servers_dir())?;
            server_file::write(&path, &file)?;
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
        self.observe_with(key, || current.iter().cloned(), kinds)
    }

    /// [`Self::observe`] of the definitions `current()` yields. A listing that matches its pins
    /// is checked one definition at a time against their digests alone (the stored definitions
    /// are not built, the listing is not held) and writes nothing; otherwise the listing is
    /// collected and compared in full.
    pub fn observe_with<I: Iterator<Item = Definition>>(
        &self,
        key: &ServerKey,
        current: impl Fn() -> I,
        kinds: &[Kind],
    ) -> std::io::Result<Drift> {
        let _lock = self.lock()?;
        let path = self.server_path(key);
        if let Some(stored) = server_file::read_digests(&path, key)?
            && matches_digests(&stored.pins, current(), kinds)
        {
            return Ok(Drift::default());
        }
        let bytes = server_file::read_bytes(&path)?;
        let mut file = server_file::parse(&path, bytes.as_deref(), key)?;
        drop(bytes);
        if !has_kinds(&file.pins, kinds) {
            // A baseline: every definition is pinned as it comes, none is held.
            for def in current().filter(|d| kinds.contains(&d.kind)) {
                let k = entry_key(def.kind, &def.name);
                file.pins.entry(k).or_insert_with(|| new_pin(&def, false));
            }
            if has_kinds(&file.pins, kinds) {
                server_file::ensure_dir(&self.servers_dir())?;
                server_file::write(&path, &file)?;
            }
            return Ok(Drift::default());
        }
        let current: Vec<Definition> = current().collect();
        self.update(key, Some(file), |pins| observe_pins(pins, &current, kinds))
    }

    /// Accepts a listing as the pins of `key` (only `kinds`): changed definitions are
    /// re-pinned, added ones are no longer pending, removed ones are forgotten.
    pub fn accept(
        &self,
        key: &ServerKey,
        current: &[Definition],
        kinds: &[Kind],
    ) -> std::io::Result<Drift> {
        let _lock = self.lock()?;
        self.update(key, None, |pins| {
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
        let path = self.server_path(key);
        let bytes = server_file::read_bytes(&path)?;
        let file: ServerFile = server_file::parse(&path, bytes.as_deref(), key)?;
        Ok(file.pins.into_iter().filter(|(_, p)| !p.pending).collect())
    }
}

/// Whether `current` matches the pins exactly (of `kinds`): every definition listed has an
/// accepted pin of the same digest, and every accepted pin is listed. False for a baseline
/// (no pins of these kinds yet), which is written.
fn matches_digests(
    pins: &BTreeMap<String, server_file::DigestOnly>,
    current: impl Iterator<Item = Definition>,
    kinds: &[Kind],
) -> bool {
    let accepted = pins
        .iter()
        .filter(|(k, p)| !p.pending && super::split_key(k).0.is_some_and(|k| kinds.contains(&k)))
        .count();
    if accepted == 0 {
        return false;
    }
    let mut listed = HashSet::new();
    for def in current.filter(|d| kinds.contains(&d.kind)) {
        let key = entry_key(def.kind, &def.name);
        match pins.get(&key) {
            Some(pin) if !pin.pending && pin.digest == definition_digest(&def) => {}
            _ => return false,
        }
        listed.insert(key);
    }
    listed.len() == accepted
}

/// The listing against `pins`, pinning what was never seen; says whether anything was pinned.
fn observe_pins(
    pins: &mut BTreeMap<String, Pin>,
    current: &[Definition],
    kinds: &[Kind],
) -> (Drift, bool) {
    // The first listing of these kinds is their baseline, not a drift.
    let baseline = !has_kinds(pins, kinds);
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
}

/// Whether `pins` hold any definition of `kinds`.
fn has_kinds(pins: &BTreeMap<String, Pin>, kinds: &[Kind]) -> bool {
    pins.keys().any(|k| {
        super::split_key(k)
            .0
            .is_some_and(|kind| kinds.contains(&kind))
    })
}

fn new_pin(def: &Definition, pending: bool) -> Pin {
    let parts = pinned_parts(def);
    Pin {
        digest: super::digest(&parts),
        definition: parts,
        first_seen: crate::mcp::clock::now_rfc3339(),
        pending,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
#[path = "store_tests.rs"]
mod tests;
