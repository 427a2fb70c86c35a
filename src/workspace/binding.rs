//! Operator-bound workspaces: alias rule, canonical distinct roots and the
//! identity anchor of each root.
//!
//! Bindings are fixed at startup; tool calls can only name an alias. Each binding keeps the
//! root's device and inode plus an open handle on the directory (so the inode cannot be reused
//! while the server runs); [`Binding::available`] re-checks the path on every call, so a root
//! that was replaced (moved away, deleted, swapped for another directory) is refused. Error
//! messages name workspaces by position only, never by alias or path.

use std::fs::File;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

/// At most this many workspaces per process.
pub const MAX_WORKSPACES: usize = 16;

/// One operator-bound workspace.
#[derive(Debug)]
pub struct Binding {
    /// The public name tool calls use.
    pub alias: String,
    /// The canonical root directory.
    pub root: PathBuf,
    device: u64,
    inode: u64,
    /// Held open so the root's inode stays allocated while the server runs.
    _anchor: File,
}

/// Why the command line's workspaces cannot be bound. Messages never contain an alias or path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BindError {
    /// No `--workspace` was given.
    #[error("at least one --workspace ALIAS PATH is required")]
    None,
    /// More than [`MAX_WORKSPACES`].
    #[error("at most {MAX_WORKSPACES} workspaces may be bound")]
    TooMany,
    /// An alias outside the rule.
    #[error(
        "workspace {0}: the alias must be 1-64 characters of [A-Za-z0-9._-], starting with a letter or digit"
    )]
    BadAlias(usize),
    /// An alias used twice.
    #[error("workspace {0}: the alias is already bound")]
    DuplicateAlias(usize),
    /// A path that is not an existing directory.
    #[error("workspace {0}: the path is not an existing directory")]
    NotADirectory(usize),
    /// A root that is the same directory as an earlier one.
    #[error("workspace {0}: the directory is already bound")]
    DuplicateRoot(usize),
}

