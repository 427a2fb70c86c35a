//! The one bounded line reader for newline-delimited JSON-RPC over a byte stream: a stdio
//! server's stdout (the connection) and the workspace server's stdin.
//!
//! A line longer than the limit is never buffered whole. [`LineReader::read_line`] stops as soon
//! as the limit is passed and says [`Line::TooLong`], leaving the rest of that line unread; the
//! caller then either stops reading or calls [`LineReader::skip_rest`], which discards the rest
//! as it streams past (showing each piece to the caller, who may scan it). So the memory held
//! is one limit-sized line, whatever the input. This module knows nothing about JSON.

use std::io;

use tokio::io::{AsyncBufReadExt as _, AsyncRead, BufReader};

/// What [`LineReader::read_line`] put in the caller's buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Line {
    /// A whole line, its newline and a trailing `\r` removed. A final line that the input ends
    /// without a newline is a whole line too.
    Complete,
    /// The line is longer than the limit: the buffer holds its first `limit` bytes and the rest
    /// of the line is still unread (see [`LineReader::skip_rest`]).
    TooLong,
}

/// Reads lines of at most `limit` bytes (the newline excluded, a `\r` before it included).
#[derive(Debug)]
pub struct LineReader<R> {
    reader: BufReader<R>,
    limit: usize,
}

impl<R: AsyncRead + Unpin> LineReader<R> {
    /// A reader of lines of at most `limit` bytes, reading `chunk` bytes at a time.
    pub fn new(inner: R, limit: usize, chunk: usize) -> Self {
        Self {
            reader: BufReader::with_capacity(chunk, inner),
            limit,
        }
    }

    /// Reads the next line into `line` (cleared first). `None` at the end of input.
    pub async fn read_line(&mut self, line: &mut Vec<u8>) -> io::Result<Option<Line>> {
        line.clear();
        loop {
            let (consumed, found) = {
                let buf = self.reader.fill_buf().await?;
                if buf.is_empty() {
                    if line.is_empty() {
                        return Ok(None);
                    }
                    strip_cr(line);
                    return Ok(Some(Line::Complete));
                }
                let newline = memchr::memchr(b'\n', buf);
                let part = newline.unwrap_or(buf.len());
                let room = self.limit - line.len();
                if part > room {
                    // Keep exactly the limit; everything after it stays in the stream.
                    extend_within(line, &buf[..room], self.limit);
                    (room, Some(Line::TooLong))
                } else {
                    extend_within(line, &buf[..part], self.limit);
                    match newline {
                        Some(pos) => (pos + 1, Some(Line::Complete)),
                        None => (buf.len(), None),
                    }
                }
            };
            self.reader.consume(consumed);
            match found {
                Some(Line::Complete) => {
                    strip_cr(line);
                    return Ok(Some(Line::Complete));
                }
                Some(Line::TooLong) => return Ok(Some(Line::TooLong)),
                None => {}
            }
        }
    }

    /// Discards the rest of the line that [`LineReader::read_line`] found too long, up to and
    /// including its newline (or to the end of input), handing each discarded piece to
    /// `inspect` first. Nothing is kept.
    pub async fn skip_rest(&mut self, mut inspect: impl FnMut(&[u8])) -> io::Result<()> {
        loop {
            let (consumed, ended) = {
                let buf = self.reader.fill_buf().await?;
                if buf.is_empty() {
                    return Ok(());
                }
                if let Some(pos) = memchr::memchr(b'\n', buf) {
                    inspect(&buf[..pos]);
                    (pos + 1, true)
                } else {
                    inspect(buf);
                    (buf.len(), false)
                }
            };
            self.reader.consume(consumed);
            if ended {
                return Ok(());
            }
        }
    }
}

/// Appends `bytes` (which fit the limit), growing the buffer as a `Vec` grows but never past
/// `limit` bytes of capacity.
fn extend_within(line: &mut Vec<u8>, bytes: &[u8], limit: usize) {
    let needed = line.len() + bytes.len();
    if needed > line.capacity() {
        let target = needed.max(line.capacity().saturating_mul(2)).min(limit);
        line.reserve_exact(target.max(needed) - line.len());
    }
    line.extend_from_slice(bytes);
}

fn strip_cr(line: &mut Vec<u8>) {
    if line.last() == Some(&b'\r') {
        line.pop();
    }
}

#[cfg(test)]
#[path = "line_reader_tests.rs"]
mod tests;
