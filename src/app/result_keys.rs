//! Keys on a result screen: scrolling the text viewer (rows, pages, ends), searching within it,
//! moving the fold cursor, and opening the spill a truncated result names.

use super::ResultScreen;
use crossterm::event::KeyEvent;
use ratatui::layout::Rect;

use super::keymap::{Action, Ctx};
use super::{App, Effect, QueryKey, ResultView, Screen};

/// The text area of a result view inside the main pane's `body`: below the header rows, above
/// the position row, left of the scrollbar. Drawing uses the same split.
pub fn result_text_area(view: &ResultView, body: Rect) -> (Rect, usize) {
    let header = view
        .header(usize::from(body.width), usize::from(body.height / 2))
        .len();
    let header = u16::try_from(header).unwrap_or(u16::MAX);
    let height = body.height.saturating_sub(header).saturating_sub(1);
    let area = Rect::new(
        body.x,
        body.y + header.min(body.height),
        body.width.saturating_sub(1),
        height,
    );
    (area, usize::from(header))
}

impl App {
    /// Whether `action` does something on the screen in front, for the footer's hints: on a
    /// result, "call again" needs the form it came from, and folding needs foldable JSON shown.
    pub fn offers(&self, action: Action) -> bool {
        let Screen::Result(ResultScreen { view, form }) = &self.screen else {
            return true;
        };
        match action {
            Action::Call => form.is_some(),
            Action::Fold | Action::FoldAll => view.fold.is_some() && !view.show_model,
            Action::RawJson => view.raw.is_some() || view.text_view.is_some(),
            _ => true,
        }
    }

    /// The main pane's inner area below the tab bar, where screens draw.
    pub fn main_body(&self) -> Rect {
        self.areas().body
    }

    /// The spill pager's text area (columns, rows) for the current terminal size.
    pub(super) fn pager_viewport(&self) -> (u16, u16) {
        let big = self.areas().big;
        let text = super::layout::viewer_text(super::layout::inner(big));
        (text.width, text.height)
    }

    /// Lays the result view's viewer out for the current terminal size.
    fn layout_result(&mut self) {
        let body = self.main_body();
        if let Screen::Result(ResultScreen { view, .. }) = &mut self.screen {
            let (area, _) = result_text_area(view, body);
            view.viewer.viewport = (area.width, area.height);
        }
    }

    /// Whether keys go into the result viewer's search query.
    pub(super) fn result_searching(&self) -> bool {
        matches!(&self.screen, Screen::Result(ResultScreen { view, .. })
            if view.viewer.search.as_ref().is_some_and(|s| s.editing))
    }

    /// A key typed into the result viewer's search: Enter keeps the query (n/N move), Esc
    /// drops the search.
    pub(super) fn on_result_search_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let key = self.query_key(Ctx::TextSearch, &key);
        self.layout_result();
        let Screen::Result(ResultScreen { view, .. }) = &mut self.screen else {
            return Vec::new();
        };
        let (viewer, body, _) = view.viewer_body();
        let Some(search) = viewer.search.as_mut() else {
            return Vec::new();
        };
        match key {
            QueryKey::Clear => viewer.search = None,
            QueryKey::Keep => search.editing = false,
            QueryKey::Erase => {
                search.query.pop();
                viewer.find(body);
            }
            QueryKey::Type(c) => {
                search.query.push(c);
                viewer.find(body);
            }
            QueryKey::Move(_) | QueryKey::Ignore => {}
        }
        Vec::new()
    }

    /// A result screen's own action: its link list first when open, then the viewer.
    pub(super) fn on_result(&mut self, msg: Action) -> Vec<Effect> {
        if let Some(effects) = self.on_link_list(msg) {
            return effects;
        }
        if let Some(effects) = self.on_raw_json(msg) {
            return effects;
        }
        self.layout_result();
        // The position row names the keys that move between matches, as the keymap has them.
        let key = |a| self.keymap.key_for(Ctx::Result, a);
        let match_keys = key(Action::NextMatch)
            .zip(key(Action::PrevMatch))
            .map(|(next, prev)| format!("{next}/{prev}"));
        let Screen::Result(ResultScreen { view, .. }) = &mut self.screen else {
            return Vec::new();
        };
        if let Some(effect) = whole_text_action(view, msg) {
            return vec![effect];
        }
        let (viewer, body, cursor) = view.viewer_body();
        match msg {
            Action::Up => move_cursor_or_scroll(view, -1),
            Action::Down => move_cursor_or_scroll(view, 1),
            // The fold cursor follows: to the first row shown, or the last after `End`.
            Action::PageUp => {
                viewer.page(body, false);
                *cursor = viewer.visible_lines(body).0;
            }
            Action::PageDown => {
                viewer.page(body, true);
                *cursor = viewer.visible_lines(body).0;
            }
            Action::Top => {
                viewer.home();
                *cursor = viewer.visible_lines(body).0;
            }
            Action::Bottom => {
                viewer.end(body);
                *cursor = viewer.visible_lines(body).1;
            }
            Action::Search => {
                viewer.start_search();
                if let Some(search) = &mut viewer.search {
                    search.keys = match_keys;
                }
            }
            Action::NextMatch | Action::PrevMatch => {
                viewer.next_match(body, msg == Action::NextMatch);
                if let Some(s) = &viewer.search {
                    *cursor = s.matches.get(s.current).copied().unwrap_or(*cursor);
                }
            }
            Action::Open => return self.open_from_result(),
            Action::Back => return self.on_back(),
            Action::Copy => return self.on_copy(),
            // `RawJson` is taken by `on_raw_json` above, the rest by the panes.
            _ => {}
        }
        Vec::new()
    }
}

