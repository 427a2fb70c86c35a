//! The spill pager: a whole spill file in the one text viewer, a window of its lines at a time.
//! The executor indexes the file's line offsets in one streaming pass and reads the window a
//! move asks for by seeking (`mcp::results::LineIndex`), so `End` reaches the true last line of
//! an 8 MiB file without holding it; a search streams over the file and lands on the matching
//! line. This module only decides which window to ask for and where it lands.

use std::path::PathBuf;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::component::{Component, Update};
use super::keymap::Action;
use super::overlays::{Asks, Shared, moves, reads};
use super::{Effect, viewer};
use crate::mcp::results::SpillWindow;
use crate::mcp::sanitize::sanitize;

/// How many lines the pager reads at a time.
pub const PAGER_LINES: usize = 400;
/// At most this many bytes of lines are read at a time (lines are at most
/// `mcp::results::LINE_CAP` long).
pub const PAGER_BYTES: usize = 256 * 1024;
/// Lines read above the wanted one, so a step back needs no read.
const CONTEXT: usize = PAGER_LINES / 4;

/// Which lines of a spill to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SpillAt {
    /// The window that shows this line (0-based) at the top.
    Line(usize),
    /// The window that ends at the file's last line, shown at its end.
    End,
    /// The next match of `query` (case-insensitive) from line `from`, forward or back,
    /// wrapping around.
    Find {
        /// What is searched for.
        query: String,
        /// The line the search starts at.
        from: usize,
        /// Forward or back.
        forward: bool,
    },
}

impl SpillAt {
    /// The first line to read for this request, given the line it wants shown.
    pub fn start(line: usize) -> usize {
        line.saturating_sub(CONTEXT)
    }
}

/// The pager's state: the file, the window read and the viewer over it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pager {
    /// The file.
    pub path: PathBuf,
    /// The window of lines shown (sanitised), where it starts and the file's totals.
    pub window: SpillWindow,
    /// Scroll position and search within the window.
    pub viewer: viewer::Viewer,
    /// Opened from the spills list, which the back key returns to (else it closes).
    pub from_spills: bool,
}

impl Pager {
    /// The window's lines.
    pub fn lines(&self) -> &[String] {
        &self.window.lines
    }

    /// Whether the window holds the file's last line.
    fn holds_end(&self) -> bool {
        self.window.first + self.window.lines.len() >= self.window.total_lines
    }

    /// The file's line at the top of the view.
    fn top_line(&self) -> usize {
        let top = self.viewer.top.min(self.viewer.max_top(self.lines()));
        self.window.first + self.viewer.line_at_row(self.lines(), top).0
    }

    fn read(&self, at: SpillAt) -> Effect {
        Effect::ReadSpill {
            path: self.path.clone(),
            at,
        }
    }

    /// A key typed into the pager's search: Enter searches the file from the view's top line,
    /// Esc drops the search. `None` when no query is being typed.
    pub fn search_key(&mut self, key: &KeyEvent) -> Option<Vec<Effect>> {
        let search = self.viewer.search.as_mut().filter(|s| s.editing)?;
        match key.code {
            KeyCode::Esc => self.viewer.search = None,
            KeyCode::Enter => {
                search.editing = false;
                let query = search.query.clone();
                let from = self.top_line();
                return Some(vec![self.read(SpillAt::Find {
                    query,
                    from,
                    forward: true,
                })]);
            }
            KeyCode::Backspace => {
                search.query.pop();
            }
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                search.query.push(c);
            }
            _ => {}
        }
        Some(Vec::new())
    }

    /// The next (or previous) match after the current one, searched in the file.
    fn next_match(&self, forward: bool) -> Option<Effect> {
        let search = self.viewer.search.as_ref()?;
        let at = self.current_match().unwrap_or_else(|| self.top_line());
        let from = if forward { at + 1 } else { at };
        Some(self.read(SpillAt::Find {
            query: search.query.clone(),
            from,
            forward,
        }))
    }

    /// The file's line of the current match, if a search landed on one.
    fn current_match(&self) -> Option<usize> {
        let s = self.viewer.search.as_ref()?;
        s.matches.get(s.current).map(|m| self.window.first + m)
    }

    /// Takes in a window read for `at`: lands on the line it asked for.
    pub fn land(&mut self, at: &SpillAt, window: SpillWindow) -> Option<String> {
        let lines = window
            .lines
            .into_iter()
            .map(|l| sanitize(&l).into_owned())
            .collect();
        self.window = SpillWindow {
            lines,
            first: window.first,
            total_lines: window.total_lines,
            size: window.size,
            found: window.found,
        };
        let first = self.window.first;
        self.viewer.window = Some((first, self.window.total_lines));
        let lines = &self.window.lines;
        match at {
            SpillAt::Line(line) => {
                self.viewer.top = self.viewer.row_of_line(lines, line.saturating_sub(first));
                self.viewer.top = self.viewer.top.min(self.viewer.max_top(lines));
            }
            SpillAt::End => self.viewer.end(lines),
            SpillAt::Find { query, .. } => {
                let Some(found) = self.window.found else {
                    if let Some(s) = &mut self.viewer.search {
                        s.matches.clear();
                    }
                    return Some(format!("no match for {}", sanitize(query)));
                };
                self.viewer.find(lines);
                let local = found.saturating_sub(first);
                if let Some(s) = &mut self.viewer.search {
                    s.current = s.matches.iter().position(|&m| m == local).unwrap_or(0);
                }
                self.viewer.show_line(lines, local);
            }
        }
        None
    }
}

