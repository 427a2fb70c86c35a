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

/// Where a server's roots came from, before they were narrowed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum RootsSource {
    /// The CLI's `--root`.
    Override,
    /// The definition's `roots`.
    Configured,
    /// The project directory.
    Default,
}

/// The roots a server is offered, decided before it can ask, and why they are what they are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OfferedRoots {
    /// The roots, in the order they are sent.
    pub roots: Vec<RootEntry>,
    /// Where they came from before any narrowing.
    pub source: RootsSource,
    /// Sentences saying how the roots were narrowed, or how they widen the server (plain text;
    /// paths as the operator wrote them or as resolved).
    pub notes: Vec<String>,
    /// Directories the server's arguments name that lie strictly inside an offered root: a
    /// server that replaces its directories with the client's roots (server-filesystem does)
    /// would reach the whole root. Empty when the roots were narrowed to them.
    pub widened: Vec<PathBuf>,
}

/// What deciding a server's roots looks at.
pub(crate) struct RootsInput<'a> {
    /// The CLI's `--root`, replacing every server's roots.
    pub overrides: Option<&'a [PathBuf]>,
    /// The definition (its `roots`, a stdio server's arguments, working directory and sandbox).
    pub def: Option<&'a crate::mcp::config::ServerDef>,
    /// The directory of the file defining the server.
    pub file_dir: &'a Path,
    /// The project directory (the default root).
    pub project: &'a Path,
}

/// The one decision of a server's roots, made before it connects (so every face offers the
/// same, and shows them before the server can ask):
///
/// 1. `--root` if given, else the definition's `roots` (relative to its file), else the project
///    directory.
/// 2. When the roots are the default and a stdio server's arguments name existing directories,
///    the roots narrow to where the two meet (the named directories inside the project): a
///    server such as server-filesystem replaces the directories it was started with by the
///    client's roots, so offering it the project would widen it silently. Roots chosen by the
///    operator (`roots`, `--root`) are kept, and a named directory strictly inside one of them
///    is reported in [`OfferedRoots::widened`].
/// 3. A sandboxed server's roots narrow to its sandbox's readable paths (`read` and `write`):
///    a root outside them is dropped, one containing them becomes the paths inside it. Offering
///    what the sandbox forbids would only mislead the server.
pub(crate) fn roots_for(input: &RootsInput<'_>) -> OfferedRoots {
    let (mut paths, source) = base_paths(input);
    let mut offered = OfferedRoots {
        roots: Vec::new(),
        source,
        notes: Vec::new(),
        widened: Vec::new(),
    };
    let stdio = input.def.and_then(|d| match &d.transport {
        crate::mcp::config::Transport::Stdio(s) => Some((d, s)),
        crate::mcp::config::Transport::Http(_) => None,
    });
    if let Some((def, stdio)) = stdio {
        // The working directory is looked up only when there are arguments to resolve against
        // it: `status` of 100,000 servers without arguments asked the kernel 200,000 times.
        let named = if stdio.args.is_empty() {
            Vec::new()
        } else {
            let cwd = def
                .resolved_cwd(input.file_dir)
                .or_else(|| std::env::current_dir().ok())
                .unwrap_or_else(|| input.project.to_path_buf());
            named_directories(&stdio.args, &cwd)
        };
        if !named.is_empty() && source == RootsSource::Default {
            let narrowed = intersect(&paths, &named);
            if narrowed != paths {
                offered.notes.push(format!(
                    "roots narrowed to the directories its arguments name ({}), not the \
                     project: a server that replaces its directories with the client's roots \
                     (server-filesystem does) would otherwise reach all of {}",
                    list(&narrowed),
                    list(&paths)
                ));
                paths = narrowed;
            }
        } else {
            offered.widened = named
                .iter()
                .filter(|n| paths.iter().any(|r| n.starts_with(r) && *n != r))
                .cloned()
                .collect();
        }
        if let Some(rules) = &stdio.sandbox {
            let readable = sandbox_readable(rules, input.file_dir);
            let narrowed = intersect(&paths, &readable);
            if narrowed != paths {
                offered.notes.push(format!(
                    "roots narrowed to the sandbox's readable paths: {} (was {})",
                    list(&narrowed),
                    list(&paths)
                ));
                paths = narrowed;
            }
            offered
                .widened
                .retain(|n| paths.iter().any(|r| n.starts_with(r) && n != r));
        }
    }
    if !offered.widened.is_empty() {
        offered.notes.push(widening_note(&offered.widened, &paths));
    }
    offered.roots = paths
        .iter()
        .filter_map(|p| RootEntry::for_path(p, input.project))
        .collect();
    offered
}

