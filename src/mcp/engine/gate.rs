//! How the policy lets an operation through: decided before anything connects, and — when an
//! operator must approve — asked once the operation's details (arguments, annotations) are
//! known, with a timeout, cancellation and session approvals.

use crate::mcp::connection::ErrorClass;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::outcome::Failure;
use super::slot::Slot;
use super::{Engine, approve};
use crate::mcp::pending::{Pending, Settled};
use crate::mcp::policy::{ApprovalRequest, Approver, Decision, Mode, Verdict};
use crate::mcp::proxy::NormalizedOperation;

/// How the policy let an operation through.
pub(super) enum Gate {
    /// It runs; how it was let through (recorded in the trace).
    Pass(&'static str),
    /// An approver is asked once the operation's details (arguments, annotations) are known.
    Ask(Arc<dyn Approver>),
    /// The policy allows a tool call (a standing allow rule in enforce mode, or audit mode):
    /// it runs, unless the tool drifted from its pins — then in enforce mode the rule does not
    /// cover it and an approver is asked, and in audit mode it runs as `allowed_drifted` and
    /// the approver is told.
    Rule,
}

impl Gate {
    /// The trace's decision: an approval never asked means the operation failed before it.
    pub(super) fn decision(&self) -> &'static str {
        match self {
            Self::Pass(decision) => decision,
            Self::Ask(_) => "not_asked",
            Self::Rule => "allowed",
        }
    }
}

