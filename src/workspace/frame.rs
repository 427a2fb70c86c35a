//! The workspace server's stdio transport and its input frame bound.
//!
//! rmcp's stdio transport buffers a whole line before decoding it. This transport reads stdin
//! itself with the engine's bounded line reader, one line of at most [`MAX_FRAME_BYTES`] at a
//! time. A longer line is never buffered: its bytes past the limit are only scanned, on the fly,
//! for the request's top-level `id`, then dropped, and that one request is answered with a
//! JSON-RPC error ([`OVERSIZE_CODE`]); the server keeps serving the next line. A line that is not a JSON-RPC message is skipped, as rmcp skips one.
//! Writes (answers and refusals) share one lock, so lines never interleave.

use std::sync::Arc;

use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::service::RoleServer;
use rmcp::transport::Transport;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt as _};
use tokio::sync::{Mutex, mpsc};

use crate::mcp::line_reader::{Line, LineReader};

/// The largest accepted input frame, newline excluded.
pub const MAX_FRAME_BYTES: usize = 65_536;

/// The JSON-RPC error code of a refused over-long request (invalid request).
pub const OVERSIZE_CODE: i64 = -32600;

/// What one input line was.
#[derive(Debug, PartialEq, Eq)]
pub enum Frame {
    /// A line within the bound (newline and a trailing `\r` removed).
    Line(Vec<u8>),
    /// A line over the bound; `id` is its top-level `id` as JSON text, when it had a plain one.
    TooLong {
        /// The request id (a JSON number or string), if one was found.
        id: Option<String>,
    },
}

/// Reads the input's frames: bounded lines (the one reader of `mcp::line_reader`), an over-long
/// one reduced to its request id as the rest of it is skipped.
#[derive(Debug)]
pub struct FrameReader<R> {
    lines: LineReader<R>,
    line: Vec<u8>,
}

impl<R: AsyncRead + Unpin> FrameReader<R> {
    /// A reader of frames of at most `limit` bytes.
    pub fn new(inner: R, limit: usize) -> Self {
        Self {
            lines: LineReader::new(inner, limit, 16 * 1024),
            line: Vec::new(),
        }
    }

    /// The next frame, or `None` at the end of input (or a read error).
    pub async fn next(&mut self) -> Option<Frame> {
        match self.lines.read_line(&mut self.line).await.ok()?? {
            Line::Complete => Some(Frame::Line(std::mem::take(&mut self.line))),
            Line::TooLong => {
                let mut scan = IdScanner::default();
                scan.feed(&self.line);
                self.line = Vec::new();
                self.lines.skip_rest(|piece| scan.feed(piece)).await.ok()?;
                Some(Frame::TooLong { id: scan.id() })
            }
        }
    }
}

/// Finds a frame's top-level `"id"` value while its bytes stream past, keeping at most a few
/// dozen bytes. Strings and nesting are tracked so an `"id"` inside `params` is not taken.
#[derive(Debug, Default)]
#[allow(clippy::struct_excessive_bools)] // Independent flags of one small lexer.
struct IdScanner {
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// The current top-level string (capped), to tell whether a key is `id`.
    string: Vec<u8>,
    string_long: bool,
    /// The last top-level token was the string `"id"`.
    after_id_key: bool,
    /// Capturing the value after `"id":`.
    value: Option<Vec<u8>>,
    found: Option<Vec<u8>>,
}

/// The longest id kept.
const MAX_ID_BYTES: usize = 128;

