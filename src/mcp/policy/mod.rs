//! Policy and approvals: audit and enforce modes, allow/deny globs over
//! `server:normalized-operation`, the metadata-only trace, and approval requests as data.
//! UI-free: approvers are a trait the faces implement.

pub(crate) mod approval;
pub(crate) mod rules;
pub(crate) mod trace;

pub(crate) use approval::{ALL_EFFECTS, Approver, DEFAULT_APPROVAL_TIMEOUT};
pub use approval::{ApprovalRequest, Decision, EffectClass};
pub use rules::{Mode, Policy};
pub(crate) use rules::{RuleKind, Verdict, add_allow_rule, exact_rule, remove_rule};
pub(crate) use trace::{Trace, TraceRecord};
