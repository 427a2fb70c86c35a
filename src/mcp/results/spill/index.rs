//! Reading a spill file by lines without holding it: one streaming pass builds a sparse index of
//! line offsets (every [`STRIDE`]th line's start), then a window of lines is read by seeking to
//! the nearest checkpoint; a search streams over the file once. This is the reading side only;
//! writing spills is `spill.rs`.
//!
//! A line ends at `\n` (a `\r` before it is dropped, so CRLF files read like LF ones) or at the
//! end of the file (a last line without a newline is a line). A line longer than [`LINE_CAP`]
//! bytes is cut into rows of that many bytes, so no read ever holds more than a window's worth,
//! even of a one-line 8 MiB JSON document. Bytes are decoded lossily; callers sanitise.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Seek, SeekFrom};
use std::path::Path;

/// The longest line read as one; longer lines are cut into lines of this many bytes.
pub const LINE_CAP: usize = 16 * 1024;
/// Every how many lines the index keeps an offset.
const STRIDE: usize = 64;
/// The read buffer.
const BUFFER: usize = 64 * 1024;

/// Where each [`STRIDE`]th line of a file starts, and how many lines the file has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineIndex {
    /// `checkpoints[k]` is the byte offset of line `k * STRIDE`.
    checkpoints: Vec<u64>,
    /// How many lines the file has.
    lines: usize,
    /// The file's size when indexed.
    size: u64,
}

/// A window of a spill's lines, as the pager shows it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SpillWindow {
    /// The index of the first line read.
    pub first: usize,
    /// The lines read (lossy UTF-8, not yet sanitised).
    pub lines: Vec<String>,
    /// How many lines the whole file has.
    pub total_lines: usize,
    /// The file's size in bytes.
    pub size: u64,
    /// The line a search found, when the read was a search (`None`: no match).
    pub found: Option<usize>,
}

/// Reads the next line's bytes into `out` (without its end); returns the bytes consumed, 0 at
/// the end of the file.
fn next_line(reader: &mut impl BufRead, out: &mut Vec<u8>) -> io::Result<usize> {
    out.clear();
    let mut consumed = 0;
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(consumed);
        }
        let room = LINE_CAP - out.len();
        // One byte past the room, so a newline right after a full line ends that line.
        let scan = &buf[..buf.len().min(room + 1)];
        if let Some(at) = memchr::memchr(b'\n', scan) {
            out.extend_from_slice(&scan[..at]);
            reader.consume(at + 1);
            if out.last() == Some(&b'\r') {
                out.pop();
            }
            return Ok(consumed + at + 1);
        }
        let take = scan.len().min(room);
        out.extend_from_slice(&scan[..take]);
        reader.consume(take);
        consumed += take;
        if out.len() >= LINE_CAP {
            return Ok(consumed);
        }
    }
}

impl LineIndex {
    /// Indexes the file at `path` in one streaming pass.
    pub fn build(path: &Path) -> io::Result<Self> {
        let file = File::open(path)?;
        let size = file.metadata()?.len();
        let mut reader = BufReader::with_capacity(BUFFER, file);
        let mut line = Vec::new();
        let (mut checkpoints, mut lines, mut offset) = (Vec::new(), 0usize, 0u64);
        loop {
            if lines.is_multiple_of(STRIDE) {
                checkpoints.push(offset);
            }
            let n = next_line(&mut reader, &mut line)?;
            if n == 0 {
                break;
            }
            offset += n as u64;
            lines += 1;
        }
        Ok(Self {
            checkpoints,
            lines,
            size,
        })
    }

    /// How many lines the file has.
    pub fn lines(&self) -> usize {
        self.lines
    }

    /// The file's size in bytes.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// A reader positioned at the start of line `line` (at most the last line).
    fn reader_at(&self, path: &Path, line: usize) -> io::Result<BufReader<File>> {
        let line = line.min(self.lines);
        let mut file = File::open(path)?;
        let k = (line / STRIDE).min(self.checkpoints.len().saturating_sub(1));
        file.seek(SeekFrom::Start(
            self.checkpoints.get(k).copied().unwrap_or(0),
        ))?;
        let mut reader = BufReader::with_capacity(BUFFER, file);
        let mut skip = Vec::new();
        for _ in k * STRIDE..line {
            next_line(&mut reader, &mut skip)?;
        }
        Ok(reader)
    }

    /// Up to `count` lines from `first`, stopping early once `max_bytes` were read (always at
    /// least one line when there is one).
    pub fn read(
        &self,
        path: &Path,
        first: usize,
        count: usize,
        max_bytes: usize,
    ) -> io::Result<SpillWindow> {
        let first = first.min(self.lines);
        let mut reader = self.reader_at(path, first)?;
        let (mut lines, mut bytes, mut line) = (Vec::new(), 0, Vec::new());
        while lines.len() < count && first + lines.len() < self.lines {
            if !lines.is_empty() && bytes >= max_bytes {
                break;
            }
            if next_line(&mut reader, &mut line)? == 0 {
                break;
            }
            bytes += line.len();
            lines.push(String::from_utf8_lossy(&line).into_owned());
        }
        Ok(SpillWindow {
            first,
            lines,
            total_lines: self.lines,
            size: self.size,
            found: None,
        })
    }

