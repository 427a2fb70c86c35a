//! Roots: the directories a server is told it may work in, as `file://` URIs.
//!
//! Default: the project directory. A server definition's `roots` list replaces it (paths
//! resolved against the configuration file's directory; `[]` means none); the CLI's `--root`
//! replaces both. The operator may change a server's roots for the session ([`SharedRoots`]);
//! the connection then tells the server with `notifications/roots/list_changed`.

use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};

/// One root as sent in `roots/list`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RootEntry {
    /// The `file://` URI.
    pub uri: String,
    /// A short name: the directory's last component.
    pub name: String,
}

impl RootEntry {
    /// The root for a directory (made absolute against `base` when relative; not resolved
    /// further, so a symlinked path stays as the operator wrote it).
    pub fn for_path(path: &Path, base: &Path) -> Option<Self> {
        let full: PathBuf = if path.is_absolute() {
            path.to_path_buf()
        } else {
            base.join(path)
        };
        let full = normalize(&full);
        let uri = url::Url::from_directory_path(&full).ok()?.to_string();
        let uri = uri
            .strip_suffix('/')
            .filter(|u| *u != "file://")
            .unwrap_or(&uri)
            .to_owned();
        let name = full
            .file_name()
            .map_or_else(|| "/".to_owned(), |n| n.to_string_lossy().into_owned());
        Some(Self { uri, name })
    }
}

/// One server's roots for the session: read by every `roots/list` answer, changed by the
/// operator. Clones share the list.
#[derive(Debug, Clone, Default)]
pub struct SharedRoots(Arc<RwLock<Vec<RootEntry>>>);

impl SharedRoots {
    /// Shared roots starting as `roots`.
    pub fn new(roots: Vec<RootEntry>) -> Self {
        Self(Arc::new(RwLock::new(roots)))
    }

    /// The roots now.
    pub fn get(&self) -> Vec<RootEntry> {
        self.0
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Replaces the roots; `false` when they were already these.
    pub fn set(&self, roots: Vec<RootEntry>) -> bool {
        let mut now = self.0.write().unwrap_or_else(PoisonError::into_inner);
        if *now == roots {
            return false;
        }
        *now = roots;
        true
    }
}

/// Removes `.` and resolves `..` lexically.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The roots for one server: `overrides` (the CLI's `--root`) if any, else the definition's
/// `configured` list (relative to `file_dir`), else the project directory.
pub(crate) fn roots_for(
    overrides: Option<&[PathBuf]>,
    configured: Option<&[String]>,
    file_dir: &Path,
    project: &Path,
) -> Vec<RootEntry> {
    if let Some(paths) = overrides {
        let cwd = std::env::current_dir().unwrap_or_else(|_| project.to_path_buf());
        return paths
            .iter()
            .filter_map(|p| RootEntry::for_path(p, &cwd))
            .collect();
    }
    if let Some(paths) = configured {
        return paths
            .iter()
            .filter_map(|p| RootEntry::for_path(Path::new(p), file_dir))
            .collect();
    }
    RootEntry::for_path(project, project).into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_the_project_directory() {
        let roots = roots_for(None, None, Path::new("/etc"), Path::new("/home/ada/proj"));
        assert_eq!(
            roots,
            vec![RootEntry {
                uri: "file:///home/ada/proj".into(),
                name: "proj".into()
            }]
        );
    }

    #[test]
    fn configured_paths_resolve_against_the_file_and_empty_means_none() {
        let configured = vec!["../data".to_owned(), "/abs/x y".to_owned()];
        let roots = roots_for(
            None,
            Some(&configured),
            Path::new("/home/ada/proj/.mcp"),
            Path::new("/home/ada/proj"),
        );
        let uris: Vec<&str> = roots.iter().map(|r| r.uri.as_str()).collect();
        assert_eq!(uris, ["file:///home/ada/proj/data", "file:///abs/x%20y"]);
        assert!(roots_for(None, Some(&[]), Path::new("/"), Path::new("/p")).is_empty());
    }

    #[test]
    fn shared_roots_change_for_every_clone() {
        let shared = SharedRoots::new(Vec::new());
        let other = shared.clone();
        let root = RootEntry::for_path(Path::new("/srv"), Path::new("/")).expect("root");
        assert!(shared.set(vec![root.clone()]));
        assert_eq!(other.get(), vec![root.clone()]);
        assert!(!other.set(vec![root]), "the same list is no change");
    }

    #[test]
    fn overrides_win() {
        let over = vec![PathBuf::from("/srv")];
        let configured = vec!["x".to_owned()];
        let roots = roots_for(
            Some(&over),
            Some(&configured),
            Path::new("/"),
            Path::new("/p"),
        );
        assert_eq!(roots[0].uri, "file:///srv");
        assert_eq!(roots[0].name, "srv");
    }
}
