//! The one newline-delimited JSON-RPC transport between rmcp and a byte stream, for either
//! role: mcpdeck as the client of a stdio server (`connection::stdio`, writing the server's
//! stdin) and mcpdeck's own stdio servers (`server_stdio`: `mcpdeck serve`,
//! `mcpdeck workspace-server`, writing stdout). Reading is each side's own pump, which bounds and
//! decodes its input its own way and sends the decoded messages here through a small channel;
//! writing is one serialised line at a time under one lock, which the pump shares for the lines
//! it writes itself (refusals, answers to undecodable requests), so lines never interleave.

use std::sync::{Arc, Weak};

use rmcp::service::{RxJsonRpcMessage, ServiceRole, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::io::{AsyncWrite, AsyncWriteExt as _};
use tokio::sync::{Mutex, mpsc};

/// The write side of a line stream, shared: whole lines, one at a time; gone once closed.
#[derive(Debug)]
pub struct LineWriter<W>(Arc<Mutex<Option<W>>>);

impl<W> Clone for LineWriter<W> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<W: AsyncWrite + Unpin> LineWriter<W> {
    /// A writer of lines to `output`.
    pub fn new(output: W) -> Self {
        Self(Arc::new(Mutex::new(Some(output))))
    }

    /// Writes `line` (which ends with its newline) and flushes; fails with `BrokenPipe`, saying
    /// `closed`, once the stream was closed.
    pub async fn write(&self, line: &[u8], closed: &'static str) -> std::io::Result<()> {
        write_to(&self.0, line, closed).await
    }

    /// A handle that does not keep the stream open (see [`LineWriter::write_weak`]).
    pub(crate) fn downgrade(&self) -> Weak<Mutex<Option<W>>> {
        Arc::downgrade(&self.0)
    }

    /// Writes `line` through a handle from [`LineWriter::downgrade`], while the transport lives.
    pub(crate) async fn write_weak(
        weak: &Weak<Mutex<Option<W>>>,
        line: &[u8],
        closed: &'static str,
    ) -> std::io::Result<()> {
        let Some(writer) = weak.upgrade() else {
            return Err(closed_error(closed));
        };
        write_to(&writer, line, closed).await
    }

    /// Shuts the stream down; later writes fail.
    async fn close(&self) {
        if let Some(mut w) = self.0.lock().await.take() {
            let _ = w.shutdown().await;
        }
    }
}

fn closed_error(closed: &'static str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::BrokenPipe, closed)
}

async fn write_to<W: AsyncWrite + Unpin>(
    writer: &Mutex<Option<W>>,
    line: &[u8],
    closed: &'static str,
) -> std::io::Result<()> {
    let mut guard = writer.lock().await;
    let Some(w) = guard.as_mut() else {
        return Err(closed_error(closed));
    };
    w.write_all(line).await?;
    w.flush().await
}

/// What the transport does with each message it is about to send (the client's fault tracking
/// notes the requests whose answers it must check).
pub(crate) type OnSend<R> = Box<dyn FnMut(&TxJsonRpcMessage<R>) + Send>;

/// The rmcp transport of one line stream, in role `R`: messages from the pump's channel, and
/// each message sent written as one line.
pub struct LineTransport<R: ServiceRole, W> {
    rx: mpsc::Receiver<RxJsonRpcMessage<R>>,
    writer: LineWriter<W>,
    on_send: Option<OnSend<R>>,
    /// What a write says once the stream is closed.
    closed: &'static str,
}

impl<R: ServiceRole, W> std::fmt::Debug for LineTransport<R, W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LineTransport")
            .field("closed", &self.closed)
            .finish_non_exhaustive()
    }
}

impl<R: ServiceRole, W> LineTransport<R, W> {
    /// A transport receiving from `rx` (fed by a pump) and writing through `writer`; `closed`
    /// is what a write says once the stream is closed.
    pub(crate) fn new(
        rx: mpsc::Receiver<RxJsonRpcMessage<R>>,
        writer: LineWriter<W>,
        closed: &'static str,
    ) -> Self {
        Self {
            rx,
            writer,
            on_send: None,
            closed,
        }
    }

    /// Has `on_send` see each message before it is sent.
    pub(crate) fn on_send(mut self, on_send: OnSend<R>) -> Self {
        self.on_send = Some(on_send);
        self
    }

    /// The shared writer (for the lines the pump writes itself).
    pub(crate) fn writer(&self) -> &LineWriter<W> {
        &self.writer
    }
}

impl<R, W> Transport<R> for LineTransport<R, W>
where
    R: ServiceRole,
    W: AsyncWrite + Unpin + Send + 'static,
{
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<R>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let Some(on_send) = self.on_send.as_mut() {
            on_send(&item);
        }
        let (writer, closed) = (self.writer.clone(), self.closed);
        async move {
            let mut bytes = serde_json::to_vec(&item).map_err(std::io::Error::other)?;
            bytes.push(b'\n');
            writer.write(&bytes, closed).await
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<R>>> + Send {
        // `recv` is cancel-safe: rmcp polls this inside a `select!`.
        self.rx.recv()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        let writer = self.writer.clone();
        async move {
            writer.close().await;
            Ok(())
        }
    }
}
