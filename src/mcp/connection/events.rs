//! Engine events from one live connection, and the rmcp client handler that produces them.
//!
//! The handler only forwards: every callback turns into one [`ServerEvent`] sent with `try_send`
//! on a bounded channel, so a flooding server can never block rmcp's serve loop or grow memory
//! (events that do not fit are counted as dropped). rmcp runs each notification in its own task,
//! so events may arrive out of order. Text inside events is raw server text: the consumer
//! sanitises it where it enters its model.

// Logging notifications are deprecated by SEP-2577 but servers still send them.
#![allow(deprecated)]

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rmcp::ClientHandler;
use rmcp::model::{
    ClientCapabilities, ClientConfig, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, ElicitationCapability, ErrorData, FormElicitationCapability,
    Implementation, ListRootsResult, LoggingLevel, LoggingMessageNotificationParam,
    ProgressNotificationParam, ProgressToken, ProtocolVersion, ResourceUpdatedNotificationParam,
    RootsCapabilities, SamplingCapability, UrlElicitationCapability,
};
use rmcp::service::{NotificationContext, RequestContext, RoleClient};

use crate::mcp::client::{ClientSide, handler};
use tokio::sync::mpsc;

/// Something a connection reports without being asked.
#[derive(Debug, Clone, PartialEq)]
pub enum ConnectionEvent {
    /// `notifications/progress` for an in-flight request (match `token` against the request's).
    Progress {
        /// The progress token of the request it belongs to.
        token: ProgressToken,
        /// Progress so far.
        progress: f64,
        /// The total, when the server knows it.
        total: Option<f64>,
        /// The server's progress message (raw).
        message: Option<String>,
    },
    /// `notifications/message`: a server log line.
    Log {
        /// The severity.
        level: LoggingLevel,
        /// The logger name (raw).
        logger: Option<String>,
        /// The payload (raw JSON).
        data: serde_json::Value,
    },
    /// `notifications/tools/list_changed`: the tool catalog is stale.
    ToolListChanged,
    /// `notifications/resources/list_changed`: the resource catalog is stale.
    ResourceListChanged,
    /// `notifications/prompts/list_changed`: the prompt catalog is stale.
    PromptListChanged,
    /// `notifications/resources/updated` for a subscribed resource.
    ResourceUpdated {
        /// The resource URI (raw).
        uri: String,
    },
    /// The stdio server's process exited without being asked to.
    Exited {
        /// The exit status as text.
        status: String,
    },
    /// `notifications/elicitation/complete`: the out-of-band interaction of a URL elicitation
    /// finished.
    ElicitationComplete {
        /// The elicitation id it names (raw).
        id: String,
    },
    /// One JSON-RPC message on the wire (only when traffic is tapped).
    Traffic(Box<super::traffic::Traffic>),
    /// A task of the tasks extension this connection follows, as created, then at each change a
    /// poll or a `notifications/tasks` push showed (text sanitised).
    Task {
        /// The task as last seen.
        task: Box<crate::mcp::api::TaskInfo>,
        /// Why the task loop stopped following it before it ended (cancelled, timed out, a
        /// failed poll); `None` while it is followed and once it ended.
        ended: Option<String>,
    },
}

/// One progress report for a request whose caller asked to hear them (serve mode forwards
/// them to the host). The message is raw server text, secrets redacted.
#[derive(Debug, Clone, PartialEq)]
pub struct ProgressUpdate {
    /// Progress so far.
    pub progress: f64,
    /// The total, when known.
    pub total: Option<f64>,
    /// The server's message.
    pub message: Option<String>,
}

/// How many progress reports may wait for their caller before new ones are dropped.
pub(crate) const PROGRESS_QUEUE: usize = 64;

/// Progress tokens of in-flight requests → where their reports go, and the progress reports
/// received but not yet handled.
///
/// rmcp picks a request's progress token while sending it, and a server may report progress
/// as soon as it reads the request, so a route added once the send has returned could miss
/// the first reports. A route therefore travels with its request ([`PendingRoute`], in the
/// request's extensions, never serialised) and the transport opens it under the request's
/// token just before the request goes on the wire ([`super::traffic::Tapped`]).
///
/// rmcp hands each notification to the handler in a task of its own, while an answer goes
/// straight to the waiting request, so a report sent before the answer may be handled after
/// it — when its route is already gone. The transport counts each report as it arrives (in
/// order, before rmcp sees it; [`super::traffic::Tapped`]) and the handler counts it once
/// routed, so an answered request can wait until every report that came before its answer
/// has been routed ([`ProgressRoutes::drained`]) before it drops its route.
#[derive(Clone, Default)]
pub(crate) struct ProgressRoutes(Arc<RoutesShared>);

