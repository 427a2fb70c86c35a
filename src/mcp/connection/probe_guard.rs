//! The `auto` probe over HTTP: mcpdeck's own bound on `server/discover`, and the late answer
//! kept away from the fallback handshake.
//!
//! rmcp's HTTP worker reads the answer to its first POST (the probe) before it takes any other
//! message, and rmcp's lifecycle gives up on the probe after a fixed 10 s and sends
//! `initialize`. Two things follow when a server is slow to answer the probe: the worker stays
//! on the probe however long the server takes, and the probe's answer, when it comes, reaches
//! the lifecycle while it waits for the `initialize` answer — a different id, so the handshake
//! fails. [`within`] bounds the probe's POST and the reading of its answer (its first answer
//! event when the server opens a stream): when the bound passes, the POST is dropped, the
//! answer is never read, and a "method not found" stands in for it, so rmcp falls back at once
//! (as it does for a 202, which answers nothing).
//! [`ProbeGuard`] drops any answer to the probe's id that arrives after `initialize` was sent,
//! whenever it arrives — the case of rmcp's own 10 s passing first. It wraps the stdio transport
//! too, where a server still busy starting up may keep mcpdeck's idle rule from ending the probe
//! before rmcp's 10 s do.

use std::time::Duration;

use futures_util::StreamExt;
use rmcp::model::{
    ClientJsonRpcMessage, ClientRequest, ErrorCode, ErrorData, RequestId, ServerJsonRpcMessage,
};
use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use rmcp::transport::streamable_http_client::{StreamableHttpError, StreamableHttpPostResponse};

use super::http_layer::SseStream;

type HttpError = StreamableHttpError<reqwest::Error>;

/// The probe's POST `answer`, read to its answer within `bound`; past it, the stand-in
/// "method not found" for `id` (see the module comment).
pub(crate) async fn within<F>(
    bound: Duration,
    id: RequestId,
    answer: F,
) -> Result<StreamableHttpPostResponse, HttpError>
where
    F: Future<Output = Result<StreamableHttpPostResponse, HttpError>>,
{
    let read = async {
        match answer.await? {
            StreamableHttpPostResponse::Sse(stream, session) => {
                Ok(first_answer(stream, session, &id).await)
            }
            // A 202 answers nothing: rmcp would give up on the connection.
            StreamableHttpPostResponse::Accepted => Ok(StreamableHttpPostResponse::Json(
                not_found(
                    &id,
                    "the server accepted server/discover without answering".into(),
                ),
                None,
            )),
            other => Ok(other),
        }
    };
    match tokio::time::timeout(bound, read).await {
        Ok(answer) => answer,
        Err(_) => Ok(StreamableHttpPostResponse::Json(
            not_found(
                &id,
                format!(
                    "no answer to server/discover within {} ms",
                    bound.as_millis()
                ),
            ),
            None,
        )),
    }
}

/// The first response or error on the probe's event stream, as a JSON body (what rmcp reads
/// from it); a stream that ends or breaks without one is no usable answer.
async fn first_answer(
    mut stream: SseStream,
    session: Option<String>,
    id: &RequestId,
) -> StreamableHttpPostResponse {
    while let Some(Ok(event)) = stream.next().await {
        if !matches!(event.event.as_deref(), None | Some("" | "message")) {
            continue;
        }
        let Some(data) = event.data.filter(|d| !d.trim().is_empty()) else {
            continue;
        };
        if let Ok(message @ (ServerJsonRpcMessage::Response(_) | ServerJsonRpcMessage::Error(_))) =
            serde_json::from_str::<ServerJsonRpcMessage>(&data)
        {
            return StreamableHttpPostResponse::Json(message, session);
        }
    }
    StreamableHttpPostResponse::Json(
        not_found(
            id,
            "the server/discover stream ended without an answer".into(),
        ),
        session,
    )
}

fn not_found(id: &RequestId, message: String) -> ServerJsonRpcMessage {
    ServerJsonRpcMessage::error(
        ErrorData::new(ErrorCode::METHOD_NOT_FOUND, message, None),
        Some(id.clone()),
    )
}

