//! Pending approvals as state. Each request keeps the `oneshot`
//! sender the engine awaits; answering sends the decision and drops the request. Keys typed in
//! the first [`GUARD`] after a request appears are ignored (a keystroke meant for something
//! else must not answer), and a paste never answers. Time comes from the app's injected clock.

use std::time::{Duration, Instant};

use tokio::sync::oneshot;

use crate::mcp::policy::approval::{ApprovalRequest, Decision};
use crate::mcp::sanitize::sanitize_capped;

/// How long keys are ignored after an approval appears.
pub const GUARD: Duration = Duration::from_millis(300);

/// One approval waiting for the operator.
#[derive(Debug)]
pub struct Pending {
    /// The request (server and operation sanitised again on entry).
    pub request: ApprovalRequest,
    /// Where the answer goes.
    reply: Option<oneshot::Sender<Decision>>,
    /// When it was first shown (guard start).
    pub shown_at: Instant,
    /// The agent session that asks (its `mcpdeck serve` pid); `None` for the console's own.
    pub agent: Option<u32>,
}

impl Pending {
    /// A pending approval shown at `now`.
    pub fn new(
        mut request: ApprovalRequest,
        reply: oneshot::Sender<Decision>,
        now: Instant,
    ) -> Self {
        request.server = sanitize_capped(&request.server, 256);
        request.operation = sanitize_capped(&request.operation, 512);
        Self {
            request,
            reply: Some(reply),
            shown_at: now,
            agent: None,
        }
    }

    /// A pending approval from the agent session `pid`, shown at `now`.
    pub fn from_agent(
        pid: u32,
        request: ApprovalRequest,
        reply: oneshot::Sender<Decision>,
        now: Instant,
    ) -> Self {
        Self {
            agent: Some(pid),
            ..Self::new(request, reply, now)
        }
    }

    /// Whether keys typed at `now` may answer.
    pub fn armed(&self, now: Instant) -> bool {
        now.saturating_duration_since(self.shown_at) >= GUARD
    }

    /// Sends the decision (a receiver that gave up is not an error: the engine denied already).
    pub fn answer(mut self, decision: Decision) {
        if let Some(reply) = self.reply.take() {
            let _ = reply.send(decision);
        }
    }
}

/// The decision a key stands for in the approval modal.
pub fn decision_for(c: char) -> Option<Decision> {
    match c {
        'y' => Some(Decision::AllowOnce),
        's' => Some(Decision::AllowSession),
        'n' => Some(Decision::Deny),
        _ => None,
    }
}
