//! What an operation returns, in the shapes every face needs: the `--json`
//! envelope for the CLI, the model-visible text for agents, and the exit code. Everything in
//! here is already sanitised and redacted; faces print it as is (and sanitise once more).

use serde_json::{Value, json};

use crate::mcp::api::OpResult;
use crate::mcp::results::SpillEntry;

/// The closing hints of model-visible texts, in the agents' request shape. A face that speaks
/// another language (the CLI names its own commands) replaces them whole.
pub(crate) mod hints {
    /// After a tools listing.
    pub(crate) const DESCRIBE: &str =
        "Use {\"server\":…,\"describe\":\"<tool>\"} for a tool's full schema.";
    /// After a resources listing.
    pub(crate) const READ: &str = "Read one with {\"server\":…,\"operation\":\"resources.read\",\"resource\":\"<reference>\"}.";
    /// After the status text.
    pub(crate) const LIST: &str = "Next: {\"server\":\"<name>\"} lists a server's tools.";
}

/// A failed operation: a safe class, a safe message and the CLI exit code.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// The error class (`missing_env`, `timeout`, `tool_error`, `invalid_request`, ...).
    pub class: String,
    /// What happened, safe to show anywhere.
    pub message: String,
    /// The CLI exit code.
    pub exit: u8,
    /// Class details (exit status, stderr tail, HTTP code), when there are any.
    pub detail: Option<Value>,
    /// A tool error's shaped result (text, structured content, spills).
    pub call: Option<Box<crate::mcp::api::ToolCall>>,
    /// Model-visible text that comes with the failure (a tool's own error output).
    pub text: Option<String>,
}

impl Failure {
    /// A failure with no details.
    pub fn new(class: impl Into<String>, message: String, exit: u8) -> Self {
        Self {
            class: class.into(),
            message,
            exit,
            detail: None,
            call: None,
            text: None,
        }
    }

    /// A `limit` failure (exit 7).
    pub fn limit(message: String) -> Self {
        Self::new("limit", message, 7)
    }

    /// An `invalid_request` failure (exit 1).
    pub fn invalid(message: String) -> Self {
        Self::new("invalid_request", message, 1)
    }
}

/// A successful operation.
#[derive(Debug, Clone, PartialEq)]
pub struct Success {
    /// The machine-readable result, typed; the envelope serialises it.
    pub result: OpResult,
    /// The model-visible text (bounded: at most 50 KiB and 2,000 lines).
    pub text: String,
    /// Spills this operation produced.
    pub spills: Vec<SpillEntry>,
}

/// The result of one proxy operation.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// The server it concerned (None for status).
    pub server: Option<String>,
    /// The normalized operation, e.g. `tools.call echo`.
    pub operation: String,
    /// What happened.
    pub body: Result<Success, Failure>,
}

impl Outcome {
    /// Whether it succeeded.
    pub fn ok(&self) -> bool {
        self.body.is_ok()
    }

    /// The `--json` envelope:
    /// `{"ok","server","operation","result","error":{"class","message",...}}`.
    pub fn to_json(&self) -> Value {
        match &self.body {
            Ok(success) => json!({
                "ok": true,
                "server": self.server,
                "operation": self.operation,
                "result": success.result.to_value(),
            }),
            Err(failure) => {
                let mut error = json!({"class": failure.class, "message": failure.message});
                let detail = failure.detail.clone().or_else(|| {
                    failure
                        .call
                        .as_ref()
                        .and_then(|c| serde_json::to_value(c).ok())
                });
                if let (Some(Value::Object(detail)), Value::Object(map)) = (&detail, &mut error) {
                    for (k, v) in detail {
                        if k != "class" {
                            map.insert(k.clone(), v.clone());
                        }
                    }
                }
                let mut envelope = json!({
                    "ok": false,
                    "server": self.server,
                    "operation": self.operation,
                    "result": null,
                    "error": error,
                });
                if let (Some(text), Value::Object(map)) = (&failure.text, &mut envelope) {
                    map.insert("text".to_owned(), Value::String(text.clone()));
                }
                envelope
            }
        }
    }

    /// The text an agent receives (and the CLI prints by default).
    pub fn model_text(&self) -> String {
        match &self.body {
            Ok(success) => success.text.clone(),
            Err(failure) => {
                let server = self
                    .server
                    .as_deref()
                    .map(|s| format!(" [server {s}]"))
                    .unwrap_or_default();
                let mut text = format!(
                    "error{server} ({}, {}): {}",
                    self.operation, failure.class, failure.message
                );
                if let Some(detail) = &failure.text {
                    text.push('\n');
                    text.push_str(detail);
                }
                text
            }
        }
    }

    /// The CLI exit code.
    /// A scan that found something, and a pin check that found drift, exit 1, like a check
    /// that failed.
    pub fn exit_code(&self) -> u8 {
        match &self.body {
            Err(f) => f.exit,
            Ok(Success {
                result: crate::mcp::api::OpResult::Scan(report),
                ..
            }) if !report.clean => 1,
            Ok(Success {
                result: crate::mcp::api::OpResult::PinSet(set),
                ..
            }) if !set.clean && self.operation == "pins.check" => 1,
            Ok(_) => 0,
        }
    }
}

impl Failure {
    /// A failure from a connection error.
    pub fn from_connect(e: &crate::mcp::connection::ConnectError) -> Self {
        let mut failure = Self::new(e.class.name(), e.message.clone(), e.class.exit_code());
        failure.detail = serde_json::to_value(&e.class).ok();
        failure
    }
}
