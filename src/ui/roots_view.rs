//! Draws the Roots view: the roots a server is shown this session (URI and name), the
//! selection reversed, and while adding, the directory being typed; loading and failures in
//! words.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::theme::{fg, theme, tinted};
use crate::app::roots_view::RootsView;
use crate::app::{App, Load};

fn dim_style() -> Style {
    fg(theme().dim)
}

/// Draws `view` in `area`.
pub fn render(_app: &App, view: &RootsView, frame: &mut Frame, area: Rect) {
    let title = format!("Roots of {} (this session)", view.server);
    let inner = super::overlays::framed(frame, area, &title, theme().accent);
    let mut lines = Vec::new();
    if let Some(path) = &view.adding {
        lines.push(Line::from(vec![
            Span::styled("add directory: ", fg(theme().warn)),
            Span::raw(path.clone()),
            Span::styled("▏", fg(theme().warn)),
        ]));
        lines.push(Line::styled(
            "relative to the project directory · Enter adds · Esc cancels",
            dim_style(),
        ));
    }
    match &view.roots {
        Load::Idle | Load::Loading(_) => lines.push(Line::styled("reading roots…", dim_style())),
        Load::Failed(class, message) => {
            lines.push(tinted(format!("{class}: {message}"), theme().error));
        }
        Load::Ready(roots) if roots.is_empty() => lines.push(Line::styled(
            "No roots: the server is told of none (roots/list answers an empty list).",
            dim_style(),
        )),
        Load::Ready(roots) => {
            let height = usize::from(inner.height).saturating_sub(lines.len());
            let start = crate::app::layout::window_start(view.sel, height);
            for (i, root) in roots.iter().enumerate().skip(start).take(height) {
                let mut line = Line::from(vec![
                    Span::raw(root.uri.clone()),
                    Span::styled(format!("  {}", root.name), dim_style()),
                ]);
                if i == view.sel && view.adding.is_none() {
                    line = line.style(Style::new().add_modifier(Modifier::REVERSED));
                }
                lines.push(line);
            }
        }
    }
    frame.render_widget(Paragraph::new(lines), inner);
}
