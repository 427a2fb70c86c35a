//! Requests on a live connection: a deadline on every request, progress routed to the caller,
//! `notifications/cancelled` on timeout or cancellation, and failures explained. A request is
//! never retried or replayed here; a 2026 server's input-required rounds (`rounds`) are new
//! requests that carry the answers it asked for. (The one operation that sends a request again
//! is a tool call refused with `-32020`, after listing the tools afresh: `engine/ops/tools.rs`.)

use std::time::Duration;

use rmcp::model::{CancelledNotificationParam, ClientRequest, ProtocolVersion, ServerResult};
use rmcp::service::{PeerRequestOptions, ServiceError};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::connect::sign_in_hint;
use super::error::{ConnectError, ErrorClass, RequestError, classify_service};
use super::events::{self, ProgressUpdate};
use super::{Connection, EXIT_GRACE, MAX_TOTAL_CAP, max_total_for};

impl Connection {
    /// Sends one request with an idle `timeout` (reset by progress) and a hard `max_total`.
    /// On timeout rmcp sends `notifications/cancelled`. The request is never re-sent.
    pub async fn request(
        &self,
        request: ClientRequest,
        timeout: Duration,
        max_total: Duration,
    ) -> Result<ServerResult, RequestError> {
        self.request_cancellable(request, timeout, max_total, &CancellationToken::new())
            .await
    }

    /// Like [`Connection::request`] with the definition's timeout and the default total cap.
    pub async fn request_default(
        &self,
        request: ClientRequest,
    ) -> Result<ServerResult, RequestError> {
        let timeout = self.request_timeout;
        self.request(request, timeout, max_total_for(timeout)).await
    }

    /// Like [`Connection::request`], and cancelling `cancel` sends `notifications/cancelled`
    /// for this request and returns `cancelled` at once (a late response is ignored).
    pub async fn request_cancellable(
        &self,
        request: ClientRequest,
        timeout: Duration,
        max_total: Duration,
        cancel: &CancellationToken,
    ) -> Result<ServerResult, RequestError> {
        self.request_routed(request, timeout, max_total, cancel, None)
            .await
    }

    /// Like [`Connection::request_cancellable`], also sending the request's progress reports
    /// to `progress` (at most [`events::PROGRESS_QUEUE`] waiting; more are dropped), and the
    /// rounds of a server that asks for input (`rounds`) as reports too.
    pub async fn request_routed(
        &self,
        request: ClientRequest,
        timeout: Duration,
        max_total: Duration,
        cancel: &CancellationToken,
        progress: Option<&mpsc::Sender<ProgressUpdate>>,
    ) -> Result<ServerResult, RequestError> {
        self.request_rounds(request, timeout, max_total, cancel, progress)
            .await
    }

    /// Sends one request once and waits for its answer.
    pub(super) async fn send_once(
        &self,
        request: ClientRequest,
        timeout: Duration,
        max_total: Duration,
        cancel: &CancellationToken,
        progress: Option<&mpsc::Sender<ProgressUpdate>>,
    ) -> Result<ServerResult, RequestError> {
        if cancel.is_cancelled() {
            return Err(cancelled());
        }
        let mut request = request;
        if let Some(level) = self.request_log_level() {
            let meta = rmcp::model::GetMeta::get_meta_mut(&mut request);
            if meta.log_level().is_none() {
                meta.set_log_level(level);
            }
        }
        let pending = progress.map(|tx| events::PendingRoute::new(tx.clone()));
        if let Some(pending) = &pending {
            // Opened by the transport under the request's token as the request is sent.
            rmcp::model::GetExtensions::extensions_mut(&mut request).insert(pending.clone());
        }
        let options = PeerRequestOptions::with_timeout(timeout)
            .reset_timeout_on_progress()
            .with_max_total_timeout(max_total.min(MAX_TOTAL_CAP));
        let handle = match self
            .service
            .peer()
            .send_request_with_option(request, options)
            .await
        {
            Ok(handle) => handle,
            Err(e) => return Err(self.map_service_error(&e).await),
        };
        let route = pending.map(|pending| RouteGuard {
            routes: self.routes.clone(),
            token: handle.progress_token.clone(),
            pending,
        });
        let id = handle.id.clone();
        let peer = handle.peer.clone();
        tokio::select! {
            result = handle.await_response() => match result {
                Ok(r) => {
                    // Reports sent before the answer reach the caller before the answer does.
                    // Bounded only against a report rmcp never hands to the handler (one that
                    // names a subscription); normally this ends as soon as they are routed.
                    if let Some(route) = &route {
                        let _ = tokio::time::timeout(DRAIN_BOUND, route.drained()).await;
                    }
                    Ok(r)
                }
                Err(e) => match self.faults.take(&id) {
                    Some(fault) => Err(fault),
                    None => Err(self.map_service_error(&e).await),
                },
            },
            () = cancel.cancelled() => {
                let param = CancelledNotificationParam::new(
                    Some(id),
                    Some("cancelled by the operator".to_owned()),
                );
                let _ = peer.notify_cancelled(param).await;
                Err(cancelled())
            }
        }
    }