impl IdScanner {
    fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.step(b);
        }
    }

    fn step(&mut self, b: u8) {
        if let Some(value) = self.value.as_mut() {
            let ends = !self.in_string && self.depth == 1 && matches!(b, b',' | b'}');
            if ends {
                self.found = self.value.take();
            } else if value.len() < MAX_ID_BYTES + 1 {
                value.push(b);
            }
        }
        if self.in_string {
            if self.escaped {
                self.escaped = false;
            } else if b == b'\\' {
                self.escaped = true;
            } else if b == b'"' {
                self.in_string = false;
                if self.depth == 1 && self.value.is_none() {
                    self.after_id_key = !self.string_long && self.string == b"id";
                }
                return;
            }
            if self.depth == 1 && self.string.len() < 8 {
                self.string.push(b);
            } else {
                self.string_long = true;
            }
            return;
        }
        match b {
            b'"' => {
                self.in_string = true;
                self.string.clear();
                self.string_long = false;
            }
            b'{' | b'[' => {
                self.depth += 1;
                self.after_id_key = false;
            }
            b'}' | b']' => {
                self.depth = self.depth.saturating_sub(1);
                self.after_id_key = false;
            }
            b':' if self.depth == 1 && self.after_id_key => {
                self.after_id_key = false;
                self.value = Some(Vec::new());
            }
            b if b.is_ascii_whitespace() => {}
            _ => self.after_id_key = false,
        }
    }

    /// The id, when it is a JSON number or string of reasonable length.
    fn id(&self) -> Option<String> {
        let raw = self.found.as_deref()?;
        let text = std::str::from_utf8(raw).ok()?.trim();
        if text.len() > MAX_ID_BYTES {
            return None;
        }
        match serde_json::from_str::<serde_json::Value>(text).ok()? {
            v @ (serde_json::Value::Number(_) | serde_json::Value::String(_)) => {
                Some(v.to_string())
            }
            _ => None,
        }
    }
}

/// The JSON-RPC error line refusing an over-long request.
pub fn oversize_error(id: Option<&str>) -> String {
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{},\"error\":{{\"code\":{OVERSIZE_CODE},\"message\":\"the request line exceeds {MAX_FRAME_BYTES} bytes\"}}}}\n",
        id.unwrap_or("null")
    )
}

/// Messages waiting for rmcp (each at most one bounded line).
const QUEUED: usize = 4;

/// Reads `input`, sends decoded messages to rmcp through the returned transport, and answers
/// over-long lines itself; `on_oversize` runs once per refused line.
pub fn transport<R, W>(
    input: R,
    output: W,
    on_oversize: impl Fn() + Send + 'static,
) -> (LineTransport<W>, impl Future<Output = ()> + Send + 'static)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (tx, rx) = mpsc::channel(QUEUED);
    let writer = Arc::new(Mutex::new(Some(output)));
    let pump_writer = Arc::clone(&writer);
    let pump = async move {
        let mut lines = FrameReader::new(input, MAX_FRAME_BYTES);
        while let Some(frame) = lines.next().await {
            match frame {
                Frame::Line(line) => {
                    if line.trim_ascii().is_empty() {
                        continue;
                    }
                    let Ok(message) = serde_json::from_slice::<ClientJsonRpcMessage>(&line) else {
                        continue;
                    };
                    drop(line);
                    if tx.send(message).await.is_err() {
                        return;
                    }
                }
                Frame::TooLong { id } => {
                    on_oversize();
                    let mut guard = pump_writer.lock().await;
                    let Some(w) = guard.as_mut() else { return };
                    let line = oversize_error(id.as_deref());
                    if w.write_all(line.as_bytes()).await.is_err() || w.flush().await.is_err() {
                        return;
                    }
                }
            }
        }
    };
    (LineTransport { rx, writer }, pump)
}

/// The rmcp side of [`transport`].
#[derive(Debug)]
pub struct LineTransport<W> {
    rx: mpsc::Receiver<ClientJsonRpcMessage>,
    writer: Arc<Mutex<Option<W>>>,
}