#[derive(Default)]
struct RoutesShared {
    state: Mutex<RoutesState>,
    handled: tokio::sync::Notify,
}

/// Where a request's progress reports go, carried in the request until the transport sends it.
#[derive(Clone)]
pub(crate) struct PendingRoute {
    tx: mpsc::Sender<ProgressUpdate>,
    /// Set once the request has ended: a route the transport had not opened yet stays closed.
    ended: Arc<std::sync::atomic::AtomicBool>,
}

impl PendingRoute {
    /// A route to `tx`.
    pub(crate) fn new(tx: mpsc::Sender<ProgressUpdate>) -> Self {
        Self {
            tx,
            ended: Arc::default(),
        }
    }
}

#[derive(Default)]
struct RoutesState {
    routes: HashMap<ProgressToken, mpsc::Sender<ProgressUpdate>>,
    /// Reports received and not yet handled, per token (an entry at zero is removed).
    pending: HashMap<ProgressToken, u64>,
}

impl ProgressRoutes {
    fn state(&self) -> std::sync::MutexGuard<'_, RoutesState> {
        self.0
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Sends the reports of `token` along `route` from now on, unless its request has ended
    /// (called by the transport as it sends the request).
    pub(crate) fn open(&self, token: ProgressToken, route: &PendingRoute) {
        let mut state = self.state();
        if !route.ended.load(Ordering::Relaxed) {
            state.routes.insert(token, route.tx.clone());
        }
    }

    /// Stops routing the reports of `token` for good (its request has ended).
    pub(crate) fn close(&self, token: &ProgressToken, route: &PendingRoute) {
        let mut state = self.state();
        route.ended.store(true, Ordering::Relaxed);
        state.routes.remove(token);
    }

    /// Where the reports of `token` go, if anywhere.
    pub(crate) fn route(&self, token: &ProgressToken) -> Option<mpsc::Sender<ProgressUpdate>> {
        self.state().routes.get(token).cloned()
    }

    /// A report for `token` arrived from the server (called in arrival order).
    pub(crate) fn received(&self, token: &ProgressToken) {
        *self.state().pending.entry(token.clone()).or_default() += 1;
    }

    /// A report for `token` was handled (routed or dropped).
    pub(crate) fn handled(&self, token: &ProgressToken) {
        {
            let mut state = self.state();
            if let Some(count) = state.pending.get_mut(token) {
                *count = count.saturating_sub(1);
                if *count == 0 {
                    state.pending.remove(token);
                }
            }
        }
        self.0.handled.notify_waiters();
    }

    /// Waits until every report received so far for `token` has been handled.
    pub(crate) async fn drained(&self, token: &ProgressToken) {
        loop {
            let notified = self.0.handled.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if !self.state().pending.contains_key(token) {
                return;
            }
            notified.await;
        }
    }
}

/// A [`ConnectionEvent`] tagged with the configured server name.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerEvent {
    /// The configured server name.
    pub server: Arc<str>,
    /// What happened.
    pub event: ConnectionEvent,
}

/// Where a connection's events go. Cheap to clone; sending never blocks.
#[derive(Debug, Clone)]
pub(crate) struct EventSink {
    server: Arc<str>,
    tx: Option<mpsc::Sender<ServerEvent>>,
    dropped: Arc<AtomicU64>,
}

