//! The model-visible text bound: at most 50 KiB and 2,000 lines. Text is pushed
//! piece by piece; while it fits it is kept, and once it would not, everything so far and
//! everything after streams into one spill while only a bounded preview stays in memory. The
//! caller gets the visible text plus the spill's entry; this module never puts a host path into
//! model-visible text, only the basename.

use std::fmt::Write as _;
use std::io::{self, Write};

use super::spill::{SpillDir, SpillEntry, SpillWriter};

/// Most model-visible bytes.
pub const MAX_VISIBLE_BYTES: usize = 50 * 1024;
/// Most model-visible lines.
pub(crate) const MAX_VISIBLE_LINES: usize = 2_000;
/// Most bytes of preview kept when the text overflows.
pub(crate) const PREVIEW_BYTES: usize = 8 * 1024;
/// Most lines of preview kept when the text overflows.
pub(crate) const PREVIEW_LINES: usize = 100;

/// Where text past the bound went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overflow {
    /// The spill holding the whole text.
    pub spill: SpillEntry,
    /// The whole text's size in bytes.
    pub total_bytes: u64,
    /// The whole text's line count.
    pub total_lines: u64,
}

/// The bounded text once finished.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BoundedOutput {
    /// All the text, or a preview of it when it overflowed.
    pub text: String,
    /// Set when the text overflowed into a spill.
    pub overflow: Option<Overflow>,
}

impl BoundedOutput {
    /// The note that follows a preview: sizes and the spill's basename only.
    pub(crate) fn note(&self) -> Option<String> {
        self.overflow.as_ref().map(|o| {
            format!(
                "[output truncated: {} bytes, {} lines in total; the full text is in spill file \
                 {}]",
                o.total_bytes, o.total_lines, o.spill.basename
            )
        })
    }

    /// The text followed by the note, when there is one.
    pub(crate) fn render(&self) -> String {
        let mut out = self.text.clone();
        if let Some(note) = self.note() {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            let _ = write!(out, "{note}");
        }
        out
    }
}

fn newlines(text: &str) -> usize {
    memchr::memchr_iter(b'\n', text.as_bytes()).count()
}

/// The longest prefix of `text` within `max_bytes` (on a char boundary) and `max_lines` lines.
fn prefix(text: &str, max_bytes: usize, max_lines: usize) -> &str {
    let mut end = text.len().min(max_bytes);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let head = &text[..end];
    match head.match_indices('\n').nth(max_lines.saturating_sub(1)) {
        Some((at, _)) => &head[..at],
        None => head,
    }
}

/// Accumulates model-visible text within the bounds, spilling the whole once it overflows.
#[derive(Debug)]
pub(crate) struct BoundedText<'a> {
    spills: &'a SpillDir,
    origin: String,
    /// The text so far, or the preview once overflowed.
    buf: String,
    /// Newlines in `buf` while not overflowed; in the preview after.
    buf_newlines: usize,
    overflow: Option<SpillWriter<'a>>,
    /// Set once the preview was cut: nothing more may be appended to it.
    preview_full: bool,
    /// Bytes kept free below the bound for what a face appends (the next step's hint).
    room: usize,
    total_bytes: u64,
    total_newlines: u64,
}

impl<'a> BoundedText<'a> {
    /// Empty text whose overflow will spill into `spills`, labelled with `origin`.
    pub(crate) fn new(spills: &'a SpillDir, origin: &str) -> Self {
        Self {
            spills,
            origin: origin.to_owned(),
            buf: String::new(),
            buf_newlines: 0,
            overflow: None,
            preview_full: false,
            room: 0,
            total_bytes: 0,
            total_newlines: 0,
        }
    }

    /// The same text keeping `room` bytes free below the byte bound, for what follows it in
    /// the same envelope (a hint), so the whole stays within the bound.
    #[must_use]
    pub(crate) fn with_room(mut self, room: usize) -> Self {
        self.room = room;
        self
    }

    /// Whether anything has been pushed.
    pub(crate) fn is_empty(&self) -> bool {
        self.total_bytes == 0
    }

    /// Whether the last byte pushed was a newline (or nothing was pushed).
    pub(crate) fn at_line_start(&self) -> bool {
        self.overflow.is_some() || self.buf.is_empty() || self.buf.ends_with('\n')
    }

    /// Appends `text`. Linear in its length; the text is copied at most once more (to disk).
    pub(crate) fn push(&mut self, text: &str) -> io::Result<()> {
        if text.is_empty() {
            return Ok(());
        }
        let nl = newlines(text);
        self.total_bytes += text.len() as u64;
        self.total_newlines += nl as u64;
        if let Some(spill) = self.overflow.as_mut() {
            spill.write_all(text.as_bytes())?;
            self.fill_preview(text);
            return Ok(());
        }
        let fits = self.buf.len() + text.len() <= MAX_VISIBLE_BYTES.saturating_sub(self.room)
            && self.buf_newlines + nl < MAX_VISIBLE_LINES;
        if fits {
            self.buf.push_str(text);
            self.buf_newlines += nl;
            return Ok(());
        }
        let mut spill = self.spills.create_spill("text/plain", &self.origin)?;
        spill.write_all(self.buf.as_bytes())?;
        spill.write_all(text.as_bytes())?;
        self.overflow = Some(spill);
        let keep = prefix(&self.buf, PREVIEW_BYTES, PREVIEW_LINES).len();
        if keep < self.buf.len() {
            self.buf.truncate(keep);
            self.buf_newlines = newlines(&self.buf);
            self.preview_full = true;
        }
        self.fill_preview(text);
        Ok(())
    }

