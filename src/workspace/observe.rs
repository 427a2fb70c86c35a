//! Bounded, sanitary diagnostics on stderr for the workspace server.
//!
//! Events are closed data: fixed event names, tool names, reason codes and numbers. No field can
//! carry an alias, root, query, path, snippet, argument, environment value or stack trace,
//! because no event variant has a place for one. Each line is one JSON object of at most
//! [`MAX_LINE_BYTES`] bytes. This module never writes to stdout.

use std::io::Write as _;

/// The largest diagnostic line, newline included.
pub const MAX_LINE_BYTES: usize = 4096;

/// How much goes to stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Observability {
    /// Nothing at all.
    Off,
    /// Refusals, cancellations and timeouts.
    #[default]
    Errors,
    /// Every lifecycle event as one JSON line.
    Json,
}

/// One diagnostic event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// The server is bound and serving `workspaces` roots.
    Started {
        /// How many workspaces are bound.
        workspaces: usize,
    },
    /// A tool call began.
    CallStarted {
        /// The tool (one of the four fixed names, or `unknown`).
        tool: &'static str,
    },
    /// A tool call answered (`known` or `unknown`).
    CallAnswered {
        /// The tool.
        tool: &'static str,
        /// `known` or `unknown`.
        status: &'static str,
        /// Milliseconds spent.
        elapsed_ms: u128,
    },
    /// A tool call was refused.
    Refused {
        /// The tool.
        tool: &'static str,
        /// The reason code.
        reason: &'static str,
    },
    /// An input line exceeded the limit; that request was refused, the server goes on.
    FrameTooLarge,
    /// The server stopped.
    Stopped,
}

impl Event {
    /// Whether `errors` level shows this event.
    fn is_error(&self) -> bool {
        matches!(self, Self::Refused { .. } | Self::FrameTooLarge)
    }

    /// The event as one JSON object.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::json;
        match self {
            Self::Started { workspaces } => json!({"event": "started", "workspaces": workspaces}),
            Self::CallStarted { tool } => json!({"event": "call_started", "tool": tool}),
            Self::CallAnswered {
                tool,
                status,
                elapsed_ms,
            } => json!({"event": "call_answered", "tool": tool, "status": status,
                "elapsed_ms": elapsed_ms}),
            Self::Refused { tool, reason } => {
                json!({"event": "call_refused", "tool": tool, "reason": reason})
            }
            Self::FrameTooLarge => json!({"event": "frame_too_large", "limit_bytes": 65_536}),
            Self::Stopped => json!({"event": "stopped"}),
        }
    }
}

/// Writes events to stderr per the chosen level.
#[derive(Debug, Clone, Copy)]
pub struct Observer {
    level: Observability,
}

impl Observer {
    /// An observer at `level`.
    pub fn new(level: Observability) -> Self {
        Self { level }
    }

    /// The line `event` produces at this level, if any (without the newline).
    pub fn line(&self, event: &Event) -> Option<String> {
        let show = match self.level {
            Observability::Off => false,
            Observability::Errors => event.is_error(),
            Observability::Json => true,
        };
        if !show {
            return None;
        }
        let mut line = event.to_json().to_string();
        if line.len() >= MAX_LINE_BYTES {
            // Unreachable with closed events; keep the bound an invariant anyway.
            r#"{"event":"oversized_diagnostic"}"#.clone_into(&mut line);
        }
        Some(line)
    }

    /// Emits `event` (best effort: a closed stderr is ignored).
    pub fn emit(&self, event: &Event) {
        if let Some(line) = self.line(event) {
            let mut err = std::io::stderr().lock();
            let _ = writeln!(err, "{line}");
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn levels_filter_events() {
        let started = Event::Started { workspaces: 1 };
        let refused = Event::Refused {
            tool: "workspace_find",
            reason: "server_busy",
        };
        assert!(Observer::new(Observability::Off).line(&refused).is_none());
        assert!(
            Observer::new(Observability::Errors)
                .line(&started)
                .is_none()
        );
        assert!(
            Observer::new(Observability::Errors)
                .line(&refused)
                .is_some()
        );
        let line = Observer::new(Observability::Json).line(&started).unwrap();
        assert!(line.len() < MAX_LINE_BYTES);
        assert_eq!(line, r#"{"event":"started","workspaces":1}"#);
    }
}
