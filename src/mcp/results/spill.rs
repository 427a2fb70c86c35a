//! Spill files: the per-process directory large and binary results are written
//! to, the registry of what was spilled, and the startup sweep of dead processes' directories.
//!
//! Layout: `<base>/mcpdeck/spill-<pid>-<random>/` (mode 0700) holding a `lock` file this process
//! keeps under an exclusive `flock`, a `pid` file, and spill files created `O_EXCL` with random
//! names and mode 0600. `<base>` is `$XDG_RUNTIME_DIR`, else the temp dir (then the parent is
//! `mcpdeck-<uid>` so users never share it). The sweep removes a directory only when its lock
//! can be taken, so it never removes a live process's spills. This module never decides what to
//! spill and never shows a host path to the model; only basenames leave it for that purpose.

use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use rustix::fs::{FlockOperation, flock};

pub(crate) mod index;

/// Prefix of every spill directory's name.
const DIR_PREFIX: &str = "spill-";
/// Name of the lock file inside a spill directory.
const LOCK_FILE: &str = "lock";
/// Name of the pid file inside a spill directory.
const PID_FILE: &str = "pid";

/// One spilled file, as the console lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpillEntry {
    /// The file's name: the only part the model ever sees.
    pub basename: String,
    /// The full host path, for the operator only.
    pub path: PathBuf,
    /// Bytes written.
    pub size: u64,
    /// The content's MIME type as the server claimed it (sanitised).
    pub mime: String,
    /// The normalized operation that produced it (`tools.call x`).
    pub origin: String,
}

/// What a sweep did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SweepReport {
    /// Directories of dead processes that were removed.
    pub removed: Vec<PathBuf>,
    /// Directories kept because their owner is alive (or could not be proven dead).
    pub kept: Vec<PathBuf>,
}

/// The base directory spills go under: `$XDG_RUNTIME_DIR`, else the temp dir.
pub(crate) fn default_base() -> PathBuf {
    std::env::var_os("XDG_RUNTIME_DIR")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .unwrap_or_else(std::env::temp_dir)
}

/// The `mcpdeck` parent directory under `base` (created 0700 if absent, owned by this user):
/// spill directories and serve-mode control sockets live here.
pub(crate) fn parent_dir(base: &Path) -> io::Result<PathBuf> {
    let name = if base == std::env::temp_dir() {
        format!("mcpdeck-{}", rustix::process::getuid().as_raw())
    } else {
        "mcpdeck".to_owned()
    };
    let dir = base.join(name);
    match DirBuilder::new().mode(0o700).create(&dir) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let meta = fs::symlink_metadata(&dir)?;
    if !meta.is_dir() || meta.uid() != rustix::process::getuid().as_raw() {
        return Err(io::Error::new(
            io::ErrorKind::PermissionDenied,
            "spill parent is not a directory owned by this user",
        ));
    }
    if meta.permissions().mode() & 0o077 != 0 {
        fs::set_permissions(&dir, fs::Permissions::from_mode(0o700))?;
    }
    Ok(dir)
}

fn random_hex(bytes: usize) -> io::Result<String> {
    let mut buf = vec![0u8; bytes];
    getrandom::fill(&mut buf).map_err(io::Error::other)?;
    Ok(hex::encode(buf))
}

/// A file extension for a MIME type, so a pager or viewer opens it sensibly.
fn extension(mime: &str) -> &'static str {
    let essence = mime.split(';').next().unwrap_or("").trim();
    match essence.to_ascii_lowercase().as_str() {
        "image/png" => "png",
        "image/jpeg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "image/svg+xml" => "svg",
        "audio/wav" | "audio/x-wav" | "audio/wave" => "wav",
        "audio/mpeg" => "mp3",
        "audio/ogg" => "ogg",
        "application/json" => "json",
        "application/pdf" => "pdf",
        e if e.starts_with("text/") => "txt",
        _ => "bin",
    }
}

/// This process's spill directory. Removing it (explicitly or on drop) removes every spill.
#[derive(Debug)]
pub struct SpillDir {
    path: PathBuf,
    /// Held open for the process's life: the exclusive lock is what tells a sweep we are alive.
    _lock: File,
    entries: Mutex<Vec<SpillEntry>>,
}

impl SpillDir {
    /// Creates the directory under `base` (see [`default_base`]), after sweeping dead
    /// processes' directories there. Sweep failures never prevent creation.
    pub fn create(base: &Path) -> io::Result<Self> {
        let parent = parent_dir(base)?;
        let _ = sweep_parent(&parent);
        let name = format!("{DIR_PREFIX}{}-{}", std::process::id(), random_hex(4)?);
        // Built under a staging name and renamed once locked, so a concurrent sweep never sees
        // a spill directory without its lock held.
        let staging = parent.join(format!(".staging-{name}"));
        DirBuilder::new().mode(0o700).create(&staging)?;
        fs::set_permissions(&staging, fs::Permissions::from_mode(0o700))?;
        let lock = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(staging.join(LOCK_FILE))?;
        flock(&lock, FlockOperation::NonBlockingLockExclusive)?;
        let mut pid = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(staging.join(PID_FILE))?;
        writeln!(pid, "{}", std::process::id())?;
        let path = parent.join(&name);
        fs::rename(&staging, &path)?;
        Ok(Self {
            path,
            _lock: lock,
            entries: Mutex::new(Vec::new()),
        })
    }

    /// Creates the directory under [`default_base`] (`$XDG_RUNTIME_DIR`, else the temp dir),
    /// falling back to the temp dir when the runtime dir is unusable.
    pub fn create_default() -> io::Result<Self> {
        let base = default_base();
        match Self::create(&base) {
            Err(_) if base != std::env::temp_dir() => Self::create(&std::env::temp_dir()),
            other => other,
        }
    }