    /// The window of at most `count` lines that ends at the file's last line, within
    /// `max_bytes` (always the last line): lines are dropped from the front as the budget is
    /// spent, so no more than the budget and one line is held.
    pub fn read_end(&self, path: &Path, count: usize, max_bytes: usize) -> io::Result<SpillWindow> {
        let mut first = self.lines.saturating_sub(count.max(1));
        let mut reader = self.reader_at(path, first)?;
        let (mut lines, mut bytes, mut line) = (VecDeque::new(), 0, Vec::new());
        while next_line(&mut reader, &mut line)? > 0 {
            let text = String::from_utf8_lossy(&line).into_owned();
            bytes += text.len();
            lines.push_back(text);
            while lines.len() > 1 && bytes > max_bytes {
                bytes -= lines.pop_front().map_or(0, |l| l.len());
                first += 1;
            }
        }
        Ok(SpillWindow {
            first,
            lines: lines.into(),
            total_lines: self.lines,
            size: self.size,
            found: None,
        })
    }
}

/// The line of the next match of `query` (case-insensitive) in the file at `path`, searching
/// forward from line `from` (or backward from the line before it), wrapping around. One
/// streaming pass. A match that straddles a [`LINE_CAP`] cut is found on the line it starts in:
/// the cut line's last bytes are kept and joined with the next line's first ones.
pub fn search(path: &Path, query: &str, from: usize, forward: bool) -> io::Result<Option<usize>> {
    let query = query.to_lowercase();
    if query.is_empty() {
        return Ok(None);
    }
    let mut reader = BufReader::with_capacity(BUFFER, File::open(path)?);
    let mut line = Vec::new();
    // The first match at or after `from`, the last before it, the first and the last overall.
    let mut found = Found::default();
    // The last bytes of the line before, when a cut (not a newline) ended it.
    let mut cut_tail: Option<Vec<u8>> = None;
    let reach = query.len().saturating_sub(1);
    let mut at = 0;
    loop {
        let n = next_line(&mut reader, &mut line)?;
        if n == 0 {
            break;
        }
        if let Some(tail) = cut_tail.take()
            && straddles(&tail, &line[..line.len().min(reach)], &query)
            && found.hit(at - 1, from, forward)
        {
            break;
        }
        if String::from_utf8_lossy(&line)
            .to_lowercase()
            .contains(&query)
            && found.hit(at, from, forward)
        {
            break;
        }
        // A line of exactly the cap that consumed no newline was cut.
        if line.len() == LINE_CAP && n == LINE_CAP && reach > 0 {
            cut_tail = Some(line[LINE_CAP - reach.min(LINE_CAP)..].to_vec());
        }
        at += 1;
    }
    Ok(found.answer(forward))
}

/// Whether `query` occurs across the join of `tail` (a cut line's last bytes) and `head` (the
/// next line's first): both are one byte shorter than the query, so any match crosses the cut.
fn straddles(tail: &[u8], head: &[u8], query: &str) -> bool {
    let mut joined = Vec::with_capacity(tail.len() + head.len());
    joined.extend_from_slice(tail);
    joined.extend_from_slice(head);
    String::from_utf8_lossy(&joined)
        .to_lowercase()
        .contains(query)
}

/// The matches a search has seen: the first at or after `from`, the last before it, and the
/// first and last overall (for wrapping).
#[derive(Default)]
struct Found {
    after: Option<usize>,
    before: Option<usize>,
    first: Option<usize>,
    last: Option<usize>,
}

impl Found {
    /// Notes a match on line `at`; `true` when a forward search can stop.
    fn hit(&mut self, at: usize, from: usize, forward: bool) -> bool {
        self.first.get_or_insert(at);
        self.last = Some(at);
        if at < from {
            self.before = Some(at);
            false
        } else if forward {
            self.after = Some(at);
            true
        } else {
            false
        }
    }

