//! The stdout frame reader between a stdio server and rmcp, and the stdio transport it feeds.
//!
//! rmcp silently drops a stdout line longer than 16 MiB or one it cannot decode, and the request
//! waiting for it hangs until its deadline. So mcpdeck reads the child's stdout itself, one
//! bounded line at a time (with [`crate::mcp::line_reader`]), and decodes each line once: a line longer than [`MAX_FRAME_BYTES`]
//! ends the stream with a recorded `limit`; a line that cannot be a JSON object or array is
//! counted and skipped; a line that is undecodable (invalid UTF-8, nested too deep, not a
//! JSON-RPC message) fails the request it answers at once, or, when it is a request of the
//! server's, is answered with a JSON-RPC error for its id (see [`super::faults`]); every other
//! line reaches rmcp as a decoded message through a small channel. It never holds more than one
//! raw frame, and the raw bytes are dropped as soon as they are decoded, except the answer of a
//! request that asked for its frame as sent (`raw.rs`), which is copied to that request's slot.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use rmcp::model::{ClientJsonRpcMessage, ClientRequest, ServerJsonRpcMessage};
use rmcp::service::RoleClient;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::mpsc;

use super::faults::{Faults, Listing, decode};
use crate::mcp::line_reader::{Line, LineReader};
use crate::mcp::line_transport::{LineTransport, LineWriter};

/// The largest stdout line (one JSON-RPC frame) accepted from a stdio server.
pub(crate) const MAX_FRAME_BYTES: usize = 16 * 1024 * 1024;

/// Decoded messages waiting for rmcp. Small: each may stand for a 16 MiB frame.
const QUEUED_MESSAGES: usize = 2;

/// What the reader observed, shared with the connection.
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

/// The channel from the reader to the transport.
pub fn channel() -> (
    mpsc::Sender<ServerJsonRpcMessage>,
    mpsc::Receiver<ServerJsonRpcMessage>,
) {
    mpsc::channel(QUEUED_MESSAGES)
}

/// Reads frames from `input` and sends the decoded messages to `output` until EOF, an oversized
/// frame or a closed channel. Dropping `output` on return is what tells rmcp the stream ended.
pub async fn pump<R>(
    input: R,
    output: mpsc::Sender<ServerJsonRpcMessage>,
    stats: Arc<FrameStats>,
    faults: Arc<Faults>,
) where
    R: AsyncRead + Unpin,
{
    let mut reader = LineReader::new(input, MAX_FRAME_BYTES, 64 * 1024);
    let mut line: Vec<u8> = Vec::new();
    // A read error ends the stream like EOF does.
    while let Ok(Some(read)) = reader.read_line(&mut line).await {
        if read == Line::TooLong {
            stats.oversized.store(true, Ordering::SeqCst);
            return;
        }
        if forward(&output, &line, &stats, &faults).await.is_err() {
            return;
        }
        if line.capacity() > 1024 * 1024 {
            line = Vec::with_capacity(64 * 1024);
        }
    }
}

async fn forward(
    output: &mpsc::Sender<ServerJsonRpcMessage>,
    line: &[u8],
    stats: &FrameStats,
    faults: &Faults,
) -> Result<(), ()> {
    if line.trim_ascii().is_empty() {
        return Ok(());
    }
    if !looks_like_json(line) {
        stats.non_json_lines.fetch_add(1, Ordering::Relaxed);
        return Ok(());
    }
    let Some(message) = decode(line, faults).and_then(|m| faults.check_discover(m)) else {
        return Ok(());
    };
    faults.raw.offer(&message, line);
    output.send(message).await.map_err(|_| ())
}

