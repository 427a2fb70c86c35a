//! An operation's outcome as the faces hand it on: one type, [`Envelope`], and its two
//! serialisations, the CLI's `--json` ([`Envelope::cli`]) and serve's `structuredContent`
//! ([`Envelope::structured`]). What to do next is data here too ([`Hint`]): each face words it
//! in its own language, so no face rewrites another's text.

use serde::Serialize;

use super::outcome::{Failure, Outcome};
use crate::mcp::api::{OpResult, ToolCall};
use crate::mcp::connection::ErrorClass;

/// What to do after a result, as data. The agents' words are [`Hint::for_agents`]; the CLI
/// names its own commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hint {
    /// After a tools listing: describe a tool for its full schema.
    Describe,
    /// After a resources listing: read one by its reference.
    Read,
    /// After the status: list a server's tools.
    List,
}

impl Hint {
    /// The hint in the agents' request shape (the closing line of the model-visible text).
    pub fn for_agents(self) -> &'static str {
        match self {
            Self::Describe => {
                "Use {\"server\":…,\"describe\":\"<tool>\"} for a tool's full schema."
            }
            Self::Read => {
                "Read one with {\"server\":…,\"operation\":\"resources.read\",\"resource\":\"<reference>\"}."
            }
            Self::List => "Next: {\"server\":\"<name>\"} lists a server's tools.",
        }
    }

    /// The hint that follows `result`, if any: a tools listing, a resources listing of a
    /// server that declares resources, the status.
    pub fn after(result: &OpResult) -> Option<Self> {
        match result {
            OpResult::Tools(_) => Some(Self::Describe),
            OpResult::Resources(list) if list.declared => Some(Self::Read),
            OpResult::Status(_) => Some(Self::List),
            _ => None,
        }
    }
}

/// One operation's outcome, borrowed from an [`Outcome`], as both faces serialise it.
#[derive(Debug, Clone, Copy)]
pub struct Envelope<'a> {
    /// The server it concerned (None for status).
    pub server: Option<&'a str>,
    /// The normalized operation, e.g. `tools.call echo`.
    pub operation: &'a str,
    /// The typed result, or the failure.
    pub body: Result<&'a OpResult, &'a Failure>,
    /// What to do next.
    pub hint: Option<Hint>,
}

impl<'a> Envelope<'a> {
    /// The envelope of `outcome`.
    pub fn of(outcome: &'a Outcome) -> Self {
        let body = match &outcome.body {
            Ok(success) => Ok(&success.result),
            Err(failure) => Err(failure),
        };
        Self {
            server: outcome.server.as_deref(),
            operation: &outcome.operation,
            hint: body.ok().and_then(Hint::after),
            body,
        }
    }

    /// The CLI's `--json` form:
    /// `{"ok","server","operation","result","error":{"class","message",...details},"text"}`.
    pub fn cli(&self) -> impl Serialize + 'a {
        let (result, error, text) = match self.body {
            Ok(result) => (Some(result), None, None),
            Err(failure) => (
                None,
                Some(DetailedError {
                    class: &failure.class,
                    message: &failure.message,
                    call: failure.call.as_deref(),
                }),
                failure.text.as_deref(),
            ),
        };
        CliForm {
            ok: self.body.is_ok(),
            server: self.server,
            operation: self.operation,
            result,
            error,
            text,
        }
    }

    /// serve's `structuredContent` form:
    /// `{"server","operation","status":"ok"|"error","result"|"error":{"class","message"}}`.
    pub fn structured(&self) -> impl Serialize + 'a {
        let (result, error) = match self.body {
            Ok(result) => (Some(result), None),
            Err(failure) => (
                None,
                Some(BriefError {
                    class: failure.class.name(),
                    message: &failure.message,
                }),
            ),
        };
        StructuredForm {
            server: self.server,
            operation: self.operation,
            status: if self.body.is_ok() { "ok" } else { "error" },
            result,
            error,
        }
    }
}

/// The CLI's serialisation.
#[derive(Serialize)]
struct CliForm<'a> {
    ok: bool,
    server: Option<&'a str>,
    operation: &'a str,
    /// `null` on failure.
    result: Option<&'a OpResult>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<DetailedError<'a>>,
    /// Model-visible text that came with the failure (a tool's own error output).
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'a str>,
}

/// A failure with its class's details (or a tool error's shaped result) beside the message.
#[derive(Serialize)]
struct DetailedError<'a> {
    #[serde(flatten)]
    class: &'a ErrorClass,
    message: &'a str,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    call: Option<&'a ToolCall>,
}

/// serve's serialisation.
#[derive(Serialize)]
struct StructuredForm<'a> {
    server: Option<&'a str>,
    operation: &'a str,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<&'a OpResult>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<BriefError<'a>>,
}

/// A failure as an agent's structured content carries it: the class and the message (the
/// details are in the text).
#[derive(Serialize)]
struct BriefError<'a> {
    class: &'static str,
    message: &'a str,
}
