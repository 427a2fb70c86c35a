//! The client side of MCP: what mcpdeck declares to a server, and how the server's own requests
//! (roots, sampling, elicitation) are answered.
//!
//! A face (the console, the CLI) hands the engine a [`ClientRequests`] broker; the engine turns
//! every server request into a plain, sanitised ask ([`ElicitationAsk`], [`SamplingAsk`]) and
//! awaits the face's answer, as it awaits approvals. A connection without a broker (serve mode)
//! declares no client capability and refuses such requests with JSON-RPC -32601. Nothing here
//! knows about terminals; nothing here decides for the operator.

pub(crate) mod elicit;
pub(crate) mod handler;
pub(crate) mod roots;
pub(crate) mod sampling;
pub(crate) mod task_host;
pub(crate) mod tasks;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use serde_json::{Map, Value};

pub use elicit::{Choice, FieldKind, Form, FormField};
pub use roots::{OfferedRoots, RootEntry, RootsSource, SharedRoots};
pub use tasks::TaskState;

/// The largest server-to-client request (its parameters as JSON) that is looked at; larger
/// ones are refused.
pub const MAX_SERVER_REQUEST_BYTES: usize = 1024 * 1024;

/// The model name mcpdeck reports in a sampling reply: a person wrote it.
pub const OPERATOR_MODEL: &str = "mcpdeck-operator";

/// A boxed, sendable future (the broker's answers).
pub type Answer<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// A server asks the operator for input. Every string is sanitised.
#[derive(Debug, Clone, PartialEq)]
pub struct ElicitationAsk {
    /// The configured server name.
    pub server: String,
    /// The server's message.
    pub message: String,
    /// A form or a URL.
    pub kind: ElicitKind,
}

/// The two elicitation modes.
#[derive(Debug, Clone, PartialEq)]
pub enum ElicitKind {
    /// Form mode: fields built from `requestedSchema`.
    Form(Form),
    /// URL mode: the operator completes something in a browser. Never opened automatically.
    Url {
        /// The URL, sanitised.
        url: String,
        /// Its origin (`scheme://host[:port]`), for emphasis; empty when it does not parse.
        origin: String,
        /// The server's elicitation id (may be empty).
        id: String,
    },
}

/// The operator's answer to an elicitation.
#[derive(Debug, Clone, PartialEq)]
pub enum ElicitAnswer {
    /// Accept, with the form's content (empty for URL mode).
    Accept(Map<String, Value>),
    /// Decline.
    Decline,
    /// Dismissed without a choice.
    Cancel,
}

impl ElicitAnswer {
    /// `accept`, `decline` or `cancel`.
    pub fn label(&self) -> &'static str {
        match self {
            Self::Accept(_) => "accept",
            Self::Decline => "decline",
            Self::Cancel => "cancel",
        }
    }
}

/// A server asks for a model completion; a person answers. Every string is sanitised.
#[derive(Debug, Clone, PartialEq)]
pub struct SamplingAsk {
    /// The configured server name.
    pub server: String,
    /// The system prompt, if any.
    pub system_prompt: Option<String>,
    /// The conversation: (role, text) with images and audio described, not shown.
    pub messages: Vec<(String, String)>,
    /// The token budget the server asked for.
    pub max_tokens: u32,
    /// Model hints and priorities, as one line.
    pub model_preferences: Option<String>,
    /// Names of the tools the server offers the model (2025-11-25 tool use).
    pub tools: Vec<String>,
}

/// The operator's answer to a sampling request.
#[derive(Debug, Clone, PartialEq)]
pub enum SamplingAnswer {
    /// A reply written by the operator.
    Reply {
        /// The text.
        text: String,
        /// `endTurn`, `stopSequence` or `maxTokens`.
        stop_reason: String,
    },
    /// Rejected: the server gets an error.
    Reject,
}

/// Who answers a server's requests. Implemented by the faces; the engine awaits the answers.
pub trait ClientRequests: Send + Sync {
    /// A server asks for input (form or URL).
    fn elicit(&self, ask: ElicitationAsk) -> Answer<ElicitAnswer>;
    /// A server asks for a completion.
    fn sample(&self, ask: SamplingAsk) -> Answer<SamplingAnswer>;
    /// Something the operator should know (a task's status, a refused request). Sanitised.
    fn note(&self, server: &str, text: &str) {
        let _ = (server, text);
    }
}

/// What one connection declares and who answers for it.
#[derive(Clone)]
pub struct ClientSide {
    /// The broker.
    pub requests: Arc<dyn ClientRequests>,
    /// The roots this server is shown (changeable for the session).
    pub roots: SharedRoots,
    /// The log level to ask for (`logging/setLevel`) where the server declares `logging`;
    /// its log lines are then noted on the broker.
    pub log_level: Option<String>,
}

impl std::fmt::Debug for ClientSide {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientSide")
            .field("roots", &self.roots)
            .finish_non_exhaustive()
    }
}

/// The log levels of MCP, lowest first.
pub const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// A level name (`debug` … `emergency`, any case), lowercased; `None` for anything else.
pub fn parse_level(name: &str) -> Option<String> {
    let name = name.to_ascii_lowercase();
    LOG_LEVELS.contains(&name.as_str()).then_some(name)
}

/// One server log line for a person: `[level] logger: text` (sanitised, capped).
pub fn log_line(level: &str, logger: Option<&str>, data: &Value) -> String {
    let text = match data {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let logger = logger.map(|l| format!("{}: ", crate::mcp::sanitize::sanitize_capped(l, 64)));
    format!(
        "[{}] {}{}",
        crate::mcp::sanitize::sanitize_capped(level, 16),
        logger.unwrap_or_default(),
        crate::mcp::sanitize::sanitize_capped(&text, 2048)
    )
}

/// The 2025-11-25 `tasks` client capability: mcpdeck answers task-augmented sampling and
/// elicitation requests as tasks (`task_host`), and lists and cancels the tasks it hosts. rmcp 3.11's typed
/// capabilities have no field for it, so it is added to the `initialize` message on the wire.
pub fn tasks_capability() -> Value {
    serde_json::json!({
        "list": {},
        "cancel": {},
        "requests": {
            "sampling": {"createMessage": {}},
            "elicitation": {"create": {}}
        }
    })
}