/// The pager moves through the file (reading the window a move lands in), searches it and
/// copies it whole.
impl Component for Pager {
    type Msg = Action;
    type Env<'a> = Shared<'a>;
    type Out = Asks;

    fn message(action: Action) -> Option<Action> {
        let own = matches!(
            action,
            Action::Top | Action::Bottom | Action::Search | Action::NextMatch | Action::PrevMatch
        );
        (own || reads(action)).then_some(action)
    }

    fn update(mut self, action: Action, s: &Shared<'_>) -> Update<Self> {
        self.viewer.viewport = s.pager_viewport;
        let effect = match action {
            Action::Search => {
                self.viewer.start_search();
                None
            }
            Action::NextMatch | Action::PrevMatch => self.next_match(action == Action::NextMatch),
            Action::Copy => Some(Effect::CopySpill {
                path: self.path.clone(),
                size: self.window.size,
            }),
            // Back to the spills list it was opened from, else to the result under it.
            Action::Back if self.from_spills => {
                let spills = Asks {
                    next: Some(super::overlays::Next::Spills),
                    ..Asks::default()
                };
                return Update::close(Some(spills));
            }
            Action::Back | Action::Quit => return Update::close(None),
            action if moves(action) || matches!(action, Action::Top | Action::Bottom) => {
                move_view(&mut self, action)
            }
            _ => return Update::pass(self),
        };
        Update::then(self, effect.into())
    }
}

