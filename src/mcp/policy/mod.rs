//! Policy and approvals: audit and enforce modes, allow/deny globs over
//! `server:normalized-operation`, the metadata-only trace, and approval requests as data.
//! UI-free: approvers are a trait the faces implement.

pub(crate) mod approval;
pub(crate) mod approval_text;
mod reread;
pub(crate) mod rules;
pub(crate) mod trace;

pub(crate) use approval::{ALL_EFFECTS, DEFAULT_APPROVAL_TIMEOUT};
pub use approval::{ApprovalRequest, Approver, Decision, EffectClass};
pub use reread::Reread;
pub use rules::{Mode, Policy, PolicyError, RuleKind, Verdict};
pub(crate) use rules::{add_allow_rule, exact_rule, remove_rule};
pub(crate) use trace::Trace;
pub use trace::TraceRecord;
