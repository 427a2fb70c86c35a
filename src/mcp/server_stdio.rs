//! The stdio transport of mcpdeck's own servers (`mcpdeck serve`, `mcpdeck workspace-server`)
//! and its input bounds.
//!
//! rmcp's stdio transport buffers a whole line before decoding it, and drops a line it cannot
//! decode without an answer, so the host's request waits for its own deadline. This transport
//! reads stdin itself with the engine's bounded line reader, one line of at most the server's
//! limit at a time. A longer line is never buffered: its bytes past the limit are only scanned,
//! on the fly, for the request's top-level `id`, then dropped, and that one request is answered
//! with a JSON-RPC error (`-32600`, invalid request). A line within the limit that cannot be
//! decoded (JSON nested deeper than the parser's 127 levels, invalid UTF-8 or JSON, or no
//! JSON-RPC message) is answered the same way when it is a request whose `id` can be read
//! (`-32700` for a line that is not JSON at all, `-32600` otherwise); anything else undecodable
//! (a notification, a response, a line without an id) is skipped. Either way the server keeps
//! serving the next line. Answers go through the one line transport
//! ([`crate::mcp::line_transport`]), whose writer the refusals share, so lines never interleave.

use rmcp::model::ClientJsonRpcMessage;
use rmcp::service::RoleServer;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;

use crate::mcp::line_reader::{Line, LineReader};
pub use crate::mcp::line_transport::LineTransport;
use crate::mcp::line_transport::LineWriter;

/// The JSON-RPC error code of a refused request: over-long, nested too deep, not a message.
pub const REFUSED_CODE: i64 = -32600;

/// The JSON-RPC error code of a request line that is not JSON (invalid UTF-8 or syntax).
pub const PARSE_ERROR_CODE: i64 = -32700;

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

/// Finds a frame's top-level `"id"` value (and whether it has a top-level `"method"`) while its
/// bytes stream past, keeping at most a few dozen bytes. Strings and nesting are tracked so an
/// `"id"` inside `params` is not taken. Iterative: any depth costs one counter.
#[derive(Debug, Default)]
#[allow(clippy::struct_excessive_bools)] // Independent flags of one small lexer.
struct IdScanner {
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// The current top-level string (capped), to tell whether a key is `id` or `method`.
    string: Vec<u8>,
    string_long: bool,
    /// The last top-level token was a string that may be a key (`"id"`, `"method"`).
    after_key: Option<Key>,
    /// Capturing the value after `"id":`.
    value: Option<Vec<u8>>,
    found: Option<Vec<u8>>,
    /// A top-level `"method":` was seen (the frame is a request or a notification).
    method: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Id,
    Method,
}

/// The longest id kept.
const MAX_ID_BYTES: usize = 128;

impl IdScanner {
    fn of(bytes: &[u8]) -> Self {
        let mut scan = Self::default();
        scan.feed(bytes);
        scan
    }

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
                if self.depth == 1 && self.value.is_none() && !self.string_long {
                    self.after_key = match self.string.as_slice() {
                        b"id" => Some(Key::Id),
                        b"method" => Some(Key::Method),
                        _ => None,
                    };
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
                self.after_key = None;
            }
            b'}' | b']' => {
                self.depth = self.depth.saturating_sub(1);
                self.after_key = None;
            }
            b':' if self.depth == 1 && self.after_key.is_some() => match self.after_key.take() {
                Some(Key::Id) => self.value = Some(Vec::new()),
                Some(Key::Method) => self.method = true,
                None => {}
            },
            b if b.is_ascii_whitespace() => {}
            _ => self.after_key = None,
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

/// One JSON-RPC error line for request `id` (`null` when it could not be read).
pub fn error_line(id: Option<&str>, code: i64, message: &str) -> String {
    let message = serde_json::Value::String(message.to_owned());
    format!(
        "{{\"jsonrpc\":\"2.0\",\"id\":{},\"error\":{{\"code\":{code},\"message\":{message}}}}}\n",
        id.unwrap_or("null")
    )
}

/// The JSON-RPC error line refusing an over-long request.
pub fn oversize_error(id: Option<&str>, limit: usize) -> String {
    error_line(
        id,
        REFUSED_CODE,
        &format!("the request line exceeds {limit} bytes"),
    )
}

/// Why a request line within the limit was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Longer than the limit.
    TooLong,
    /// Nested deeper than the parser accepts.
    TooDeep,
    /// Not JSON: invalid UTF-8 or syntax.
    NotJson,
    /// JSON, but no JSON-RPC message.
    NotMessage,
}

