//! Agent sessions: the live `mcpdeck serve` processes the console is attached
//! to through their control sockets, with their status snapshots. Their approval requests join
//! the console's own approval queue (same modal, same timing and paste guards), tagged with the
//! session's pid; a request answered elsewhere (or timed out, or cancelled) is withdrawn here,
//! with a word on the status line.

use super::App;
use super::approval::Pending;
use crate::mcp::control::SessionSnapshot;
use crate::mcp::pending::Settled;
use crate::mcp::policy::approval::{ApprovalRequest, Decision};
use crate::mcp::sanitize::sanitize_capped;

/// The status line for a queued approval that settled without this console.
fn withdrawn_line(
    request: &ApprovalRequest,
    agent: Option<u32>,
    settled: &Settled<Decision>,
) -> String {
    let said = crate::mcp::policy::approval_text::withdrawn(request, settled);
    match agent {
        Some(pid) => format!("approval (agent {pid}): {said}"),
        None => format!("approval: {said}"),
    }
}

/// One attached serve session, sanitised for display.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentRow {
    /// The serve process's pid.
    pub pid: u32,
    /// Its project root.
    pub project: String,
    /// `audit` or `enforce`.
    pub mode: String,
    /// Its servers as `name state`.
    pub servers: Vec<(String, String)>,
    /// How many spills it holds.
    pub spills: usize,
    /// How many approvals it waits for.
    pub pending: usize,
    /// Whether its socket closed (the session ended).
    pub gone: bool,
    /// What it ran unasked in audit mode though the tool changed since its pins, newest last
    /// (the operation and the change's summary, sanitised; at most [`FLAGS_KEPT`]).
    pub flagged: Vec<String>,
}

/// How many audit-mode drift flags a session's row keeps.
pub const FLAGS_KEPT: usize = 5;

impl AgentRow {
    /// The row for `snapshot`.
    pub fn new(snapshot: &SessionSnapshot) -> Self {
        Self {
            pid: snapshot.pid,
            project: sanitize_capped(&snapshot.project.display().to_string(), 512),
            mode: sanitize_capped(&snapshot.mode, 32),
            servers: snapshot
                .servers
                .iter()
                .map(|s| (sanitize_capped(&s.name, 128), sanitize_capped(&s.state, 32)))
                .collect(),
            spills: snapshot.spills,
            pending: snapshot.pending.len(),
            gone: false,
            flagged: Vec::new(),
        }
    }
}

impl App {
    /// A session's fresh snapshot: its row is replaced (or added, in pid order).
    pub(super) fn on_agent_snapshot(&mut self, snapshot: &SessionSnapshot) {
        let mut row = AgentRow::new(snapshot);
        if let Some(old) = self.agents.iter_mut().find(|a| a.pid == row.pid) {
            row.flagged = std::mem::take(&mut old.flagged);
            *old = row;
        } else {
            self.agents.push(row);
            self.agents.sort_by_key(|a| a.pid);
        }
    }

    /// A session's socket closed: its requests can no longer be answered.
    pub(super) fn on_agent_gone(&mut self, pid: u32) {
        if let Some(row) = self.agents.iter_mut().find(|a| a.pid == pid) {
            row.gone = true;
            row.pending = 0;
        }
        self.drop_agent_requests(pid, None);
    }

    /// An approval request from session `pid`.
    pub(super) fn on_agent_approval(&mut self, pid: u32, request: ApprovalRequest) {
        let ticket = request.ticket;
        if self
            .approvals
            .iter()
            .any(|p| p.agent == Some(pid) && p.request.ticket == ticket)
        {
            return;
        }
        self.approvals
            .push_back(Pending::from_agent(pid, request, self.now));
    }

    /// Session `pid` (in audit mode) ran a drifted tool unasked: its row keeps it and the
    /// status line says it.
    pub(super) fn on_agent_flagged(&mut self, pid: u32, request: &ApprovalRequest) {
        let mut flag = format!(
            "{} on {}",
            sanitize_capped(&request.operation, 300),
            sanitize_capped(&request.server, 128)
        );
        if let Some(head) = request.drift.first() {
            flag.push_str(": ");
            flag.push_str(&sanitize_capped(head, 300));
        }
        if let Some(row) = self.agents.iter_mut().find(|a| a.pid == pid) {
            if row.flagged.len() == FLAGS_KEPT {
                row.flagged.remove(0);
            }
            row.flagged.push(flag.clone());
        }
        self.message = Some(format!("Δ serve pid {pid} ran {flag} (audit mode)"));
    }

    /// Withdraws `agent`'s request `ticket`, settled without this console, from the queue and
    /// says how it settled (nothing when it is no longer queued: this console answered it).
    pub(super) fn withdraw_approval(
        &mut self,
        agent: Option<u32>,
        ticket: u64,
        settled: &Settled<Decision>,
    ) {
        let Some(request) = self
            .approvals
            .iter()
            .find(|p| p.agent == agent && p.request.ticket == ticket)
            .map(|p| p.request.clone())
        else {
            return;
        };
        self.message = Some(withdrawn_line(&request, agent, settled));
        self.drop_requests(agent, Some(ticket));
    }

