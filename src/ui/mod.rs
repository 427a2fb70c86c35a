//! Console drawing: a pure function of [`App`] state. No IO, no locks, no engine
//! calls; lists build only their visible window. Every string drawn here was sanitised when it
//! entered the state.

mod agents;
mod calls;
mod elicitation;
mod help;
mod hosts;
mod lists;
mod log_tab;
mod main_pane;
mod overlays;
mod sampling;
mod side;
mod viewer;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use crate::app::keymap::{Action, Ctx};
use crate::app::layout::{areas, window_start};
use crate::app::{App, Focus};
use crate::mcp::status::ServerState;
use unicode_width::UnicodeWidthStr;

/// Draws the whole console.
pub fn render(app: &App, frame: &mut Frame) {
    let size = frame.area();
    let a = areas((size.width, size.height), app.side_panel);
    render_servers(app, frame, a.servers);
    main_pane::render(app, frame, &a);
    if app.side_panel {
        side::render(app, frame, a.side);
    }
    render_status(app, frame, a.status);
    render_footer(app, frame, a.footer);
    overlays::render(app, frame, &a);
}

/// The border style of a pane with or without the focus.
fn pane_block(title: Line<'_>, focused: bool) -> Block<'_> {
    let style = if focused {
        Style::new().fg(Color::Cyan)
    } else {
        Style::new().fg(Color::DarkGray)
    };
    Block::new()
        .borders(Borders::ALL)
        .border_style(style)
        .title(title)
}

/// The glyph and colour of a server state.
pub fn state_glyph(state: ServerState) -> (&'static str, Color) {
    match state {
        ServerState::Connected => ("●", Color::Green),
        ServerState::Connecting => ("◐", Color::Yellow),
        ServerState::Disconnected => ("○", Color::Gray),
        ServerState::Failed => ("✗", Color::Red),
        ServerState::Disabled => ("−", Color::DarkGray),
        ServerState::Invalid => ("!", Color::Red),
        ServerState::Inert => ("◌", Color::Yellow),
    }
}

fn render_servers(app: &App, frame: &mut Frame, area: Rect) {
    let block = pane_block(Line::from(" Servers "), app.focus == Focus::Servers);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let [list, trust] = Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(inner);
    let height = usize::from(list.height);
    let start = window_start(app.selected, height);
    let lines: Vec<Line> = app
        .servers
        .iter()
        .enumerate()
        .skip(start)
        .take(height)
        .map(|(i, s)| {
            let waits = app.waits_for_sign_in(s) || app.auth.signing_in.contains(&s.name);
            let (glyph, color) = if waits {
                ("◇", Color::Yellow)
            } else {
                state_glyph(s.state)
            };
            let mut spans = vec![
                Span::styled(format!("{glyph} "), Style::new().fg(color)),
                Span::raw(s.name.clone()),
                Span::styled(
                    format!(" {}", s.transport),
                    Style::new().fg(Color::DarkGray),
                ),
            ];
            if !s.badges.is_empty() {
                spans.push(Span::styled(
                    format!(" {}", s.badges.join(",")),
                    Style::new().fg(Color::Yellow),
                ));
            }
            if waits {
                spans.push(Span::styled(" sign-in", Style::new().fg(Color::Yellow)));
            }
            let mut line = Line::from(spans);
            if i == app.selected {
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
        Style::new().fg(Color::Yellow)
    } else {
        Style::new().fg(Color::DarkGray)
    };
    let mark = if warn { " ⚠" } else { "" };
    frame.render_widget(
        Paragraph::new(Line::styled(format!("Trust: {label}{mark}"), style)),
        trust,
    );
}

fn render_status(app: &App, frame: &mut Frame, area: Rect) {
    let mut parts = vec![
        format!("mode {}", app.policy),
        format!("{} spills", app.spills.len()),
    ];
    if !app.approvals.is_empty() {
        parts.push(format!("{} approval(s) pending", app.approvals.len()));
    }
    if let Some(m) = &app.message {
        parts.push(m.clone());
    }
    let text = format!(" {}", parts.join(" · "));
    frame.render_widget(
        Paragraph::new(Line::styled(
            text,
            Style::new().fg(Color::Black).bg(Color::Gray),
        )),
        area,
    );
}

/// The hints of `contexts` as one line of text: `y copy · Esc close`.
pub(crate) fn hint_text(app: &App, contexts: &[Ctx]) -> String {
    app.keymap
        .hints(contexts)
        .iter()
        .map(|(key, desc)| format!("{key} {desc}"))
        .collect::<Vec<_>>()
        .join(" · ")
}

/// The footer: the focused component's hints, the most important first; when they do not fit,
/// as many as fit and then the help key with "more".
fn render_footer(app: &App, frame: &mut Frame, area: Rect) {
    let contexts = if app.approvals.is_empty() {
        app.contexts()
    } else {
        vec![Ctx::Approval]
    };
    let mut hints = app.keymap.hints(&contexts);
    let help = contexts
        .contains(&Ctx::Global)
        .then(|| app.keymap.key_for(Ctx::Global, Action::Help))
        .flatten();
    let more = help.as_ref().map(|k| format!(" {k} more"));
    let width = usize::from(area.width);
    let cost = |key: &str, desc: &str| key.width() + desc.width() + 3;
    let total: usize = hints.iter().map(|(k, d)| cost(k, d)).sum();
    if total > width {
        // "? more" stands for the help key's own hint.
        hints.retain(|(k, _)| Some(k) != help.as_ref());
    }
    let room = if total > width {
        width.saturating_sub(more.as_deref().map_or(0, UnicodeWidthStr::width))
    } else {
        width
    };
    let mut spans = Vec::new();
    let mut used = 0;
    for (key, desc) in &hints {
        used += cost(key, desc);
        if used > room {
            break;
        }
        spans.push(Span::styled(
            format!(" {key}"),
            Style::new().fg(Color::Cyan),
        ));
        spans.push(Span::raw(format!(" {desc} ")));
    }
    if total > width
        && let Some(more) = more
    {
        spans.push(Span::styled(more, Style::new().fg(Color::Cyan)));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

#[cfg(test)]
mod client_tests;
#[cfg(test)]
mod hosts_tests;
#[cfg(test)]
mod tests;
