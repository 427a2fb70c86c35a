//! Policy and approvals (SPEC.md §6): audit and enforce modes, allow/deny globs over
//! `server:normalized-operation`, the metadata-only trace, and approval requests as data.
//! UI-free: approvers are a trait the faces implement.

pub mod approval;

pub use approval::{
    ALL_EFFECTS, ApprovalRequest, Approver, DEFAULT_APPROVAL_TIMEOUT, Decision, Effect,
};
