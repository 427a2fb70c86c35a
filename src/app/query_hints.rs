//! Typing a query (the tool search, a list's filter, the result's search): characters and
//! Backspace edit the query, and the few keys that act on it come from the keymap's contexts
//! `tool_search`, `filter` and `text_search` ([`App::query_key`]). The footer there shows those
//! contexts' hints after a lead naming what is typed, so the keymap underneath (`c call`,
//! `/ search`) never shows while its keys would type.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::App;
use super::keymap::{Action, Ctx};

/// A key typed into a query, as the keymap of its context reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QueryKey {
    /// A character typed into the query.
    Type(char),
    /// Backspace: the query's last character goes.
    Erase,
    /// Move the selection by this many rows (`up` / `down`).
    Move(isize),
    /// Stop typing and keep the query (`open`: a list opens its entry).
    Keep,
    /// Drop the query (`back`).
    Clear,
    /// A key that does nothing here.
    Ignore,
}

impl App {
    /// What `key` does in the query context `ctx`: its binding there, else it types.
    pub(super) fn query_key(&self, ctx: Ctx, key: &KeyEvent) -> QueryKey {
        match self.keymap.lookup(&[ctx], key) {
            Some(Action::Back) => QueryKey::Clear,
            Some(Action::Open | Action::Submit) => QueryKey::Keep,
            Some(Action::Up) => QueryKey::Move(-1),
            Some(Action::Down) => QueryKey::Move(1),
            _ => match key.code {
                KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                    QueryKey::Type(c)
                }
                KeyCode::Backspace => QueryKey::Erase,
                _ => QueryKey::Ignore,
            },
        }
    }

    /// The query context keys go to now, and what the footer says is typed there.
    fn query_context(&self) -> Option<(Ctx, &'static str)> {
        if self.searching() {
            Some((Ctx::ToolSearch, "search tools"))
        } else if self.filtering() {
            Some((Ctx::Filter, "filter"))
        } else if self.result_searching() {
            Some((Ctx::TextSearch, "search the text"))
        } else {
            None
        }
    }

    /// The hints while a query is typed, or `None` when keys go through the keymap.
    pub fn query_hints(&self) -> Option<Vec<(String, &str)>> {
        let (ctx, typed) = self.query_context()?;
        let mut hints = vec![("type".to_owned(), typed)];
        hints.extend(self.keymap.hints(&[ctx]));
        Some(hints)
    }
}
