//! The `mcpdeck.workspace-result/v1` envelope and the response bound.
//!
//! Every call's answer is one envelope, sent as `structuredContent` and as the same JSON in one
//! text block. Results are whole or refused: when the complete JSON-escaped response would
//! exceed [`MAX_RESPONSE_BYTES`], the envelope becomes `refused` / `response_too_large` with no
//! result; nothing is ever cut short.

use rmcp::model::CallToolResult;
use serde_json::{Value, json};

use super::index::Coverage;

/// The envelope's schema identifier.
pub const SCHEMA: &str = "mcpdeck.workspace-result/v1";
/// The largest complete tool response (JSON-escaped), in bytes.
pub const MAX_RESPONSE_BYTES: usize = 1024 * 1024;

/// How a call was answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// An answer.
    Known,
    /// The workspace has no answer (nothing matched); the result says what was searched.
    Unknown,
    /// No answer was attempted or kept; `reason` says why.
    Refused,
}

impl Status {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Known => "known",
            Self::Unknown => "unknown",
            Self::Refused => "refused",
        }
    }
}

/// Why a call was refused (or why it is unknown).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// The arguments do not match the tool's closed schema.
    InvalidArguments,
    /// The root path no longer names the directory bound at startup.
    WorkspaceUnavailable,
    /// Another call is running (or a quarantined producer still holds the slot).
    ServerBusy,
    /// The producer exceeded the time limit.
    Timeout,
    /// The caller cancelled the call.
    Cancelled,
    /// The complete response would exceed 1 MiB.
    ResponseTooLarge,
    /// Nothing admitted matched.
    NoMatch,
    /// Matching passages exist but none fits the word budget whole.
    BudgetTooSmall,
    /// The producer failed unexpectedly.
    Internal,
}

impl Reason {
    /// The wire code.
    pub fn code(self) -> &'static str {
        match self {
            Self::InvalidArguments => "invalid_arguments",
            Self::WorkspaceUnavailable => "workspace_unavailable",
            Self::ServerBusy => "server_busy",
            Self::Timeout => "timeout",
            Self::Cancelled => "cancelled",
            Self::ResponseTooLarge => "response_too_large",
            Self::NoMatch => "no_match",
            Self::BudgetTooSmall => "budget_too_small",
            Self::Internal => "internal_error",
        }
    }

    /// The reason named by a wire code.
    pub fn from_code(code: &str) -> Option<Self> {
        [
            Self::InvalidArguments,
            Self::WorkspaceUnavailable,
            Self::ServerBusy,
            Self::Timeout,
            Self::Cancelled,
            Self::ResponseTooLarge,
            Self::NoMatch,
            Self::BudgetTooSmall,
            Self::Internal,
        ]
        .into_iter()
        .find(|r| r.code() == code)
    }

    /// The reason in words, for a person.
    pub fn words(self) -> &'static str {
        match self {
            Self::InvalidArguments => "the arguments do not match the tool's schema",
            Self::WorkspaceUnavailable => {
                "the workspace folder is no longer the one bound at startup"
            }
            Self::ServerBusy => "another workspace call is still running; try again when it ends",
            Self::Timeout => "the answer took longer than the time limit",
            Self::Cancelled => "the call was cancelled",
            Self::ResponseTooLarge => "the answer would be larger than 1 MiB; narrow the request",
            Self::NoMatch => "nothing in the workspace matched",
            Self::BudgetTooSmall => "matching passages exist, but none fits the word budget whole",
            Self::Internal => "the workspace server failed unexpectedly",
        }
    }
}

/// A wire reason code in words; an unknown code is shown as it came.
pub fn reason_words(code: &str) -> std::borrow::Cow<'_, str> {
    Reason::from_code(code).map_or(std::borrow::Cow::Borrowed(code), |r| {
        std::borrow::Cow::Borrowed(r.words())
    })
}

