//! The one text viewer's state: where a long text is scrolled to and what is searched in it.
//! Used by results, resource reads, prompt messages, log message bodies and the spill pager.
//!
//! Scrolling counts *wrapped rows* at the viewport's width — the same rows the drawing shows
//! (`wrap` is the one place lines are cut) — so the last line is always reachable. The text
//! itself is not kept here (a result view switches between its human and model texts); every
//! method takes the lines it scrolls over. The viewport is laid out by the app from the
//! terminal size (`App::viewer_viewport`), and drawing clamps again, so a stale viewport never
//! hides text.

use unicode_width::{UnicodeWidthChar as _, UnicodeWidthStr as _};

/// A search within the viewer's text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ViewerSearch {
    /// What is searched for (case-insensitive).
    pub query: String,
    /// Whether keys still go into the query.
    pub editing: bool,
    /// The lines that contain it.
    pub matches: Vec<usize>,
    /// Which match is current.
    pub current: usize,
    /// The keys that move between matches, as the keymap writes them (`n/N`).
    pub keys: Option<String>,
}

/// Scroll position and search of one text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Viewer {
    /// The first visible wrapped row.
    pub top: usize,
    /// The viewport: (columns, rows) of the text area.
    pub viewport: (u16, u16),
    /// The search, if one was started.
    pub search: Option<ViewerSearch>,
    /// When the text is a window of a longer one (the spill pager): the longer text's line
    /// the window starts at, and its line count. Positions are then said in the longer text.
    pub window: Option<(usize, usize)>,
}

/// `line` cut into rows of at most `width` columns (by display width), between words where a
/// row has room to (the space a row breaks at is not drawn); a word longer than a row is cut.
/// An empty line is one empty row.
pub fn wrap(line: &str, width: usize) -> Vec<String> {
    let mut rows = Vec::new();
    for_each_row(line, width, |from, to| rows.push(line[from..to].to_owned()));
    rows
}
/// `line` cut into rows of exactly `width` columns (the last shorter), wherever that falls.
fn cut_chars(line: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut rows = Vec::new();
    let mut row = String::new();
    let mut used = 0;
    for c in line.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > width && !row.is_empty() {
            rows.push(std::mem::take(&mut row));
            used = 0;
        }
        row.push(c);
        used += w;
    }
    rows.push(row);
    rows
}

/// `text` in rows of at most `width` columns, broken after spaces and `/` where possible (a
/// word longer than a row is cut).
pub fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let mut rows: Vec<String> = Vec::new();
    let mut row = String::new();
    for word in text.split_inclusive([' ', '/']) {
        if row.width() + word.trim_end().width() > width && !row.is_empty() {
            rows.push(row.trim_end().to_owned());
            row.clear();
        }
        row.push_str(word);
        while row.width() > width {
            let mut cut = cut_chars(&row, width);
            let rest = cut.split_off(1);
            rows.extend(cut);
            row = rest.concat();
        }
    }
    if !row.is_empty() || rows.is_empty() {
        rows.push(row.trim_end().to_owned());
    }
    rows
}

/// How many rows `line` takes at `width` (as many as [`wrap`] makes).
pub fn rows_of(line: &str, width: usize) -> usize {
    let mut rows = 0;
    for_each_row(line, width, |_, _| rows += 1);
    rows
}

/// Calls `row` with the byte range of each row of `line` at `width`. A row that would
/// overflow ends at its last space that follows text (leading indentation is never a break); the
/// space a row ends at belongs to no row; with no such space the row is cut where it is full.
fn for_each_row(line: &str, width: usize, mut row: impl FnMut(usize, usize)) {
    let width = width.max(1);
    let (mut start, mut used) = (0, 0);
    // Where the row can end: the byte after its last space that follows text, and the width
    // up to there.
    let mut brk: Option<(usize, usize)> = None;
    let mut text = false;
    for (i, c) in line.char_indices() {
        let w = c.width().unwrap_or(0);
        if used + w > width && i > start {
            if c == ' ' {
                row(start, i);
                (start, used, brk, text) = (i + 1, 0, None, false);
                continue;
            }
            if let Some((b, bw)) = brk.take() {
                // The space before `b` is where the row breaks: not drawn.
                row(start, b - 1);
                (start, used) = (b, used - bw);
                text = b < i;
            } else {
                row(start, i);
                (start, used, text) = (i, 0, false);
            }
        }
        used += w;
        if c == ' ' {
            if text {
                brk = Some((i + 1, used));
            }
        } else {
            text = true;
        }
    }
    row(start, line.len());
}