    /// Maps a request failure, explaining a closed stdio stream by the process's exit.
    async fn map_service_error(&self, e: &ServiceError) -> RequestError {
        if matches!(
            e,
            ServiceError::TransportClosed | ServiceError::TransportSend(_)
        ) && let Some(process) = &self.stdio
            && let Some(reason) = process.closed_reason(EXIT_GRACE).await
        {
            return super::connect::explain_sandboxed(self.sandbox.as_deref(), reason);
        }
        let mut error = sign_in_hint(classify_service(e, &self.redactor), &self.name, self.oauth);
        if let ErrorClass::Timeout { after_ms } = error.class
            && self.cancels_by_closing()
        {
            error.message = format!(
                "no response within {after_ms} ms; the request was cancelled by closing its \
                 stream (this protocol version sends no notifications/cancelled over HTTP)"
            );
        }
        error
    }

    /// Whether a cancelled request is ended by closing its HTTP stream rather than by
    /// `notifications/cancelled` (Streamable HTTP from protocol 2026-07-28 on).
    fn cancels_by_closing(&self) -> bool {
        self.transport_kind == "http"
            && self.identity.protocol_version.as_str() >= ProtocolVersion::V_2026_07_28.as_str()
    }
}

/// Closes a progress route when its request ends.
struct RouteGuard {
    routes: events::ProgressRoutes,
    token: rmcp::model::ProgressToken,
    pending: events::PendingRoute,
}

impl RouteGuard {
    /// Waits until the reports that arrived before the answer have been routed.
    async fn drained(&self) {
        self.routes.drained(&self.token).await;
    }
}

impl Drop for RouteGuard {
    fn drop(&mut self) {
        self.routes.close(&self.token, &self.pending);
    }
}

/// The longest an answered request waits for its earlier progress reports to be routed.
const DRAIN_BOUND: Duration = Duration::from_secs(5);

fn cancelled() -> RequestError {
    ConnectError::new(ErrorClass::Cancelled, "the request was cancelled")
}

impl Connection {
    /// Whether the session speaks the stateless protocol (2026-07-28 on): no `initialize`, no
    /// `ping`, per-request metadata.
    pub fn is_modern(&self) -> bool {
        self.identity.protocol_version.as_str() >= ProtocolVersion::V_2026_07_28.as_str()
    }

    /// The protocol era, as shown: `stateless` (2026-07-28 on) or `legacy` (initialize).
    pub fn era(&self) -> &'static str {
        if self.is_modern() {
            "stateless"
        } else {
            "legacy"
        }
    }

    /// The request that checks the server is there: `ping`, which 2026-07-28 removed, or there
    /// `server/discover`, which every 2026 server answers. Any answer that is not an error
    /// means the server is alive (some answer `ping` with `{"resultType": "complete"}`).
    pub fn liveness_request(&self) -> (ClientRequest, &'static str) {
        if self.is_modern() {
            (
                ClientRequest::DiscoverRequest(rmcp::model::DiscoverRequest::new(
                    rmcp::model::DiscoverRequestParams {},
                )),
                "server/discover",
            )
        } else {
            (
                ClientRequest::PingRequest(rmcp::model::PingRequest::default()),
                "ping",
            )
        }
    }
}
