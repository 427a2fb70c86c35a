//! `mcpdeck lint SERVER`: whether a server is well made, for its authors. The rules over what a
//! server listed are pure functions (`rules`); the probe (`probe`) asks the server what the
//! rules need — every page of each listing, twice, listings it did not declare, requests that
//! must fail with the specification's codes and, with `--call`, its read-only tools — and
//! `sarif` writes the findings for code scanning. Every message is sanitised.

pub(crate) mod calls;
pub(crate) mod probe;
pub(crate) mod rules;
pub(crate) mod sample;
pub(crate) mod sarif;

use serde::Serialize;

pub use probe::{LintOptions, lint};
pub use sarif::to_sarif;

/// How bad a finding is: errors make `mcpdeck lint` exit 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Breaks the specification or a client.
    Error,
    /// Allowed, but clients or agents fare worse.
    Warning,
    /// Worth knowing.
    Note,
}

impl Level {
    /// `error`, `warning`, `note`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Error => "error",
            Self::Warning => "warning",
            Self::Note => "note",
        }
    }
}

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// The rule's id (`schema-compiles`, `duplicate-name`, …).
    pub rule: &'static str,
    /// How bad.
    pub level: Level,
    /// What it is about: `tool add`, `resources/list`, … (sanitised).
    pub subject: String,
    /// What is wrong (sanitised).
    pub message: String,
}

impl Finding {
    pub(crate) fn new(
        rule: &'static str,
        level: Level,
        subject: impl AsRef<str>,
        message: impl AsRef<str>,
    ) -> Self {
        Self {
            rule,
            level,
            subject: crate::mcp::sanitize::sanitize_capped(subject.as_ref(), 300),
            message: crate::mcp::sanitize::sanitize_capped(message.as_ref(), 2000),
        }
    }
}

/// A lint run's result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LintReport {
    /// The configured server's name.
    pub server: String,
    /// The negotiated protocol version.
    pub protocol_version: String,
    /// What was looked at: tools, resources, prompts listed; tools called.
    pub checked: Checked,
    /// The findings, errors first.
    pub findings: Vec<Finding>,
}

/// What the lint looked at.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Checked {
    /// Tools listed.
    pub tools: usize,
    /// Resources listed.
    pub resources: usize,
    /// Prompts listed.
    pub prompts: usize,
    /// Read-only tools called (`--call`).
    pub called: usize,
}

impl LintReport {
    /// How many findings of `level`.
    pub fn count(&self, level: Level) -> usize {
        self.findings.iter().filter(|f| f.level == level).count()
    }
}

/// The rules, with a one-line description each (SARIF's rule list, the README's table).
pub const RULES: &[(&str, &str)] = &[
    (
        "schema-compiles",
        "every inputSchema and outputSchema compiles as JSON Schema 2020-12",
    ),
    (
        "input-schema-object",
        "an inputSchema describes an object (`\"type\": \"object\"`)",
    ),
    (
        "tool-name",
        "tool names are 1–128 characters of A–Z a–z 0–9 _ - .",
    ),
    (
        "duplicate-name",
        "tool and prompt names, and resource URIs, are unique",
    ),
    ("description", "every tool has a description"),
    (
        "annotations",
        "every tool says whether it is read-only (annotations.readOnlyHint)",
    ),
    (
        "annotations-consistent",
        "annotations do not contradict each other",
    ),
    (
        "capability-refused",
        "a declared capability's listing answers (not -32601)",
    ),
    (
        "capability-undeclared",
        "a listing answers only when its capability is declared",
    ),
    (
        "pagination-cursor",
        "a listing never hands out a cursor it handed out before",
    ),
    (
        "pagination-stable",
        "listing twice gives the same items in the same order",
    ),
    (
        "error-code",
        "errors carry the specification's JSON-RPC codes",
    ),
    (
        "header-annotation",
        "x-mcp-header annotations are valid (2026-07-28 and later)",
    ),
    (
        "output-schema",
        "a called tool's structuredContent matches its outputSchema",
    ),
    (
        "call-failed",
        "a read-only tool called with schema-valid sample arguments answers",
    ),
];
