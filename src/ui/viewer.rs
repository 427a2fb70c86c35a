//! Drawing the one text viewer: the visible wrapped rows of a text (cut by `app::viewer::wrap`,
//! the same rows the viewer scrolls over), a scrollbar, and a position row ("lines 180–204 of
//! 204", the search and its matches). Only the visible rows are built.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Scrollbar, ScrollbarOrientation, ScrollbarState};

use super::theme::{fg, theme, tinted};
use crate::app::viewer::{Viewer, rows_of, wrap};

/// Draws `lines` scrolled as `viewer` says into `area`: the text, the scrollbar in its last
/// column and the position row in its last row. `cursor` is the highlighted line, if any.
pub fn render_viewer(
    viewer: &Viewer,
    lines: &[String],
    cursor: Option<usize>,
    frame: &mut Frame,
    area: Rect,
) {
    render_with(viewer, lines, (cursor, &[]), frame, area);
}

/// [`render_viewer`] with a style per line (a line past `styles` is plain): a text whose lines
/// carry a tone, such as the trust view's.
pub fn render_viewer_styled(
    viewer: &Viewer,
    lines: &[String],
    styles: &[Style],
    frame: &mut Frame,
    area: Rect,
) {
    render_with(viewer, lines, (None, styles), frame, area);
}

fn render_with(
    viewer: &Viewer,
    lines: &[String],
    looks: (Option<usize>, &[Style]),
    frame: &mut Frame,
    area: Rect,
) {
    if area.width < 2 || area.height < 2 {
        return;
    }
    let text = crate::app::layout::viewer_text(area);
    let position = Rect::new(area.x, area.y + area.height - 1, area.width, 1);
    let scrollbar = Rect::new(area.x + text.width, area.y, 1, text.height);
    render_text(viewer, lines, looks, frame, (text, scrollbar));
    // The position row says what the text rows show: a viewer at its end stays at its end
    // in an area other than the one it was laid out for (as `render_text` draws it).
    let at_end = viewer.top > 0 && viewer.top >= viewer.max_top(lines);
    let mut laid = viewer.clone();
    laid.viewport = (text.width, text.height);
    if at_end {
        laid.top = laid.max_top(lines);
    }
    frame.render_widget(Paragraph::new(position_line(&laid, lines)), position);
}

fn render_text(
    viewer: &Viewer,
    lines: &[String],
    (cursor, styles): (Option<usize>, &[Style]),
    frame: &mut Frame,
    (text_area, scrollbar): (Rect, Rect),
) {
    let mut viewer = viewer.clone();
    // A viewer scrolled to its end stays there when the area it gets is smaller than the one it
    // was laid out for (a status line that wrapped onto a second row): the last line stays shown.
    let at_end = viewer.top > 0 && viewer.top >= viewer.max_top(lines);
    viewer.viewport = (text_area.width, text_area.height);
    let width = usize::from(text_area.width);
    let height = usize::from(text_area.height);
    let top = if at_end {
        viewer.max_top(lines)
    } else {
        viewer.top.min(viewer.max_top(lines))
    };
    let (first, skip) = viewer.line_at_row(lines, top);
    let search = viewer.search.as_ref();
    let current = search.and_then(|s| s.matches.get(s.current)).copied();
    let mut rows: Vec<Line> = Vec::with_capacity(height);
    for (i, line) in lines.iter().enumerate().skip(first) {
        let style = if cursor == Some(i) {
            Style::new().add_modifier(Modifier::REVERSED)
        } else if current == Some(i) {
            Style::new().bg(theme().warn).fg(theme().on_accent)
        } else if search.is_some_and(|s| s.matches.binary_search(&i).is_ok()) {
            fg(theme().warn)
        } else {
            styles.get(i).copied().unwrap_or_default()
        };
        let skip_rows = if i == first { skip } else { 0 };
        for row in wrap(line, width).into_iter().skip(skip_rows) {
            rows.push(Line::styled(row, style));
            if rows.len() == height {
                break;
            }
        }
        if rows.len() == height {
            break;
        }
    }
    frame.render_widget(Paragraph::new(rows), text_area);
    let total: usize = lines.iter().map(|l| rows_of(l, width)).sum();
    if total > height {
        let mut state = ScrollbarState::new(total.saturating_sub(height)).position(top);
        frame.render_stateful_widget(
            Scrollbar::new(ScrollbarOrientation::VerticalRight)
                .begin_symbol(None)
                .end_symbol(None),
            scrollbar,
            &mut state,
        );
    }
}

/// `line` cut into rows of at most `width` columns (by display width), at the last space of a
/// row when it has one, each span keeping its style: what a modal draws, so its height is known
/// before drawing.
pub fn wrap_styled(line: &Line<'static>, width: usize) -> Vec<Line<'static>> {
    use unicode_width::UnicodeWidthChar as _;
    let width = width.max(1);
    let mut rows: Vec<Vec<(char, Style)>> = vec![Vec::new()];
    let mut used = 0;
    for span in &line.spans {
        for c in span.content.chars() {
            let w = c.width().unwrap_or(0);
            if used + w > width && used > 0 {
                let row = rows.last_mut().expect("one row at least");
                // Carry the word being cut over to the next row.
                let carried = match row.iter().rposition(|(c, _)| *c == ' ') {
                    Some(at) if at > 0 => row.split_off(at + 1),
                    _ => Vec::new(),
                };
                used = carried.iter().map(|(c, _)| c.width().unwrap_or(0)).sum();
                rows.push(carried);
            }
            rows.last_mut()
                .expect("one row at least")
                .push((c, span.style));
            used += w;
        }
    }
    rows.into_iter()
        .map(|row| {
            let mut spans: Vec<Span<'static>> = Vec::new();
            for (c, style) in row {
                match spans.last_mut() {
                    Some(last) if last.style == style => last.content.to_mut().push(c),
                    _ => spans.push(Span::styled(c.to_string(), style)),
                }
            }
            Line::from(spans).style(line.style)
        })
        .collect()
}

/// The position row: where the view is, and the search.
fn position_line(viewer: &Viewer, lines: &[String]) -> Line<'static> {
    let mut text = viewer.position(lines);
    if let Some(s) = &viewer.search {
        if s.editing {
            text = format!("/{}▏  {text}", s.query);
        } else if s.matches.is_empty() {
            text = format!("/{}: no match  {text}", s.query);
        } else if let Some((start, _)) = viewer.window {
            // A window of a longer text: the match is searched in the whole text, so its line
            // is what can be said, not how many there are.
            let line = start + s.matches.get(s.current).copied().unwrap_or(0) + 1;
            text = format!("/{}: match at line {line}  {text}", s.query);
        } else {
            let keys = s
                .keys
                .as_deref()
                .map(|k| format!(" ({k})"))
                .unwrap_or_default();
            text = format!(
                "/{}: match {} of {}{keys}  {text}",
                s.query,
                s.current + 1,
                s.matches.len()
            );
        }
    }
    tinted(text, theme().dim)
}
