//! The keys of the component in front, in a box over it. Where keys type text (the config
//! editor, the call form) `?` is a character, so the component binds its own help key (`F1` by
//! default): it opens this box with that component's bindings only, and the component's state
//! underneath stays as it was. The help overlay's text layout lives here too, so the box and
//! the overlay wrap the same way and the box's scroll can stop at its last line.

use crossterm::event::KeyEvent;
use unicode_width::UnicodeWidthStr as _;

use super::component::{Component, Update};
use super::keymap::{Action, Ctx, Keymap, ctx_name};
use super::viewer::wrap_words;
use super::{App, Effect, layout};

/// The box's state: whose keys it lists and how far it is scrolled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyHelp {
    /// The contexts of the component it was opened from, most specific first.
    pub contexts: Vec<Ctx>,
    /// The first line shown.
    pub scroll: usize,
}

/// One line of laid-out help text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HelpLine {
    /// A context's heading.
    Heading(&'static str),
    /// A binding's row: its keys padded to the key column, and (part of) its description.
    Row {
        /// The keys (or nothing on a description's continuation row), padded.
        keys: String,
        /// The description's part on this row.
        desc: String,
    },
}

/// Lays `rows` (context name, keys, description) out in a column `width` wide: a heading per
/// context, then `keys  description` rows with both wrapped under themselves. The key column
/// fits the longest keys, up to a quarter of the column.
pub fn help_layout(rows: &[(&'static str, String, &str)], width: u16) -> Vec<HelpLine> {
    let width = usize::from(width).max(8);
    let key_w = rows
        .iter()
        .map(|(_, keys, _)| keys.width())
        .max()
        .unwrap_or(1)
        .min(width / 4)
        .max(1);
    let desc_w = width.saturating_sub(key_w + 3).max(4);
    let mut lines = Vec::new();
    let mut last = "";
    for (ctx, keys, desc) in rows {
        if *ctx != last {
            lines.push(HelpLine::Heading(ctx));
            last = ctx;
        }
        let key_rows = wrap_words(keys, key_w);
        let desc_rows = wrap_words(desc, desc_w);
        for i in 0..key_rows.len().max(desc_rows.len()) {
            let k = key_rows.get(i).map_or("", String::as_str);
            let pad = key_w.saturating_sub(k.width());
            lines.push(HelpLine::Row {
                keys: format!("{k}{}", " ".repeat(pad)),
                desc: desc_rows.get(i).cloned().unwrap_or_default(),
            });
        }
    }
    lines
}

/// The help rows of `contexts` only, in the help overlay's order; the editor's list ends with
/// the keys its buffer takes ([`super::editor::EDITING_KEYS`]).
pub fn rows_of<'a>(keymap: &'a Keymap, contexts: &[Ctx]) -> Vec<(&'static str, String, &'a str)> {
    let names: Vec<&str> = contexts.iter().map(|c| ctx_name(*c)).collect();
    let mut rows = keymap.help_rows();
    rows.retain(|(name, _, _)| names.contains(name));
    if contexts.contains(&Ctx::Editor) {
        rows.extend(
            super::editor::EDITING_KEYS
                .iter()
                .map(|(keys, desc)| ("editing", (*keys).to_owned(), *desc)),
        );
    }
    rows
}

impl App {
    /// The contexts in force bind `Help` outside the global ones: open the box for them.
    pub(super) fn open_key_help(&mut self) -> Vec<Effect> {
        let contexts = self
            .contexts()
            .into_iter()
            .filter(|c| *c != Ctx::Global)
            .collect();
        self.key_help = Some(KeyHelp {
            contexts,
            scroll: 0,
        });
        Vec::new()
    }

    /// The box's lines at the current terminal size, and how many rows it shows.
    pub fn key_help_lines(&self) -> (Vec<HelpLine>, usize) {
        let Some(help) = &self.key_help else {
            return (Vec::new(), 0);
        };
        let inner = layout::inner(self.areas().big);
        let lines = help_layout(&rows_of(&self.keymap, &help.contexts), inner.width);
        (lines, usize::from(inner.height).max(1))
    }

    /// A key while the box is open: close (its own keys, or the help key that opened it),
    /// scroll, or nothing (no key reaches the component underneath).
    pub(super) fn on_key_help_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let Some(help) = &self.key_help else {
            return Vec::new();
        };
        let action = self
            .keymap
            .lookup(&[Ctx::KeyHelp], &key)
            .or_else(|| self.keymap.lookup(&help.contexts, &key));
        let Some(msg) = action.and_then(KeyHelp::message) else {
            return Vec::new();
        };
        let (lines, height) = self.key_help_lines();
        let page = Page {
            max: lines.len().saturating_sub(height),
            height,
        };
        if let Some(help) = self.key_help.take() {
            self.key_help = help.update(msg, &page).next;
        }
        Vec::new()
    }
}

/// The box's extent: the furthest it scrolls and how many rows it shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    /// The last first line.
    pub max: usize,
    /// Rows shown.
    pub height: usize,
}

impl Component for KeyHelp {
    type Msg = Action;
    type Env<'a> = Page;
    type Out = std::convert::Infallible;

    fn message(action: Action) -> Option<Action> {
        (super::overlays::moves(action) || matches!(action, Action::Back | Action::Help))
            .then_some(action)
    }

    fn update(mut self, action: Action, page: &Page) -> Update<Self> {
        self.scroll = match action {
            Action::Down => self.scroll + 1,
            Action::Up => self.scroll.saturating_sub(1),
            Action::PageDown => self.scroll + page.height,
            Action::PageUp => self.scroll.saturating_sub(page.height),
            Action::Back | Action::Help => return Update::close(None),
            _ => return Update::pass(self),
        }
        .min(page.max);
        Update::stay(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn update_scrolls_within_the_box_and_closes() {
        let page = Page { max: 5, height: 3 };
        let help = KeyHelp {
            contexts: vec![Ctx::Form],
            scroll: 0,
        };
        let step = |h: KeyHelp, m| h.update(m, &page).next.expect("open");
        let down = step(help.clone(), Action::PageDown);
        assert_eq!(down.scroll, 3);
        assert_eq!(step(step(down, Action::PageDown), Action::Down).scroll, 5);
        assert_eq!(step(help.clone(), Action::Up).scroll, 0);
        assert!(help.update(Action::Back, &page).next.is_none());
        assert_eq!(KeyHelp::message(Action::Help), Some(Action::Help));
        assert!(!KeyHelp::offers(Action::Copy));
    }
}
