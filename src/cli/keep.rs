//! `--output DIR` and `--full`: results a script can keep. Spills live in a per-process
//! directory that is removed when mcpdeck exits; `--output` copies the whole text result and
//! every media item into `DIR` before that happens (created 0700 when missing; files 0600,
//! created `O_EXCL` so nothing is ever overwritten), named after the content — `result.txt`,
//! `image-1.png`, `audio-1.wav`, `resource-<name>` — and `--full` prints the whole text
//! instead of the 50 KiB / 2,000-line preview, streamed from the spill to stdout (read back
//! whole only for `--json` and `--output`).

use std::fs::{DirBuilder, OpenOptions};
use std::io::{self, Write as _};
use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _};
use std::path::{Path, PathBuf};

use crate::mcp::engine::Success;
use crate::mcp::results::SpillEntry;
use crate::mcp::sanitize::sanitize;

/// The MIME type the bound gives the spill holding a whole overflowing text (media and
/// resource spills carry the server's type, and textual resources are never spilled alone).
const OVERFLOW_MIME: &str = "text/plain";

pub use crate::mcp::engine::KeptFile;

/// The spill holding the whole text when the result overflowed its bound.
pub fn overflow_spill(success: &Success) -> Option<&SpillEntry> {
    success.spills.iter().find(|s| s.mime == OVERFLOW_MIME)
}

/// The whole text of a result: the overflow spill's content, or the text when it fit.
pub fn full_text(success: &Success) -> io::Result<String> {
    match overflow_spill(success) {
        Some(spill) => std::fs::read_to_string(&spill.path),
        None => Ok(success.text.clone()),
    }
}

/// How much of a streamed text is gathered before it is sanitised and written (whole lines:
/// a longer line is gathered whole).
const STREAM_BATCH: usize = 64 * 1024;

/// Writes the whole text of a result to `out` through the sanitiser, as [`full_text`] would
/// read it, without holding it whole: the spill is read in batches of whole lines (so a tab's
/// column and a CRLF never straddle two batches and the output is byte for byte what
/// sanitising the whole text gives). Returns the last byte of the text.
pub fn stream_full_text(success: &Success, out: &mut impl io::Write) -> io::Result<Option<u8>> {
    let Some(spill) = overflow_spill(success) else {
        out.write_all(sanitize(&success.text).as_bytes())?;
        return Ok(success.text.as_bytes().last().copied());
    };
    stream_sanitized(&spill.path, out)
}

/// Writes the file at `path` (UTF-8 text) to `out` through the sanitiser in batches of whole
/// lines; returns its last byte.
fn stream_sanitized(path: &Path, out: &mut impl io::Write) -> io::Result<Option<u8>> {
    use std::io::BufRead as _;
    let mut reader = io::BufReader::with_capacity(STREAM_BATCH, std::fs::File::open(path)?);
    let mut batch: Vec<u8> = Vec::with_capacity(2 * STREAM_BATCH);
    let mut last = None;
    loop {
        let n = reader.read_until(b'\n', &mut batch)?;
        if n > 0 && batch.len() < STREAM_BATCH {
            continue;
        }
        if !batch.is_empty() {
            // A batch ends at a newline or at the end, so it is whole UTF-8 as the text was.
            let text = std::str::from_utf8(&batch)
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
            out.write_all(sanitize(text).as_bytes())?;
            last = batch.last().copied();
            batch.clear();
        }
        if n == 0 {
            return Ok(last);
        }
    }
}

