//! How the policy lets an operation through: decided before anything connects, and — when an
//! operator must approve — asked once the operation's details (arguments, annotations) are
//! known, with a timeout, cancellation and session approvals.

use crate::mcp::connection::ErrorClass;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::gate_step::{Event, Passed, Refusal, State, step};
use super::outcome::Failure;
use super::slot::Slot;
use super::{Engine, approve};
use crate::mcp::pending::Pending;
use crate::mcp::policy::{ApprovalRequest, Approver, Mode};
use crate::mcp::proxy::NormalizedOperation;

/// How the policy lets an operation through: where the pure machine in `gate_step` stands, and
/// the approver it will ask.
pub(super) struct Gate {
    state: State,
    approver: Option<Arc<dyn Approver>>,
    /// Why it refused, once it did.
    refused: Option<Refusal>,
}

impl Gate {
    fn new(state: State, approver: Option<Arc<dyn Approver>>) -> Self {
        Self {
            state,
            approver,
            refused: None,
        }
    }

    /// Feeds the machine one event; a refusal is kept for the trace.
    fn advance(&mut self, event: Event<'_>) -> Result<(), Refusal> {
        match step(self.state, event) {
            Ok(state) => {
                self.state = state;
                Ok(())
            }
            Err(refusal) => {
                self.refused = Some(refusal.clone());
                Err(refusal)
            }
        }
    }

    /// The trace's decision: an approval never asked means the operation failed before it.
    pub(super) fn decision(&self) -> &'static str {
        if let Some(refusal) = &self.refused {
            return refusal.name();
        }
        match self.state {
            State::Pass(passed) => passed.name(),
            State::Ask | State::Asked | State::NeedsApprover { .. } => "not_asked",
            State::Start | State::Rule => "allowed",
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
            return Ok(Gate::new(State::Pass(Passed::Allowed), None));
        };
        let refused = |refusal: Refusal| (refusal.name(), self.refusal(&refusal, slot, operation));
        let verdict = self.policy().decide(&slot.name, operation);
        let state = step(
            State::Start,
            Event::Verdict {
                verdict: &verdict,
                call: matches!(operation, NormalizedOperation::ToolsCall { .. }),
                session_approved: slot.session_approved(&operation.to_string()),
            },
        )
        .map_err(refused)?;
        let State::NeedsApprover { .. } = state else {
            return Ok(Gate::new(state, None));
        };
        let approver = self.attached_approver(Some(cancel)).await;
        let state = step(
            state,
            Event::Approver {
                available: approver.is_some(),
            },
        )
        .map_err(refused)?;
        Ok(Gate::new(state, approver))
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
        let tool_changed = match operation {
            NormalizedOperation::ToolsCall { tool } => slot.tool_changed(tool),
            _ => false,
        };
        let refused = |refusal: Refusal| self.refusal(&refusal, slot, operation);
        let details = Event::Details {
            tool_changed,
            audit: self.policy().mode == Mode::Audit,
        };
        gate.advance(details).map_err(refused)?;
        if let State::NeedsApprover { .. } = gate.state {
            gate.approver = self.attached_approver(None).await;
            let available = gate.approver.is_some();
            gate.advance(Event::Approver { available })
                .map_err(refused)?;
        }
        let request = || self.request(slot, operation, arguments, listed, tool_changed);
        let approver = match (gate.state, gate.approver.clone()) {
            (State::Asked, Some(approver)) => approver,
            (State::Pass(Passed::AllowedDrifted), _) => {
                // Audit mode asks nobody: the trace records the drift, and whoever answers
                // approvals is told (serve logs it and flags it to attached consoles).
                if let Some(approver) = &self.approver {
                    approver.flag(request());
                }
                return Ok(());
            }
            _ => return Ok(()),
        };
        let ask = request();
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
        gate.advance(Event::Settled(&settled)).map_err(refused)?;
        if gate.state == State::Pass(Passed::ApprovedSession) {
            slot.approve_session(operation.to_string());
        }
        Ok(())
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

    /// The attached approver, after waiting for one as long as the face waits (not past a
    /// cancellation of the operation, when given, or the engine's stop).
    async fn attached_approver(
        &self,
        cancel: Option<&CancellationToken>,
    ) -> Option<Arc<dyn Approver>> {
        let approver = self.approver.as_ref()?;
        let cancelled = async {
            match cancel {
                Some(cancel) => cancel.cancelled().await,
                None => std::future::pending().await,
            }
        };
        let available = tokio::select! {
            available = approver.wait_available() => available,
            () = cancelled => false,
            () = self.shutdown.cancelled() => false,
        };
        available.then(|| approver.clone())
    }

    /// The failure a refusal is, in words for the operator.
    fn refusal(&self, refusal: &Refusal, slot: &Slot, operation: &NormalizedOperation) -> Failure {
        let name = &slot.name;
        match refusal {
            Refusal::Denied(rule) => Failure::new(
                ErrorClass::Denied,
                format!("`{operation}` on `{name}` is refused by policy rule `{rule}`"),
            ),
            Refusal::NoApprover => Failure::new(
                ErrorClass::ApprovalRequired,
                format!(
                    "enforce mode: `{operation}` on `{name}` needs an operator's approval and no approver is attached"
                ),
            ),
            Refusal::DriftedNoApprover => Failure::new(
                ErrorClass::ApprovalRequired,
                format!(
                    "enforce mode: `{operation}` on `{name}` changed since its pins, so no allow rule covers it until the change is accepted (`mcpdeck pins {name} --accept`), and no approver is attached"
                ),
            ),
            Refusal::NotApproved => Failure::new(
                ErrorClass::Denied,
                format!("the operator did not approve `{operation}` on `{name}`"),
            ),
            Refusal::TimedOut => Failure::new(
                ErrorClass::Denied,
                format!(
                    "no answer within {}: `{operation}` on `{name}` was not run",
                    seconds(self.approval_timeout)
                ),
            ),
            Refusal::Cancelled => Failure::new(
                ErrorClass::Cancelled,
                format!("cancelled while waiting for approval of `{operation}` on `{name}`"),
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
