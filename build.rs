//! Names the commit the binary was built from, for `mcpdeck --version`, and compresses the
//! token-cost vocabulary into `OUT_DIR`.
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
    vocabulary();
}

/// Writes the `o200k_base` vocabulary (from `tiktoken-rs`) as two raw DEFLATE streams in rank
/// order: `o200k.lens` (one byte per token: its length) and `o200k.bytes` (the tokens' bytes,
/// concatenated). Split that way it compresses to about 0.95 MiB, against 3.4 MiB of base64
/// text in the crate; `src/mcp/cost.rs` inflates it on first use and rebuilds the encoder.
fn vocabulary() {
    let Ok(out) = std::env::var("OUT_DIR") else {
        panic!("cargo sets OUT_DIR for build scripts");
    };
    let bpe = match tiktoken_rs::o200k_base() {
        Ok(bpe) => bpe,
        Err(e) => panic!("tiktoken-rs's o200k_base does not load: {e}"),
    };
    let (mut lens, mut bytes) = (Vec::new(), Vec::new());
    // Ranks are dense from 0; the first rank that does not decode ends the ordinary tokens
    // (the special tokens sit above a gap and are not counted as text).
    let mut rank = 0;
    while let Ok(token) = bpe.decode_bytes(&[rank]) {
        let Ok(len) = u8::try_from(token.len()) else {
            panic!("token {rank} is longer than 255 bytes");
        };
        lens.push(len);
        bytes.extend_from_slice(&token);
        rank += 1;
    }
    for (name, data) in [("o200k.lens", &lens), ("o200k.bytes", &bytes)] {
        let packed = miniz_oxide::deflate::compress_to_vec(data, 10);
        if let Err(e) = std::fs::write(Path::new(&out).join(name), packed) {
            panic!("cannot write {name}: {e}");
        }
    }
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