/// The answer owed to an undecodable line (`err` is why it failed to decode): an error line
/// for its id when it is a request whose id can be read, else `None` (skipped).
fn undecodable_answer(line: &[u8], err: &serde_json::Error) -> Option<(Refusal, String)> {
    let scan = IdScanner::of(line);
    let id = scan.id().filter(|_| scan.method)?;
    let (refusal, code, message) = if err.to_string().starts_with("recursion limit exceeded") {
        (
            Refusal::TooDeep,
            REFUSED_CODE,
            format!(
                "the request is nested deeper than {} levels",
                crate::mcp::connection::faults::MAX_DEPTH
            ),
        )
    } else if std::str::from_utf8(line).is_err() || err.is_syntax() || err.is_eof() {
        (
            Refusal::NotJson,
            PARSE_ERROR_CODE,
            "the request is not valid JSON".to_owned(),
        )
    } else {
        (
            Refusal::NotMessage,
            REFUSED_CODE,
            "the request is not a JSON-RPC request mcpdeck can read".to_owned(),
        )
    };
    Some((refusal, error_line(Some(&id), code, &message)))
}

/// Messages waiting for rmcp (each at most one bounded line).
const QUEUED: usize = 4;

/// Reads `input` in lines of at most `limit` bytes, sends decoded messages to rmcp through the
/// returned transport, and answers refused lines itself; `on_refusal` runs once per answered
/// refusal.
pub fn transport<R, W>(
    input: R,
    output: W,
    limit: usize,
    on_refusal: impl Fn(Refusal) + Send + 'static,
) -> (
    LineTransport<RoleServer, W>,
    impl Future<Output = ()> + Send + 'static,
)
where
    R: AsyncRead + Unpin + Send + 'static,
    W: AsyncWrite + Unpin + Send + 'static,
{
    let (tx, rx) = mpsc::channel(QUEUED);
    let transport = LineTransport::new(rx, LineWriter::new(output), STDOUT_CLOSED);
    let pump_writer = transport.writer().clone();
    let pump = async move {
        let mut lines = FrameReader::new(input, limit);
        while let Some(frame) = lines.next().await {
            let refused = match frame {
                Frame::Line(line) => {
                    if line.trim_ascii().is_empty() {
                        continue;
                    }
                    match serde_json::from_slice::<ClientJsonRpcMessage>(&line) {
                        Ok(message) => {
                            drop(line);
                            if tx.send(message).await.is_err() {
                                return;
                            }
                            continue;
                        }
                        Err(err) => {
                            let Some(answer) = undecodable_answer(&line, &err) else {
                                continue;
                            };
                            answer
                        }
                    }
                }
                Frame::TooLong { id } => (Refusal::TooLong, oversize_error(id.as_deref(), limit)),
            };
            let (refusal, line) = refused;
            on_refusal(refusal);
            if pump_writer
                .write(line.as_bytes(), STDOUT_CLOSED)
                .await
                .is_err()
            {
                return;
            }
        }
    };
    (transport, pump)
}

/// What a write says once stdout is closed.
const STDOUT_CLOSED: &str = "stdout is closed";

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
        let line = oversize_error(Some("5"), 64);
        let v: serde_json::Value = serde_json::from_str(&line).unwrap();
        assert_eq!(v["id"], 5);
        assert_eq!(v["error"]["code"], REFUSED_CODE);
        assert!(line.ends_with('\n') && line.matches('\n').count() == 1);
        let v: serde_json::Value = serde_json::from_str(&oversize_error(None, 64)).unwrap();
        assert!(v["id"].is_null());
    }
}
