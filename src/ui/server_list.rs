//! Drawing the server list: every configured server with its state glyph, transport and badges,
//! the selected one highlighted, and the project's trust state always visible at the bottom.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::theme::theme;
use crate::app::layout::window_start;
use crate::app::{App, Focus};
use crate::mcp::status::ServerState;

/// The glyph and colour of a server state.
pub fn state_glyph(state: ServerState) -> (&'static str, Color) {
    match state {
        ServerState::Connected => ("●", theme().ok),
        ServerState::Connecting => ("◐", theme().warn),
        ServerState::Disconnected => ("○", theme().muted),
        ServerState::Failed => ("✗", theme().error),
        ServerState::Disabled => ("−", theme().dim),
        ServerState::Invalid => ("!", theme().error),
        ServerState::Inert => ("◌", theme().warn),
    }
}

/// Draws the servers pane: one row per server (state glyph, name, transport, badges) and the
/// project's trust state under them. Draws the [`crate::app::ServerList`] component.
pub fn server_list(app: &App, frame: &mut Frame, area: Rect) {
    let list_state = &app.servers;
    let block = super::pane_block(Line::from(" Servers "), app.focus == Focus::Servers);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [list, trust] = Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(inner);
    let height = usize::from(list.height);
    let start = window_start(list_state.selected, height);
    let lines: Vec<Line> = list_state
        .rows
        .iter()
        .enumerate()
        .skip(start)
        .take(height)
        .map(|(i, s)| {
            // Waiting for (or in) a sign-in is not a failure.
            let waits = app.waits_for_sign_in(s) || app.auth.signing_in.contains(&s.name);
            let (glyph, color) = if waits {
                ("◇", theme().warn)
            } else {
                state_glyph(s.state)
            };
            let mut spans = vec![
                Span::styled(format!("{glyph} "), Style::new().fg(color)),
                Span::raw(s.name.clone()),
                Span::styled(format!(" {}", s.transport), Style::new().fg(theme().dim)),
            ];
            if !s.badges.is_empty() {
                spans.push(Span::styled(
                    format!(" {}", s.badges.join(",")),
                    Style::new().fg(theme().warn),
                ));
            }
            if waits {
                spans.push(Span::styled(" sign-in", Style::new().fg(theme().warn)));
            }
            let mut line = Line::from(spans);
            if i == list_state.selected {
                line = line.style(Style::new().add_modifier(Modifier::REVERSED));
            }
            line
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), list);
    let warn = !matches!(app.trust.as_str(), "trusted" | "no-project-config");
    let label = if app.trust == "no-project-config" {
        "no project config".to_owned()
    } else {
        app.trust.clone()
    };
    let style = if warn {
        Style::new().fg(theme().warn)
    } else {
        Style::new().fg(theme().dim)
    };
    let mark = if warn { " ⚠" } else { "" };
    frame.render_widget(
        Paragraph::new(Line::styled(format!("Trust: {label}{mark}"), style)),
        trust,
    );
}
