//! Names the commit the binary was built from, for `mcpdeck --version`.
//!
//! In order: `MCPDECK_COMMIT` from the build's environment (for packagers building from a
//! tarball), the git checkout's `HEAD`, the `.cargo_vcs_info.json` that `cargo package` writes
//! into a published crate, else `unknown`. A build without git or without `.git` still works.

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=MCPDECK_COMMIT");
    let dir = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".to_owned());
    let dir = Path::new(&dir);
    let commit = std::env::var("MCPDECK_COMMIT")
        .ok()
        .filter(|c| is_commit(c))
        .or_else(|| from_git(dir))
        .or_else(|| from_vcs_info(dir))
        .map_or_else(|| "unknown".to_owned(), |c| c.chars().take(12).collect());
    println!("cargo:rustc-env=MCPDECK_COMMIT={commit}");
}

fn is_commit(text: &str) -> bool {
    text.len() >= 7 && text.bytes().all(|b| b.is_ascii_hexdigit())
}

fn git(dir: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8(out.stdout).ok()?;
    Some(text.trim().to_owned())
}

/// `HEAD` of the checkout `dir` is in, and rebuild hints for when it moves.
fn from_git(dir: &Path) -> Option<String> {
    // Only the checkout this crate is the top of: a tarball unpacked inside some other
    // repository must not report that repository's commit.
    let top = git(dir, &["rev-parse", "--show-toplevel"])?;
    if std::fs::canonicalize(&top).ok()? != std::fs::canonicalize(dir).ok()? {
        return None;
    }
    let commit = git(dir, &["rev-parse", "HEAD"]).filter(|c| is_commit(c))?;
    // Cargo treats a watched path that does not exist as always changed (every build would
    // compile the crate again), so only paths that exist are watched: `packed-refs` appears
    // once git packs refs, and a branch that lives only there is watched through the folder
    // its loose file would be written to.
    for name in ["HEAD", "packed-refs"] {
        if let Some(path) = git(dir, &["rev-parse", "--git-path", name]) {
            watch(&dir.join(path));
        }
    }
    if let Some(branch) = git(dir, &["symbolic-ref", "-q", "HEAD"])
        && let Some(path) = git(dir, &["rev-parse", "--git-path", &branch])
    {
        let path = dir.join(path);
        match path.parent() {
            Some(folder) if !path.exists() => watch(folder),
            _ => watch(&path),
        }
    }
    Some(commit)
}

/// Asks cargo to run this script again when `path`, if it exists, changes.
fn watch(path: &Path) {
    if path.exists() {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}

/// The `"sha1"` that `cargo package` records.
fn from_vcs_info(dir: &Path) -> Option<String> {
    let path = dir.join(".cargo_vcs_info.json");
    let text = std::fs::read_to_string(&path).ok()?;
    println!("cargo:rerun-if-changed={}", path.display());
    let start = text.find("\"sha1\"")? + "\"sha1\"".len();
    let rest = text[start..].trim_start().strip_prefix(':')?.trim_start();
    let value = rest.strip_prefix('"')?;
    let end = value.find('"')?;
    Some(value[..end].to_owned()).filter(|c| is_commit(c))
}