impl Viewer {
    fn width(&self) -> usize {
        usize::from(self.viewport.0).max(1)
    }

    fn height(&self) -> usize {
        usize::from(self.viewport.1).max(1)
    }

    /// All rows of `lines` at the viewport's width.
    pub fn total_rows(&self, lines: &[String]) -> usize {
        let width = self.width();
        lines.iter().map(|l| rows_of(l, width)).sum()
    }

    /// The last top row that still fills the viewport.
    pub fn max_top(&self, lines: &[String]) -> usize {
        self.total_rows(lines).saturating_sub(self.height())
    }

    /// The row `line` starts at.
    pub fn row_of_line(&self, lines: &[String], line: usize) -> usize {
        let width = self.width();
        lines.iter().take(line).map(|l| rows_of(l, width)).sum()
    }

    /// The line shown at `row`, and how many of its rows are above `row`.
    pub fn line_at_row(&self, lines: &[String], row: usize) -> (usize, usize) {
        let width = self.width();
        let mut start = 0;
        for (i, l) in lines.iter().enumerate() {
            let n = rows_of(l, width);
            if row < start + n {
                return (i, row - start);
            }
            start += n;
        }
        (lines.len().saturating_sub(1), 0)
    }

    /// The first and last line (0-based) at least partly visible.
    pub fn visible_lines(&self, lines: &[String]) -> (usize, usize) {
        let top = self.top.min(self.max_top(lines));
        let (first, _) = self.line_at_row(lines, top);
        let (last, _) = self.line_at_row(lines, top + self.height() - 1);
        (first, last)
    }

    /// Scrolls by `delta` rows, within the text.
    pub fn scroll_by(&mut self, lines: &[String], delta: isize) {
        self.top = self
            .top
            .min(self.max_top(lines))
            .saturating_add_signed(delta)
            .min(self.max_top(lines));
    }

    /// Scrolls a page (`forward` or back), keeping one row of context.
    pub fn page(&mut self, lines: &[String], forward: bool) {
        let step = self.height().saturating_sub(1).max(1).cast_signed();
        self.scroll_by(lines, if forward { step } else { -step });
    }

    /// To the first row.
    pub fn home(&mut self) {
        self.top = 0;
    }

    /// To the last page: the last line is on the bottom row.
    pub fn end(&mut self, lines: &[String]) {
        self.top = self.max_top(lines);
    }

    /// Moves over `lines` as a scroll `action` asks (the line and page keys, top and bottom);
    /// any other action leaves it.
    pub fn scroll(&mut self, lines: &[String], action: super::keymap::Action) {
        use super::keymap::Action;
        match action {
            Action::Down => self.scroll_by(lines, 1),
            Action::Up => self.scroll_by(lines, -1),
            Action::PageDown => self.page(lines, true),
            Action::PageUp => self.page(lines, false),
            Action::Top => self.home(),
            Action::Bottom => self.end(lines),
            _ => {}
        }
    }

    /// Scrolls the least needed so that every row of `line` is visible (its first row when it
    /// is taller than the viewport).
    pub fn show_line(&mut self, lines: &[String], line: usize) {
        let start = self.row_of_line(lines, line);
        let rows = lines.get(line).map_or(1, |l| rows_of(l, self.width()));
        let height = self.height();
        if start < self.top {
            self.top = start;
        } else if start + rows > self.top + height {
            self.top = (start + rows).saturating_sub(height).min(start);
        }
        self.top = self.top.min(self.max_top(lines));
    }

    /// Starts a search (or edits the current one).
    pub fn start_search(&mut self) {
        let search = self.search.get_or_insert_with(ViewerSearch::default);
        search.editing = true;
    }

    /// Recomputes the matches of the query in `lines` and shows the first at or after the top.
    pub fn find(&mut self, lines: &[String]) {
        let Some(search) = &mut self.search else {
            return;
        };
        let query = search.query.to_lowercase();
        search.matches = if query.is_empty() {
            Vec::new()
        } else {
            lines
                .iter()
                .enumerate()
                .filter(|(_, l)| l.to_lowercase().contains(&query))
                .map(|(i, _)| i)
                .collect()
        };
        let (first, _) = self.visible_lines(lines);
        let Some(search) = &mut self.search else {
            return;
        };
        search.current = search.matches.iter().position(|&m| m >= first).unwrap_or(0);
        if let Some(&line) = search.matches.get(search.current) {
            self.show_line(lines, line);
        }
    }

