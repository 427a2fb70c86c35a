//! The JSON-RPC traffic tap: a transport wrapper that reports every message a connection sends
//! and receives (direction, kind, method, id, size, latency of answers, and a capped body with
//! the connection's secrets redacted) as [`ConnectionEvent::Traffic`].
//!
//! Off unless the engine's consumer asked for it (the console's Log tab): when off, messages
//! pass straight through and nothing is serialised twice. Bodies are raw server text apart from
//! the redaction: the consumer sanitises them where they enter its model.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use serde_json::Value;

use rmcp::model::{GetExtensions as _, GetMeta as _};

use super::error::Redactor;
use super::events::{ConnectionEvent, EventSink, PendingRoute};

/// The longest body kept per message, in bytes (the size field is always the full size).
pub(crate) const BODY_CAP: usize = 16 * 1024;

/// One message on the wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Traffic {
    /// Sent by mcpdeck (`true`) or received from the server.
    pub outgoing: bool,
    /// `request`, `response`, `notification` or `error`.
    pub kind: &'static str,
    /// The method (for answers: the method of the request they answer, when known).
    pub method: Option<String>,
    /// The JSON-RPC id, as text.
    pub id: Option<String>,
    /// The message's size as JSON, in bytes.
    pub bytes: usize,
    /// For answers: the time since the request was sent.
    pub latency: Option<Duration>,
    /// The message as JSON, secrets redacted, cut at [`BODY_CAP`] bytes.
    pub body: String,
}

/// How many unanswered requests are remembered for latencies.
const MAX_IN_FLIGHT: usize = 4096;

/// Requests in flight: id → (method, sent at).
type InFlight = Arc<Mutex<HashMap<String, (String, Instant)>>>;

#[derive(Clone)]
struct Tap {
    sink: EventSink,
    redactor: Redactor,
    in_flight: InFlight,
}

impl Tap {
    fn record(&self, outgoing: bool, value: &Value) {
        let id = value.get("id").filter(|v| !v.is_null()).map(|v| match v {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        });
        let method = value
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let kind = match (&method, &id) {
            (Some(_), Some(_)) => "request",
            (Some(_), None) => "notification",
            (None, _) if value.get("error").is_some() => "error",
            (None, _) => "response",
        };
        let mut latency = None;
        let mut answered = None;
        if let Some(id) = &id {
            let mut in_flight = self
                .in_flight
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            if kind == "request" {
                // Requests that are never answered (cancelled ones) must not pile up.
                if in_flight.len() >= MAX_IN_FLIGHT {
                    in_flight.clear();
                }
                if let Some(m) = &method {
                    // Keyed by direction too: both sides number their own requests.
                    in_flight.insert(format!("{outgoing}:{id}"), (m.clone(), Instant::now()));
                }
            } else if let Some((m, at)) = in_flight.remove(&format!("{}:{id}", !outgoing)) {
                latency = Some(at.elapsed());
                answered = Some(m);
            }
        }
        let text = value.to_string();
        let bytes = text.len();
        let mut body = self.redactor.redact(&text).into_owned();
        if body.len() > BODY_CAP {
            let mut end = BODY_CAP;
            while !body.is_char_boundary(end) {
                end -= 1;
            }
            body.truncate(end);
            body.push('…');
        }
        self.sink.emit(ConnectionEvent::Traffic(Box::new(Traffic {
            outgoing,
            kind,
            method: method.or(answered),
            id,
            bytes,
            latency,
            body,
        })));
    }
}

/// A transport that reports its traffic to the connection's event sink when `tap` is on.
pub(crate) struct Tapped<T> {
    inner: T,
    tap: Option<Tap>,
    /// Progress reports are counted here as they arrive (see `events::ProgressRoutes`).
    progress: Option<super::events::ProgressRoutes>,
    /// The faults the frame readers share, whose raw frames a request may ask for (`raw.rs`).
    faults: Option<Arc<super::faults::Faults>>,
}

impl<T> Tapped<T> {
    /// Wraps `inner`; reports to `sink` (redacting with `redactor`) only when `on`.
    pub(crate) fn new(inner: T, sink: &EventSink, redactor: &Redactor, on: bool) -> Self {
        Self {
            inner,
            tap: on.then(|| Tap {
                sink: sink.clone(),
                redactor: redactor.clone(),
                in_flight: Arc::default(),
            }),
            progress: None,
            faults: None,
        }
    }

    /// Counts every progress report in `routes` as it arrives, before rmcp handles it.
    #[must_use]
    pub(crate) fn counting(mut self, routes: super::events::ProgressRoutes) -> Self {
        self.progress = Some(routes);
        self
    }

