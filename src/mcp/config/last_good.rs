//! A reload over files as they are on disk, where an editor may have left one half-written: a
//! file that now fails as a whole (it does not parse) keeps the servers it last had, so they
//! keep running, while its diagnostics say what is wrong with it now.

use std::path::PathBuf;

use super::load::{ConfigFile, ConfigSet};
use super::model::Layer;

/// Whether `file` exists but yields nothing usable: a problem with the file as a whole.
fn fails_whole(file: &ConfigFile) -> bool {
    file.present
        && file.entries.is_empty()
        && file.diagnostics.iter().any(super::Diagnostic::is_error)
}

impl ConfigSet {
    /// This configuration, read again, with every file that now fails as a whole replaced by
    /// its entries in `last` (the configuration in force) — with its diagnostics of now. The
    /// paths of those files come back too (empty when nothing was kept).
    #[must_use]
    pub fn keep_last_good(self, last: &ConfigSet) -> (Self, Vec<PathBuf>) {
        let mut kept = Vec::new();
        let mut files = self.files.clone();
        for file in &mut files {
            if !fails_whole(file) {
                continue;
            }
            let Some(good) = last
                .files
                .iter()
                .find(|f| f.path == file.path && f.layer == file.layer && !fails_whole(f))
            else {
                continue;
            };
            if good.entries.is_empty() {
                continue;
            }
            file.entries.clone_from(&good.entries);
            file.project_sandbox.clone_from(&good.project_sandbox);
            kept.push(file.path.clone());
        }
        if kept.is_empty() {
            return (self, kept);
        }
        let packaged = self
            .servers
            .iter()
            .filter(|s| s.entry.source.layer == Layer::Packaged)
            .map(|s| (*s.entry).clone())
            .collect();
        let rebuilt = Self::from_files(self.project_root, files).with_packaged(packaged);
        (rebuilt, kept)
    }
}

#[cfg(test)]
mod tests {
    use crate::mcp::config::Layer;
    use crate::mcp::config::load::{ConfigSet, read_file};

    fn read(dir: &std::path::Path, text: &str) -> ConfigSet {
        let path = dir.join("mcp.json");
        std::fs::write(&path, text).expect("write");
        ConfigSet::from_files(dir.to_path_buf(), vec![read_file(Layer::User, path, true)])
    }

    #[test]
    fn a_half_written_file_keeps_its_last_servers_and_shows_why() {
        let dir = tempfile::tempdir().expect("tempdir");
        let good = read(dir.path(), r#"{"mcpServers": {"a": {"command": "x"}}}"#);
        let half = read(dir.path(), r#"{"mcpServers": {"a": {"comm"#);
        assert!(half.servers.is_empty(), "as read, nothing is left");
        let (kept, files) = half.keep_last_good(&good);
        assert_eq!(files, [dir.path().join("mcp.json")]);
        assert_eq!(kept.servers.len(), 1, "the last good server stays");
        assert!(kept.counts().errors > 0, "and the file's error is shown");
    }

    #[test]
    fn a_file_that_parses_is_taken_as_it_is() {
        let dir = tempfile::tempdir().expect("tempdir");
        let good = read(dir.path(), r#"{"mcpServers": {"a": {"command": "x"}}}"#);
        let emptied = read(dir.path(), r#"{"mcpServers": {}}"#);
        let (taken, files) = emptied.keep_last_good(&good);
        assert!(files.is_empty());
        assert!(taken.servers.is_empty(), "a server removed on purpose goes");
    }
}