/// Moves the view; past either end of the window it reads the window the move lands in.
fn move_view(p: &mut Pager, action: Action) -> Option<Effect> {
    let lines = &p.window.lines;
    let at_end = p.viewer.top >= p.viewer.max_top(lines);
    let at_top = p.viewer.top == 0;
    let top = p.top_line();
    let page = usize::from(p.viewer.viewport.1).saturating_sub(1).max(1);
    match action {
        Action::Down | Action::PageDown if at_end && !p.holds_end() => {
            let step = if action == Action::Down { 1 } else { page };
            return Some(p.read(SpillAt::Line(top + step)));
        }
        Action::Up | Action::PageUp if at_top && p.window.first > 0 => {
            let step = if action == Action::Up { 1 } else { page };
            return Some(p.read(SpillAt::Line(top.saturating_sub(step))));
        }
        Action::Top if p.window.first > 0 => return Some(p.read(SpillAt::Line(0))),
        Action::Bottom if !p.holds_end() => return Some(p.read(SpillAt::End)),
        _ => p.viewer.scroll(lines, action),
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pager(first: usize, n: usize, total: usize) -> Pager {
        let window = SpillWindow {
            first,
            lines: (first..first + n).map(|i| format!("line {i}")).collect(),
            total_lines: total,
            size: 1,
            found: None,
        };
        let mut p = Pager {
            path: PathBuf::from("/spill.txt"),
            window: SpillWindow::default(),
            viewer: viewer::Viewer {
                viewport: (40, 10),
                ..viewer::Viewer::default()
            },
            from_spills: false,
        };
        p.land(&SpillAt::Line(first), window);
        p
    }

    fn read_of(effect: Option<Effect>) -> Option<SpillAt> {
        match effect {
            Some(Effect::ReadSpill { at, .. }) => Some(at),
            _ => None,
        }
    }

    #[test]
    fn end_reads_the_last_window_and_shows_the_last_line() {
        let mut p = pager(0, 400, 20_000);
        assert_eq!(
            read_of(move_view(&mut p, Action::Bottom)),
            Some(SpillAt::End)
        );
        let last = SpillWindow {
            first: 19_600,
            lines: (19_600..20_000).map(|i| format!("line {i}")).collect(),
            total_lines: 20_000,
            size: 1,
            found: None,
        };
        p.land(&SpillAt::End, last);
        assert_eq!(p.viewer.position(p.lines()), "lines 19991–20000 of 20000");
        assert_eq!(
            read_of(move_view(&mut p, Action::Down)),
            None,
            "nothing past the end"
        );
        assert_eq!(
            read_of(move_view(&mut p, Action::Top)),
            Some(SpillAt::Line(0))
        );
    }

    #[test]
    fn paging_past_the_window_reads_the_next_lines_and_lands_on_them() {
        let mut p = pager(0, 400, 1000);
        p.viewer.end(&p.window.lines);
        let at = read_of(move_view(&mut p, Action::Down));
        assert_eq!(at, Some(SpillAt::Line(391)));
        let next = SpillWindow {
            first: SpillAt::start(391),
            lines: (291..691).map(|i| format!("line {i}")).collect(),
            total_lines: 1000,
            size: 1,
            found: None,
        };
        p.land(&SpillAt::Line(391), next);
        assert_eq!(p.top_line(), 391);
        assert_eq!(p.viewer.position(p.lines()), "lines 392–401 of 1000");
    }

    #[test]
    fn back_returns_to_the_spills_list_it_came_from_and_copy_takes_the_whole_file() {
        let info = crate::app::info::ConfigInfo::default();
        let s = crate::app::overlays::shared(&info);
        let mut p = pager(0, 10, 10);
        let copy = p.clone().update(Action::Copy, &s);
        let whole = Effect::CopySpill {
            path: "/spill.txt".into(),
            size: 1,
        };
        assert_eq!(copy.out, Some(Asks::from(whole)));
        let closed = p.clone().update(Action::Back, &s);
        assert_eq!(
            (closed.next, closed.out),
            (None, None),
            "back to the result"
        );
        p.from_spills = true;
        let back = p.clone().update(Action::Back, &s);
        assert!(
            back.next.is_none()
                && back
                    .out
                    .is_some_and(|a| a.next == Some(crate::app::overlays::Next::Spills))
        );
        let quit = p.clone().update(Action::Quit, &s);
        assert_eq!(quit.out, None, "quit closes it whatever it came from");
        let searching = p.update(Action::Search, &s).next.expect("open");
        assert!(searching.viewer.search.is_some());
    }

    #[test]
    fn a_search_lands_on_the_matching_line() {
        let mut p = pager(0, 400, 1000);
        p.viewer.start_search();
        for c in "line 700".chars() {
            p.search_key(&KeyEvent::from(KeyCode::Char(c)));
        }
        let effects = p.search_key(&KeyEvent::from(KeyCode::Enter));
        let at = read_of(effects.and_then(|e| e.into_iter().next()));
        let Some(at @ SpillAt::Find { .. }) = at else {
            panic!("a search read: {at:?}");
        };
        let found = SpillWindow {
            first: 600,
            lines: (600..1000).map(|i| format!("line {i}")).collect(),
            total_lines: 1000,
            size: 1,
            found: Some(700),
        };
        assert_eq!(p.land(&at, found), None);
        assert_eq!(p.current_match(), Some(700));
        let (first, last) = p.viewer.visible_lines(p.lines());
        assert!((first..=last).contains(&100), "{first}..{last}");
        let Some(SpillAt::Find { from, .. }) = read_of(p.next_match(true)) else {
            panic!("n searches on");
        };
        assert_eq!(from, 701);
    }
}