    /// Notes, as each request that carries a [`super::raw::RawSlot`] is sent, that its
    /// answer's frame goes there (the readers sharing `faults` hand it over).
    #[must_use]
    pub(crate) fn keeping_raw(mut self, faults: Arc<super::faults::Faults>) -> Self {
        self.faults = Some(faults);
        self
    }
}

impl<T> Transport<RoleClient> for Tapped<T>
where
    T: Transport<RoleClient>,
{
    type Error = T::Error;

    fn send(
        &mut self,
        mut item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        if let (Some(routes), rmcp::model::JsonRpcMessage::Request(r)) = (&self.progress, &mut item)
            && let Some(route) = r.request.extensions_mut().remove::<PendingRoute>()
            && let Some(token) = r.request.get_meta().get_progress_token()
        {
            // Before the request is on the wire, so its first report finds its route.
            routes.open(token, &route);
        }
        if let (Some(faults), rmcp::model::JsonRpcMessage::Request(r)) = (&self.faults, &mut item)
            && let Some(slot) = r.request.extensions_mut().remove::<super::raw::RawSlot>()
        {
            // Before the request is on the wire, so its answer finds its slot.
            faults.raw.expect(r.id.clone(), slot);
        }
        if let Some(tap) = &self.tap
            && let Ok(value) = serde_json::to_value(&item)
        {
            tap.record(true, &value);
        }
        self.inner.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        let tap = self.tap.clone();
        let progress = self.progress.clone();
        let next = self.inner.receive();
        async move {
            let message = next.await;
            if let (Some(routes), Some(rmcp::model::JsonRpcMessage::Notification(n))) =
                (&progress, &message)
                && let rmcp::model::ServerNotification::ProgressNotification(p) = &n.notification
            {
                routes.received(&p.params.progress_token);
            }
            if let (Some(tap), Some(m)) = (&tap, &message)
                && let Ok(value) = serde_json::to_value(m)
            {
                tap.record(false, &value);
            }
            message
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::{
        ClientRequest, JsonRpcMessage, NumberOrString, PingRequest, ProgressToken, RequestId,
    };
    use rmcp::transport::async_rw::AsyncRwTransport;
    use tokio::io::AsyncBufReadExt as _;
    use tokio::sync::mpsc;

    use super::*;
    use crate::mcp::connection::events::ProgressRoutes;

    /// A ping carrying progress token `n` and a route to `tx`.
    fn routed_ping(n: i64, route: &PendingRoute) -> TxJsonRpcMessage<RoleClient> {
        let mut request = ClientRequest::PingRequest(PingRequest::default());
        request
            .get_meta_mut()
            .set_progress_token(ProgressToken(NumberOrString::Number(n)));
        request.extensions_mut().insert(route.clone());
        JsonRpcMessage::request(request, RequestId::Number(n))
    }

    #[tokio::test]
    async fn a_progress_route_is_open_before_its_request_reaches_the_server() {
        let (ours, theirs) = tokio::io::duplex(64 * 1024);
        let (read, write) = tokio::io::split(ours);
        let inner = AsyncRwTransport::<RoleClient, _, _>::new_client(read, write);
        let routes = ProgressRoutes::default();
        let sink = EventSink::new(Arc::from("t"), None);
        let mut tapped =
            Tapped::new(inner, &sink, &Redactor::default(), false).counting(routes.clone());
        let mut server = tokio::io::BufReader::new(theirs).lines();

        let (tx, _rx) = mpsc::channel(4);
        let route = PendingRoute::new(tx);
        tapped.send(routed_ping(1, &route)).await.expect("sent");
        let line = server.next_line().await.expect("read").expect("a line");
        let token = ProgressToken(NumberOrString::Number(1));
        assert!(
            routes.route(&token).is_some(),
            "the server can report as soon as it reads this request"
        );
        // The route is never written: the request's `_meta` holds its progress token only.
        let sent: Value = serde_json::from_str(&line).expect("json");
        assert_eq!(
            sent["params"]["_meta"],
            serde_json::json!({"progressToken": 1})
        );
        routes.close(&token, &route);
        assert!(routes.route(&token).is_none());

        // A request that ended before the transport sent it never opens its route.
        let (tx, _rx) = mpsc::channel(4);
        let ended = PendingRoute::new(tx);
        let token = ProgressToken(NumberOrString::Number(2));
        routes.close(&token, &ended);
        tapped.send(routed_ping(2, &ended)).await.expect("sent");
        server.next_line().await.expect("read").expect("a line");
        assert!(routes.route(&token).is_none());
    }
}