    /// Removes session `pid`'s requests (its session ended).
    pub(super) fn drop_agent_requests(&mut self, pid: u32, ticket: Option<u64>) {
        self.drop_requests(Some(pid), ticket);
    }

    fn drop_requests(&mut self, agent: Option<u32>, ticket: Option<u64>) {
        let front = self.approvals.front().map(|p| (p.agent, p.request.ticket));
        self.approvals
            .retain(|p| !(p.agent == agent && ticket.is_none_or(|t| t == p.request.ticket)));
        // A new request in front starts its own guard.
        if self.approvals.front().map(|p| (p.agent, p.request.ticket)) != front
            && let Some(next) = self.approvals.front_mut()
        {
            next.shown_at = self.now;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use crate::app::testkit::{ch, demo_app};
    use crate::app::{Effect, Msg};
    use crate::mcp::control::{ServerSnapshot, SessionSnapshot};
    use crate::mcp::pending::Settled;
    use crate::mcp::policy::approval::{ApprovalRequest, Decision};

    fn snapshot(pid: u32, pending: usize) -> SessionSnapshot {
        SessionSnapshot {
            pid,
            project: "/home/op/proj\u{1b}[2J".into(),
            mode: "enforce".to_owned(),
            servers: vec![ServerSnapshot {
                name: "fx".to_owned(),
                state: "connected".to_owned(),
            }],
            spills: 2,
            pending: (0..pending).map(|t| request(t as u64)).collect(),
            awaiting_console: 0,
        }
    }

    fn request(ticket: u64) -> ApprovalRequest {
        serde_json::from_value(serde_json::json!({
            "ticket": ticket, "server": "fx", "operation": "tools.call echo",
            "effects": ["write"], "toolChanged": false, "serverChanged": false, "timeoutMs": 60000
        }))
        .expect("request")
    }

    fn approval(pid: u32, ticket: u64) -> (Msg, ()) {
        (
            Msg::AgentApproval {
                pid,
                request: request(ticket),
            },
            (),
        )
    }

    #[test]
    fn the_view_scans_and_rows_are_sanitised_and_replaced() {
        let (mut app, _d) = demo_app();
        assert_eq!(app.update(ch('A')), vec![Effect::ScanAgents]);
        app.update(Msg::AgentSnapshot(Box::new(snapshot(7, 1))));
        app.update(Msg::AgentSnapshot(Box::new(snapshot(3, 0))));
        assert_eq!(app.agents.iter().map(|a| a.pid).collect::<Vec<_>>(), [3, 7]);
        assert!(!app.agents[1].project.contains('\u{1b}'));
        app.update(Msg::AgentSnapshot(Box::new(snapshot(7, 0))));
        assert_eq!(app.agents.len(), 2);
        assert_eq!(app.agents[1].pending, 0);
        // `r` in the view looks again.
        assert_eq!(app.update(ch('r')), vec![Effect::ScanAgents]);
    }

    #[test]
    fn answered_elsewhere_or_ended_sessions_leave_the_queue() {
        let (mut app, _d) = demo_app();
        let (m1, ()) = approval(7, 1);
        let (m2, ()) = approval(7, 2);
        let (m3, ()) = approval(9, 1);
        for m in [m1, m2, m3] {
            app.update(m);
        }
        // The same ticket again (a re-sent snapshot) is not queued twice.
        let (again, ()) = approval(7, 1);
        app.update(again);
        assert_eq!(app.approvals.len(), 3);
        app.update(Msg::ApprovalWithdrawn {
            agent: Some(7),
            ticket: 1,
            settled: Settled::Answered(Decision::Deny),
        });
        assert_eq!(app.approvals.len(), 2, "dropped unanswered");
        assert_eq!(
            app.message.as_deref(),
            Some("approval (agent 7): `tools.call echo` on `fx` was answered elsewhere: denied")
        );
        // This console's own request, timed out in its engine.
        app.update(Msg::Approval(request(3)));
        app.update(Msg::ApprovalWithdrawn {
            agent: None,
            ticket: 3,
            settled: Settled::TimedOut,
        });
        assert_eq!(
            app.message.as_deref(),
            Some("approval: `tools.call echo` on `fx` was not answered in time, so refused")
        );
        assert_eq!(app.approvals.len(), 2);
        app.update(Msg::AgentGone(7));
        assert_eq!(app.approvals.len(), 1);
        assert_eq!(app.approvals[0].agent, Some(9));
        // The remaining one is answered with the guard honoured.
        app.now = app.approvals[0].shown_at + Duration::from_millis(400);
        assert_eq!(
            app.update(ch('n')),
            vec![Effect::Answer {
                agent: Some(9),
                ticket: 1,
                decision: Decision::Deny
            }]
        );
        assert_eq!(app.decided[0].0, "fx (agent 9)");
    }
}