    /// Adds as much of `text` to the preview as its bounds allow.
    fn fill_preview(&mut self, text: &str) {
        if self.preview_full {
            return;
        }
        let room_bytes = PREVIEW_BYTES.saturating_sub(self.buf.len());
        let room_lines = PREVIEW_LINES.saturating_sub(self.buf_newlines);
        let head = prefix(text, room_bytes, room_lines);
        self.buf.push_str(head);
        self.buf_newlines += newlines(head);
        if head.len() < text.len() {
            self.preview_full = true;
        }
    }

    /// Finishes the text, closing its spill if it overflowed.
    pub(crate) fn finish(self) -> io::Result<BoundedOutput> {
        let overflow = match self.overflow {
            None => None,
            Some(spill) => Some(Overflow {
                spill: spill.finish()?,
                total_bytes: self.total_bytes,
                total_lines: self.total_newlines + 1,
            }),
        };
        Ok(BoundedOutput {
            text: self.buf,
            overflow,
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn dir() -> (tempfile::TempDir, SpillDir) {
        let base = tempfile::tempdir().unwrap();
        let spills = SpillDir::create(base.path()).unwrap();
        (base, spills)
    }

    #[test]
    fn room_is_kept_free_below_the_byte_bound() {
        let (_base, spills) = dir();
        let room = 200;
        let mut t = BoundedText::new(&spills, "tools.list").with_room(room);
        t.push(&"x".repeat(MAX_VISIBLE_BYTES - room)).unwrap();
        assert!(
            t.finish().unwrap().overflow.is_none(),
            "the bound less the room fits"
        );
        let mut t = BoundedText::new(&spills, "tools.list").with_room(room);
        t.push(&"x".repeat(MAX_VISIBLE_BYTES - room + 1)).unwrap();
        let out = t.finish().unwrap();
        assert!(out.overflow.is_some(), "one byte more spills");
        assert!(out.render().len() + room <= MAX_VISIBLE_BYTES);
    }

    #[test]
    fn small_text_stays_whole() {
        let (_base, spills) = dir();
        let mut t = BoundedText::new(&spills, "tools.call x");
        t.push("hello\n").unwrap();
        t.push("world").unwrap();
        let out = t.finish().unwrap();
        assert_eq!(out.text, "hello\nworld");
        assert!(out.overflow.is_none() && out.note().is_none());
        assert!(spills.spills().is_empty());
    }

    #[test]
    fn byte_bound_is_exact() {
        let (_base, spills) = dir();
        let mut t = BoundedText::new(&spills, "o");
        t.push(&"a".repeat(MAX_VISIBLE_BYTES)).unwrap();
        assert!(
            t.finish().unwrap().overflow.is_none(),
            "exactly 50 KiB fits"
        );
        let mut t = BoundedText::new(&spills, "o");
        t.push(&"a".repeat(MAX_VISIBLE_BYTES)).unwrap();
        t.push("b").unwrap();
        let out = t.finish().unwrap();
        let o = out.overflow.as_ref().unwrap();
        assert_eq!(o.total_bytes, MAX_VISIBLE_BYTES as u64 + 1);
        assert_eq!(out.text.len(), PREVIEW_BYTES);
        let on_disk = std::fs::read_to_string(&o.spill.path).unwrap();
        assert_eq!(on_disk.len(), MAX_VISIBLE_BYTES + 1);
        assert!(on_disk.ends_with('b'));
    }

    #[test]
    fn line_bound_is_exact() {
        let (_base, spills) = dir();
        let lines = |n: usize| vec!["x"; n].join("\n");
        let mut t = BoundedText::new(&spills, "o");
        t.push(&lines(MAX_VISIBLE_LINES)).unwrap();
        assert!(t.finish().unwrap().overflow.is_none(), "2,000 lines fit");
        let mut t = BoundedText::new(&spills, "o");
        t.push(&lines(MAX_VISIBLE_LINES + 1)).unwrap();
        let out = t.finish().unwrap();
        let o = out.overflow.as_ref().unwrap();
        assert_eq!(o.total_lines, MAX_VISIBLE_LINES as u64 + 1);
        assert_eq!(out.text.lines().count(), PREVIEW_LINES);
        let note = out.note().unwrap();
        assert!(note.contains(&o.spill.basename), "{note}");
        assert!(!note.contains('/'), "basename only: {note}");
    }

    #[test]
    fn preview_spans_pushes_after_overflow() {
        let (_base, spills) = dir();
        let mut t = BoundedText::new(&spills, "o");
        t.push("head\n").unwrap();
        t.push(&"z".repeat(MAX_VISIBLE_BYTES)).unwrap();
        t.push("tail").unwrap();
        let out = t.finish().unwrap();
        assert!(out.text.starts_with("head\nzzz"));
        assert_eq!(out.text.len(), PREVIEW_BYTES);
        let on_disk = std::fs::read_to_string(&out.overflow.unwrap().spill.path).unwrap();
        assert!(on_disk.starts_with("head\n") && on_disk.ends_with("zzztail"));
    }

    #[test]
    fn a_cut_preview_is_never_extended() {
        let (_base, spills) = dir();
        let mut t = BoundedText::new(&spills, "o");
        t.push(&"l\n".repeat(150)).unwrap();
        t.push(&"y".repeat(MAX_VISIBLE_BYTES)).unwrap();
        let out = t.finish().unwrap();
        assert_eq!(out.text, vec!["l"; PREVIEW_LINES].join("\n"));
    }

    #[test]
    fn prefix_respects_char_boundaries() {
        assert_eq!(prefix("ééé", 3, 10), "é");
        assert_eq!(prefix("a\nb\nc", 100, 2), "a\nb");
    }
}
