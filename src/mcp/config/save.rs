//! Writing a configuration file safely: the previous content is copied to
//! `<name>.bak-<UTC timestamp>`, then the new text goes to a temporary file in the same
//! directory that replaces the original in one rename. Readers never see half a file.

use std::io::Write as _;
use std::path::{Path, PathBuf};

/// Writes `text` to `path` atomically after backing up what was there; returns the backup's
/// path when there was a previous file.
pub(crate) fn save_with_backup(path: &Path, text: &str) -> Result<Option<PathBuf>, String> {
    let dir = path.parent().ok_or("the file has no directory")?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let mut backup = None;
    if path.exists() {
        let stamp = crate::mcp::clock::now_rfc3339().replace(':', "-");
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let target = dir.join(format!("{name}.bak-{stamp}"));
        std::fs::copy(path, &target).map_err(|e| format!("backup failed: {e}"))?;
        backup = Some(target);
    }
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(|e| format!("cannot write: {e}"))?;
    tmp.write_all(text.as_bytes())
        .and_then(|()| tmp.as_file().sync_all())
        .map_err(|e| format!("cannot write: {e}"))?;
    tmp.persist(path)
        .map_err(|e| format!("cannot replace the file: {}", e.error))?;
    Ok(backup)
}
