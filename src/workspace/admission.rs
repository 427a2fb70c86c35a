//! The privacy policy: which files of a root may ever be read into a result.
//!
//! A file is admitted only if it is a regular file reached without following any symlink (so
//! nothing outside the root is reachable), not ignored by the workspace's git ignore rules
//! (`.gitignore`, `.git/info/exclude`, global excludes, applied by the `ignore` crate even
//! outside a git repository), not inside `.git/`, not sensitive by name (any path component),
//! its path is UTF-8, and its content is UTF-8 text without NUL bytes of at most
//! [`MAX_FILE_BYTES`]. Everything else is invisible: callers never learn its name, and this
//! module never reads its content. Nothing here writes.

use std::io::Read as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// The largest admitted file.
pub const MAX_FILE_BYTES: u64 = 1024 * 1024;

/// Directory names that are never entered.
const PRIVATE_DIRS: &[&str] = &[
    ".git",
    ".ssh",
    ".aws",
    ".gnupg",
    ".gpg",
    ".azure",
    ".kube",
    ".docker",
    ".password-store",
    "gcloud",
    ".terraform",
];

/// Exact (lower-cased) file names that are sensitive.
const PRIVATE_NAMES: &[&str] = &[
    ".npmrc",
    ".pypirc",
    ".netrc",
    "_netrc",
    ".pgpass",
    ".htpasswd",
    ".git-credentials",
    ".gitcredentials",
    ".boto",
    ".s3cfg",
    ".dockercfg",
    "authorized_keys",
    "known_hosts",
];

/// Lower-cased name prefixes that are sensitive.
const PRIVATE_PREFIXES: &[&str] = &[
    ".env",
    "id_rsa",
    "id_dsa",
    "id_ecdsa",
    "id_ed25519",
    "credentials",
];

/// Lower-cased name suffixes that are sensitive.
const PRIVATE_SUFFIXES: &[&str] = &[
    ".pem",
    ".key",
    ".p12",
    ".pfx",
    ".jks",
    ".keystore",
    ".kdbx",
    ".ovpn",
    ".tfstate",
    ".tfstate.backup",
    ".gpg",
    ".asc",
    ".crt",
    ".cer",
    ".der",
    ".ppk",
];

/// Lower-cased substrings that make any name sensitive.
const PRIVATE_SUBSTRINGS: &[&str] = &["secret", "password", "passwd", "private_key", "privatekey"];

/// Whether one path component (file or directory name) is sensitive by name.
pub fn is_sensitive_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    PRIVATE_DIRS.contains(&lower.as_str())
        || PRIVATE_NAMES.contains(&lower.as_str())
        || PRIVATE_PREFIXES.iter().any(|p| lower.starts_with(p))
        || PRIVATE_SUFFIXES.iter().any(|s| lower.ends_with(s))
        || PRIVATE_SUBSTRINGS.iter().any(|s| lower.contains(s))
}

/// A file that passed every name-based rule; its content is still to be checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// Workspace-relative path with `/` separators.
    pub rel: String,
    /// Size in bytes when walked.
    pub size: u64,
    /// Modification time (nanoseconds since the epoch) when walked.
    pub mtime_ns: i128,
    /// Inode when walked.
    pub inode: u64,
}

/// A directory seen by the walk, to tell later whether its entries may have changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirStamp {
    /// Absolute path.
    pub path: PathBuf,
    /// Modification time (ns) and inode when walked.
    pub stamp: (i128, u64),
}

/// `(mtime ns, inode)` of a path, not following a final symlink.
pub fn stamp_of(path: &Path) -> Option<(i128, u64)> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    Some((mtime_ns(&meta), meta.ino()))
}

fn mtime_ns(meta: &std::fs::Metadata) -> i128 {
    i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec())
}

