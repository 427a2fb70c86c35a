//! Where everything is for a terminal size: the one layout, shared by drawing, by mouse
//! hit-testing and by the text viewers' page sizes, so a click lands on what was drawn there and
//! a page is what the screen shows. Pure rectangle arithmetic.

use ratatui::layout::{Constraint, Flex, Layout, Rect};

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
    /// The main pane's tab bar (inside its border).
    pub tabs: Rect,
    /// The main pane's body below the tab bar, where its screens draw.
    pub body: Rect,
    /// Where global views and modals go: everything above the status line.
    pub overlay: Rect,
    /// The big centred box most global views use.
    pub big: Rect,
}

/// `area` inside a one-cell border.
pub fn inner(area: Rect) -> Rect {
    Rect::new(
        area.x.saturating_add(1),
        area.y.saturating_add(1),
        area.width.saturating_sub(2),
        area.height.saturating_sub(2),
    )
}

/// A centred rectangle of at most `w`×`h` inside `area`.
pub fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let [v] = Layout::vertical([Constraint::Length(h.min(area.height))])
        .flex(Flex::Center)
        .areas(area);
    let [r] = Layout::horizontal([Constraint::Length(w.min(area.width))])
        .flex(Flex::Center)
        .areas(v);
    r
}

/// The text part of a viewer drawn into `area`: all but the scrollbar column and the position
/// row.
pub fn viewer_text(area: Rect) -> Rect {
    Rect::new(
        area.x,
        area.y,
        area.width.saturating_sub(1),
        area.height.saturating_sub(1),
    )
}

/// The regions for a terminal of `size` (columns, rows) with a one-row status line.
pub fn areas(size: (u16, u16), side_panel: bool) -> Areas {
    areas_with_status(size, side_panel, 1)
}

/// The most rows a long status line wraps onto.
pub const STATUS_MAX_ROWS: u16 = 3;

/// The rows `text` takes on a status line `columns` wide: wrapped between words, at
/// most [`STATUS_MAX_ROWS`].
pub fn status_rows(text: &str, columns: u16) -> u16 {
    let rows = super::viewer::wrap_words(text, usize::from(columns.max(1))).len();
    u16::try_from(rows)
        .unwrap_or(STATUS_MAX_ROWS)
        .clamp(1, STATUS_MAX_ROWS)
}

/// The regions for a terminal of `size` when the status line takes `status_rows` rows.
pub fn areas_with_status(size: (u16, u16), side_panel: bool, status_rows: u16) -> Areas {
    let full = Rect::new(0, 0, size.0, size.1);
    let [body, status, footer] = Layout::vertical([
        Constraint::Min(3),
        Constraint::Length(status_rows),
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
    let [tabs, main_body] =
        Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(inner(main));
    let overlay = Rect {
        height: size.1.saturating_sub(status_rows.saturating_add(1)),
        ..full
    };
    let big = centered(
        overlay,
        overlay.width.saturating_sub(4).max(20),
        overlay.height.saturating_sub(2).max(5),
    );
    Areas {
        servers,
        main,
        side,
        status,
        footer,
        tabs,
        body: main_body,
        overlay,
        big,
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

/// The tab bar's labels: `Tools(12)` with the server's counts when known; `Skills` only for
/// a server that declares the skills extension.
pub fn tab_labels(counts: [Option<usize>; 3], skills: bool) -> Vec<(super::Tab, String)> {
    let count = |name: &str, n: Option<usize>| {
        n.map_or_else(|| name.to_owned(), |n| format!("{name}({n})"))
    };
    let mut labels = vec![
        (super::Tab::Tools, count("Tools", counts[0])),
        (super::Tab::Resources, count("Resources", counts[1])),
        (super::Tab::Prompts, count("Prompts", counts[2])),
        (super::Tab::Log, "Log".to_owned()),
        (super::Tab::Config, "Config".to_owned()),
    ];
    if skills {
        labels.insert(3, (super::Tab::Skills, "Skills".to_owned()));
    }
    labels
}

/// The mark a tab bar starts with when labels before the first shown are scrolled off.
pub const TABS_SCROLLED: &str = "‹";

/// The first label a tab bar of `width` columns shows (each label is drawn with one space
/// either side): 0 when the active tab fits from the start, else the fewest labels scrolled off
/// (the bar then starts with [`TABS_SCROLLED`]) for the active tab to end inside the bar.
pub fn tabs_from(labels: &[(super::Tab, String)], active: super::Tab, width: usize) -> usize {
    let cells: Vec<usize> = labels
        .iter()
        .map(|(_, l)| unicode_width::UnicodeWidthStr::width(l.as_str()) + 2)
        .collect();
    let Some(at) = labels.iter().position(|(t, _)| *t == active) else {
        return 0;
    };
    let mut first = 0;
    while first < at {
        let mark = usize::from(first > 0);
        if mark + cells[first..=at].iter().sum::<usize>() <= width {
            break;
        }
        first += 1;
    }
    first
}

/// The tab whose label is drawn at column `x` of a tab bar of `width` columns starting at column
/// `left` with `active` in front (scrolled as [`tabs_from`] says), if any.
pub fn tab_at(
    (counts, skills): ([Option<usize>; 3], bool),
    active: super::Tab,
    (left, width): (u16, u16),
    x: u16,
) -> Option<super::Tab> {
    let labels = tab_labels(counts, skills);
    let first = tabs_from(&labels, active, usize::from(width));
    let mark = usize::from(first > 0);
    let mut start = usize::from(left) + mark;
    let x = usize::from(x);
    for (tab, label) in labels.into_iter().skip(first) {
        let end = start + unicode_width::UnicodeWidthStr::width(label.as_str()) + 2;
        if (start..end).contains(&x) {
            return Some(tab);
        }
        start = end;
    }
    None
}
