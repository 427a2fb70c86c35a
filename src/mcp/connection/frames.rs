//! The stdout frame filter between a stdio server and rmcp.
//!
//! rmcp silently drops a stdout line longer than 16 MiB and the request waiting for it hangs; it
//! also logs and skips junk lines without telling anyone. This filter reads the child's stdout
//! itself, one bounded line at a time: a line longer than [`MAX_FRAME_BYTES`] ends the stream
//! with a recorded `limit`, a line that cannot be a JSON object or array is counted and skipped,
//! and every other line is forwarded unchanged to rmcp through an in-memory pipe. It never
//! buffers more than one frame.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

/// The largest stdout line (one JSON-RPC frame) accepted from a stdio server.
pub const MAX_FRAME_BYTES: usize = 16 * 1024 * 1024;

/// What the filter observed, shared with the connection.
#[derive(Debug, Default)]
pub struct FrameStats {
    /// Lines skipped because they could not be JSON-RPC.
    pub non_json_lines: AtomicU64,
    /// Set when a frame exceeded [`MAX_FRAME_BYTES`]; the stream was closed.
    pub oversized: AtomicBool,
}

/// Whether a line could be a JSON-RPC message (a JSON object or a batch array).
fn looks_like_json(line: &[u8]) -> bool {
    let trimmed = line.trim_ascii();
    matches!(
        (trimmed.first(), trimmed.last()),
        (Some(b'{'), Some(b'}')) | (Some(b'['), Some(b']'))
    )
}

/// Copies frames from `input` to `output` until EOF, an oversized frame or a write failure.
/// Dropping `output` on return is what tells rmcp the stream ended.
pub async fn pump<R, W>(input: R, mut output: W, stats: Arc<FrameStats>)
where
    R: AsyncRead + Unpin,
    W: AsyncWrite + Unpin,
{
    let mut reader = BufReader::with_capacity(64 * 1024, input);
    let mut line: Vec<u8> = Vec::new();
    loop {
        let (consumed, complete) = {
            let Ok(buf) = reader.fill_buf().await else {
                return;
            };
            if buf.is_empty() {
                // EOF: a final unterminated line is still a frame.
                if !line.is_empty() {
                    line.push(b'\n');
                    let _ = forward(&mut output, &line, &stats).await;
                }
                return;
            }
            if let Some(pos) = buf.iter().position(|b| *b == b'\n') {
                if line.len() + pos > MAX_FRAME_BYTES {
                    stats.oversized.store(true, Ordering::SeqCst);
                    return;
                }
                line.extend_from_slice(&buf[..pos]);
                (pos + 1, true)
            } else {
                if line.len() + buf.len() > MAX_FRAME_BYTES {
                    stats.oversized.store(true, Ordering::SeqCst);
                    return;
                }
                line.extend_from_slice(buf);
                (buf.len(), false)
            }
        };
        reader.consume(consumed);
        if complete {
            // One write per frame, newline included: fewer wake-ups of the reader.
            line.push(b'\n');
            if forward(&mut output, &line, &stats).await.is_err() {
                return;
            }
            line.clear();
            if line.capacity() > 1024 * 1024 {
                line.shrink_to(64 * 1024);
            }
        }
    }
}

async fn forward<W: AsyncWrite + Unpin>(
    output: &mut W,
    line: &[u8],
    stats: &FrameStats,
) -> std::io::Result<()> {
    if line.trim_ascii().is_empty() {
        return Ok(());
    }
    if !looks_like_json(line) {
        stats.non_json_lines.fetch_add(1, Ordering::Relaxed);
        return Ok(());
    }
    output.write_all(line).await?;
    output.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    #[tokio::test]
    async fn forwards_json_skips_junk_and_stops_on_oversize() {
        let mut input = b"junk\n{\"a\":1}\n\n  [1]  \nnot { json }\n".to_vec();
        input.extend(vec![b'{'; MAX_FRAME_BYTES + 1]);
        input.extend(b"}\n{\"never\":1}\n");
        let (mut rx, tx) = tokio::io::duplex(1024);
        let stats = Arc::new(FrameStats::default());
        let task = tokio::spawn(pump(std::io::Cursor::new(input), tx, stats.clone()));
        let mut out = String::new();
        rx.read_to_string(&mut out).await.expect("reads");
        task.await.expect("joins");
        assert_eq!(out, "{\"a\":1}\n  [1]  \n");
        assert_eq!(stats.non_json_lines.load(Ordering::Relaxed), 2);
        assert!(stats.oversized.load(Ordering::SeqCst));
    }
}
