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
    release_link_args();
}

/// Writes the `o200k_base` vocabulary (from `tiktoken-rs`) in rank order as two raw DEFLATE
/// streams, `o200k.left` and `o200k.right`. Every token is one byte or the concatenation of two
/// tokens of lower rank (that is how a BPE vocabulary grows), so each rank is stored as a pair of
/// ranks, `left` then `right`; a one-byte token is its byte in `left` and `ONE_BYTE` in `right`.
/// Each stream holds 3-byte little-endian values split into planes (every low byte, then every
/// middle byte, then every high byte), which DEFLATE packs better. That is about 0.72 MiB, against
/// 0.95 MiB for the tokens' bytes themselves and 3.4 MiB of base64 text in the crate;
/// `src/mcp/cost.rs` rebuilds the tokens on first use.
fn vocabulary() {
    const ONE_BYTE: u32 = 0x00ff_ffff;
    let Ok(out) = std::env::var("OUT_DIR") else {
        panic!("cargo sets OUT_DIR for build scripts");
    };
    let bpe = match tiktoken_rs::o200k_base() {
        Ok(bpe) => bpe,
        Err(e) => panic!("tiktoken-rs's o200k_base does not load: {e}"),
    };
    // Ranks are dense from 0; the first rank that does not decode ends the ordinary tokens
    // (the special tokens sit above a gap and are not counted as text).
    let mut tokens: Vec<Vec<u8>> = Vec::new();
    while let Ok(token) = bpe.decode_bytes(&[u32::try_from(tokens.len()).unwrap_or(u32::MAX)]) {
        tokens.push(token);
    }
    let ranks: std::collections::HashMap<&[u8], u32> = tokens
        .iter()
        .enumerate()
        .map(|(rank, token)| (token.as_slice(), u32::try_from(rank).unwrap_or(u32::MAX)))
        .collect();
    let (mut left, mut right) = (Vec::new(), Vec::new());
    for (rank, token) in tokens.iter().enumerate() {
        let pair = match token.as_slice() {
            [byte] => (u32::from(*byte), ONE_BYTE),
            _ => (1..token.len())
                .find_map(|cut| {
                    let a = *ranks.get(&token[..cut])?;
                    let b = *ranks.get(&token[cut..])?;
                    (usize::try_from(a.max(b)).ok()? < rank).then_some((a, b))
                })
                .unwrap_or_else(|| panic!("token {rank} is not two earlier tokens")),
        };
        left.push(pair.0);
        right.push(pair.1);
    }
    for (name, values) in [("o200k.left", &left), ("o200k.right", &right)] {
        let planes: Vec<u8> = (0..3)
            .flat_map(|plane| values.iter().map(move |v| v.to_le_bytes()[plane]))
            .collect();
        let packed = miniz_oxide::deflate::compress_to_vec(&planes, 10);
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

/// Link-time size cuts for release builds on `x86_64` Linux, where rustc links with its bundled
/// LLD:
/// - `--icf=all` folds functions (and read-only data) that compiled to identical bytes, which
///   generic code produces a lot of;
/// - a linker script drops the unwind tables (`.eh_frame`, its index and the landing-pad tables).
///   A release build aborts on panic, so nothing ever unwinds: the panic hook restores the
///   terminal, ends every child and removes every spill, then the process aborts. The tables
///   would only serve a backtrace, and the stripped binary's backtrace has no names anyway;
/// - when the C library the binary is built against is glibc 2.36 or later (the first to load
///   them), relative relocations are packed (`-z pack-relative-relocs`, `DT_RELR`): the same
///   position-independent binary, with its relocation table about 20 times smaller.
///
/// `MCPDECK_PLAIN_LINK=1` links without any of them, for a toolchain whose linker is not LLD.
fn release_link_args() {
    println!("cargo:rerun-if-env-changed=MCPDECK_PLAIN_LINK");
    let release = std::env::var("PROFILE").is_ok_and(|p| p == "release");
    let target = std::env::var("TARGET").unwrap_or_default();
    if !release
        || target != "x86_64-unknown-linux-gnu"
        || std::env::var_os("MCPDECK_PLAIN_LINK").is_some()
    {
        return;
    }
    let Ok(out) = std::env::var("OUT_DIR") else {
        panic!("cargo sets OUT_DIR for build scripts");
    };
    let script = Path::new(&out).join("no-unwind-tables.ld");
    let text = "SECTIONS { /DISCARD/ : { *(.eh_frame) *(.eh_frame_hdr) *(.gcc_except_table) \
                *(.gcc_except_table.*) } } INSERT AFTER .text;\n";
    if let Err(e) = std::fs::write(&script, text) {
        panic!("cannot write {}: {e}", script.display());
    }
    println!("cargo:rustc-link-arg-bins=-Wl,--icf=all");
    println!("cargo:rustc-link-arg-bins=-Wl,-T,{}", script.display());
    let host = std::env::var("HOST").unwrap_or_default();
    if host == target && glibc_at_least(2, 36) {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}

/// Whether this machine's glibc (`getconf GNU_LIBC_VERSION`: "glibc 2.36") is at least
/// `major.minor`.
fn glibc_at_least(major: u32, minor: u32) -> bool {
    let Ok(out) = Command::new("getconf").arg("GNU_LIBC_VERSION").output() else {
        return false;
    };
    let text = String::from_utf8_lossy(&out.stdout);
    let mut parts = text.trim().trim_start_matches("glibc ").split('.');
    let number = |p: Option<&str>| p.and_then(|p| p.parse::<u32>().ok());
    match (number(parts.next()), number(parts.next())) {
        (Some(a), Some(b)) => (a, b) >= (major, minor),
        _ => false,
    }
}