/// `^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`.
pub fn is_valid_alias(alias: &str) -> bool {
    let bytes = alias.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 64
        && bytes[0].is_ascii_alphanumeric()
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// Turns any directory name into a valid alias: invalid characters become `-`, a leading
/// non-alphanumeric is dropped, at most 64 characters; `workspace` when nothing is left.
pub fn sanitize_alias(name: &str) -> String {
    let mapped: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect();
    let trimmed = mapped.trim_start_matches(|c: char| !c.is_ascii_alphanumeric());
    let alias: String = trimmed.chars().take(64).collect();
    if is_valid_alias(&alias) {
        alias
    } else {
        "workspace".to_owned()
    }
}

impl Binding {
    /// Binds `path` under `alias`; `position` (1-based) is what errors name.
    fn new(position: usize, alias: &str, path: &Path) -> Result<Self, BindError> {
        if !is_valid_alias(alias) {
            return Err(BindError::BadAlias(position));
        }
        let root = path
            .canonicalize()
            .map_err(|_| BindError::NotADirectory(position))?;
        let anchor = File::open(&root).map_err(|_| BindError::NotADirectory(position))?;
        let meta = anchor
            .metadata()
            .map_err(|_| BindError::NotADirectory(position))?;
        if !meta.is_dir() {
            return Err(BindError::NotADirectory(position));
        }
        Ok(Self {
            alias: alias.to_owned(),
            root,
            device: meta.dev(),
            inode: meta.ino(),
            _anchor: anchor,
        })
    }

    /// Whether the root path still names the directory bound at startup.
    pub fn available(&self) -> bool {
        std::fs::symlink_metadata(&self.root)
            .is_ok_and(|m| m.is_dir() && m.dev() == self.device && m.ino() == self.inode)
    }

    /// The root's device and inode (the identity anchor).
    pub fn identity(&self) -> (u64, u64) {
        (self.device, self.inode)
    }
}

/// Binds every `(alias, path)` pair in order, enforcing every rule in this module's header.
pub fn bind_all(pairs: &[(String, PathBuf)]) -> Result<Vec<Binding>, BindError> {
    if pairs.is_empty() {
        return Err(BindError::None);
    }
    if pairs.len() > MAX_WORKSPACES {
        return Err(BindError::TooMany);
    }
    let mut bound: Vec<Binding> = Vec::with_capacity(pairs.len());
    for (i, (alias, path)) in pairs.iter().enumerate() {
        let position = i + 1;
        let binding = Binding::new(position, alias, path)?;
        if bound.iter().any(|b| b.alias == binding.alias) {
            return Err(BindError::DuplicateAlias(position));
        }
        if bound.iter().any(|b| b.identity() == binding.identity()) {
            return Err(BindError::DuplicateRoot(position));
        }
        bound.push(binding);
    }
    Ok(bound)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn alias_rule() {
        assert!(is_valid_alias("a"));
        assert!(is_valid_alias("docs.v2_x-y"));
        assert!(is_valid_alias(&"a".repeat(64)));
        assert!(!is_valid_alias(&"a".repeat(65)));
        assert!(!is_valid_alias(""));
        assert!(!is_valid_alias("-a"));
        assert!(!is_valid_alias(".a"));
        assert!(!is_valid_alias("a b"));
        assert!(!is_valid_alias("a/b"));
        assert!(!is_valid_alias("é"));
    }

    #[test]
    fn sanitized_aliases_are_valid() {
        assert_eq!(sanitize_alias("my project"), "my-project");
        assert_eq!(sanitize_alias(".hidden"), "hidden");
        assert_eq!(sanitize_alias("ünï"), "n-");
        assert_eq!(sanitize_alias("..."), "workspace");
        assert_eq!(sanitize_alias(&"x".repeat(100)).len(), 64);
        for name in ["", "-", "é", "a b/c", "0"] {
            assert!(is_valid_alias(&sanitize_alias(name)), "{name}");
        }
    }

    #[test]
    fn binding_rules() {
        let a = tempfile::tempdir().unwrap();
        let b = tempfile::tempdir().unwrap();
        let pa = a.path().to_path_buf();
        let pb = b.path().to_path_buf();
        assert_eq!(bind_all(&[]).unwrap_err(), BindError::None);
        let ok = bind_all(&[("a".into(), pa.clone()), ("b".into(), pb.clone())]).unwrap();
        assert_eq!(ok.len(), 2);
        assert!(ok.iter().all(Binding::available));
        assert_eq!(
            bind_all(&[("a".into(), pa.clone()), ("a".into(), pb.clone())]).unwrap_err(),
            BindError::DuplicateAlias(2)
        );
        assert_eq!(
            bind_all(&[("a".into(), pa.clone()), ("b".into(), pa.join("."))]).unwrap_err(),
            BindError::DuplicateRoot(2)
        );
        assert_eq!(
            bind_all(&[("-a".into(), pa.clone())]).unwrap_err(),
            BindError::BadAlias(1)
        );
        assert_eq!(
            bind_all(&[("a".into(), pa.join("missing"))]).unwrap_err(),
            BindError::NotADirectory(1)
        );
        let many: Vec<_> = (0..17).map(|i| (format!("w{i}"), pa.clone())).collect();
        assert_eq!(bind_all(&many).unwrap_err(), BindError::TooMany);
    }

    #[test]
    fn a_replaced_root_is_unavailable() {
        let parent = tempfile::tempdir().unwrap();
        let root = parent.path().join("ws");
        std::fs::create_dir(&root).unwrap();
        let bound = bind_all(&[("ws".into(), root.clone())]).unwrap();
        assert!(bound[0].available());
        std::fs::rename(&root, parent.path().join("old")).unwrap();
        std::fs::create_dir(&root).unwrap();
        assert!(!bound[0].available());
    }
}
