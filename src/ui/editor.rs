//! Draws the config editor (the app side is `app::editor`).

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Wrap};

use super::overlays::framed;
use super::theme::{fg, theme, tinted};
use crate::app::editor::Editor;

/// Draws the config [`Editor`]: its buffer over its diagnostics, its test connect's answer
/// and whether it may be saved.
pub fn render(editor: &Editor, frame: &mut Frame, big: Rect) {
    let title = crate::mcp::sanitize::sanitize(&format!(
        "Edit {}{}",
        editor.path.display(),
        if editor.dirty { " (modified)" } else { "" }
    ))
    .into_owned();
    let inner = framed(frame, big, &title, theme().accent);
    let mut lines = vec![if editor.valid() {
        tinted("✓ valid", theme().ok)
    } else {
        tinted("✗ errors: saving is refused", theme().error)
    }];
    for d in editor.diagnostics.iter().take(4) {
        let color = if d.error { theme().error } else { theme().warn };
        lines.push(Line::styled(d.text.clone(), Style::new().fg(color)));
        if let Some(help) = &d.help {
            lines.push(tinted(format!("  {help}"), theme().dim));
        }
    }
    if editor.diagnostics.len() > 4 {
        lines.push(Line::styled(
            format!(
                "… {} more (the config doctor lists all)",
                editor.diagnostics.len() - 4
            ),
            fg(theme().dim),
        ));
    }
    match &editor.test {
        Some(Ok(m)) => lines.push(tinted(m.clone(), theme().ok)),
        Some(Err(m)) => lines.push(tinted(m.clone(), theme().error)),
        None => {}
    }
    // The diagnostics wrap; the buffer keeps at least half the box.
    let rows: usize = lines
        .iter()
        .map(|l| {
            let text: String = l.spans.iter().map(|s| s.content.as_ref()).collect();
            crate::app::viewer::rows_of(&text, usize::from(inner.width))
        })
        .sum();
    let rows = u16::try_from(rows).unwrap_or(u16::MAX);
    let para = Paragraph::new(lines).wrap(Wrap { trim: false });
    let shown = rows.min(inner.height / 2).max(1);
    let [text, diags] =
        Layout::vertical([Constraint::Min(1), Constraint::Length(shown)]).areas(inner);
    frame.render_widget(&editor.area, text);
    frame.render_widget(para, diags);
}