/// The roots `def` (defined in `file_dir`) is offered by default, without `--root`: what
/// `config check`, `status` and the trust review show.
pub(crate) fn offered_for(
    def: &crate::mcp::config::ServerDef,
    file_dir: &Path,
    project: &Path,
) -> OfferedRoots {
    roots_for(&RootsInput {
        overrides: None,
        def: Some(def),
        file_dir,
        project,
    })
}

/// Whether `def` is offered the project directory alone wherever it is defined: no `roots`, and
/// no arguments or sandbox that could narrow them. Such servers' roots (and their line) are the
/// same for every one of them, so a report of 100,000 can decide them once.
pub(crate) fn offered_the_project(def: &crate::mcp::config::ServerDef) -> bool {
    def.roots.is_none()
        && match &def.transport {
            crate::mcp::config::Transport::Http(_) => true,
            crate::mcp::config::Transport::Stdio(s) => s.args.is_empty() && s.sandbox.is_none(),
        }
}

/// Roots in one line for a screen, as paths (`none` when empty), sanitised: the project
/// directory as `.`, a directory inside it as `./data`, any other absolutely.
pub(crate) fn roots_line(roots: &[RootEntry], project: &Path) -> String {
    if roots.is_empty() {
        return "none".to_owned();
    }
    let project = normalize(project);
    let shown: Vec<String> = roots
        .iter()
        .map(|r| {
            let Some(path) = url::Url::parse(&r.uri)
                .ok()
                .and_then(|u| u.to_file_path().ok())
            else {
                return r.uri.clone();
            };
            match path.strip_prefix(&project) {
                Ok(rest) if rest.as_os_str().is_empty() => ".".to_owned(),
                Ok(rest) => format!("./{}", rest.display()),
                Err(_) => path.display().to_string(),
            }
        })
        .collect();
    crate::mcp::sanitize::sanitize_capped(&shown.join(", "), 1024)
}

impl OfferedRoots {
    /// The roots in one line for a screen (see [`roots_line`]), e.g. `./data`.
    pub fn line(&self, project: &Path) -> String {
        roots_line(&self.roots, project)
    }

    /// The notes, sanitised for any screen.
    pub fn shown_notes(&self) -> Vec<String> {
        self.notes
            .iter()
            .map(|n| crate::mcp::sanitize::sanitize_capped(n, 1024))
            .collect()
    }

    /// The `config check` warning these roots deserve: arguments naming directories inside
    /// the roots, or the default narrowed to them. `None` when there is nothing to say.
    pub(crate) fn warning(&self) -> Option<(String, String)> {
        if !self.widened.is_empty() {
            return Some((
                self.notes.last().cloned().unwrap_or_default(),
                "narrow `roots` to the directories the server needs".to_owned(),
            ));
        }
        let narrowed = self
            .notes
            .iter()
            .find(|n| n.starts_with("roots narrowed to the directories"))?;
        Some((
            narrowed.clone(),
            "set `roots` to choose the roots yourself (`[]` offers none)".to_owned(),
        ))
    }
}

/// The roots of `roots` a sandboxed `def` could not read (outside its sandbox's `read` and
/// `write` rules), as paths; empty for an unsandboxed server.
pub(crate) fn outside_sandbox(
    def: &crate::mcp::config::ServerDef,
    file_dir: &Path,
    roots: &[RootEntry],
) -> Vec<String> {
    let Some(rules) = def.sandbox() else {
        return Vec::new();
    };
    let readable = sandbox_readable(rules, file_dir);
    roots
        .iter()
        .filter_map(|r| {
            let path = url::Url::parse(&r.uri).ok()?.to_file_path().ok()?;
            let path = normalize(&path);
            (!readable.iter().any(|p| path.starts_with(p))).then(|| path.display().to_string())
        })
        .collect()
}