/// One tool answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Envelope {
    /// Known, unknown or refused.
    pub status: Status,
    /// The alias, when the call named a bound one.
    pub workspace: Option<String>,
    /// Why (refused, and sometimes unknown).
    pub reason: Option<Reason>,
    /// The tool's result.
    pub result: Option<Value>,
    /// How much of the workspace the answer saw (every answer given after indexing).
    pub coverage: Option<Coverage>,
}

impl Envelope {
    /// A known answer.
    pub fn known(workspace: &str, result: Value) -> Self {
        Self {
            status: Status::Known,
            workspace: Some(workspace.to_owned()),
            reason: None,
            result: Some(result),
            coverage: None,
        }
    }

    /// No answer in the workspace.
    pub fn unknown(workspace: &str, reason: Reason, result: Value) -> Self {
        Self {
            status: Status::Unknown,
            workspace: Some(workspace.to_owned()),
            reason: Some(reason),
            result: Some(result),
            coverage: None,
        }
    }

    /// A refusal, optionally with details (never workspace content).
    pub fn refused(workspace: Option<&str>, reason: Reason, details: Option<Value>) -> Self {
        Self {
            status: Status::Refused,
            workspace: workspace.map(str::to_owned),
            reason: Some(reason),
            result: details,
            coverage: None,
        }
    }

    /// The same envelope saying how much of the workspace it saw.
    #[must_use]
    pub fn with_coverage(mut self, coverage: Coverage) -> Self {
        self.coverage = Some(coverage);
        self
    }

    /// The envelope as JSON.
    pub fn to_json(&self) -> Value {
        let mut v = json!({
            "schema": SCHEMA,
            "status": self.status.as_str(),
            "workspace": self.workspace,
        });
        if let Some(o) = v.as_object_mut() {
            if let Some(r) = self.reason {
                o.insert("reason".into(), json!(r.code()));
            }
            if let Some(r) = &self.result {
                o.insert("result".into(), r.clone());
            }
            if let Some(c) = self.coverage {
                o.insert("coverage".into(), c.to_json());
            }
        }
        v
    }

    /// The tool result: structured content plus the same JSON as text; `isError` for refusals.
    /// Over [`MAX_RESPONSE_BYTES`] this is a `response_too_large` refusal instead.
    pub fn into_tool_result(self) -> (CallToolResult, Self) {
        let result = render(&self);
        if response_bytes(&result) <= MAX_RESPONSE_BYTES {
            return (result, self);
        }
        let mut refusal = Self::refused(self.workspace.as_deref(), Reason::ResponseTooLarge, None);
        refusal.coverage = self.coverage;
        (render(&refusal), refusal)
    }
}

fn render(envelope: &Envelope) -> CallToolResult {
    let value = envelope.to_json();
    if envelope.status == Status::Refused {
        CallToolResult::structured_error(value)
    } else {
        CallToolResult::structured(value)
    }
}

/// The size of the complete `CallToolResult` as JSON.
pub fn response_bytes(result: &CallToolResult) -> usize {
    serde_json::to_vec(result).map_or(usize::MAX, |v| v.len())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn envelope_shape() {
        let e = Envelope::known("docs", json!({"passages": []}));
        assert_eq!(
            e.to_json(),
            json!({"schema": SCHEMA, "status": "known", "workspace": "docs", "result": {"passages": []}})
        );
        let r = Envelope::refused(Some("docs"), Reason::ServerBusy, None);
        assert_eq!(
            r.to_json(),
            json!({"schema": SCHEMA, "status": "refused", "workspace": "docs", "reason": "server_busy"})
        );
    }

    #[test]
    fn oversized_results_are_refused_whole() {
        let big = "x".repeat(MAX_RESPONSE_BYTES);
        let (result, e) = Envelope::known("w", json!({"text": big})).into_tool_result();
        assert_eq!(e.status, Status::Refused);
        assert_eq!(e.reason, Some(Reason::ResponseTooLarge));
        assert!(e.result.is_none());
        assert!(response_bytes(&result) < 1024);
        assert_eq!(result.is_error, Some(true));
    }
}
