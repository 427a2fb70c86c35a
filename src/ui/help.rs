//! The `?` help overlay: every binding of the keymap in force, grouped by context, laid out in
//! columns of a fixed width that depends only on the terminal's width (never on the text), so an
//! entry can neither overlap its neighbour nor move when scrolled. Long descriptions wrap inside
//! their column.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::theme::{fg, theme, tinted};
use crate::app::App;
use crate::app::key_help::{HelpLine, help_layout};

/// The narrowest a help column gets before there is one column fewer.
const MIN_COLUMN: u16 = 36;

/// How many columns the help uses at `width`.
fn columns(width: u16) -> u16 {
    (width / MIN_COLUMN).clamp(1, 3)
}

/// Styled help lines for columns `width` wide, laid out by [`help_layout`]: context headings,
/// then `keys  description` rows with the description wrapped under itself.
pub(crate) fn help_lines(app: &App, width: u16) -> Vec<Line<'static>> {
    styled(help_layout(&app.keymap.help_rows(), width))
}

/// The laid-out lines with the help's colours.
pub(crate) fn styled(lines: Vec<HelpLine>) -> Vec<Line<'static>> {
    lines
        .into_iter()
        .map(|line| match line {
            HelpLine::Heading(name) => tinted(name.to_owned(), theme().warn),
            HelpLine::Row { keys, desc } => Line::from(vec![
                Span::styled(format!(" {keys} "), fg(theme().accent)),
                Span::raw(format!(" {desc}")),
            ]),
        })
        .collect()
}

/// Draws the help into `inner`, scrolled by `scroll` lines; the lines flow down the first
/// column, then the next.
pub fn render_help(app: &App, frame: &mut Frame, inner: Rect, scroll: usize) {
    let n = columns(inner.width);
    let col_w = inner.width / n;
    let lines = help_lines(app, col_w.saturating_sub(1));
    let height = usize::from(inner.height).max(1);
    let mut rest = lines.into_iter().skip(scroll);
    for i in 0..n {
        let column: Vec<Line> = rest.by_ref().take(height).collect();
        if column.is_empty() {
            break;
        }
        let area = Rect::new(inner.x + i * col_w, inner.y, col_w, inner.height);
        frame.render_widget(Paragraph::new(column), area);
    }
}

#[cfg(test)]
mod tests {
    use crate::app::viewer::wrap_words;

    #[test]
    fn words_wrap_at_spaces_and_slashes_and_long_words_are_cut() {
        assert_eq!(
            wrap_words("suspend (fg resumes)", 12),
            ["suspend (fg", "resumes)"]
        );
        assert_eq!(wrap_words("↑/↓/PgUp/PgDn", 9), ["↑/↓/PgUp/", "PgDn"]);
        assert_eq!(wrap_words("abcdefghij", 4), ["abcd", "efgh", "ij"]);
        assert_eq!(wrap_words("", 4), [""]);
    }
}