/// Whether the file at `rel` is still exactly as walked (same size, mtime and inode, still a
/// file).
pub fn unchanged(root: &Path, rel: &str, size: u64, mtime: i128, inode: u64) -> bool {
    std::fs::symlink_metadata(root.join(rel))
        .is_ok_and(|m| m.is_file() && m.len() == size && mtime_ns(&m) == mtime && m.ino() == inode)
}

/// The walk was cancelled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cancelled;

/// What one walk found.
#[derive(Debug, Default)]
pub struct Walk {
    /// The first `max_files` candidate files in walk order, sorted by path.
    pub candidates: Vec<Candidate>,
    /// Candidate files past `max_files`, counted, never kept.
    pub skipped: usize,
    /// Every directory walked (and out-of-tree ignore files).
    pub dirs: Vec<DirStamp>,
}

/// The candidate files under `root` (at most `max_files`, the rest counted) and every
/// directory walked. The walk visits each directory's entries sorted by name, so which files
/// are kept when a tree is over the limit does not depend on the filesystem. Checks `cancel`
/// between entries.
pub fn walk(root: &Path, cancel: &AtomicBool, max_files: usize) -> Result<Walk, Cancelled> {
    let mut builder = walker(root);
    builder.sort_by_file_name(std::cmp::Ord::cmp);
    let mut out = Vec::new();
    let mut dirs = Vec::new();
    let mut skipped = 0usize;
    for entry in builder.build() {
        if cancel.load(Ordering::Relaxed) {
            return Err(Cancelled);
        }
        let Ok(entry) = entry else { continue };
        if entry.file_type().is_some_and(|t| t.is_dir())
            && let Ok(meta) = entry.metadata()
        {
            dirs.push(DirStamp {
                path: entry.path().to_path_buf(),
                stamp: (mtime_ns(&meta), meta.ino()),
            });
            continue;
        }
        // Symlinks are never followed, to files or directories: a link could lead out of the
        // root, and one inside the root only duplicates a file that is walked anyway.
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let Ok(rel) = entry.path().strip_prefix(root) else {
            continue;
        };
        let Some(rel) = relative_string(rel) else {
            continue;
        };
        let Ok(meta) = entry.metadata() else { continue };
        if meta.len() > MAX_FILE_BYTES {
            continue;
        }
        if out.len() >= max_files {
            skipped += 1;
            continue;
        }
        out.push(Candidate {
            rel,
            size: meta.len(),
            mtime_ns: mtime_ns(&meta),
            inode: meta.ino(),
        });
    }
    out.sort_by(|a, b| a.rel.cmp(&b.rel));
    // Ignore rules that live outside the walked tree.
    for extra in [root.join(".git/info/exclude"), root.join(".git")] {
        if let Some(stamp) = stamp_of(&extra) {
            dirs.push(DirStamp { path: extra, stamp });
        }
    }
    Ok(Walk {
        candidates: out,
        skipped,
        dirs,
    })
}

/// A walk of `dir` by the workspace's rules: hidden files included, links not followed, the
/// ignore files (`.gitignore`, `.git/info/exclude`, the global one, `.ignore`) of `dir` and every
/// directory above it applied, sensitive names never entered.
fn walker(dir: &Path) -> ignore::WalkBuilder {
    let mut builder = ignore::WalkBuilder::new(dir);
    builder
        .hidden(false)
        .follow_links(false)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(true)
        .require_git(false)
        .ignore(true)
        .parents(true)
        .filter_entry(|entry| {
            entry.depth() == 0
                || entry
                    .file_name()
                    .to_str()
                    .is_some_and(|name| !is_sensitive_name(name))
        });
    builder
}

/// The workspace-relative paths of the candidate files directly in `dir` (a directory the
/// walk of `root` entered), by the same rules as [`walk`] (the ignore files of `dir` and of
/// every directory above it apply). `None` when `dir` cannot be listed.
pub(super) fn candidates_in(root: &Path, dir: &Path) -> Option<std::collections::BTreeSet<String>> {
    let mut builder = walker(dir);
    builder.max_depth(Some(1));
    let mut out = std::collections::BTreeSet::new();
    for entry in builder.build() {
        let entry = entry.ok()?;
        if entry.depth() == 1 && entry.file_type().is_some_and(|t| t.is_file()) {
            let rel = entry
                .path()
                .strip_prefix(root)
                .ok()
                .and_then(relative_string);
            out.extend(rel);
        }
    }
    Some(out)
}

