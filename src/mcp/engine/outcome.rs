//! What an operation returns, in the shapes every face needs: the `--json`
//! envelope for the CLI, the model-visible text for agents, and the exit code. Everything in
//! here is already sanitised and redacted; faces print it as is (and sanitise once more).

use serde_json::Value;

use crate::exit::Exit;
use crate::mcp::connection::ErrorClass;

use super::envelope::{Envelope, Hint};
use crate::mcp::api::OpResult;
use crate::mcp::results::SpillEntry;

/// A failed operation: its class (with the class's details), a safe message, and what came
/// with it. The exit code is the class's.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    /// What kind of failure, with its typed details (exit status, stderr tail, HTTP code,
    /// JSON-RPC code, the live status of the servers probed).
    pub class: ErrorClass,
    /// What happened, safe to show anywhere.
    pub message: String,
    /// A tool error's shaped result (text, structured content, spills).
    pub call: Option<Box<crate::mcp::api::ToolCall>>,
    /// Model-visible text that comes with the failure (a tool's own error output).
    pub text: Option<String>,
}

impl Failure {
    /// A failure with nothing beside its class and message.
    pub fn new(class: ErrorClass, message: String) -> Self {
        Self {
            class,
            message,
            call: None,
            text: None,
        }
    }

    /// A `limit` failure whose message names the bound.
    pub fn limit(message: String) -> Self {
        Self::new(
            ErrorClass::Limit {
                bound: String::new(),
            },
            message,
        )
    }

    /// An `invalid_request` failure.
    pub fn invalid(message: String) -> Self {
        Self::new(ErrorClass::InvalidRequest, message)
    }

    /// The class's details as JSON (`afterMs`, `stderrTail`, `code`, ...), when it has any.
    pub fn details(&self) -> Option<Value> {
        serde_json::to_value(&self.class)
            .ok()
            .filter(|d| d.as_object().is_some_and(|m| m.len() > 1))
    }

    /// What a command that ends with this failure exits with (the class's exit).
    pub fn exit(&self) -> Exit {
        self.class.exit()
    }
}

/// The message: a sentence for a person (the class's name is for machines).
impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
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

    /// The CLI's `--json` envelope (`Envelope::cli`):
    /// `{"ok","server","operation","result","error":{"class","message",...}}`.
    pub fn to_json(&self) -> Value {
        serde_json::to_value(Envelope::of(self).cli()).unwrap_or(Value::Null)
    }

    /// What to do next, when the result has a next step (data; each face words it).
    pub fn hint(&self) -> Option<Hint> {
        Envelope::of(self).hint
    }

    /// The text an agent receives (and the CLI prints by default).
    pub fn model_text(&self) -> String {
        match &self.body {
            Ok(success) => match self.hint() {
                Some(hint) => format!("{}{}", success.text, hint.for_agents()),
                None => success.text.clone(),
            },
            Err(failure) => {
                let server = self
                    .server
                    .as_deref()
                    .map(|s| format!(" [server {s}]"))
                    .unwrap_or_default();
                let mut text = format!(
                    "error{server} ({}, {}): {}",
                    self.operation,
                    failure.class.name(),
                    failure.message
                );
                if let Some(detail) = &failure.text {
                    text.push('\n');
                    text.push_str(detail);
                }
                text
            }
        }
    }

    /// The CLI exit code ([`Outcome::exit`] as a number).
    pub fn exit_code(&self) -> u8 {
        self.exit() as u8
    }

    /// What the CLI exits with: the failure's class, or success.
    /// A scan that found something, and a pin check that found drift, exit 1, like a check
    /// that failed.
    pub fn exit(&self) -> Exit {
        match &self.body {
            Err(f) => f.exit(),
            Ok(Success {
                result: crate::mcp::api::OpResult::Scan(report),
                ..
            }) if !report.clean => Exit::Usage,
            Ok(Success {
                result: crate::mcp::api::OpResult::PinSet(set),
                ..
            }) if !set.clean && self.operation == "pins.check" => Exit::Usage,
            Ok(_) => Exit::Ok,
        }
    }
}

impl Failure {
    /// A failure from a connection error.
    pub fn from_connect(e: &crate::mcp::connection::ConnectError) -> Self {
        Self::new(e.class.clone(), e.message.clone())
    }
}
