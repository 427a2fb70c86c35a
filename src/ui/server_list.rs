//! Drawing the server list: every configured server with its state glyph, transport and badges,
//! the selected one highlighted, and the project's trust state always visible at the bottom.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::theme::{fg, theme};
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

/// `name` within `room` columns: whole when it fits (the transport and badges after it are cut at
/// the pane's edge); else its middle gives way to `…` and both ends stay, so servers whose names
/// share a prefix (`github-personal`, `github-work`: `githu…onal`, `githu…work` at 40 columns)
/// still differ in a narrow pane.
fn fit_name(name: &str, room: usize) -> String {
    use unicode_width::UnicodeWidthChar as _;
    let width = |c: &char| c.width().unwrap_or(0);
    if name.chars().map(|c| width(&c)).sum::<usize>() <= room {
        return name.to_owned();
    }
    let kept = room.saturating_sub(1);
    let tail_room = kept / 2;
    let mut tail = Vec::new();
    let mut used = 0;
    for c in name.chars().rev() {
        if used + width(&c) > tail_room {
            break;
        }
        used += width(&c);
        tail.push(c);
    }
    let mut head = String::new();
    for c in name.chars() {
        if used + width(&c) > kept {
            break;
        }
        used += width(&c);
        head.push(c);
    }
    let tail: String = tail.into_iter().rev().collect();
    format!("{head}…{tail}")
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
            // The glyph takes two columns; a name wider than the rest keeps both its ends.
            let room = usize::from(list.width).saturating_sub(2);
            let name = fit_name(&s.name, room);
            let cut = name != s.name;
            let mut spans = vec![
                Span::styled(format!("{glyph} "), Style::new().fg(color)),
                Span::raw(name),
            ];
            if !cut {
                spans.push(Span::styled(format!(" {}", s.transport), fg(theme().dim)));
                if !s.badges.is_empty() {
                    spans.push(Span::styled(
                        format!(" {}", s.badges.join(",")),
                        fg(theme().warn),
                    ));
                }
                if waits {
                    spans.push(Span::styled(" sign-in", fg(theme().warn)));
                }
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
        fg(theme().warn)
    } else {
        fg(theme().dim)
    };
    let mark = if warn { " ⚠" } else { "" };
    frame.render_widget(
        Paragraph::new(Line::styled(format!("Trust: {label}{mark}"), style)),
        trust,
    );
}

#[cfg(test)]
mod tests {
    use super::fit_name;

    #[test]
    fn names_that_share_a_prefix_still_differ_when_cut() {
        let a = fit_name("github-personal", 8);
        let b = fit_name("github-work", 8);
        assert_ne!(a, b);
        assert_eq!((a.as_str(), b.as_str()), ("gith…nal", "gith…ork"));
        assert_eq!(fit_name("fs", 8), "fs");
        assert_eq!(fit_name("exactly8", 8), "exactly8");
        assert_eq!(fit_name("日本語のサーバー名", 8), "日本…名");
    }
}