    /// Moves to the next (or previous) match, wrapping around.
    pub fn next_match(&mut self, lines: &[String], forward: bool) {
        let Some(search) = &mut self.search else {
            return;
        };
        let n = search.matches.len();
        if n == 0 {
            return;
        }
        search.current = if forward {
            (search.current + 1) % n
        } else {
            (search.current + n - 1) % n
        };
        let line = search.matches[search.current];
        self.show_line(lines, line);
    }

    /// "lines a–b of n" for what is visible (1-based).
    pub fn position(&self, lines: &[String]) -> String {
        if lines.is_empty() {
            return "empty".to_owned();
        }
        let (first, last) = self.visible_lines(lines);
        let (start, total) = self.window.unwrap_or((0, lines.len()));
        format!(
            "lines {}–{} of {total}",
            start + first + 1,
            start + last + 1
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(n: usize) -> Vec<String> {
        (1..=n).map(|i| format!("line {i}")).collect()
    }

    fn viewer(width: u16, height: u16) -> Viewer {
        Viewer {
            viewport: (width, height),
            ..Viewer::default()
        }
    }

    #[test]
    fn end_shows_the_last_line_even_when_lines_wrap() {
        let mut lines = text(200);
        lines[10] = "x".repeat(95); // four rows at 30 columns
        let mut v = viewer(30, 10);
        assert_eq!(v.total_rows(&lines), 203);
        v.end(&lines);
        assert_eq!(v.top, 193);
        assert_eq!(v.visible_lines(&lines), (190, 199));
        assert_eq!(v.position(&lines), "lines 191–200 of 200");
        v.page(&lines, false);
        assert_eq!(v.top, 184);
        v.home();
        assert_eq!(v.visible_lines(&lines).0, 0);
    }

    #[test]
    fn scrolling_stops_at_both_ends() {
        let lines = text(5);
        let mut v = viewer(80, 10);
        v.scroll_by(&lines, 3);
        assert_eq!(v.top, 0, "fits: nothing to scroll");
        let lines = text(30);
        v.scroll_by(&lines, 100);
        assert_eq!(v.top, 20);
        v.scroll_by(&lines, -100);
        assert_eq!(v.top, 0);
    }

    #[test]
    fn wrap_cuts_by_display_width() {
        assert_eq!(wrap("abcdef", 4), vec!["abcd", "ef"]);
        assert_eq!(wrap("", 4), vec![""]);
        assert_eq!(wrap("日本語", 4), vec!["日本", "語"]);
        assert_eq!(rows_of("日本語", 4), 2);
        assert_eq!(rows_of("abcdefgh", 4), 2);
    }

    #[test]
    fn wrap_breaks_between_words_and_counts_the_rows_it_makes() {
        assert_eq!(
            wrap("require client elicitation capability", 16),
            vec!["require client", "elicitation", "capability"]
        );
        // Indentation is kept and never a break; a word longer than a row is cut.
        assert_eq!(wrap("    abcdefgh ij", 6), vec!["    ab", "cdefgh", "ij"]);
        assert_eq!(wrap("ab cdefghijk", 4), vec!["ab", "cdef", "ghij", "k"]);
        for (line, width) in [
            ("require client elicitation capability", 16),
            ("    abcdefgh ij", 6),
            ("a  b   c    d", 2),
            ("日本 語の テキスト", 5),
            ("", 3),
            ("   ", 2),
        ] {
            let rows = wrap(line, width);
            assert_eq!(rows.len(), rows_of(line, width), "{line:?} at {width}");
            assert!(rows.iter().all(|r| r.width() <= width), "{rows:?}");
        }
    }

    #[test]
    fn search_finds_lines_and_n_moves_between_them() {
        let lines = text(100);
        let mut v = viewer(80, 10);
        v.start_search();
        if let Some(s) = &mut v.search {
            s.query = "LINE 5".to_owned();
        }
        v.find(&lines);
        let s = v.search.clone().unwrap_or_default();
        assert_eq!(s.matches, vec![4, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58]);
        v.next_match(&lines, true);
        assert_eq!(v.visible_lines(&lines).1, 49, "line 50 is in view");
        v.next_match(&lines, false);
        v.next_match(&lines, false);
        assert_eq!(
            v.search.as_ref().map(|s| s.current),
            Some(10),
            "wraps around"
        );
        assert!(v.visible_lines(&lines).1 >= 58);
    }
}
