//! Draws the spills list (the app side is `app::spills_view`).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

use super::overlays::framed;
use super::theme::{fg, theme, tinted};
use crate::app::App;
use crate::app::spills_view::SpillsView;

/// Draws the [`SpillsView`] over `big`: the filter bar when one is open, then each spill's
/// size, type and origin over its path, around the selection.
pub fn render(app: &App, view: &SpillsView, frame: &mut Frame, big: Rect) {
    let inner = framed(frame, big, "Spills of this session", theme().kind);
    let sel = view.sel;
    let shown = view.shown(&app.spills);
    let mut lines = Vec::new();
    if let Some(filter) = &view.filter {
        let (query, cursor) = (&filter.query, if filter.editing { "▏" } else { "" });
        lines.push(Line::styled(
            format!(
                "/{query}{cursor}  {} of {} spills",
                shown.len(),
                app.spills.len()
            ),
            fg(theme().accent),
        ));
    }
    if app.spills.is_empty() {
        lines.push(tinted(
            "No spills yet: large or binary results are written to files here.",
            theme().dim,
        ));
    }
    let height = usize::from(inner.height).saturating_sub(lines.len()) / 2;
    let start = crate::app::layout::window_start(sel, height);
    for (i, s) in shown.iter().enumerate().skip(start).take(height) {
        let style = if i == sel {
            Style::new().add_modifier(Modifier::REVERSED)
        } else {
            Style::new()
        };
        lines.push(Line::styled(
            format!("{} B  {}  {}", s.size, s.mime, s.origin),
            style,
        ));
        lines.push(tinted(format!("  {}", s.shown), theme().dim));
    }
    frame.render_widget(Paragraph::new(lines), inner);
}
