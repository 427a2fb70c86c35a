//! Draws a server's sampling request: the request (budget, model preferences, tools, system
//! prompt, messages by role, scrolled), then the reply editor and the chosen stop reason.
//! Every string was sanitised by the engine.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use super::theme::{fg, theme};
use crate::app::App;
use crate::app::sampling::SamplingState;

fn dim_style() -> Style {
    fg(theme().dim)
}

/// Draws `s` in `area`.
pub fn render(app: &App, s: &SamplingState, frame: &mut Frame, area: Rect) {
    let (inner, block) = super::overlays::popup(
        frame,
        area,
        "Server asks for a completion (you answer)",
        theme().kind,
    );
    frame.render_widget(block, area);
    let mut head = vec![Line::from(vec![
        Span::styled("server  ", dim_style()),
        Span::styled(
            s.ask.server.clone(),
            Style::new().add_modifier(Modifier::BOLD),
        ),
        Span::styled(
            match app.asks.len() {
                0 | 1 => String::new(),
                n => format!("  ({} more waiting)", n - 1),
            },
            dim_style(),
        ),
    ])];
    if s.withdrawn {
        head.push(super::elicitation::withdrawn_line());
    }
    if !crate::app::server_asks::armed(s.shown_at, app.now) {
        head.push(Line::styled("(keys are ignored for a moment)", dim_style()));
    }
    let reply_rows = (inner.height / 3).clamp(3, 10);
    let [top, request, reply] = Layout::vertical([
        Constraint::Length(u16::try_from(head.len()).unwrap_or(1)),
        Constraint::Min(1),
        Constraint::Length(reply_rows),
    ])
    .areas(inner);
    frame.render_widget(Paragraph::new(head), top);
    let width = request_key_width(s).min(usize::from(inner.width) / 4);
    let lines: Vec<Line> = s
        .request_lines()
        .into_iter()
        .skip(s.scroll)
        .map(|(key, text)| {
            let color = match key.as_str() {
                "user" => theme().accent,
                "assistant" => theme().ok,
                "system" => theme().warn,
                _ => theme().dim,
            };
            Line::from(vec![
                Span::styled(format!("{key:<width$} "), Style::new().fg(color)),
                Span::raw(text),
            ])
        })
        .collect();
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), request);
    let title = format!(" your reply · stop reason {} ", s.stop_reason());
    let editor = Block::new()
        .borders(Borders::TOP)
        .border_style(fg(theme().accent))
        .title(title);
    let text = editor.inner(reply);
    frame.render_widget(editor, reply);
    frame.render_widget(&*s.reply, text);
}

fn request_key_width(s: &SamplingState) -> usize {
    s.request_lines()
        .iter()
        .map(|(k, _)| k.chars().count())
        .max()
        .unwrap_or(0)
}
