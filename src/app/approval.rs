//! Pending approvals as state. A request is plain data; answering yields an
//! `Effect::Answer` (the runtime holds the sender the asker awaits) and drops the request. Keys typed in
//! the first [`GUARD`] after a request appears are ignored (a keystroke meant for something
//! else must not answer), and a paste never answers. Time comes from the app's injected clock.

use std::time::{Duration, Instant};

use crate::mcp::policy::approval::{ApprovalRequest, Decision};
use crate::mcp::sanitize::sanitize_capped;

/// How long keys are ignored after an approval appears.
pub const GUARD: Duration = Duration::from_millis(300);

/// One approval waiting for the operator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pending {
    /// The request (server and operation sanitised again on entry).
    pub request: ApprovalRequest,
    /// Where the answer goes.
    /// When it was first shown (guard start).
    pub shown_at: Instant,
    /// The agent session that asks (its `mcpdeck serve` pid); `None` for the console's own.
    pub agent: Option<u32>,
}

impl Pending {
    /// A pending approval shown at `now`.
    pub fn new(mut request: ApprovalRequest, now: Instant) -> Self {
        request.server = sanitize_capped(&request.server, 256);
        request.operation = sanitize_capped(&request.operation, 512);
        Self {
            request,
            shown_at: now,
            agent: None,
        }
    }

    /// A pending approval from the agent session `pid`, shown at `now`.
    pub fn from_agent(pid: u32, request: ApprovalRequest, now: Instant) -> Self {
        Self {
            agent: Some(pid),
            ..Self::new(request, now)
        }
    }

    /// Whether keys typed at `now` may answer.
    pub fn armed(&self, now: Instant) -> bool {
        now.saturating_duration_since(self.shown_at) >= GUARD
    }

    /// The effect that sends `decision` to whoever asked.
    pub fn answer(self, decision: Decision) -> super::Effect {
        super::Effect::Answer {
            agent: self.agent,
            ticket: self.request.ticket,
            decision,
        }
    }
}