impl EventSink {
    /// A sink for `server` that sends into `tx` (or discards everything when `None`).
    pub(crate) fn new(server: Arc<str>, tx: Option<mpsc::Sender<ServerEvent>>) -> Self {
        Self {
            server,
            tx,
            dropped: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Sends an event, counting it as dropped when the channel is full or closed.
    pub(crate) fn emit(&self, event: ConnectionEvent) {
        let Some(tx) = &self.tx else {
            return;
        };
        let envelope = ServerEvent {
            server: self.server.clone(),
            event,
        };
        if tx.try_send(envelope).is_err() {
            self.dropped.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The configured server name events are tagged with.
    pub(crate) fn server(&self) -> Arc<str> {
        self.server.clone()
    }

    /// Events that could not be delivered.
    pub(crate) fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}

/// mcpdeck's rmcp client handler: announces mcpdeck (never "rmcp"), forwards notifications,
/// and answers the server's requests through the face's broker — or refuses them with -32601
/// when the face declared none (serve mode).
pub(crate) struct ClientEvents {
    sink: EventSink,
    protocol_version: ProtocolVersion,
    client: Option<ClientSide>,
    routes: ProgressRoutes,
    redactor: Option<super::Redactor>,
    /// The tasks this connection hosts for its server (2025-11-25 task-augmented requests).
    hosted: Arc<crate::mcp::client::task_host::TaskHost>,
    /// Where `notifications/tasks` pushes go (the tasks extension's loops, `tasks.rs`).
    pushes: super::tasks::TaskPushes,
}

impl ClientEvents {
    /// A handler offering `protocol_version` in `initialize`, declaring roots, sampling and
    /// elicitation only when `client` is given.
    pub(crate) fn new(
        sink: EventSink,
        protocol_version: ProtocolVersion,
        client: Option<ClientSide>,
    ) -> Self {
        Self {
            sink,
            protocol_version,
            client,
            routes: ProgressRoutes::default(),
            redactor: None,
            hosted: Arc::default(),
            pushes: super::tasks::TaskPushes::default(),
        }
    }

    /// Where this handler sends `notifications/tasks` pushes.
    pub(crate) fn task_pushes(&self) -> &super::tasks::TaskPushes {
        &self.pushes
    }

    /// Redacts routed progress messages with the connection's secrets.
    #[must_use]
    pub(crate) fn with_redactor(mut self, redactor: super::Redactor) -> Self {
        self.redactor = Some(redactor);
        self
    }

    /// The progress routes this handler reports to (shared with the connection).
    pub(crate) fn routes(&self) -> ProgressRoutes {
        self.routes.clone()
    }
}

impl ClientEvents {
    /// Answers one input request of a 2026 server's input-required round through the same path
    /// as the server-initiated request of the same method.
    pub(crate) async fn answer_input(
        &self,
        input: &rmcp::model::InputRequest,
    ) -> Result<serde_json::Value, ErrorData> {
        use rmcp::model::InputRequest;
        let server = self.sink.server();
        let side = self.client.as_ref();
        let answer = match input {
            InputRequest::Elicitation(r) => {
                serde_json::to_value(handler::create_elicitation(side, &server, &r.params).await?)
            }
            InputRequest::CreateMessage(r) => {
                serde_json::to_value(handler::create_message(side, &server, &r.params).await?)
            }
            InputRequest::ListRoots(_) => serde_json::to_value(handler::list_roots(side, &server)?),
            _ => return Err(handler::not_declared("an input request of an unknown kind")),
        };
        answer.map_err(|e| {
            ErrorData::new(rmcp::model::ErrorCode::INTERNAL_ERROR, e.to_string(), None)
        })
    }
}

/// The capabilities mcpdeck declares: everything with a broker, nothing without one — except
/// the tasks extension, which mcpdeck follows itself whoever asked (`tasks`).
pub(crate) fn declared_capabilities(with_client: bool) -> ClientCapabilities {
    let mut caps = ClientCapabilities::default();
    let mut extensions = rmcp::model::ExtensionCapabilities::new();
    extensions.insert(
        rmcp::model::TASKS_EXTENSION_ID.to_owned(),
        serde_json::Map::new(),
    );
    caps.extensions = Some(extensions);
    if with_client {
        let mut roots = RootsCapabilities::default();
        roots.list_changed = Some(true);
        caps.roots = Some(roots);
        caps.sampling = Some(SamplingCapability::default());
        let mut elicitation = ElicitationCapability::new();
        elicitation.form = Some(FormElicitationCapability::new());
        elicitation.url = Some(UrlElicitationCapability::new());
        caps.elicitation = Some(elicitation);
    }
    caps
}

/// mcpdeck's own client identity.
pub(crate) fn client_implementation() -> Implementation {
    Implementation::new("mcpdeck", env!("CARGO_PKG_VERSION"))
}

impl ClientHandler for ClientEvents {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            declared_capabilities(self.client.is_some()),
            client_implementation(),
        )
        .with_protocol_version(self.protocol_version.clone())
    }

    async fn list_roots(
        &self,
        _cx: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        handler::list_roots(self.client.as_ref(), &self.sink.server())
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _cx: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        handler::create_message(self.client.as_ref(), &self.sink.server(), &params).await
    }

    async fn create_elicitation(
        &self,
        params: ElicitRequestParams,
        _cx: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        handler::create_elicitation(self.client.as_ref(), &self.sink.server(), &params).await
    }

    async fn on_custom_request(
        &self,
        request: rmcp::model::CustomRequest,
        _cx: RequestContext<RoleClient>,
    ) -> Result<rmcp::model::CustomResult, ErrorData> {
        let server = self.sink.server();
        let side = self.client.as_ref();
        let params = request.params.as_ref();
        if let Some(answer) = self
            .hosted
            .answer(side, &server, &request.method, params)
            .await
        {
            return answer.map(rmcp::model::CustomResult);
        }
        Err(handler::unreadable_request(
            self.client.as_ref(),
            &request.method,
            request.params.as_ref(),
        ))
    }

    async fn on_progress(
        &self,
        p: ProgressNotificationParam,
        _cx: NotificationContext<RoleClient>,
    ) {
        let route = self.routes.route(&p.progress_token);
        if let Some(tx) = route {
            let message = p.message.as_ref().map(|m| match &self.redactor {
                Some(r) => r.redact(m).into_owned(),
                None => m.clone(),
            });
            let _ = tx.try_send(ProgressUpdate {
                progress: p.progress,
                total: p.total,
                message,
            });
        }
        self.routes.handled(&p.progress_token);
        self.sink.emit(ConnectionEvent::Progress {
            token: p.progress_token,
            progress: p.progress,
            total: p.total,
            message: p.message,
        });
    }

    async fn on_logging_message(
        &self,
        p: LoggingMessageNotificationParam,
        _cx: NotificationContext<RoleClient>,
    ) {
        if let Some(side) = &self.client
            && side.log_level.is_some()
        {
            let level = serde_json::to_value(p.level)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
                .unwrap_or_default();
            let line = crate::mcp::client::log_line(&level, p.logger.as_deref(), &p.data);
            let line = match &self.redactor {
                Some(r) => r.redact(&line).into_owned(),
                None => line,
            };
            side.requests.note(&self.sink.server(), &line);
        }
        self.sink.emit(ConnectionEvent::Log {
            level: p.level,
            logger: p.logger,
            data: p.data,
        });
    }

    async fn on_tool_list_changed(&self, _cx: NotificationContext<RoleClient>) {
        self.sink.emit(ConnectionEvent::ToolListChanged);
    }

    async fn on_resource_list_changed(&self, _cx: NotificationContext<RoleClient>) {
        self.sink.emit(ConnectionEvent::ResourceListChanged);
    }

    async fn on_prompt_list_changed(&self, _cx: NotificationContext<RoleClient>) {
        self.sink.emit(ConnectionEvent::PromptListChanged);
    }

    async fn on_resource_updated(
        &self,
        p: ResourceUpdatedNotificationParam,
        _cx: NotificationContext<RoleClient>,
    ) {
        self.sink
            .emit(ConnectionEvent::ResourceUpdated { uri: p.uri });
    }

    /// `notifications/tasks`: goes to the loop following the task, which shows it at once.
    async fn on_task_status(
        &self,
        p: rmcp::model::TaskStatusNotificationParams,
        _cx: NotificationContext<RoleClient>,
    ) {
        self.pushes.push(p.task);
    }

    // rmcp 3.11 has no typed `notifications/elicitation/complete`: it arrives as a custom one.
    async fn on_custom_notification(
        &self,
        n: rmcp::model::CustomNotification,
        _cx: NotificationContext<RoleClient>,
    ) {
        if n.method != "notifications/elicitation/complete" {
            return;
        }
        let id = n
            .params
            .as_ref()
            .and_then(|p| p.get("elicitationId"))
            .and_then(serde_json::Value::as_str)
            .unwrap_or_default()
            .to_owned();
        self.sink.emit(ConnectionEvent::ElicitationComplete { id });
    }
}

#[cfg(test)]
mod tests {
    use futures_util::FutureExt as _;

    use super::*;

    #[test]
    fn an_answered_request_waits_for_the_reports_received_before_it() {
        let routes = ProgressRoutes::default();
        let token = ProgressToken(rmcp::model::NumberOrString::Number(7));
        let other = ProgressToken(rmcp::model::NumberOrString::Number(8));
        assert!(routes.drained(&token).now_or_never().is_some());
        routes.received(&token);
        routes.received(&token);
        routes.received(&other);
        routes.handled(&token);
        assert!(routes.drained(&token).now_or_never().is_none());
        routes.handled(&token);
        assert!(routes.drained(&token).now_or_never().is_some());
        // Another request's reports do not hold this one.
        assert!(routes.drained(&other).now_or_never().is_none());
    }
}
