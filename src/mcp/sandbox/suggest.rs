//! `mcpdeck sandbox suggest SERVER`: a starting profile derived from a stdio definition — the
//! package its script belongs to, the npm or uv cache for `npx`/`uvx`, the paths in its
//! arguments, its `cwd` and the roots it is offered. What a server opens by a name it computes
//! at run time, it cannot know; the notes say so.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::profile::{normalize, which};
use crate::mcp::config::StdioDef;

/// A suggested `sandbox` block and what it could not know.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Suggestion {
    /// The block to paste into the definition.
    pub sandbox: Value,
    /// What the profile rests on and what it cannot know.
    pub notes: Vec<String>,
}

/// Derives a profile for `def` (its file in `file_dir`), offered `roots`; `home` shortens paths
/// to `~/…` and finds the npm and uv caches; `path_var` finds the command.
pub fn suggest(
    def: &StdioDef,
    file_dir: &Path,
    roots: &[PathBuf],
    home: Option<&Path>,
    path_var: Option<&str>,
) -> Suggestion {
    let mut read: Vec<PathBuf> = Vec::new();
    let mut write: Vec<PathBuf> = Vec::new();
    let mut notes = Vec::new();
    let cwd = def
        .cwd
        .as_ref()
        .map_or_else(|| file_dir.to_path_buf(), |c| file_dir.join(c));
    let command = which(&def.command, path_var, &cwd);
    let name = Path::new(&def.command)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let fetches = matches!(name.as_str(), "npx" | "uvx" | "bunx" | "pnpx");
    if let (true, Some(home)) = (fetches, home) {
        let caches: &[&str] = if name == "uvx" {
            &[".cache/uv", ".local/share/uv"]
        } else {
            &[".npm", ".cache/node"]
        };
        write.extend(caches.iter().map(|c| home.join(c)));
        notes.push(format!(
            "`{name}` downloads the package into its cache: TCP 443 to any host (and DNS) \
             is allowed; once it is cached, `\"net\": \"none\"` runs it offline"
        ));
    }
    if let Some(command) = &command {
        read.push(package_root(command));
    }
    for arg in &def.args {
        let path = normalize(&cwd.join(arg));
        if arg.starts_with('-') || !(arg.contains('/') || arg == ".") || !path.exists() {
            continue;
        }
        if path.is_dir() {
            write.push(path);
        } else {
            read.push(package_root(&path));
        }
    }
    read.push(cwd);
    read.extend(roots.iter().cloned());
    notes.push(
        "directories in the arguments are writable, files and their packages readable; \
         narrow `write` to `read` where the server only reads"
            .to_owned(),
    );
    notes.push(
        "it cannot know files the server opens by names it computes (configuration in your \
         home, sockets, other programs it starts) or the hosts it calls"
            .to_owned(),
    );
    let tidy = |list: Vec<PathBuf>, also: &[PathBuf]| -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for p in list {
            if also.iter().any(|a| p.starts_with(a)) || out.contains(&shown(&p, home)) {
                continue;
            }
            if !p.starts_with("/usr") && !p.starts_with("/bin") && !p.starts_with("/lib") {
                out.push(shown(&p, home));
            }
        }
        out
    };
    let write_list = tidy(write.clone(), &[]);
    let read_list = tidy(read, &write);
    let net = if fetches {
        json!({"connect": [443]})
    } else {
        json!("none")
    };
    Suggestion {
        sandbox: json!({"read": read_list, "write": write_list, "net": net}),
        notes,
    }
}

/// `~/rest` for a path under `home`, else the path.
fn shown(path: &Path, home: Option<&Path>) -> String {
    match home.and_then(|h| path.strip_prefix(h).ok()) {
        Some(rest) => format!("~/{}", rest.display()),
        None => path.display().to_string(),
    }
}

/// What a file needs beside it: the outermost `node_modules` it lies in (its dependencies
/// resolve there), else the nearest directory with a `package.json` or `pyproject.toml`, else
/// the file's own directory.
fn package_root(file: &Path) -> PathBuf {
    let real = std::fs::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    if let Some(modules) = real
        .ancestors()
        .filter(|a| a.file_name().is_some_and(|n| n == "node_modules"))
        .last()
    {
        return modules.to_path_buf();
    }
    real.ancestors()
        .skip(1)
        .find(|a| a.join("package.json").is_file() || a.join("pyproject.toml").is_file())
        .or_else(|| real.parent())
        .unwrap_or(&real)
        .to_path_buf()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_script_in_node_modules_brings_the_modules_and_a_directory_argument_is_writable() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        let script = root.join("app/node_modules/@s/pkg/dist/index.js");
        std::fs::create_dir_all(script.parent().expect("parent")).expect("mkdir");
        std::fs::write(&script, "").expect("write");
        std::fs::create_dir_all(root.join("data")).expect("mkdir");
        let def = StdioDef {
            command: "node".into(),
            args: vec![
                script.display().to_string(),
                "./data".into(),
                "--flag".into(),
            ],
            cwd: None,
            env: std::collections::BTreeMap::new(),
            sandbox: None,
        };
        let s = suggest(&def, root, &[], None, Some("/usr/bin:/bin"));
        let modules = std::fs::canonicalize(root.join("app/node_modules")).expect("real");
        assert_eq!(
            s.sandbox["write"],
            json!([root.join("data").display().to_string()])
        );
        let read = s.sandbox["read"].as_array().expect("read");
        assert!(
            read.contains(&json!(modules.display().to_string())),
            "{read:?}"
        );
        assert_eq!(s.sandbox["net"], "none");
        let npx = StdioDef {
            command: "npx".into(),
            args: vec!["-y".into(), "pkg@1".into()],
            ..def
        };
        let s = suggest(&npx, root, &[], Some(Path::new("/home/ann")), None);
        assert_eq!(s.sandbox["net"], json!({"connect": [443]}));
        assert!(
            s.sandbox["write"]
                .as_array()
                .expect("write")
                .contains(&json!("~/.npm"))
        );
    }
}