/// Creates `dir` (and its parents) with mode 0700 when it does not exist.
pub fn ensure_dir(dir: &Path) -> io::Result<()> {
    DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

/// A file name from server text: `[A-Za-z0-9._-]` kept, anything else `_`, at most 64
/// characters, never hidden and never empty.
fn safe_name(name: &str) -> String {
    let mut out: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    while out.starts_with('.') {
        out.remove(0);
    }
    if out.is_empty() {
        out.push_str("unnamed");
    }
    out
}

/// Splits `name.ext` into stem and `.ext` (the extension may be empty).
fn split_ext(name: &str) -> (&str, &str) {
    match name.rfind('.') {
        Some(at) if at > 0 => (&name[..at], &name[at..]),
        _ => (name, ""),
    }
}

/// Creates `dir/name` exclusively (0600); on a clash, `stem-2.ext`, `stem-3.ext`, ...
fn create_exclusive(dir: &Path, name: &str) -> io::Result<(PathBuf, std::fs::File)> {
    let (stem, ext) = split_ext(name);
    for n in 1..=1000 {
        let candidate = if n == 1 {
            dir.join(name)
        } else {
            dir.join(format!("{stem}-{n}{ext}"))
        };
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&candidate)
        {
            Ok(file) => return Ok((candidate, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!("{name} and 999 variants already exist in {}", dir.display()),
    ))
}

/// Writes the whole text result and every media spill of `success` into `dir`. `resource`
/// names a resource read by name (its spill is called `resource-<name>`).
pub fn keep(dir: &Path, success: &Success, resource: Option<&str>) -> io::Result<Vec<KeptFile>> {
    ensure_dir(dir)?;
    let mut kept = Vec::new();
    let text = full_text(success)?;
    let (path, mut file) = create_exclusive(dir, "result.txt")?;
    file.write_all(text.as_bytes())?;
    kept.push(KeptFile {
        path,
        size: text.len() as u64,
        mime_type: "text/plain; charset=utf-8".to_owned(),
        spill: overflow_spill(success).map(|s| s.basename.clone()),
    });
    let (mut images, mut audio, mut others) = (0, 0, 0);
    for spill in &success.spills {
        if spill.mime == OVERFLOW_MIME {
            continue;
        }
        let ext = split_ext(&spill.basename).1;
        let name = if spill.mime.starts_with("image/") {
            images += 1;
            format!("image-{images}{ext}")
        } else if spill.mime.starts_with("audio/") {
            audio += 1;
            format!("audio-{audio}{ext}")
        } else {
            others += 1;
            match resource {
                Some(r) if others == 1 => format!("resource-{}{ext}", safe_name(r)),
                _ => format!("resource-{others}{ext}"),
            }
        };
        let (path, mut file) = create_exclusive(dir, &name)?;
        let mut source = std::fs::File::open(&spill.path)?;
        let size = io::copy(&mut source, &mut file)?;
        kept.push(KeptFile {
            path,
            size,
            mime_type: spill.mime.clone(),
            spill: Some(spill.basename.clone()),
        });
    }
    Ok(kept)
}

/// `text` with every kept spill's basename replaced by the file's path, so the printed text
/// names the files that outlive the process.
pub fn name_files(text: &str, kept: &[KeptFile]) -> String {
    let mut out = text.to_owned();
    for file in kept {
        if let Some(spill) = &file.spill {
            let path = file.path.display().to_string();
            out = out
                .replace(&format!("spill file {spill}"), &format!("file {path}"))
                .replace(spill.as_str(), &path);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_streamed_text_is_what_sanitising_it_whole_gives() {
        // Tabs, CRLF, escapes and multi-byte characters on every side of each batch boundary,
        // and one line longer than a batch.
        use std::fmt::Write as _;
        let mut text = String::new();
        for i in 0..40_000 {
            let _ = write!(text, "{i}\tcol\u{1b}[31mé✓\r\n");
        }
        text.push_str(&"\tlong ✓".repeat(30_000));
        text.push_str("\nend\tno newline\u{202e}");
        assert!(text.len() > 3 * STREAM_BATCH);
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("spill.txt");
        std::fs::write(&path, &text).expect("write");
        let mut out = Vec::new();
        let last = stream_sanitized(&path, &mut out).expect("streams");
        assert_eq!(String::from_utf8(out).expect("utf8"), sanitize(&text));
        assert_eq!(last, Some(text.as_bytes()[text.len() - 1]));
    }

    #[test]
    fn names_are_safe_and_never_hidden() {
        assert_eq!(safe_name("../etc/passwd"), "_etc_passwd");
        assert_eq!(safe_name("a b.txt"), "a_b.txt");
        assert_eq!(safe_name("..."), "unnamed");
        assert_eq!(safe_name(&"x".repeat(100)).len(), 64);
    }

    #[test]
    fn clashes_get_a_new_name_never_an_overwrite() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (first, _) = create_exclusive(dir.path(), "result.txt").expect("first");
        let (second, _) = create_exclusive(dir.path(), "result.txt").expect("second");
        assert_eq!(
            first.file_name().and_then(|n| n.to_str()),
            Some("result.txt")
        );
        assert_eq!(
            second.file_name().and_then(|n| n.to_str()),
            Some("result-2.txt")
        );
    }
}
