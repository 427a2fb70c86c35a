//! A sandbox resolved for one start of one server: absolute paths, the resolved command (and
//! its script interpreter) executable, the network rule and the limits. The supervisor builds
//! it and hands it to the launcher as one JSON argument; it holds paths, never a secret.

use std::path::{Path, PathBuf};

use super::rules::{Limits, NetRule, SandboxDef};
use crate::mcp::config::Template;

/// The rules the launcher applies, every path absolute.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Profile {
    /// Readable paths.
    pub read: Vec<PathBuf>,
    /// Readable and writable paths.
    pub write: Vec<PathBuf>,
    /// Readable and executable paths (the resolved command and its interpreter first).
    pub exec: Vec<PathBuf>,
    /// The network rule.
    pub net: NetRule,
    /// Resource limits.
    pub limits: Limits,
    /// Start even when the kernel cannot enforce every rule.
    pub best_effort: bool,
}

/// Why a sandbox could not be resolved (a reference is unset).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolveError {
    /// The unset variable.
    pub variable: String,
}

impl Profile {
    /// Resolves `def`'s rules: `~/` against `HOME`, `${NAME}` through `lookup`, relative
    /// paths against `file_dir` (the project root for the user's default); `command` is looked up on `path_var` and made executable with
    /// the interpreter of its `#!` line.
    pub fn resolve(
        def: &SandboxDef,
        file_dir: &Path,
        command: &str,
        path_var: Option<&str>,
        lookup: &(dyn Fn(&str) -> Option<String> + Sync),
    ) -> Result<Self, ResolveError> {
        let e = def.effective();
        let home = lookup("HOME");
        // The user's `projectSandbox` means the project by `.`, whichever project file the
        // definition is in.
        let base = e.user_default.as_deref().unwrap_or(file_dir);
        let paths = |list: &[String]| -> Result<Vec<PathBuf>, ResolveError> {
            list.iter()
                .map(|p| resolve_path(p, base, home.as_deref(), lookup))
                .collect()
        };
        let mut exec = executables(command, path_var, file_dir);
        exec.extend(paths(&e.exec)?);
        Ok(Self {
            read: paths(&e.read)?,
            write: paths(&e.write)?,
            exec,
            net: e.net.unwrap_or_default(),
            limits: e.limits,
            best_effort: e.best_effort,
        })
    }
}

/// One path as written, made absolute.
pub(crate) fn resolve_path(
    written: &str,
    file_dir: &Path,
    home: Option<&str>,
    lookup: &(dyn Fn(&str) -> Option<String> + Sync),
) -> Result<PathBuf, ResolveError> {
    let expanded = match Template::parse(written) {
        Ok(t) => t
            .resolve(lookup)
            .map(|r| r.value)
            .map_err(|m| ResolveError { variable: m.name })?,
        Err(_) => written.to_owned(),
    };
    let path = if expanded == "~" {
        PathBuf::from(home.ok_or_else(home_unset)?)
    } else if let Some(rest) = expanded.strip_prefix("~/") {
        Path::new(home.ok_or_else(home_unset)?).join(rest)
    } else {
        file_dir.join(expanded)
    };
    Ok(normalize(&path))
}

fn home_unset() -> ResolveError {
    ResolveError {
        variable: "HOME".to_owned(),
    }
}

/// `path` without `.` and with `..` applied (lexically; symlinks are the kernel's business).
pub(crate) fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            std::path::Component::CurDir => {}
            std::path::Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// The command as it will be executed (found on `path_var` when it names no directory) and the
/// interpreter its `#!` line names (with `env NAME` looked up too).
pub(crate) fn executables(command: &str, path_var: Option<&str>, file_dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Some(found) = which(command, path_var, file_dir) else {
        return out;
    };
    out.push(found.clone());
    if let Ok(real) = std::fs::canonicalize(&found)
        && real != found
    {
        out.push(real);
    }
    if let Some((interp, arg)) = shebang(&found) {
        let named_by_env = interp.file_name().is_some_and(|n| n == "env");
        out.push(interp);
        if named_by_env && let Some(name) = arg.and_then(|a| which(&a, path_var, file_dir)) {
            if let Ok(real) = std::fs::canonicalize(&name)
                && real != name
            {
                out.push(real);
            }
            out.push(name);
        }
    }
    out
}

/// Where `command` is: itself when it names a directory, else the first executable file of
/// that name on `path_var`.
pub(crate) fn which(command: &str, path_var: Option<&str>, file_dir: &Path) -> Option<PathBuf> {
    if command.contains('/') {
        return Some(normalize(&file_dir.join(command)));
    }
    std::env::split_paths(path_var?)
        .map(|dir| dir.join(command))
        .find(|p| p.is_file())
}

/// The interpreter and its first argument from a script's `#!` line.
fn shebang(file: &Path) -> Option<(PathBuf, Option<String>)> {
    use std::io::Read as _;
    let mut head = [0u8; 256];
    let n = std::fs::File::open(file).ok()?.read(&mut head).ok()?;
    let text = std::str::from_utf8(head.get(..n)?.strip_prefix(b"#!")?).ok()?;
    let line = text.lines().next()?;
    let mut words = line.split_whitespace();
    let interp = PathBuf::from(words.next()?);
    let arg = words.find(|w| !w.starts_with('-')).map(str::to_owned);
    Some((interp, arg))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve_against_the_file_home_and_references() {
        let lookup = |name: &str| match name {
            "HOME" => Some("/home/ann".to_owned()),
            "DATA" => Some("/srv/data".to_owned()),
            _ => None,
        };
        let dir = Path::new("/work/project");
        let r = |p| resolve_path(p, dir, Some("/home/ann"), &lookup);
        assert_eq!(r("."), Ok(PathBuf::from("/work/project")));
        assert_eq!(r("../shared"), Ok(PathBuf::from("/work/shared")));
        assert_eq!(r("~/.cache"), Ok(PathBuf::from("/home/ann/.cache")));
        assert_eq!(r("${DATA}/x"), Ok(PathBuf::from("/srv/data/x")));
        assert_eq!(
            r("${NOPE}"),
            Err(ResolveError {
                variable: "NOPE".into()
            })
        );
    }

    #[test]
    fn a_script_brings_its_interpreter() {
        let dir = tempfile::tempdir().expect("tempdir");
        let script = dir.path().join("tool");
        std::fs::write(&script, "#!/usr/bin/env sh\necho hi\n").expect("write");
        let exec = executables(
            script.to_str().expect("utf-8"),
            Some("/usr/bin:/bin"),
            dir.path(),
        );
        assert_eq!(exec.first(), Some(&script));
        assert!(exec.contains(&PathBuf::from("/usr/bin/env")), "{exec:?}");
        assert!(exec.iter().any(|p| p.ends_with("sh")), "{exec:?}");
    }
}
