//! The box with the keys of the component in front (`app::key_help`): that component's
//! bindings in one column over the big view area (as tall as they need), scrolled; the component
//! stays drawn under it.

use ratatui::Frame;
use ratatui::text::Line;
use ratatui::widgets::Paragraph;

use super::theme::theme;
use crate::app::App;
use crate::app::keymap::ctx_name;

/// Draws the box when it is open (the layer stack draws what is in front of it afterwards).
pub fn render(app: &App, frame: &mut Frame, big: ratatui::layout::Rect) {
    let Some(help) = &app.key_help else {
        return;
    };
    let (lines, height) = app.key_help_lines();
    let top = help.scroll.min(lines.len().saturating_sub(height));
    let name = help.contexts.first().map_or("", |c| ctx_name(*c));
    let title = format!("Keys · {name}");
    // As tall as the keys need, at most the big box.
    let rows = u16::try_from(lines.len().saturating_add(2)).unwrap_or(u16::MAX);
    let area = crate::app::layout::centered(big, big.width, rows);
    let (inner, mut block) = super::overlays::popup(frame, area, &title, theme().accent);
    // Where the window is when the keys do not all fit.
    if lines.len() > height {
        let last = (top + height).min(lines.len());
        block = block.title_bottom(
            Line::from(format!(" lines {}–{last} of {} ", top + 1, lines.len())).right_aligned(),
        );
    }
    frame.render_widget(block, area);
    let shown = super::help::styled(lines.into_iter().skip(top).take(height).collect());
    frame.render_widget(Paragraph::new(shown), inner);
}
