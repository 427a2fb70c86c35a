//! Where the panes are for a terminal size: shared by drawing and by mouse hit-testing, so a
//! click lands on what was drawn there. Pure rectangle arithmetic.

use ratatui::layout::{Constraint, Layout, Rect};

/// The console's regions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Areas {
    /// The servers pane.
    pub servers: Rect,
    /// The main pane.
    pub main: Rect,
    /// The workspace side panel (zero-sized when hidden).
    pub side: Rect,
    /// The status line.
    pub status: Rect,
    /// The footer hints.
    pub footer: Rect,
}

/// The regions for a terminal of `size` (columns, rows).
pub fn areas(size: (u16, u16), side_panel: bool) -> Areas {
    let full = Rect::new(0, 0, size.0, size.1);
    let [body, status, footer] = Layout::vertical([
        Constraint::Min(3),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(full);
    let servers_width = (size.0 / 4).clamp(14, 30);
    let side_width = if side_panel {
        (size.0 * 2 / 5).clamp(20, 60)
    } else {
        0
    };
    let [servers, main, side] = Layout::horizontal([
        Constraint::Length(servers_width),
        Constraint::Min(10),
        Constraint::Length(side_width),
    ])
    .areas(body);
    Areas {
        servers,
        main,
        side,
        status,
        footer,
    }
}

/// The first row of a list window of `height` rows that keeps `selected` visible (the list is
/// virtualised: only this window is ever built).
pub fn window_start(selected: usize, height: usize) -> usize {
    if height == 0 {
        return selected;
    }
    selected.saturating_sub(height - 1)
}
