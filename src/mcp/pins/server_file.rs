//! One server's pins on disk: `pins/<id>.json` beside the store's lock, where `<id>` is a hash
//! of the server's key, so a listing reads and writes its own server's pins and no one else's.
//! Each file is 0600 and replaced atomically (a temporary file in the same directory, synced,
//! then renamed). A listing first reads only the digests (the definitions are skipped, not
//! built); the definitions are read when something differs.
//!
//! The store of earlier versions, one `pins.json` holding every server, is migrated once under
//! the lock: every server's file is written and synced, then the old file is renamed to
//! `pins.json.migrated` (kept, never deleted). A crash in between leaves the old file in place,
//! and the next run migrates again, merging into what is already there, so nothing is lost.

use std::collections::BTreeMap;
use std::io::Write as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::{Pin, ServerKey};

/// One server's file.
#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ServerFile {
    pub(super) version: u32,
    pub(super) server: String,
    pub(super) scope: String,
    pub(super) pins: BTreeMap<String, Pin>,
}

/// The digests of one server's file, its definitions skipped while parsing.
#[derive(Debug, Deserialize)]
pub(super) struct Digests {
    version: u32,
    server: String,
    scope: String,
    pub(super) pins: BTreeMap<String, DigestOnly>,
}

/// A pin without its definition.
#[derive(Debug, Deserialize)]
pub(super) struct DigestOnly {
    pub(super) digest: String,
    #[serde(default)]
    pub(super) pending: bool,
}

/// The store of earlier versions: every server in one file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct OldStore {
    version: u32,
    servers: Vec<OldServer>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct OldServer {
    server: String,
    scope: String,
    pins: BTreeMap<String, Pin>,
}

fn invalid(path: &Path, problem: &str) -> std::io::Error {
    std::io::Error::other(format!(
        "the pin store {} {problem}; fix or remove it by hand, mcpdeck will not overwrite it",
        path.display()
    ))
}

/// The file of `key` in `dir`.
pub(super) fn path_of(dir: &Path, key: &ServerKey) -> PathBuf {
    use sha2::Digest as _;
    let mut hash = sha2::Sha256::new();
    hash.update(key.scope.as_bytes());
    hash.update([0]);
    hash.update(key.server.as_bytes());
    dir.join(format!("{}.json", hex::encode(&hash.finalize()[..16])))
}

/// The file's bytes, None when there is none.
pub(super) fn read_bytes(path: &Path) -> std::io::Result<Option<Vec<u8>>> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// The digests in the file at `path` (None when there is none), checked to be `key`'s. The
/// file is parsed as it is read, never held whole: a listing that matches its pins costs the
/// digests alone.
pub(super) fn read_digests(path: &Path, key: &ServerKey) -> std::io::Result<Option<Digests>> {
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let reader = std::io::BufReader::with_capacity(64 * 1024, file);
    let file: Digests = serde_json::from_reader(reader).map_err(|e| {
        if e.is_io() {
            std::io::Error::other(format!("reading {}: {e}", path.display()))
        } else {
            invalid(path, &format!("is not valid ({e})"))
        }
    })?;
    check(path, file.version, &file.server, &file.scope, key)?;
    Ok(Some(file))
}

/// The whole file in `bytes` (None: a new, empty one), checked to be `key`'s.
pub(super) fn parse(
    path: &Path,
    bytes: Option<&[u8]>,
    key: &ServerKey,
) -> std::io::Result<ServerFile> {
    let Some(bytes) = bytes else {
        return Ok(ServerFile {
            version: 1,
            server: key.server.clone(),
            scope: key.scope.clone(),
            pins: BTreeMap::new(),
        });
    };
    let file: ServerFile =
        serde_json::from_slice(bytes).map_err(|e| invalid(path, &format!("is not valid ({e})")))?;
    check(path, file.version, &file.server, &file.scope, key)?;
    Ok(file)
}

fn check(
    path: &Path,
    version: u32,
    server: &str,
    scope: &str,
    key: &ServerKey,
) -> std::io::Result<()> {
    if version != 1 {
        return Err(invalid(path, &format!("has unknown version {version}")));
    }
    if server != key.server || scope != key.scope {
        return Err(invalid(path, "holds another server's pins"));
    }
    Ok(())
}

/// Writes one server's file atomically: streamed into a 0600 temporary file in the same
/// directory, synced, renamed over it.
pub(super) fn write(path: &Path, file: &ServerFile) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.as_file()
        .set_permissions(std::fs::Permissions::from_mode(0o600))?;
    let mut out = std::io::BufWriter::new(tmp.as_file_mut());
    serde_json::to_writer_pretty(&mut out, file).map_err(std::io::Error::other)?;
    out.flush()?;
    drop(out);
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// The directory `dir`, created 0700 when missing.
pub(super) fn ensure_dir(dir: &Path) -> std::io::Result<()> {
    if !dir.is_dir() {
        std::fs::create_dir_all(dir)?;
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))?;
    }
    Ok(())
}

/// Migrates the one-file store at `old` into per-server files in `dir` (under the caller's
/// lock): each server's pins are merged into its file (pins already there win), every file is
/// synced, then `old` is renamed to `<old>.migrated`. Nothing to do when `old` is absent.
pub(super) fn migrate(old: &Path, dir: &Path) -> std::io::Result<()> {
    let Some(bytes) = read_bytes(old)? else {
        return Ok(());
    };
    let store: OldStore =
        serde_json::from_slice(&bytes).map_err(|e| invalid(old, &format!("is not valid ({e})")))?;
    if store.version != 1 {
        return Err(invalid(
            old,
            &format!("has unknown version {}", store.version),
        ));
    }
    ensure_dir(dir)?;
    for server in store.servers {
        let key = ServerKey {
            server: server.server,
            scope: server.scope,
        };
        let path = path_of(dir, &key);
        let mut file = parse(&path, read_bytes(&path)?.as_deref(), &key)?;
        for (entry, pin) in server.pins {
            file.pins.entry(entry).or_insert(pin);
        }
        write(&path, &file)?;
    }
    std::fs::File::open(dir)?.sync_all()?;
    std::fs::rename(old, backup_path(old))?;
    if let Some(parent) = old.parent() {
        std::fs::File::open(parent)?.sync_all()?;
    }
    Ok(())
}

/// `<old>.migrated`, or `<old>.migrated.N` when an earlier migration's copy is there.
fn backup_path(old: &Path) -> PathBuf {
    let name = |n: u32| {
        let mut name = old.as_os_str().to_owned();
        name.push(".migrated");
        if n > 1 {
            name.push(format!(".{n}"));
        }
        PathBuf::from(name)
    };
    (1..u32::MAX)
        .map(name)
        .find(|p| !p.exists())
        .unwrap_or_else(|| name(u32::MAX))
}