/// A transport that drops the probe's answer once the fallback `initialize` was sent.
pub(crate) struct ProbeGuard<T> {
    inner: T,
    /// The id of the `server/discover` probe.
    probe: Option<RequestId>,
    /// `initialize` followed the probe: its answer, if any comes, is late.
    fallen_back: bool,
}

impl<T> ProbeGuard<T> {
    pub(crate) fn new(inner: T) -> Self {
        Self {
            inner,
            probe: None,
            fallen_back: false,
        }
    }
}

/// The id `message` answers, when it is a response or an error.
fn answered(message: &ServerJsonRpcMessage) -> Option<&RequestId> {
    match message {
        ServerJsonRpcMessage::Response(r) => Some(&r.id),
        ServerJsonRpcMessage::Error(e) => e.id.as_ref(),
        _ => None,
    }
}

impl<T> Transport<RoleClient> for ProbeGuard<T>
where
    T: Transport<RoleClient>,
{
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let ClientJsonRpcMessage::Request(r) = &item {
            match r.request {
                ClientRequest::DiscoverRequest(_) if !self.fallen_back => {
                    self.probe = Some(r.id.clone());
                }
                ClientRequest::InitializeRequest(_) if self.probe.is_some() => {
                    self.fallen_back = true;
                }
                _ => {}
            }
        }
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        loop {
            let message = self.inner.receive().await?;
            let late = self.fallen_back
                && self.probe.is_some()
                && answered(&message) == self.probe.as_ref();
            if !late {
                return Some(message);
            }
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::sync::mpsc;

    /// A transport fed by a channel, recording what was sent.
    struct Fake {
        rx: mpsc::UnboundedReceiver<ServerJsonRpcMessage>,
    }

    impl Transport<RoleClient> for Fake {
        type Error = std::io::Error;

        fn send(
            &mut self,
            _item: TxJsonRpcMessage<RoleClient>,
        ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
            std::future::ready(Ok(()))
        }

        fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
            self.rx.recv()
        }

        fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
            std::future::ready(Ok(()))
        }
    }

    fn client(text: &str) -> ClientJsonRpcMessage {
        serde_json::from_str(text).expect("a client message")
    }

    fn server(text: &str) -> ServerJsonRpcMessage {
        serde_json::from_str(text).expect("a server message")
    }

    const DISCOVER: &str = r#"{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{}}"#;
    const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    const DISCOVERED: &str = r#"{"jsonrpc":"2.0","id":0,"result":{"resultType":"complete","supportedVersions":["2026-07-28"],"capabilities":{},"serverInfo":{"name":"s","version":"1"},"ttlMs":0,"cacheScope":"private"}}"#;
    const INITIALIZED: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"s","version":"1"}}}"#;

    fn id_of(message: &ServerJsonRpcMessage) -> Option<RequestId> {
        answered(message).cloned()
    }

    #[tokio::test]
    async fn the_probes_answer_after_initialize_is_dropped_whenever_it_comes() {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut t = ProbeGuard::new(Fake { rx });
        t.send(client(DISCOVER)).await.expect("sent");
        t.send(client(INITIALIZE)).await.expect("sent");
        tx.send(server(DISCOVERED)).expect("queued");
        tx.send(server(
            r#"{"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"x"}}"#,
        ))
        .expect("queued");
        tx.send(server(INITIALIZED)).expect("queued");
        tx.send(server(DISCOVERED)).expect("queued");
        tx.send(server(r#"{"jsonrpc":"2.0","id":2,"result":{}}"#))
            .expect("queued");
        drop(tx);
        let mut got = Vec::new();
        while let Some(m) = t.receive().await {
            got.push(id_of(&m));
        }
        assert_eq!(
            got,
            vec![Some(RequestId::Number(1)), Some(RequestId::Number(2))]
        );
    }

    #[tokio::test]
    async fn an_answer_before_initialize_and_the_servers_own_messages_pass() {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut t = ProbeGuard::new(Fake { rx });
        t.send(client(DISCOVER)).await.expect("sent");
        tx.send(server(DISCOVERED)).expect("queued");
        let first = t.receive().await.expect("the answer");
        assert_eq!(id_of(&first), Some(RequestId::Number(0)));
        t.send(client(INITIALIZE)).await.expect("sent");
        tx.send(server(
            r#"{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}"#,
        ))
        .expect("queued");
        tx.send(server(r#"{"jsonrpc":"2.0","id":0,"method":"ping"}"#))
            .expect("queued");
        assert!(matches!(
            t.receive().await,
            Some(ServerJsonRpcMessage::Notification(_))
        ));
        assert!(matches!(
            t.receive().await,
            Some(ServerJsonRpcMessage::Request(_))
        ));
    }

    #[tokio::test]
    async fn a_legacy_only_session_drops_nothing() {
        let (tx, rx) = mpsc::unbounded_channel();
        let mut t = ProbeGuard::new(Fake { rx });
        t.send(client(INITIALIZE)).await.expect("sent");
        tx.send(server(DISCOVERED)).expect("queued");
        assert!(t.receive().await.is_some());
    }

    fn is_not_found(answer: &Result<StreamableHttpPostResponse, HttpError>) -> bool {
        matches!(
            answer,
            Ok(StreamableHttpPostResponse::Json(ServerJsonRpcMessage::Error(e), _))
                if e.error.code == ErrorCode::METHOD_NOT_FOUND
                    && e.id == Some(RequestId::Number(0))
        )
    }

    #[tokio::test(start_paused = true)]
    async fn a_probe_unanswered_at_the_bound_gets_method_not_found_then() {
        let bound = Duration::from_secs(8);
        let started = tokio::time::Instant::now();
        let answer = within(bound, RequestId::Number(0), std::future::pending()).await;
        assert_eq!(started.elapsed(), bound);
        assert!(is_not_found(&answer), "{answer:?}");
    }

    fn sse(data: &str) -> sse_stream::Sse {
        sse_stream::Sse {
            event: None,
            data: Some(data.to_owned()),
            id: None,
            retry: None,
        }
    }

    fn channel_stream(
        rx: mpsc::UnboundedReceiver<Result<sse_stream::Sse, sse_stream::Error>>,
    ) -> SseStream {
        futures_util::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|x| (x, rx)) })
            .boxed()
    }

    #[tokio::test(start_paused = true)]
    async fn a_stream_whose_answer_is_held_is_bounded_too() {
        let bound = Duration::from_secs(8);
        let (tx, rx) = mpsc::unbounded_channel();
        let stream: SseStream = channel_stream(rx);
        tx.send(Ok(sse(r#"{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"x"}}"#)))
            .expect("queued");
        let started = tokio::time::Instant::now();
        let answer = within(bound, RequestId::Number(0), async move {
            Ok(StreamableHttpPostResponse::Sse(stream, None))
        })
        .await;
        assert_eq!(started.elapsed(), bound);
        assert!(is_not_found(&answer), "{answer:?}");
        // The held answer, released now, has no reader left.
        assert!(tx.send(Ok(sse(DISCOVERED))).is_err());
    }

    #[tokio::test(start_paused = true)]
    async fn an_answer_in_time_is_read_off_its_stream() {
        let (tx, rx) = mpsc::unbounded_channel();
        let stream: SseStream = channel_stream(rx);
        tx.send(Ok(sse(DISCOVERED))).expect("queued");
        let answer = within(Duration::from_secs(8), RequestId::Number(0), async move {
            Ok(StreamableHttpPostResponse::Sse(stream, Some("s".into())))
        })
        .await;
        assert!(
            matches!(
                &answer,
                Ok(StreamableHttpPostResponse::Json(ServerJsonRpcMessage::Response(_), Some(s))) if s == "s"
            ),
            "{answer:?}"
        );
        drop(tx);
        let (closed, rx) = mpsc::unbounded_channel();
        let empty: SseStream = channel_stream(rx);
        drop(closed);
        let ended = within(Duration::from_secs(8), RequestId::Number(0), async move {
            Ok(StreamableHttpPostResponse::Sse(empty, None))
        })
        .await;
        assert!(is_not_found(&ended), "{ended:?}");
        let accepted = within(Duration::from_secs(8), RequestId::Number(0), async {
            Ok(StreamableHttpPostResponse::Accepted)
        })
        .await;
        assert!(is_not_found(&accepted), "{accepted:?}");
    }
}