    /// The directory's full path (operator-facing only).
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn entries(&self) -> MutexGuard<'_, Vec<SpillEntry>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Starts a new spill file; write to it as data streams in, then [`SpillWriter::finish`].
    pub fn create_spill(&self, mime: &str, origin: &str) -> io::Result<SpillWriter<'_>> {
        let basename = format!("spill-{}.{}", random_hex(8)?, extension(mime));
        let path = self.path.join(&basename);
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&path)?;
        Ok(SpillWriter {
            dir: self,
            file: Some(io::BufWriter::with_capacity(64 * 1024, file)),
            entry: SpillEntry {
                basename,
                path,
                size: 0,
                mime: crate::mcp::sanitize::sanitize_capped(mime, 128),
                origin: origin.to_owned(),
            },
        })
    }

    /// Every finished spill of this session, oldest first.
    pub fn spills(&self) -> Vec<SpillEntry> {
        self.entries().clone()
    }

    /// Total bytes spilled.
    pub fn total_bytes(&self) -> u64 {
        self.entries().iter().map(|e| e.size).sum()
    }

    /// Deletes one spill by basename (the console's "delete").
    pub fn remove(&self, basename: &str) -> io::Result<()> {
        let mut entries = self.entries();
        let Some(at) = entries.iter().position(|e| e.basename == basename) else {
            return Err(io::Error::new(io::ErrorKind::NotFound, "no such spill"));
        };
        let entry = entries.remove(at);
        fs::remove_file(entry.path)
    }

    /// Deletes every spill file (finished or not); the directory and its lock stay.
    pub fn remove_all(&self) -> io::Result<()> {
        let mut entries = self.entries();
        entries.clear();
        let mut first_error = None;
        for item in fs::read_dir(&self.path)? {
            let item = item?;
            let name = item.file_name();
            if name == LOCK_FILE || name == PID_FILE {
                continue;
            }
            if let Err(e) = fs::remove_file(item.path()) {
                first_error.get_or_insert(e);
            }
        }
        first_error.map_or(Ok(()), Err)
    }
}

impl Drop for SpillDir {
    fn drop(&mut self) {
        // Best effort: nothing can be reported from drop; a later sweep removes leftovers.
        let _ = fs::remove_dir_all(&self.path);
    }
}

/// A spill being written. Dropped without [`finish`](Self::finish), the file is deleted.
#[derive(Debug)]
pub struct SpillWriter<'a> {
    dir: &'a SpillDir,
    file: Option<io::BufWriter<File>>,
    entry: SpillEntry,
}

impl SpillWriter<'_> {
    /// The file's basename (model-visible).
    pub fn basename(&self) -> &str {
        &self.entry.basename
    }

    /// Bytes written so far.
    pub fn size(&self) -> u64 {
        self.entry.size
    }

    /// Flushes, closes and registers the spill.
    pub fn finish(mut self) -> io::Result<SpillEntry> {
        if let Some(file) = self.file.take() {
            file.into_inner().map_err(io::IntoInnerError::into_error)?;
        }
        let entry = self.entry.clone();
        self.dir.entries().push(entry.clone());
        Ok(entry)
    }
}

impl Write for SpillWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let Some(file) = self.file.as_mut() else {
            return Err(io::Error::other("spill already finished"));
        };
        let n = file.write(buf)?;
        self.entry.size += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.file.as_mut().map_or(Ok(()), Write::flush)
    }
}

impl Drop for SpillWriter<'_> {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = fs::remove_file(&self.entry.path);
        }
    }
}

/// Removes spill directories of dead processes under `base`; never a live one.
pub fn sweep(base: &Path) -> io::Result<SweepReport> {
    sweep_parent(&parent_dir(base)?)
}

fn sweep_parent(parent: &Path) -> io::Result<SweepReport> {
    let mut report = SweepReport::default();
    for item in fs::read_dir(parent)? {
        let item = item?;
        let is_spill_dir = item
            .file_name()
            .to_str()
            .is_some_and(|n| n.starts_with(DIR_PREFIX));
        let path = item.path();
        if !is_spill_dir || !item.file_type()?.is_dir() {
            continue;
        }
        match owner(&path) {
            Owner::Alive => report.kept.push(path),
            Owner::Dead(_lock) => {
                // `_lock` stays held while removing, so nothing can adopt the directory.
                fs::remove_dir_all(&path)?;
                report.removed.push(path);
            }
        }
    }
    Ok(report)
}

/// Whether the process that owned a spill directory is alive.
enum Owner {
    /// Alive, or not provably dead.
    Alive,
    /// Dead; holds the directory's lock when it had one.
    Dead(Option<File>),
}

/// Decides a directory's owner. The lock decides; the pid file is consulted only when there is
/// no lock file, and anything unclear counts as alive.
fn owner(dir: &Path) -> Owner {
    match File::open(dir.join(LOCK_FILE)) {
        Ok(lock) => match flock(&lock, FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => Owner::Dead(Some(lock)),
            Err(_) => Owner::Alive,
        },
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let Ok(text) = fs::read_to_string(dir.join(PID_FILE)) else {
                return Owner::Alive;
            };
            let Some(pid) = text
                .trim()
                .parse::<i32>()
                .ok()
                .and_then(rustix::process::Pid::from_raw)
            else {
                return Owner::Alive;
            };
            match rustix::process::test_kill_process(pid) {
                Err(rustix::io::Errno::SRCH) => Owner::Dead(None),
                _ => Owner::Alive,
            }
        }
        Err(_) => Owner::Alive,
    }
}

#[cfg(test)]
mod tests;
