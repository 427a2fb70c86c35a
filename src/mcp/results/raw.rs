//! A response frame kept as the server sent it, for the raw JSON view: secrets redacted (the
//! one redactor), nothing else changed — no pretty-printing, no sanitising, which the face that
//! draws it does line by line. A small frame stays in memory; a larger one is written to a raw
//! spill beside the text spills, in the same directory and with the same lifecycle (listed in
//! the spills view, removed at exit), so a face reads it by lines without holding it.

use std::borrow::Cow;
use std::io::Write as _;
use std::path::PathBuf;

use super::ShapeContext;

/// The largest frame kept in memory; larger ones go to a raw spill.
pub const RAW_INLINE_BYTES: usize = 64 * 1024;

/// A response frame as the server sent it, secrets redacted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RawJson {
    /// A small frame, whole (not yet sanitised: the face sanitises each line it shows).
    Inline(String),
    /// A larger frame, in a raw spill.
    Spilled {
        /// The spill's name.
        basename: String,
        /// Its full path (operator-facing only).
        path: PathBuf,
        /// Its size in bytes.
        size: u64,
    },
}

/// Keeps `frame` for the raw view of the operation `ctx` shapes: redacted, inline when it is
/// at most [`RAW_INLINE_BYTES`], else in a raw spill.
///
/// # Errors
/// Writing the raw spill failed.
pub fn keep_raw(ctx: &ShapeContext<'_>, frame: &[u8]) -> std::io::Result<RawJson> {
    let text = String::from_utf8_lossy(frame);
    // Copied only when a secret was found.
    let owned = match ctx.redactor.redact(&text) {
        Cow::Owned(redacted) => Some(redacted),
        Cow::Borrowed(_) => None,
    };
    let redacted: &str = owned.as_deref().unwrap_or(&text);
    if redacted.len() <= RAW_INLINE_BYTES {
        return Ok(RawJson::Inline(redacted.to_owned()));
    }
    let origin = format!("{} (raw JSON)", ctx.origin);
    let mut spill = ctx.spills.create_spill("application/json", &origin)?;
    spill.write_all(redacted.as_bytes())?;
    let entry = spill.finish()?;
    Ok(RawJson::Spilled {
        basename: entry.basename,
        path: entry.path,
        size: entry.size,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::results::{Redactor, SpillDir};

    #[test]
    fn a_small_frame_stays_inline_and_a_large_one_is_a_raw_spill_removed_with_the_dir() {
        let base = tempfile::tempdir().expect("tempdir");
        let spills = SpillDir::create(base.path()).expect("spill dir");
        let redactor = Redactor::new(vec!["s3cret-token".to_owned()]);
        let ctx = ShapeContext {
            server: "fx",
            origin: "tools.call echo",
            spills: &spills,
            redactor: &redactor,
            keep_data: false,
        };
        let small = br#"{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"key s3cret-token \u001b"}]}}"#;
        let RawJson::Inline(text) = keep_raw(&ctx, small).expect("kept") else {
            panic!("a small frame stays inline");
        };
        assert!(!text.contains("s3cret-token"), "{text}");
        assert_eq!(
            text.replace(crate::mcp::connection::REDACTED, "s3cret-token"),
            String::from_utf8_lossy(small),
            "nothing but the secret changed"
        );
        let mut large =
            br#"{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":""#.to_vec();
        large.resize(large.len() + RAW_INLINE_BYTES, b'x');
        large.extend_from_slice(br#""}]}}"#);
        let RawJson::Spilled { path, size, .. } = keep_raw(&ctx, &large).expect("kept") else {
            panic!("a large frame is spilled");
        };
        assert_eq!(std::fs::read(&path).expect("read"), large, "byte for byte");
        assert_eq!(size, large.len() as u64);
        assert!(
            spills
                .spills()
                .iter()
                .any(|e| e.path == path && e.origin == "tools.call echo (raw JSON)"),
            "listed with the other spills"
        );
        let dir = spills.path().to_path_buf();
        drop(spills);
        assert!(!path.exists() && !dir.exists(), "removed at exit");
    }
}
