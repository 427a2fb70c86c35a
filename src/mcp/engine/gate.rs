//! How the policy lets an operation through: decided before anything connects, and — when an
//! operator must approve — asked once the operation's details (arguments, annotations) are
//! known, with a timeout, cancellation and session approvals.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::outcome::Failure;
use super::slot::Slot;
use super::{Engine, approve};
use crate::mcp::policy::{ApprovalRequest, Approver, Decision, Verdict};
use crate::mcp::proxy::{NormalizedOperation, ProxyRequest};

/// How the policy let an operation through.
pub(super) enum Gate {
    /// It runs; how it was let through (recorded in the trace).
    Pass(&'static str),
    /// An approver is asked once the operation's details (arguments, annotations) are known.
    Ask(Arc<dyn Approver>),
}

impl Gate {
    /// The trace's decision: an approval never asked means the operation failed before it.
    pub(super) fn decision(&self) -> &'static str {
        match self {
            Self::Pass(decision) => decision,
            Self::Ask(_) => "not_asked",
        }
    }
}

/// How the operator's answer came (or did not).
enum Answer {
    /// Someone answered.
    Decided(Decision),
    /// Nobody answered in time.
    TimedOut,
    /// The operation was cancelled, or the engine is shutting down.
    Cancelled,
}

impl Engine {
    /// Applies the policy: how the operation is let through (at once, or after an approval that
    /// [`Engine::approve`] asks once the details are known), or why not. Catalog reads never
    /// ask. Without anyone to ask, it fails closed here, before anything connects.
    pub(super) async fn authorize(
        &self,
        request: &ProxyRequest,
        operation: &NormalizedOperation,
        cancel: &CancellationToken,
    ) -> Result<Gate, (&'static str, Failure)> {
        let Some(slot) = request.server().and_then(|s| self.slots.get(s)) else {
            // Status, or an unknown server that `run` reports.
            return Ok(Gate::Pass("allowed"));
        };
        let op = operation.to_string();
        match self.policy.decide(&slot.name, operation) {
            Verdict::Allow => return Ok(Gate::Pass("allowed")),
            Verdict::Deny(rule) => {
                return Err((
                    "denied",
                    Failure::new(
                        "denied",
                        format!(
                            "`{op}` on `{}` is refused by policy rule `{rule}`",
                            slot.name
                        ),
                        2,
                    ),
                ));
            }
            Verdict::Ask if slot.session_approved(&op) => {
                return Ok(Gate::Pass("session_approval"));
            }
            Verdict::Ask => {}
        }
        let available = match self.approver.as_ref() {
            None => false,
            Some(approver) => tokio::select! {
                available = approver.wait_available() => available,
                () = cancel.cancelled() => false,
                () = self.shutdown.cancelled() => false,
            },
        };
        let Some(approver) = self.approver.as_ref().filter(|_| available) else {
            return Err((
                "approval_required",
                Failure::new(
                    "approval_required",
                    format!(
                        "enforce mode: `{op}` on `{}` needs an operator's approval and no approver is attached",
                        slot.name
                    ),
                    2,
                ),
            ));
        };
        Ok(Gate::Ask(approver.clone()))
    }

    /// Asks the gate's approver, when it is one, with what the operation will do; afterwards
    /// the gate records how it was let through (or the failure says why not).
    pub(super) async fn approve(
        &self,
        gate: &mut Gate,
        slot: &Slot,
        operation: &NormalizedOperation,
        arguments: Option<String>,
        annotations: Option<&rmcp::model::ToolAnnotations>,
        cancel: &CancellationToken,
    ) -> Result<(), Failure> {
        let Gate::Ask(approver) = gate else {
            return Ok(());
        };
        let approver = approver.clone();
        let op = operation.to_string();
        let tool_changed = match operation {
            NormalizedOperation::ToolsCall { tool } => slot.tool_changed(tool),
            _ => false,
        };
        let (effects, effects_claimed) = approve::effects(annotations);
        let ask = ApprovalRequest {
            ticket: self
                .tickets
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            server: crate::mcp::sanitize::sanitize_capped(&slot.name, 128),
            operation: crate::mcp::sanitize::sanitize_capped(&op, 300),
            effects,
            server_changed: self.changed_servers.contains(&slot.name),
            tool_changed,
            timeout_ms: u64::try_from(self.approval_timeout.as_millis()).unwrap_or(u64::MAX),
            arguments,
            effects_claimed,
            sandbox: slot
                .entry
                .def
                .as_ref()
                .and_then(crate::mcp::config::ServerDef::sandbox_line),
        };
        let answer = approver.ask(ask);
        let answer = tokio::select! {
            d = answer => Answer::Decided(d.unwrap_or(Decision::Deny)),
            () = tokio::time::sleep(self.approval_timeout) => Answer::TimedOut,
            () = cancel.cancelled() => Answer::Cancelled,
            () = self.shutdown.cancelled() => Answer::Cancelled,
        };
        let (decision, result) = self.settle(&answer, slot, op);
        *gate = Gate::Pass(decision);
        result
    }

    /// What an approver's answer (or its absence) means: how the trace records it, and whether
    /// the operation runs.
    fn settle(
        &self,
        answer: &Answer,
        slot: &Slot,
        op: String,
    ) -> (&'static str, Result<(), Failure>) {
        match answer {
            Answer::Decided(Decision::AllowOnce) => ("approved_once", Ok(())),
            Answer::Decided(Decision::AllowSession) => {
                slot.approve_session(op);
                ("approved_session", Ok(()))
            }
            Answer::Decided(Decision::Deny) => (
                "approval_denied",
                Err(Failure::new(
                    "denied",
                    format!("the operator did not approve `{op}` on `{}`", slot.name),
                    2,
                )),
            ),
            Answer::TimedOut => (
                "approval_timeout",
                Err(Failure::new(
                    "denied",
                    format!(
                        "no answer within {}: `{op}` on `{}` was not run",
                        seconds(self.approval_timeout),
                        slot.name
                    ),
                    2,
                )),
            ),
            Answer::Cancelled => (
                "approval_cancelled",
                Err(Failure::new(
                    "cancelled",
                    format!(
                        "cancelled while waiting for approval of `{op}` on `{}`",
                        slot.name
                    ),
                    6,
                )),
            ),
        }
    }
}

/// `120 s`, or `0.25 s` for a bound under a second.
fn seconds(d: std::time::Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{} s", d.as_secs_f64())
    }
}