impl Engine {
    /// Applies the policy: how the operation is let through (at once, or after an approval that
    /// [`Engine::approve`] asks once the details are known), or why not. Catalog reads never
    /// ask. Without anyone to ask, it fails closed here, before anything connects.
    pub(super) async fn authorize(
        &self,
        server: Option<&str>,
        operation: &NormalizedOperation,
        cancel: &CancellationToken,
    ) -> Result<Gate, (&'static str, Failure)> {
        let Some(slot) = server.and_then(|s| self.slots.get(s)) else {
            // Status, or an unknown server that `run` reports.
            return Ok(Gate::Pass("allowed"));
        };
        let op = operation.to_string();
        match self.policy().decide(&slot.name, operation) {
            Verdict::Allow if matches!(operation, NormalizedOperation::ToolsCall { .. }) => {
                return Ok(Gate::Rule);
            }
            Verdict::Allow => return Ok(Gate::Pass("allowed")),
            Verdict::Deny(rule) => {
                return Err((
                    "denied",
                    Failure::new(
                        ErrorClass::Denied,
                        format!(
                            "`{op}` on `{}` is refused by policy rule `{rule}`",
                            slot.name
                        ),
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
                    ErrorClass::ApprovalRequired,
                    format!(
                        "enforce mode: `{op}` on `{}` needs an operator's approval and no approver is attached",
                        slot.name
                    ),
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
        listed: Option<&rmcp::model::Tool>,
        cancel: &CancellationToken,
    ) -> Result<(), Failure> {
        let tool = match operation {
            NormalizedOperation::ToolsCall { tool } => Some(tool.as_str()),
            _ => None,
        };
        let tool_changed = tool.is_some_and(|t| slot.tool_changed(t));
        let audit = self.policy().mode == Mode::Audit;
        let approver = match gate {
            Gate::Ask(approver) => approver.clone(),
            Gate::Rule if tool_changed && audit => {
                // Audit mode asks nobody: the trace records the drift, and whoever answers
                // approvals is told (serve logs it and flags it to attached consoles).
                if let Some(approver) = &self.approver {
                    approver.flag(self.request(slot, operation, arguments, listed, tool_changed));
                }
                *gate = Gate::Pass("allowed_drifted");
                return Ok(());
            }
            Gate::Rule if tool_changed => self.drifted_approver(slot, operation).await?,
            Gate::Pass(_) | Gate::Rule => return Ok(()),
        };
        let op = operation.to_string();
        let ask = self.request(slot, operation, arguments, listed, tool_changed);
        let (pending, reply) = Pending::new(ask.ticket, Some(self.approval_timeout));
        approver.ask(ask, reply);
        let settled = pending
            .wait(async {
                tokio::select! {
                    () = cancel.cancelled() => {}
                    () = self.shutdown.cancelled() => {}
                }
            })
            .await;
        let (decision, result) = self.settle(&settled, slot, op);
        *gate = Gate::Pass(decision);
        result
    }

    /// The question about `operation` as an approver (or, in audit mode, a watcher) sees it:
    /// its effects, how the tool drifted from its pins, and what the poisoning scan finds in
    /// the tool's definition.
    fn request(
        &self,
        slot: &Slot,
        operation: &NormalizedOperation,
        arguments: Option<String>,
        listed: Option<&rmcp::model::Tool>,
        tool_changed: bool,
    ) -> ApprovalRequest {
        let tool = match operation {
            NormalizedOperation::ToolsCall { tool } => Some(tool.as_str()),
            _ => None,
        };
        let op = operation.to_string();
        let drift = tool
            .and_then(|t| slot.tool_drift(t))
            .map(|c| c.lines())
            .unwrap_or_default();
        let findings = listed.map(scan_lines).unwrap_or_default();
        let annotations = listed.and_then(|t| t.annotations.as_ref());
        let (effects, effects_claimed) = approve::effects(annotations);
        ApprovalRequest {
            ticket: self
                .tickets
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed),
            server: crate::mcp::sanitize::sanitize_capped(&slot.name, 128),
            operation: crate::mcp::sanitize::sanitize_capped(&op, 300),
            effects,
            server_changed: self.changed_servers.contains(&slot.name),
            tool_changed,
            drift,
            findings,
            timeout_ms: u64::try_from(self.approval_timeout.as_millis()).unwrap_or(u64::MAX),
            arguments,
            effects_claimed,
            sandbox: slot
                .entry
                .def
                .as_ref()
                .and_then(crate::mcp::config::ServerDef::sandbox_line),
        }
    }

    /// Who is asked about a tool call that a standing allow rule matched but that drifted from
    /// its pins: the rule does not cover the changed tool until the operator accepts the change
    /// (`mcpdeck pins SERVER --accept`), and without anyone to ask it fails closed.
    async fn drifted_approver(
        &self,
        slot: &Slot,
        operation: &NormalizedOperation,
    ) -> Result<Arc<dyn Approver>, Failure> {
        let available = match self.approver.as_ref() {
            None => false,
            Some(approver) => tokio::select! {
                available = approver.wait_available() => available,
                () = self.shutdown.cancelled() => false,
            },
        };
        match self.approver.as_ref().filter(|_| available) {
            Some(approver) => Ok(approver.clone()),
            None => Err(Failure::new(
                ErrorClass::ApprovalRequired,
                format!(
                    "enforce mode: `{operation}` on `{}` changed since its pins, so no allow rule covers it until the change is accepted (`mcpdeck pins {} --accept`), and no approver is attached",
                    slot.name, slot.name
                ),
            )),
        }
    }

    /// What an approver's answer (or its absence) means: how the trace records it, and whether
    /// the operation runs.
    fn settle(
        &self,
        answer: &Settled<Decision>,
        slot: &Slot,
        op: String,
    ) -> (&'static str, Result<(), Failure>) {
        match answer {
            Settled::Answered(Decision::AllowOnce) => ("approved_once", Ok(())),
            Settled::Answered(Decision::AllowSession) => {
                slot.approve_session(op);
                ("approved_session", Ok(()))
            }
            // Every face gone unanswered is a denial, as a refusal is.
            Settled::Answered(Decision::Deny) | Settled::Abandoned => (
                "approval_denied",
                Err(Failure::new(
                    ErrorClass::Denied,
                    format!("the operator did not approve `{op}` on `{}`", slot.name),
                )),
            ),
            Settled::TimedOut => (
                "approval_timeout",
                Err(Failure::new(
                    ErrorClass::Denied,
                    format!(
                        "no answer within {}: `{op}` on `{}` was not run",
                        seconds(self.approval_timeout),
                        slot.name
                    ),
                )),
            ),
            Settled::Cancelled => (
                "approval_cancelled",
                Err(Failure::new(
                    ErrorClass::Cancelled,
                    format!(
                        "cancelled while waiting for approval of `{op}` on `{}`",
                        slot.name
                    ),
                )),
            ),
        }
    }
}

/// What the poisoning scan finds in a tool's definition, one line each (at most 20).
fn scan_lines(tool: &rmcp::model::Tool) -> Vec<String> {
    let Ok(value) = serde_json::to_value(tool) else {
        return Vec::new();
    };
    let definition = crate::mcp::scan::Definition::new(crate::mcp::scan::Kind::Tool, value);
    crate::mcp::scan::scan_definition(&definition)
        .iter()
        .take(20)
        .map(crate::mcp::scan::Finding::line)
        .collect()
}

/// `120 s`, or `0.25 s` for a bound under a second.
fn seconds(d: std::time::Duration) -> String {
    if d.subsec_millis() == 0 {
        format!("{} s", d.as_secs())
    } else {
        format!("{} s", d.as_secs_f64())
    }
}