/// The warning for arguments naming directories inside the offered roots.
pub(crate) fn widening_note(widened: &[PathBuf], roots: &[PathBuf]) -> String {
    format!(
        "its arguments name {}, inside the offered roots ({}): a server that replaces its \
         directories with the client's roots (server-filesystem does) reaches all of them; \
         narrow `roots` to what it needs",
        list(widened),
        list(roots)
    )
}

/// Step 1: the roots before narrowing, as absolute paths, and where they came from.
fn base_paths(input: &RootsInput<'_>) -> (Vec<PathBuf>, RootsSource) {
    if let Some(paths) = input.overrides {
        let cwd = std::env::current_dir().unwrap_or_else(|_| input.project.to_path_buf());
        let out = paths.iter().map(|p| absolute(p, &cwd)).collect();
        return (dedup(out), RootsSource::Override);
    }
    if let Some(paths) = input.def.and_then(|d| d.roots.as_deref()) {
        let out = paths
            .iter()
            .map(|p| absolute(Path::new(p), input.file_dir))
            .collect();
        return (dedup(out), RootsSource::Configured);
    }
    (vec![normalize(input.project)], RootsSource::Default)
}

/// `path` made absolute against `base`, `.` and `..` removed.
fn absolute(path: &Path, base: &Path) -> PathBuf {
    if path.is_absolute() {
        normalize(path)
    } else {
        normalize(&base.join(path))
    }
}

/// The existing directories a stdio server's arguments name (`--flag=DIR` counts; the command
/// itself does not), relative ones against the server's working directory.
fn named_directories(args: &[String], cwd: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for arg in args {
        let word = match arg.split_once('=') {
            Some((flag, value)) if flag.starts_with('-') => value,
            _ if arg.starts_with('-') => continue,
            _ => arg.as_str(),
        };
        if word.is_empty() || word.contains("${") {
            continue;
        }
        let path = absolute(Path::new(word), cwd);
        if path.is_dir() {
            out.push(path);
        }
    }
    dedup(out)
}

/// The paths a sandbox lets its server read (`read` and `write`, preset included), absolute.
fn sandbox_readable(rules: &crate::mcp::sandbox::SandboxDef, file_dir: &Path) -> Vec<PathBuf> {
    let rules = rules.effective();
    // The user's `projectSandbox` speaks of the project root, not of the file it came from.
    let file_dir = rules.user_default.as_deref().unwrap_or(file_dir);
    let home = std::env::var("HOME").ok();
    let lookup = |name: &str| std::env::var(name).ok();
    let out = rules
        .read
        .iter()
        .chain(&rules.write)
        .filter_map(|p| {
            crate::mcp::sandbox::profile::resolve_path(p, file_dir, home.as_deref(), &lookup).ok()
        })
        .collect();
    dedup(out)
}

/// Where two sets of directory trees meet: each root inside an allowed path, and each allowed
/// path inside a root, without repeats or a path inside another kept one.
fn intersect(roots: &[PathBuf], allowed: &[PathBuf]) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    for root in roots {
        for path in allowed {
            let meet = if root.starts_with(path) {
                root
            } else if path.starts_with(root) {
                path
            } else {
                continue;
            };
            out.push(meet.clone());
        }
    }
    let all = dedup(out);
    all.iter()
        .filter(|p| !all.iter().any(|q| q != *p && p.starts_with(q)))
        .cloned()
        .collect()
}

fn dedup(paths: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::with_capacity(paths.len());
    for p in paths {
        if !out.contains(&p) {
            out.push(p);
        }
    }
    out
}

