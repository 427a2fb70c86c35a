//! Saving a user's file atomically with a backup kept out of the way: the previous content goes
//! to `$XDG_STATE_HOME/mcpdeck/backups/` (default `~/.local/state/mcpdeck/backups/`), not next to
//! the file — where git, editors and the workspace search would see it — and the new content
//! replaces the file by rename, keeping its permission bits. Used for the policy file ("always
//! allow"), the console's configuration editor and host imports (`mcpdeck hosts import`).

use std::io::Write as _;
use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

use sha2::Digest as _;

/// Where backups go: `$XDG_STATE_HOME/mcpdeck/backups`, else `$HOME/.local/state/...`.
pub(crate) fn backup_dir() -> Option<PathBuf> {
    let state = std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local").join("state"))
        })?;
    Some(state.join("mcpdeck").join("backups"))
}

/// The backup's name: the file's name, a short hash of its full path (two projects' `.mcp.json`
/// never clash) and a UTC timestamp.
fn backup_name(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let digest = sha2::Sha256::digest(path.as_os_str().as_encoded_bytes());
    let stamp = crate::mcp::clock::now_rfc3339().replace(':', "-");
    format!("{name}-{}-{stamp}", hex::encode(&digest[..4]))
}

/// What a save did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Saved {
    /// The copy of the previous content, when there was a file.
    pub backup: Option<PathBuf>,
}

/// Writes `text` to `path` atomically. The previous content, if any, is first copied (0600) into
/// `backups` (created 0700). A new file gets `new_mode`; an existing one keeps its mode.
pub(crate) fn save(
    path: &Path,
    text: &str,
    backups: &Path,
    new_mode: u32,
) -> std::io::Result<Saved> {
    let dir = path
        .parent()
        .ok_or_else(|| std::io::Error::other("the file has no directory"))?;
    std::fs::create_dir_all(dir)?;
    let (mode, backup) = match std::fs::metadata(path) {
        Ok(meta) => {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(backups)?;
            let target = backups.join(backup_name(path));
            let previous = std::fs::read(path)?;
            let mut copy = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(&target)?;
            copy.write_all(&previous)?;
            (meta.permissions().mode() & 0o7777, Some(target))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (new_mode, None),
        Err(e) => return Err(e),
    };
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(text.as_bytes())?;
    tmp.as_file()
        .set_permissions(std::fs::Permissions::from_mode(mode))?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(Saved { backup })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn save_keeps_the_mode_and_backs_up_elsewhere() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("project").join(".mcp.json");
        let backups = dir.path().join("state/mcpdeck/backups");
        let first = save(&path, "one", &backups, 0o600).expect("new file");
        assert_eq!(first.backup, None);
        assert_eq!(
            std::fs::metadata(&path).expect("meta").permissions().mode() & 0o777,
            0o600
        );
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).expect("chmod");
        let second = save(&path, "two", &backups, 0o600).expect("replace");
        let backup = second.backup.expect("a backup");
        assert!(backup.starts_with(&backups));
        assert_eq!(std::fs::read_to_string(&backup).expect("read"), "one");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "two");
        assert_eq!(
            std::fs::metadata(&path).expect("meta").permissions().mode() & 0o777,
            0o640,
            "the file keeps its mode"
        );
        let beside: Vec<_> = std::fs::read_dir(path.parent().expect("dir"))
            .expect("list")
            .filter_map(Result::ok)
            .map(|e| e.file_name())
            .collect();
        assert_eq!(beside.len(), 1, "nothing next to the file: {beside:?}");
    }
}