impl<W> Transport<RoleServer> for LineTransport<W>
where
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: ServerJsonRpcMessage,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let writer = Arc::clone(&self.writer);
        async move {
            let mut bytes = serde_json::to_vec(&item).map_err(std::io::Error::other)?;
            bytes.push(b'\n');
            let mut guard = writer.lock().await;
            let Some(w) = guard.as_mut() else {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::BrokenPipe,
                    "stdout is closed",
                ));
            };
            w.write_all(&bytes).await?;
            w.flush().await
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<ClientJsonRpcMessage>> + Send {
        // `recv` is cancel-safe: rmcp polls this inside a `select!`.
        self.rx.recv()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        let writer = Arc::clone(&self.writer);
        async move {
            if let Some(mut w) = writer.lock().await.take() {
                let _ = w.shutdown().await;
            }
            Ok(())
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    async fn frames(input: &[u8], limit: usize) -> Vec<Frame> {
        let mut r = FrameReader::new(input, limit);
        let mut out = Vec::new();
        while let Some(f) = r.next().await {
            out.push(f);
        }
        out
    }

    #[tokio::test]
    async fn long_lines_are_refused_with_their_id_and_reading_goes_on() {
        let pad = "x".repeat(100);
        let input = format!(
            "ok\r\n{{\"jsonrpc\":\"2.0\",\"method\":\"m\",\"params\":{{\"id\":9,\"p\":\"{pad}\"}},\"id\":\"a,b\"}}\n\
             {{\"id\":7,\"p\":\"{pad}\"}}\n{{\"p\":[{{\"id\":3}}],\"q\":\"{pad}\"}}\nnext\n"
        );
        let got = frames(input.as_bytes(), 40).await;
        assert_eq!(
            got,
            [
                Frame::Line(b"ok".to_vec()),
                Frame::TooLong {
                    id: Some("\"a,b\"".into())
                },
                Frame::TooLong {
                    id: Some("7".into())
                },
                Frame::TooLong { id: None },
                Frame::Line(b"next".to_vec()),
            ]
        );
    }

    #[tokio::test]
    async fn a_line_split_across_reads_is_whole_and_eof_ends_an_open_line() {
        let long = "y".repeat(40_000);
        let input = format!("{long}\nlast");
        let got = frames(input.as_bytes(), 65_536).await;
        assert_eq!(got.len(), 2);
        assert_eq!(got[0], Frame::Line(long.into_bytes()));
        assert_eq!(got[1], Frame::Line(b"last".to_vec()));
    }

    /// A request line `{"id":ID,"p":"xx…"}` of exactly `len` bytes.
    fn request_of_len(id: &str, len: usize) -> String {
        let head = format!("{{\"id\":{id},\"p\":\"");
        format!("{head}{}\"}}", "x".repeat(len - head.len() - 2))
    }

    #[tokio::test]
    async fn one_byte_over_a_huge_line_and_eof_mid_line_keep_their_ids() {
        let exact = request_of_len("1", 32);
        let over = request_of_len("2", 33);
        // The id comes after a mebibyte: found while the rest of the line is skipped.
        let huge = format!("{{\"p\":\"{}\",\"id\":\"late\"}}", "y".repeat(1 << 20));
        // The input ends inside an over-long line.
        let cut = &request_of_len("5", 100)[..60];
        let input = format!("{exact}\n{over}\n{huge}\n{{\"id\":4}}\n{cut}");
        let got = frames(input.as_bytes(), 32).await;
        assert_eq!(
            got,
            [
                Frame::Line(exact.into_bytes()),
                Frame::TooLong {
                    id: Some("2".into())
                },
                Frame::TooLong {
                    id: Some("\"late\"".into())
                },
                Frame::Line(b"{\"id\":4}".to_vec()),
                Frame::TooLong {
                    id: Some("5".into())
                },
            ]
        );
    }

    #[test]
    fn the_refusal_is_one_json_rpc_error_line() {
        let line = oversize_error(Some("5"));
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["id"], 5);
        assert_eq!(v["error"]["code"], OVERSIZE_CODE);
        assert!(line.ends_with('\n') && line.matches('\n').count() == 1);
        let v: serde_json::Value = serde_json::from_str(&oversize_error(None)).unwrap();
        assert!(v["id"].is_null());
    }
}
