//! Draws the spill pager (the app side is `app::pager`).

use ratatui::Frame;
use ratatui::layout::Rect;

use super::overlays::framed;
use super::theme::theme;
use crate::app::Pager;

/// Draws the [`Pager`]'s window of its spill in the text viewer, titled with the file's name
/// and size.
pub fn render(p: &Pager, frame: &mut Frame, big: Rect) {
    let title = format!(
        "{} · {} lines, {} bytes",
        p.path
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default(),
        p.window.total_lines,
        p.window.size
    );
    let title = crate::mcp::sanitize::sanitize(&title).into_owned();
    let inner = framed(frame, big, &title, theme().kind);
    super::viewer::render_viewer(&p.viewer, p.lines(), None, frame, inner);
}
