//! The input frame bound: a reader over stdin that ends the stream when one
//! newline-delimited frame exceeds [`MAX_FRAME_BYTES`].
//!
//! rmcp's stdio transport buffers a whole line before decoding it; this wrapper stops reading
//! (reports end of input) as soon as a line grows past the limit, so an oversized frame can never
//! be buffered and the server closes cleanly instead.

use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};

/// The largest accepted input frame, newline excluded.
pub const MAX_FRAME_BYTES: usize = 65_536;

/// A reader that ends at the first over-long line.
#[derive(Debug)]
pub struct FrameLimited<R> {
    inner: R,
    line: usize,
    limit: usize,
    tripped: Arc<AtomicBool>,
}

impl<R> FrameLimited<R> {
    /// Wraps `inner` with `limit` bytes per line; `tripped` turns true when a line was too long.
    pub fn new(inner: R, limit: usize, tripped: Arc<AtomicBool>) -> Self {
        Self {
            inner,
            line: 0,
            limit,
            tripped,
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for FrameLimited<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        if self.tripped.load(Ordering::Acquire) {
            return Poll::Ready(Ok(()));
        }
        let before = buf.filled().len();
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_read(cx, buf) {
            Poll::Ready(Ok(())) => {}
            other => return other,
        }
        let mut keep = buf.filled().len();
        for (i, byte) in buf.filled()[before..].iter().enumerate() {
            if *byte == b'\n' {
                this.line = 0;
            } else {
                this.line += 1;
                if this.line > this.limit {
                    // Deliver nothing of the offending line past the limit; end the stream.
                    keep = before + i;
                    this.tripped.store(true, Ordering::Release);
                    break;
                }
            }
        }
        buf.set_filled(keep);
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt as _;

    #[tokio::test]
    async fn long_lines_end_the_stream() {
        let input = format!("ok\n{}\nnever\n", "x".repeat(100));
        let tripped = Arc::new(AtomicBool::new(false));
        let mut r = FrameLimited::new(input.as_bytes(), 10, Arc::clone(&tripped));
        let mut out = Vec::new();
        r.read_to_end(&mut out).await.unwrap();
        assert!(tripped.load(Ordering::Acquire));
        assert!(out.len() <= 3 + 10);
        assert!(!String::from_utf8(out).unwrap().contains("never"));
    }

    #[tokio::test]
    async fn lines_within_the_limit_pass() {
        let input = "aaaaaaaaaa\nbbbbbbbbbb\n";
        let tripped = Arc::new(AtomicBool::new(false));
        let mut r = FrameLimited::new(input.as_bytes(), 10, Arc::clone(&tripped));
        let mut out = String::new();
        r.read_to_string(&mut out).await.unwrap();
        assert_eq!(out, input);
        assert!(!tripped.load(Ordering::Acquire));
    }
}