    fn answer(&self, forward: bool) -> Option<usize> {
        if forward {
            self.after.or(self.first)
        } else {
            self.before.or(self.last)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt::Write as _;
    use std::io::Write as _;

    fn file(bytes: &[u8]) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().expect("temp file");
        f.write_all(bytes).expect("write");
        f
    }

    fn all(index: &LineIndex, path: &Path) -> Vec<String> {
        index
            .read(path, 0, usize::MAX, usize::MAX)
            .expect("read")
            .lines
    }

    #[test]
    fn a_last_line_without_a_newline_is_a_line() {
        for (text, lines) in [
            ("", vec![]),
            ("a", vec!["a"]),
            ("a\n", vec!["a"]),
            ("a\nb", vec!["a", "b"]),
            ("a\n\nb\n", vec!["a", "", "b"]),
            ("\n", vec![""]),
        ] {
            let f = file(text.as_bytes());
            let index = LineIndex::build(f.path()).expect("index");
            assert_eq!(index.lines(), lines.len(), "{text:?}");
            assert_eq!(all(&index, f.path()), lines, "{text:?}");
            assert_eq!(lines, text.lines().collect::<Vec<_>>(), "as str::lines");
        }
    }

    #[test]
    fn crlf_lines_read_like_lf_lines() {
        let f = file(b"one\r\ntwo\r\n\r\nthree");
        let index = LineIndex::build(f.path()).expect("index");
        assert_eq!(all(&index, f.path()), ["one", "two", "", "three"]);
        let w = index.read(f.path(), 1, 2, usize::MAX).expect("read");
        assert_eq!(
            (w.first, w.lines),
            (1, vec!["two".to_owned(), String::new()])
        );
    }

    fn megabyte() -> (tempfile::NamedTempFile, usize) {
        let mut text = String::new();
        let mut n = 0;
        while text.len() < 1024 * 1024 {
            n += 1;
            writeln!(text, "line {n} of the big file").expect("write");
        }
        text.push_str("the last line");
        (file(text.as_bytes()), n + 1)
    }

    #[test]
    fn windows_of_a_megabyte_file_are_read_by_seeking() {
        let (f, n) = megabyte();
        let index = LineIndex::build(f.path()).expect("index");
        assert_eq!(index.lines(), n);
        assert_eq!(index.size(), f.as_file().metadata().expect("meta").len());
        for first in [0, 1, 63, 64, 65, 1000, n - 70, n - 1] {
            let w = index.read(f.path(), first, 3, usize::MAX).expect("read");
            assert_eq!(w.first, first);
            let want = if first == n - 1 {
                "the last line".to_owned()
            } else {
                format!("line {} of the big file", first + 1)
            };
            assert_eq!(w.lines[0], want);
            assert_eq!(w.total_lines, n);
        }
        let end = index.read_end(f.path(), 10, usize::MAX).expect("end");
        assert_eq!(end.first, n - 10);
        assert_eq!(end.lines.last().map(String::as_str), Some("the last line"));
        // The byte budget keeps the window small and, at the end, keeps the end.
        let small = index.read(f.path(), 0, 1000, 100).expect("read");
        assert!(small.lines.len() < 10, "{}", small.lines.len());
        let end = index.read_end(f.path(), 1000, 100).expect("end");
        assert_eq!(end.first + end.lines.len(), n);
        assert!(end.lines.len() < 10);
    }

    #[test]
    fn search_streams_to_the_matching_line_and_wraps() {
        let (f, n) = megabyte();
        let p = f.path();
        assert_eq!(search(p, "THE LAST", 0, true).expect("search"), Some(n - 1));
        assert_eq!(
            search(p, "line 5000 ", 0, true).expect("search"),
            Some(4999)
        );
        assert_eq!(
            search(p, "line 5000 ", 5000, true).expect("search"),
            Some(4999),
            "wraps"
        );
        assert_eq!(search(p, "line 2 ", 10, false).expect("search"), Some(1));
        assert_eq!(
            search(p, "last line", 3, false).expect("search"),
            Some(n - 1),
            "wraps"
        );
        assert_eq!(search(p, "absent", 0, true).expect("search"), None);
    }

    #[test]
    fn a_match_that_straddles_a_cut_is_found_on_the_line_it_starts_in() {
        // "needle" starts three bytes before the first cut and ends after it.
        let mut text = "x".repeat(LINE_CAP - 3);
        text.push_str("NEEdle");
        text.push_str(&"y".repeat(LINE_CAP));
        text.push_str("\nafter\n");
        let f = file(text.as_bytes());
        let p = f.path();
        let index = LineIndex::build(p).expect("index");
        assert_eq!(index.lines(), 4, "two cuts, then the line after");
        assert_eq!(search(p, "needle", 0, true).expect("search"), Some(0));
        assert_eq!(search(p, "needle", 3, false).expect("search"), Some(0));
        assert_eq!(
            search(p, "needle", 1, true).expect("search"),
            Some(0),
            "wraps"
        );
        // Across a newline is no match: only a cut joins two lines.
        let f = file(b"nee\ndle\n");
        assert_eq!(search(f.path(), "needle", 0, true).expect("search"), None);
        // A match wholly inside the line after a cut is that line's.
        let mut text = "x".repeat(LINE_CAP);
        text.push_str("needle");
        let f = file(text.as_bytes());
        assert_eq!(
            search(f.path(), "needle", 0, true).expect("search"),
            Some(1)
        );
    }

    #[test]
    fn an_overlong_line_is_cut_into_capped_lines() {
        let mut text = "x".repeat(LINE_CAP * 2 + 5).into_bytes();
        text.extend_from_slice(b"\nend");
        let f = file(&text);
        let index = LineIndex::build(f.path()).expect("index");
        let lines = all(&index, f.path());
        let lens: Vec<usize> = lines.iter().map(String::len).collect();
        assert_eq!(lens, [LINE_CAP, LINE_CAP, 5, 3]);
        // A newline right after a full line ends it; no empty line follows.
        let mut exact = "y".repeat(LINE_CAP).into_bytes();
        exact.extend_from_slice(b"\nz");
        let f = file(&exact);
        let index = LineIndex::build(f.path()).expect("index");
        assert_eq!(index.lines(), 2);
    }
}