/// The candidate at `rel` as it is now: a regular file of at most [`MAX_FILE_BYTES`], not
/// reached through a symlink. `Err(())` when `rel` is now a directory.
pub(super) fn candidate_now(root: &Path, rel: &str) -> Result<Option<Candidate>, ()> {
    let Ok(meta) = std::fs::symlink_metadata(root.join(rel)) else {
        return Ok(None);
    };
    if meta.is_dir() {
        return Err(());
    }
    Ok(
        (meta.is_file() && meta.len() <= MAX_FILE_BYTES).then(|| Candidate {
            rel: rel.to_owned(),
            size: meta.len(),
            mtime_ns: mtime_ns(&meta),
            inode: meta.ino(),
        }),
    )
}

/// `a/b/c` for a relative path whose every component is UTF-8 and not sensitive.
pub(super) fn relative_string(rel: &Path) -> Option<String> {
    let mut parts = Vec::new();
    for component in rel.components() {
        let std::path::Component::Normal(part) = component else {
            return None;
        };
        let part = part.to_str()?;
        if is_sensitive_name(part) {
            return None;
        }
        parts.push(part);
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// Reads a candidate's content if it is admitted: opened without following a final symlink,
/// still the walked file (same inode), at most [`MAX_FILE_BYTES`], UTF-8 without NUL bytes.
pub fn read_admitted(root: &Path, candidate: &Candidate) -> Option<String> {
    let path: PathBuf = root.join(&candidate.rel);
    let fd = rustix::fs::open(
        &path,
        rustix::fs::OFlags::RDONLY | rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::CLOEXEC,
        rustix::fs::Mode::empty(),
    )
    .ok()?;
    let file = std::fs::File::from(fd);
    let meta = file.metadata().ok()?;
    if !meta.is_file() || meta.ino() != candidate.inode || meta.len() > MAX_FILE_BYTES {
        return None;
    }
    // One read of the stated size and a byte more usually meets the end of the file at once;
    // only when it did not (the file grew, or a short read) is the rest read to the end.
    let size = usize::try_from(meta.len()).ok()?;
    let mut bytes = vec![0u8; size + 1];
    let mut file = file.take(MAX_FILE_BYTES + 1);
    let first = read_once(&mut file, &mut bytes).ok()?;
    bytes.truncate(first);
    if first != size {
        file.read_to_end(&mut bytes).ok()?;
    }
    if bytes.len() as u64 > MAX_FILE_BYTES || memchr::memchr(0, &bytes).is_some() {
        return None;
    }
    String::from_utf8(bytes).ok()
}

/// One `read` into `buf`, retried only when interrupted.
fn read_once(file: &mut impl std::io::Read, buf: &mut [u8]) -> std::io::Result<usize> {
    loop {
        match file.read(buf) {
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            other => return other,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn sensitive_names() {
        for name in [
            ".env",
            ".env.local",
            ".ENV",
            "server.pem",
            "tls.key",
            "a.p12",
            "a.pfx",
            "id_rsa",
            "id_rsa.pub",
            "id_ed25519",
            ".npmrc",
            ".pypirc",
            ".netrc",
            "credentials",
            "credentials.json",
            "secrets.json",
            "my-SECRET.txt",
            ".ssh",
            ".aws",
            ".gnupg",
            ".git",
        ] {
            assert!(is_sensitive_name(name), "{name}");
        }
        for name in [
            "README.md",
            "main.rs",
            "environment.md",
            "keys.rs",
            "Cargo.toml",
            ".mcp.json",
        ] {
            assert!(!is_sensitive_name(name), "{name}");
        }
    }
}
