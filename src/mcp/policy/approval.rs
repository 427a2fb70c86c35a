//! Approval requests and decisions, as data. The engine awaits an [`Approver`];
//! the console, an attached console over the control socket, MCP elicitation or the headless
//! CLI answer it. An approval names the configured server, the normalized operation, its
//! effects (the tool's annotations when the server gives them, labelled server-claimed) and
//! changed-definition flags, and carries the operation's arguments so a person can judge it:
//! pretty-printed, sanitised and with every resolved secret redacted. Never headers,
//! environment references or secrets.

use std::time::Duration;

use crate::mcp::pending::Reply;

/// How long a pending approval waits before it counts as a denial.
pub(crate) const DEFAULT_APPROVAL_TIMEOUT: Duration = Duration::from_secs(120);

/// What an operation may do; the `mcp` tool declares all four because a remote operation cannot
/// be proven local.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum EffectClass {
    /// Reads data.
    Read,
    /// Changes data.
    Write,
    /// Runs code.
    Execute,
    /// Reaches the network.
    Network,
}

impl EffectClass {
    /// The word a person reads (and the policy file spells): `read`, `write`, `execute`, `network`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Read => "read",
            Self::Write => "write",
            Self::Execute => "execute",
            Self::Network => "network",
        }
    }
}

impl std::fmt::Display for EffectClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod effect_words {
    use super::EffectClass;

    #[test]
    fn effect_words_match_the_policy_spelling() {
        for e in super::ALL_EFFECTS {
            let json = serde_json::to_string(&e).expect("serialise");
            assert_eq!(json, format!("\"{e}\""));
        }
        assert_eq!(EffectClass::Network.to_string(), "network");
    }
}

/// The effects every proxied operation declares.
pub(crate) const ALL_EFFECTS: [EffectClass; 4] = [
    EffectClass::Read,
    EffectClass::Write,
    EffectClass::Execute,
    EffectClass::Network,
];

/// One pending question to the operator.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalRequest {
    /// Identifies the request among the pending ones (unique per process).
    pub ticket: u64,
    /// The configured server's name (sanitised).
    pub server: String,
    /// The normalized operation, e.g. `tools.call create_issue` (sanitised).
    pub operation: String,
    /// The operation's declared effects.
    pub effects: Vec<EffectClass>,
    /// The server's definition changed since an earlier approval in this session.
    pub server_changed: bool,
    /// The tool's definition changed since it was first listed in this session, or since its
    /// pins across restarts.
    pub tool_changed: bool,
    /// How the tool drifted from its pins across restarts: a summary line (what changed and
    /// its ratings), then the field-by-field diff (sanitised); empty when it did not.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub drift: Vec<String>,
    /// What the poisoning scan found in the tool's definition, one line each (rule, field,
    /// line and column, sanitised excerpt); empty when it found nothing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<String>,
    /// How long the request waits before it is denied, in milliseconds.
    pub timeout_ms: u64,
    /// The operation's arguments: pretty JSON, sanitised, secrets redacted, at most 16 KiB
    /// (viewers show the first 4 KiB and scroll for the rest).
    #[serde(default)]
    pub arguments: Option<String>,
    /// The effects come from the tool's own annotations (the server's claim, unchecked);
    /// when false they are all four, because the proxy cannot prove less.
    #[serde(default)]
    pub effects_claimed: bool,
    /// The server's sandbox in one line (sanitised), when it runs in one.
    #[serde(default)]
    pub sandbox: Option<String>,
}

/// Most bytes of arguments a question shows at once (the console's modal, the terminal);
/// the rest is one key away.
pub const SHOWN_ARGUMENTS: usize = 4 * 1024;

/// The first `bound` bytes of `lines`, in whole lines but for the one crossing the bound, which
/// is cut (at a character boundary) and ends with `…`.
pub fn cut_lines(lines: &[String], bound: usize) -> Vec<String> {
    let mut left = bound;
    let mut out = Vec::new();
    for line in lines {
        if line.len() < left {
            left -= line.len() + 1;
            out.push(line.clone());
            continue;
        }
        let mut end = left;
        while !line.is_char_boundary(end) {
            end -= 1;
        }
        if end > 0 {
            out.push(format!("{}…", &line[..end]));
        }
        break;
    }
    out
}

/// The operator's answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Decision {
    /// Run this one operation.
    AllowOnce,
    /// Run this and every later identical operation (same server and normalized operation)
    /// until the process ends.
    AllowSession,
    /// Refuse.
    Deny,
}

impl Decision {
    /// The answer in words, as a face reports it: `allowed once`, `allowed for this session`,
    /// `denied`.
    pub fn words(self) -> &'static str {
        match self {
            Self::AllowOnce => "allowed once",
            Self::AllowSession => "allowed for this session",
            Self::Deny => "denied",
        }
    }
}

/// Something that can answer approval requests. `ask` must not block: it hands the request and
/// its [`Reply`] to whoever answers. The engine waits on the other half (a
/// [`crate::mcp::pending::Pending`] carrying the request's timeout): a reply dropped unanswered,
/// like a timeout, is a denial.
pub trait Approver: Send + Sync {
    /// Asks; the answer goes to `reply`.
    fn ask(&self, request: ApprovalRequest, reply: Reply<Decision>);

    /// Whether anyone can be asked right now (e.g. a console is attached). When not, the
    /// operation fails closed with `approval_required` instead of waiting.
    fn available(&self) -> bool {
        true
    }

    /// Whether anyone can be asked, waiting a short, bounded while for one to appear (a
    /// console re-attaching, or discovering a new session). Defaults to [`Approver::available`].
    fn wait_available(&self) -> std::pin::Pin<Box<dyn Future<Output = bool> + Send + '_>> {
        Box::pin(std::future::ready(self.available()))
    }

    /// Tells, without asking: in audit mode a tool that drifted from its pins runs, and this
    /// is the question an approver would have been asked in enforce mode. Must not block.
    fn flag(&self, request: ApprovalRequest) {
        let _ = request;
    }
}
