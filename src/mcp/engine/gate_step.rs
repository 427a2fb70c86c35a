//! The approval gate as a pure state machine: the policy's verdict, whether an approver is
//! attached, the operation's details and the approver's answer are events, and [`step`] says
//! what each means — with no clock, no channel and no approver object. The async code in
//! `gate.rs` only feeds it the events and carries out what the states ask (ask an approver,
//! tell one, remember a session approval). Timeouts are data of the pending question; here they
//! are only the event that one ran out.

use crate::mcp::pending::Settled;
use crate::mcp::policy::{Decision, Verdict};

/// Where the gate stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum State {
    /// Nothing decided yet.
    Start,
    /// The policy wants an approver asked (`drifted`: because a tool call an allow rule matched
    /// drifted from its pins); whether one is attached is the next event.
    NeedsApprover {
        /// Asked because of drift, not because of an ask rule.
        drifted: bool,
    },
    /// An approver is attached; it is asked once the operation's details are known.
    Ask,
    /// A standing allow rule (or audit mode) lets a tool call through unless it drifted from
    /// its pins, which its details say.
    Rule,
    /// The approver has the question; its answer (or the question's end) is the next event.
    Asked,
    /// It runs.
    Pass(Passed),
}

/// How an operation was let through, as the trace records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Passed {
    /// The policy allows it.
    Allowed,
    /// The operator approved this operation for the session before.
    SessionApproval,
    /// Audit mode: the tool drifted from its pins and runs; whoever answers approvals is told.
    AllowedDrifted,
    /// The approver allowed it once.
    ApprovedOnce,
    /// The approver allowed it for the session (which the driver remembers).
    ApprovedSession,
}

impl Passed {
    /// The trace's decision.
    pub(super) fn name(self) -> &'static str {
        match self {
            Self::Allowed => "allowed",
            Self::SessionApproval => "session_approval",
            Self::AllowedDrifted => "allowed_drifted",
            Self::ApprovedOnce => "approved_once",
            Self::ApprovedSession => "approved_session",
        }
    }
}

/// Why the gate refuses an operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Refusal {
    /// A deny rule matched; its name.
    Denied(String),
    /// The policy wants an approval and nobody is attached to give it.
    NoApprover,
    /// An allow rule matched a tool that drifted from its pins, and nobody is attached to ask.
    DriftedNoApprover,
    /// The approver denied it, or every face went away unanswered.
    NotApproved,
    /// Nobody answered within the question's timeout.
    TimedOut,
    /// The operation was cancelled (or the engine stopped) while the question was open.
    Cancelled,
}

impl Refusal {
    /// The trace's decision.
    pub(super) fn name(&self) -> &'static str {
        match self {
            Self::Denied(_) => "denied",
            Self::NoApprover | Self::DriftedNoApprover => "approval_required",
            Self::NotApproved => "approval_denied",
            Self::TimedOut => "approval_timeout",
            Self::Cancelled => "approval_cancelled",
        }
    }
}

/// What happened to the operation at the gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Event<'a> {
    /// The policy's verdict on the operation.
    Verdict {
        /// What the rules say.
        verdict: &'a Verdict,
        /// It is a tool call (whose allow rule its pins may override).
        call: bool,
        /// The operator approved this operation for the session before.
        session_approved: bool,
    },
    /// Whether an approver is attached (after waiting for one as long as the face waits).
    Approver {
        /// One is.
        available: bool,
    },
    /// The operation's details are known.
    Details {
        /// The tool drifted from its pins.
        tool_changed: bool,
        /// The policy is in audit mode.
        audit: bool,
    },
    /// The question to the approver ended.
    Settled(&'a Settled<Decision>),
}

/// The gate's next state after `event`, or why it refuses. An event a state does not expect
/// leaves it as it is (a pass stays a pass whatever the details say).
pub(super) fn step(state: State, event: Event<'_>) -> Result<State, Refusal> {
    match (state, event) {
        (
            State::Start,
            Event::Verdict {
                verdict,
                call,
                session_approved,
            },
        ) => Ok(judge(verdict, call, session_approved)?),
        (State::NeedsApprover { drifted }, Event::Approver { available }) => match available {
            true if drifted => Ok(State::Asked),
            true => Ok(State::Ask),
            false if drifted => Err(Refusal::DriftedNoApprover),
            false => Err(Refusal::NoApprover),
        },
        (State::Ask, Event::Details { .. }) => Ok(State::Asked),
        (
            State::Rule,
            Event::Details {
                tool_changed,
                audit,
            },
        ) => Ok(match (tool_changed, audit) {
            (true, true) => State::Pass(Passed::AllowedDrifted),
            (true, false) => State::NeedsApprover { drifted: true },
            (false, _) => State::Pass(Passed::Allowed),
        }),
        (State::Asked, Event::Settled(settled)) => answer(settled),
        (state, _) => Ok(state),
    }
}

/// The policy's verdict: pass, a rule whose tool's pins decide, an approver wanted, or a deny.
fn judge(verdict: &Verdict, call: bool, session_approved: bool) -> Result<State, Refusal> {
    match verdict {
        Verdict::Allow if call => Ok(State::Rule),
        Verdict::Allow => Ok(State::Pass(Passed::Allowed)),
        Verdict::Deny(rule) => Err(Refusal::Denied(rule.clone())),
        Verdict::Ask if session_approved => Ok(State::Pass(Passed::SessionApproval)),
        Verdict::Ask => Ok(State::NeedsApprover { drifted: false }),
    }
}

/// What the approver's answer, or its absence, means. Every face gone unanswered is a denial,
/// as a refusal is.
fn answer(settled: &Settled<Decision>) -> Result<State, Refusal> {
    match settled {
        Settled::Answered(Decision::AllowOnce) => Ok(State::Pass(Passed::ApprovedOnce)),
        Settled::Answered(Decision::AllowSession) => Ok(State::Pass(Passed::ApprovedSession)),
        Settled::Answered(Decision::Deny) | Settled::Abandoned => Err(Refusal::NotApproved),
        Settled::TimedOut => Err(Refusal::TimedOut),
        Settled::Cancelled => Err(Refusal::Cancelled),
    }
}

#[cfg(test)]
#[path = "gate_step_tests.rs"]
mod tests;
