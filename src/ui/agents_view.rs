//! The agent sessions view: every attached `mcpdeck serve` session with its project, policy
//! mode, servers, spills, pending approvals and the drifted tools it ran in audit mode (answered in the approval modal in front).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::server_list::state_glyph;
use super::theme::{fg, theme, tinted};
use crate::app::App;
use crate::app::agents::AgentRow;
use crate::app::agents_view::AgentsView;
use crate::mcp::status::ServerState;

/// Draws the [`AgentsView`] component into `inner`: the filter bar when one is open, then the
/// sessions it keeps, from its scroll.
pub fn render(app: &App, view: &AgentsView, frame: &mut Frame, inner: Rect) {
    let dim = fg(theme().dim);
    let mut lines = Vec::new();
    let shown = view.shown(&app.agents);
    let mut bar = None;
    if let Some(filter) = &view.filter {
        let cursor = if filter.editing { "▏" } else { "" };
        bar = Some(Line::from(vec![
            Span::styled("/ ", fg(theme().accent)),
            Span::raw(format!("{}{cursor}", filter.query)),
            Span::styled(
                format!("  {} of {} shown", shown.len(), app.agents.len()),
                dim,
            ),
        ]));
    }
    let scroll = view.scroll;
    if app.agents.is_empty() {
        lines.push(Line::styled(
            "No live `mcpdeck serve` sessions. Agents that run `mcpdeck serve` appear here; \
             their approval requests open in front of the console. r looks again.",
            dim,
        ));
    }
    for a in shown {
        lines.extend(session_lines(a));
    }
    let height = usize::from(inner.height).saturating_sub(usize::from(bar.is_some()));
    let lines: Vec<Line> = bar
        .into_iter()
        .chain(lines.into_iter().skip(scroll).take(height))
        .collect();
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}

/// One session's lines: its head (pid, project, mode, spills, what it waits for), its servers,
/// the drifted tools it ran in audit mode, and a blank line.
fn session_lines(a: &AgentRow) -> Vec<Line<'static>> {
    let dim = fg(theme().dim);
    let mut lines = Vec::new();
    let mut head = vec![
        Span::styled(
            format!("serve pid {}", a.pid),
            Style::new().add_modifier(Modifier::BOLD),
        ),
        Span::raw(format!("  {}  ", a.project)),
        Span::styled(
            format!("mode {}", a.mode),
            if a.mode == "enforce" {
                fg(theme().warn)
            } else {
                dim
            },
        ),
        Span::raw(format!("  spills {}", a.spills)),
    ];
    if a.gone {
        head.push(Span::styled("  ended", fg(theme().error)));
    } else if a.pending > 0 {
        head.push(Span::styled(
            format!(
                "  {} {} pending",
                a.pending,
                if a.pending == 1 {
                    "approval"
                } else {
                    "approvals"
                }
            ),
            fg(theme().warn),
        ));
    }
    lines.push(Line::from(head));
    if a.servers.is_empty() {
        lines.push(Line::styled("  no servers", dim));
    }
    for (name, state) in &a.servers {
        let (glyph, color) = state_glyph(state_of(state));
        lines.push(Line::from(vec![
            Span::styled(format!("  {glyph} "), Style::new().fg(color)),
            Span::raw(name.clone()),
            Span::styled(format!(" {state}"), dim),
        ]));
    }
    // What it ran unasked in audit mode though the tool changed since its pins.
    for flag in &a.flagged {
        lines.push(tinted(format!("  Δ ran {flag}"), theme().warn));
    }
    lines.push(Line::raw(""));
    lines
}

/// The state a snapshot's label names (unknown labels draw as disconnected).
fn state_of(label: &str) -> ServerState {
    [
        ServerState::Connected,
        ServerState::Connecting,
        ServerState::Failed,
        ServerState::Disabled,
        ServerState::Invalid,
        ServerState::Inert,
    ]
    .into_iter()
    .find(|s| s.label() == label)
    .unwrap_or(ServerState::Disconnected)
}