/// The rmcp transport of a stdio server: the one line transport
/// ([`crate::mcp::line_transport`]) in the client's role, receiving the decoded messages of
/// [`pump`] from `rx` and writing the child's stdin. It notes the requests whose answers
/// [`Faults`] must check as they are sent, and has the errors that answer the server's
/// undecodable requests (see [`Faults::answer_requests_to`]) written between its own lines; that
/// writing task holds the writer weakly, so it never keeps the server's stdin open.
pub(crate) fn transport<W: AsyncWrite + Unpin + Send + 'static>(
    (rx, probe_tx): (
        mpsc::Receiver<ServerJsonRpcMessage>,
        mpsc::WeakSender<ServerJsonRpcMessage>,
    ),
    stdin: W,
    faults: Arc<Faults>,
) -> LineTransport<RoleClient, W> {
    let writer = LineWriter::new(stdin);
    let (tx, mut replies) = mpsc::channel::<String>(super::faults::QUEUED_REPLIES);
    faults.answer_requests_to(tx);
    let weak = writer.downgrade();
    tokio::spawn(async move {
        while let Some(line) = replies.recv().await {
            if LineWriter::write_weak(&weak, line.as_bytes(), STDIN_CLOSED)
                .await
                .is_err()
            {
                return;
            }
        }
    });
    LineTransport::new(rx, writer, STDIN_CLOSED).on_send(Box::new(
        move |item: &ClientJsonRpcMessage| {
            if let ClientJsonRpcMessage::Request(r) = item {
                match r.request {
                    ClientRequest::DiscoverRequest(_) => {
                        faults.expect_discover(r.id.clone());
                        if let Some(timeout) = faults.probe_timeout() {
                            expire_probe(r.id.clone(), timeout, faults.clone(), probe_tx.clone());
                        }
                    }
                    ClientRequest::CallToolRequest(_) => faults.expect_call(r.id.clone()),
                    _ => {}
                }
                if let Some((listing, first_page)) = Listing::of(&r.request) {
                    faults.expect_listing(r.id.clone(), listing, first_page);
                }
            }
        },
    ))
}

/// Once `timeout` has passed and the server then used no CPU time for
/// [`super::era::PROBE_IDLE`] (a server still starting up is given more, up to rmcp's own
/// 10 s), answers the still unanswered probe `id` with the stand-in of
/// [`Faults::probe_expired`] on the reader's channel (held weakly: the stream's end is not
/// delayed by the timer).
fn expire_probe(
    id: rmcp::model::RequestId,
    timeout: std::time::Duration,
    faults: Arc<Faults>,
    tx: mpsc::WeakSender<ServerJsonRpcMessage>,
) {
    tokio::spawn(async move {
        tokio::time::sleep(timeout).await;
        let mut used = faults.server_cpu();
        loop {
            if !faults.probe_pending(&id) {
                return;
            }
            tokio::time::sleep(super::era::PROBE_IDLE).await;
            let now = faults.server_cpu();
            if now.is_none() || now == used {
                break;
            }
            used = now;
        }
        if let Some(stand_in) = faults.probe_expired(&id)
            && let Some(tx) = tx.upgrade()
        {
            let _ = tx.send(stand_in).await;
        }
    });
}