/// Whether a result screen takes `action` itself; the panes take every other action.
pub fn result_takes(action: Action) -> bool {
    let own = [
        Action::Top,
        Action::Bottom,
        Action::Search,
        Action::Open,
        Action::Back,
    ];
    let more = [
        Action::NextMatch,
        Action::PrevMatch,
        Action::Copy,
        Action::RawJson,
    ];
    super::overlays::moves(action) || own.contains(&action) || more.contains(&action)
}

/// The spill that holds the whole text of a result shown as a preview: the one its
/// truncation note names.
pub fn whole_text_spill(view: &ResultView) -> Option<&super::SpillRow> {
    view.lines
        .iter()
        .rev()
        .filter(|l| l.contains("the full text is in spill file"))
        .find_map(|l| view.spills.iter().find(|s| l.contains(&s.basename)))
}

/// On a preview of a longer text (the human view), `End` opens the whole text at its last
/// line and `y` copies the whole text, both from the spill; `None` otherwise.
fn whole_text_action(view: &ResultView, msg: Action) -> Option<Effect> {
    if view.show_model {
        return None;
    }
    let spill = whole_text_spill(view)?;
    match msg {
        Action::Bottom => Some(Effect::ReadSpill {
            path: spill.path.clone(),
            at: super::SpillAt::End,
        }),
        Action::Copy => Some(Effect::CopySpill {
            path: spill.path.clone(),
            size: spill.size,
        }),
        _ => None,
    }
}

/// Up/Down: with foldable JSON the fold cursor moves and the view follows it; otherwise the
/// text scrolls by a row.
fn move_cursor_or_scroll(view: &mut ResultView, delta: isize) {
    if view.has_cursor() {
        let max = view.lines.len().saturating_sub(1);
        view.cursor = view.cursor.saturating_add_signed(delta).min(max);
        let cursor = view.cursor;
        view.viewer.show_line(&view.lines, cursor);
        return;
    }
    let (viewer, body, _) = view.viewer_body();
    viewer.scroll_by(body, delta);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn preview() -> ResultView {
        let lines = vec![
            "big line 1".to_owned(),
            "[output truncated: 1060024 bytes, 53001 lines in total; the full text is in spill \
             file spill-ab.txt]"
                .to_owned(),
        ];
        let mut view = ResultView::new("resources.read".to_owned(), lines, None, Vec::new());
        view.spills = vec![super::super::SpillRow {
            basename: "spill-ab.txt".to_owned(),
            path: "/run/spill-ab.txt".into(),
            shown: "/run/spill-ab.txt".to_owned(),
            size: 1_060_024,
            mime: "text/plain".to_owned(),
            origin: "resources.read".to_owned(),
        }];
        view
    }

    #[test]
    fn a_preview_reads_and_copies_its_whole_text_from_the_spill() {
        let mut view = preview();
        assert_eq!(
            whole_text_action(&view, Action::Bottom),
            Some(Effect::ReadSpill {
                path: "/run/spill-ab.txt".into(),
                at: crate::app::SpillAt::End,
            })
        );
        assert!(matches!(
            whole_text_action(&view, Action::Copy),
            Some(Effect::CopySpill {
                size: 1_060_024,
                ..
            })
        ));
        assert_eq!(whole_text_action(&view, Action::Up), None);
        // The model's view is what an agent sees: the preview and its note, copied as shown.
        view.show_model = true;
        assert_eq!(whole_text_action(&view, Action::Copy), None);
        // A result that was not cut keeps the in-memory copy and its own End.
        let whole = ResultView::new("t".to_owned(), vec!["a".to_owned()], None, Vec::new());
        assert_eq!(whole_text_action(&whole, Action::Bottom), None);
    }
}
