//! Draws a registered panel (`app::panels`): its title and labelled lines in a box.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::overlays::framed;
use super::theme::{fg, theme};
use crate::app::App;
use crate::app::layout::centered;
use crate::app::panels::PanelView;

/// Draws `view` over `body`.
pub fn render(app: &App, view: PanelView, frame: &mut Frame, body: Rect) {
    let Some((title, facts)) = view.content(app) else {
        return;
    };
    let lines: Vec<Line> = facts
        .into_iter()
        .map(|(label, value)| {
            Line::from(vec![
                Span::styled(format!("{label:<10}"), fg(theme().dim)),
                Span::raw(value),
            ])
        })
        .collect();
    let height = u16::try_from(lines.len() + 2).unwrap_or(u16::MAX);
    let area = centered(body, 72, height);
    let inner = framed(frame, area, &title, theme().accent);
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}