/// What a write to a server says once its stdin is closed.
const STDIN_CLOSED: &str = "the server's stdin is closed";

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn decodes_json_skips_junk_and_stops_on_oversize() {
        let mut input =
            b"junk\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\r\n\n  [1]  \nnot { json }\n"
                .to_vec();
        input.extend(vec![b'{'; MAX_FRAME_BYTES + 1]);
        input.extend(b"}\n{\"never\":1}\n");
        let (tx, mut rx) = channel();
        let stats = Arc::new(FrameStats::default());
        let faults = Arc::new(Faults::default());
        let task = tokio::spawn(pump(
            std::io::Cursor::new(input),
            tx,
            stats.clone(),
            faults.clone(),
        ));
        let mut got = Vec::new();
        while let Some(m) = rx.recv().await {
            got.push(m);
        }
        task.await.expect("joins");
        assert_eq!(got.len(), 1);
        assert!(matches!(got[0], ServerJsonRpcMessage::Response(_)));
        assert_eq!(stats.non_json_lines.load(Ordering::Relaxed), 2);
        // `[1]` is JSON but no message, and has no id: counted and skipped.
        assert_eq!(faults.skipped(), 1);
        assert!(stats.oversized.load(Ordering::SeqCst));
    }

    fn discover_request() -> ClientJsonRpcMessage {
        serde_json::from_str(r#"{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{}}"#)
            .expect("a request")
    }

    fn discover_answer() -> ServerJsonRpcMessage {
        serde_json::from_str(
            r#"{"jsonrpc":"2.0","id":0,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},"serverInfo":{"name":"s","version":"1"},"ttlMs":0,"cacheScope":"private"}}"#,
        )
        .expect("an answer")
    }

    #[tokio::test(start_paused = true)]
    async fn an_unanswered_probe_gets_method_not_found_at_the_bound_and_its_late_answer_is_dropped()
    {
        use rmcp::transport::Transport as _;
        let (tx, rx) = channel();
        let faults = Arc::new(Faults::default());
        let bound = std::time::Duration::from_secs(5);
        faults.probe_within(bound);
        let mut t = transport((rx, tx.downgrade()), tokio::io::sink(), faults.clone());
        t.send(discover_request()).await.expect("sent");
        let started = tokio::time::Instant::now();
        let got = t.receive().await.expect("the stand-in");
        // No server process here: it counts as idle, so the stand-in comes one idle check later.
        let waited = started.elapsed();
        let expected = bound + super::super::era::PROBE_IDLE;
        assert!(
            waited >= expected && waited < expected + std::time::Duration::from_millis(10),
            "{waited:?}"
        );
        let ServerJsonRpcMessage::Error(e) = got else {
            panic!("an error was expected: {got:?}");
        };
        assert_eq!(e.error.code, rmcp::model::ErrorCode::METHOD_NOT_FOUND);
        assert!(faults.check_discover(discover_answer()).is_none());
        drop(tx);
    }

    #[test]
    fn the_servers_requests_and_notifications_pass_the_probe_check() {
        let faults = Faults::default();
        faults.expect_discover(rmcp::model::RequestId::Number(0));
        for text in [
            r#"{"jsonrpc":"2.0","id":"s-1","method":"ping"}"#,
            r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#,
        ] {
            let message: ServerJsonRpcMessage = serde_json::from_str(text).expect("a message");
            assert!(faults.check_discover(message).is_some(), "{text}");
        }
    }

    #[tokio::test(start_paused = true)]
    async fn a_probe_answered_in_time_is_left_alone() {
        use rmcp::transport::Transport as _;
        let (tx, rx) = channel();
        let faults = Arc::new(Faults::default());
        faults.probe_within(std::time::Duration::from_secs(5));
        let mut t = transport((rx, tx.downgrade()), tokio::io::sink(), faults.clone());
        t.send(discover_request()).await.expect("sent");
        let answer = faults.check_discover(discover_answer()).expect("passed on");
        tx.send(answer).await.expect("queued");
        assert!(matches!(
            t.receive().await,
            Some(ServerJsonRpcMessage::Response(_))
        ));
        let after = tokio::time::timeout(std::time::Duration::from_secs(60), t.receive()).await;
        assert!(after.is_err(), "nothing stands in for an answered probe");
    }

    /// A response line of exactly `len` bytes (padded inside its result).
    fn response_of_len(id: u32, len: usize) -> Vec<u8> {
        let head = format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\":{{\"pad\":\"");
        let tail = "\"}}";
        let mut line = head.into_bytes();
        line.resize(len - tail.len(), b'x');
        line.extend_from_slice(tail.as_bytes());
        line
    }

    #[tokio::test]
    async fn a_frame_of_exactly_the_limit_is_decoded_and_one_byte_more_ends_the_stream() {
        let mut input = response_of_len(1, MAX_FRAME_BYTES);
        input.push(b'\n');
        input.extend(response_of_len(2, MAX_FRAME_BYTES + 1));
        input.extend(b"\n{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{}}\n");
        let (tx, mut rx) = channel();
        let stats = Arc::new(FrameStats::default());
        let faults = Arc::new(Faults::default());
        let task = tokio::spawn(pump(
            std::io::Cursor::new(input),
            tx,
            stats.clone(),
            faults.clone(),
        ));
        let mut ids = Vec::new();
        while let Some(m) = rx.recv().await {
            let ServerJsonRpcMessage::Response(r) = m else {
                panic!("a response was expected");
            };
            ids.push(r.id.to_string());
        }
        task.await.expect("joins");
        assert_eq!(ids, ["1"]);
        assert!(stats.oversized.load(Ordering::SeqCst));
    }
}
