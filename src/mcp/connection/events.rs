//! Engine events from one live connection, and the rmcp client handler that produces them.
//!
//! The handler only forwards: every callback turns into one [`ServerEvent`] sent with `try_send`
//! on a bounded channel, so a flooding server can never block rmcp's serve loop or grow memory
//! (events that do not fit are counted as dropped). rmcp runs each notification in its own task,
//! so events may arrive out of order. Text inside events is raw server text: the consumer
//! sanitises it where it enters its model.

// Logging notifications are deprecated by SEP-2577 but servers still send them.
#![allow(deprecated)]

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rmcp::ClientHandler;
use rmcp::model::{
    ClientCapabilities, ClientConfig, Implementation, LoggingLevel,
    LoggingMessageNotificationParam, ProgressNotificationParam, ProgressToken, ProtocolVersion,
    ResourceUpdatedNotificationParam,
};
use rmcp::service::{NotificationContext, RoleClient};
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
    /// One JSON-RPC message on the wire (only when traffic is tapped).
    Traffic(Box<super::traffic::Traffic>),
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
pub struct EventSink {
    server: Arc<str>,
    tx: Option<mpsc::Sender<ServerEvent>>,
    dropped: Arc<AtomicU64>,
}

impl EventSink {
    /// A sink for `server` that sends into `tx` (or discards everything when `None`).
    pub fn new(server: Arc<str>, tx: Option<mpsc::Sender<ServerEvent>>) -> Self {
        Self {
            server,
            tx,
            dropped: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Sends an event, counting it as dropped when the channel is full or closed.
    pub fn emit(&self, event: ConnectionEvent) {
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
    pub fn server(&self) -> Arc<str> {
        self.server.clone()
    }

    /// Events that could not be delivered.
    pub fn dropped(&self) -> u64 {
        self.dropped.load(Ordering::Relaxed)
    }
}

/// mcpdeck's rmcp client handler: announces mcpdeck (never "rmcp") and forwards notifications.
pub struct ClientEvents {
    sink: EventSink,
    protocol_version: ProtocolVersion,
}

impl ClientEvents {
    /// A handler offering `protocol_version` in `initialize`.
    pub fn new(sink: EventSink, protocol_version: ProtocolVersion) -> Self {
        Self {
            sink,
            protocol_version,
        }
    }
}

/// mcpdeck's own client identity.
pub fn client_implementation() -> Implementation {
    Implementation::new("mcpdeck", env!("CARGO_PKG_VERSION"))
}

impl ClientHandler for ClientEvents {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(ClientCapabilities::default(), client_implementation())
            .with_protocol_version(self.protocol_version.clone())
    }

    async fn on_progress(
        &self,
        p: ProgressNotificationParam,
        _cx: NotificationContext<RoleClient>,
    ) {
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
}
