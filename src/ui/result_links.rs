//! Draws the list of a result's resource links (the app side is `app::result_links`): a box
//! over the bottom of the result naming the server they are read on, one row per link (its
//! name, then its URI dimmed) around the highlight. Every string was sanitised on entry.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use super::theme::{fg, theme};
use crate::app::ResultView;

/// Draws the open list of `view`'s links over the bottom of `body`.
pub fn render(view: &ResultView, frame: &mut Frame, body: Rect) {
    let (Some(pick), Some(first)) = (view.link_pick, view.links.first()) else {
        return;
    };
    // Half the result at most, so the text behind stays in sight.
    let rows = usize::from(body.height / 2).saturating_sub(2).max(1);
    let start = pick.saturating_sub(rows - 1);
    let lines: Vec<Line> = view
        .links
        .iter()
        .enumerate()
        .skip(start)
        .take(rows)
        .map(|(i, link)| {
            let (mark, name) = if i == pick {
                (
                    "> ",
                    Style::new()
                        .fg(theme().on_accent)
                        .bg(theme().accent)
                        .add_modifier(Modifier::BOLD),
                )
            } else {
                ("  ", Style::new())
            };
            Line::from(vec![
                Span::styled(format!("{mark}{}", link.name), name),
                Span::styled(format!("  {}", link.uri), fg(theme().dim)),
            ])
        })
        .collect();
    let title = format!(
        " {} resource links · read on {} ",
        view.links.len(),
        first.server
    );
    super::overlays::bottom_box(frame, body, title, lines);
}