fn list(paths: &[PathBuf]) -> String {
    if paths.is_empty() {
        return "none".to_owned();
    }
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::config::{ServerDef, StdioDef, Transport};

    fn stdio(args: &[&str], roots: Option<Vec<String>>) -> ServerDef {
        ServerDef {
            name: "fs".into(),
            transport: Transport::Stdio(StdioDef {
                command: "server".into(),
                args: args.iter().map(|a| (*a).to_owned()).collect(),
                cwd: None,
                env: std::collections::BTreeMap::new(),
                sandbox: None,
            }),
            request_timeout_ms: None,
            task_timeout_ms: None,
            reconnect: crate::mcp::config::ReconnectPolicy::default(),
            disabled: false,
            protocol: crate::mcp::config::ProtocolChoice::default(),
            roots,
        }
    }

    fn decide(def: Option<&ServerDef>, over: Option<&[PathBuf]>, project: &Path) -> OfferedRoots {
        roots_for(&RootsInput {
            overrides: over,
            def,
            file_dir: project,
            project,
        })
    }

    fn uris(o: &OfferedRoots) -> Vec<String> {
        o.roots.iter().map(|r| r.uri.clone()).collect()
    }

    #[test]
    fn default_is_the_project_directory() {
        let roots = decide(None, None, Path::new("/home/ada/proj"));
        assert_eq!(
            roots.roots,
            vec![RootEntry {
                uri: "file:///home/ada/proj".into(),
                name: "proj".into()
            }]
        );
        assert!(roots.notes.is_empty());
    }

    #[test]
    fn configured_paths_resolve_against_the_file_and_empty_means_none() {
        let def = stdio(&[], Some(vec!["../data".to_owned(), "/abs/x y".to_owned()]));
        let roots = roots_for(&RootsInput {
            overrides: None,
            def: Some(&def),
            file_dir: Path::new("/home/ada/proj/.mcp"),
            project: Path::new("/home/ada/proj"),
        });
        assert_eq!(
            uris(&roots),
            ["file:///home/ada/proj/data", "file:///abs/x%20y"]
        );
        let none = stdio(&[], Some(Vec::new()));
        assert!(decide(Some(&none), None, Path::new("/p")).roots.is_empty());
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
        let def = stdio(&[], Some(vec!["x".to_owned()]));
        let roots = decide(Some(&def), Some(&over), Path::new("/p"));
        assert_eq!(roots.roots[0].uri, "file:///srv");
        assert_eq!(roots.roots[0].name, "srv");
    }

    #[test]
    fn default_roots_narrow_to_the_directories_the_arguments_name() {
        let proj = tempfile::tempdir().expect("tmp");
        let data = proj.path().join("data");
        let outside = tempfile::tempdir().expect("tmp");
        std::fs::create_dir(&data).expect("mkdir");
        let args = [
            "-y",
            "@modelcontextprotocol/server-filesystem",
            data.to_str().expect("utf8"),
            outside.path().to_str().expect("utf8"),
        ];
        let def = stdio(&args, None);
        let roots = decide(Some(&def), None, proj.path());
        let data_uri = url::Url::from_directory_path(&data)
            .expect("uri")
            .to_string();
        assert_eq!(uris(&roots), [data_uri.trim_end_matches('/')]);
        assert!(roots.notes[0].contains("narrowed"), "{:?}", roots.notes);
        assert!(roots.widened.is_empty());
        // Chosen roots are kept, and the widening is reported.
        let chosen = stdio(&args, Some(vec![".".to_owned()]));
        let roots = decide(Some(&chosen), None, proj.path());
        assert_eq!(roots.roots.len(), 1);
        assert_eq!(roots.widened, std::slice::from_ref(&data));
        assert!(
            roots.notes[0].contains("server-filesystem"),
            "{:?}",
            roots.notes
        );
        // Arguments naming no directory leave the default alone.
        let plain = stdio(&["--port", "3"], None);
        assert_eq!(decide(Some(&plain), None, proj.path()).roots.len(), 1);
    }

    #[test]
    fn a_sandboxed_servers_roots_narrow_to_its_readable_paths() {
        let mut def = stdio(&[], None);
        if let Transport::Stdio(s) = &mut def.transport {
            s.sandbox = Some(Box::new(crate::mcp::sandbox::SandboxDef {
                read: vec!["docs".into(), "/elsewhere".into()],
                ..Default::default()
            }));
        }
        let roots = decide(Some(&def), None, Path::new("/home/ada/proj"));
        assert_eq!(uris(&roots), ["file:///home/ada/proj/docs"]);
        assert!(roots.notes[0].contains("sandbox"), "{:?}", roots.notes);
        let over = vec![PathBuf::from("/srv")];
        assert!(
            decide(Some(&def), Some(&over), Path::new("/home/ada/proj"))
                .roots
                .is_empty()
        );
    }

    #[test]
    fn intersect_keeps_the_narrower_of_each_pair() {
        let p = |s: &str| PathBuf::from(s);
        let got = intersect(&[p("/a"), p("/b/c")], &[p("/a/x"), p("/b"), p("/z")]);
        assert_eq!(got, [p("/a/x"), p("/b/c")]);
    }
}
