//! The Roots view: the roots the selected server is shown this session (by default the
//! project directory, or its definition's `roots`). `a` asks for a directory and adds it, `x`
//! removes the selected root; the engine then sends `notifications/roots/list_changed` to a
//! connected server. Changes last for the session only. Drawn by `ui::roots_view`; keys in
//! the `roots_view` keymap context.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::component::{Component, Update};
use super::keymap::Action;
use super::{App, Effect, Load, ReqId};
use crate::mcp::api::{RootItem, RootList};
use crate::mcp::engine::{EngineRequest, OperatorOp};
use crate::mcp::sanitize::sanitize_capped;

/// The longest directory the operator may type.
const PATH_CAP: usize = 4096;

/// The Roots view's state.
#[derive(Debug, Clone, PartialEq)]
pub struct RootsView {
    /// The server whose roots are shown.
    pub server: String,
    /// The roots (sanitised).
    pub roots: Load<Vec<RootItem>>,
    /// The selected row.
    pub sel: usize,
    /// The directory being typed, while adding.
    pub adding: Option<String>,
}

impl RootsView {
    /// The view of `server`'s roots, not yet loaded.
    pub fn new(server: &str) -> Self {
        Self {
            server: server.to_owned(),
            roots: Load::Idle,
            sel: 0,
            adding: None,
        }
    }
}

/// What the Roots view answers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RootsMsg {
    /// Close the view.
    Close,
    /// Select the root above.
    Up,
    /// Select the root below.
    Down,
    /// Start typing a directory to add.
    StartAdding,
    /// Copy the selected root's URI.
    Copy,
    /// Remove the selected root.
    Remove,
    /// Type a character of the directory being added.
    Type(char),
    /// Erase the directory's last character.
    Erase,
    /// Add the directory typed.
    Add,
    /// Stop adding.
    StopAdding,
}

/// What the Roots view asks of the app.
#[derive(Debug, Clone, PartialEq)]
pub enum RootsOut {
    /// Put this on the clipboard.
    Copy(String),
    /// Change the server's roots.
    Change(String, OperatorOp),
}

impl RootsView {
    /// The message a key means while a directory is typed (`None`: the key does nothing).
    pub fn typed(&self, key: &KeyEvent) -> Option<RootsMsg> {
        let path = self.adding.as_ref()?;
        match key.code {
            KeyCode::Esc => Some(RootsMsg::StopAdding),
            KeyCode::Enter => Some(RootsMsg::Add),
            KeyCode::Backspace => Some(RootsMsg::Erase),
            KeyCode::Char(c)
                if !key.modifiers.contains(KeyModifiers::CONTROL) && path.len() < PATH_CAP =>
            {
                Some(RootsMsg::Type(c))
            }
            _ => None,
        }
    }

    fn selected(&self) -> Option<&RootItem> {
        match &self.roots {
            Load::Ready(r) => r.get(self.sel),
            _ => None,
        }
    }
}

impl Component for RootsView {
    type Msg = RootsMsg;
    type Env<'a> = ();
    type Out = RootsOut;

    fn message(action: Action) -> Option<RootsMsg> {
        Some(match action {
            Action::Back | Action::Quit => RootsMsg::Close,
            Action::Up => RootsMsg::Up,
            Action::Down => RootsMsg::Down,
            Action::AddRoot => RootsMsg::StartAdding,
            Action::Copy => RootsMsg::Copy,
            Action::Delete => RootsMsg::Remove,
            _ => return None,
        })
    }

    fn update(mut self, msg: RootsMsg, (): &()) -> Update<Self> {
        let count = match &self.roots {
            Load::Ready(r) => r.len(),
            _ => 0,
        };
        let out = match msg {
            RootsMsg::Close => return Update::close(None),
            RootsMsg::Up => {
                self.sel = self.sel.saturating_sub(1);
                None
            }
            RootsMsg::Down => {
                self.sel = (self.sel + 1).min(count.saturating_sub(1));
                None
            }
            RootsMsg::StartAdding => {
                self.adding = Some(String::new());
                None
            }
            RootsMsg::Copy => self.selected().map(|r| RootsOut::Copy(r.uri.clone())),
            RootsMsg::Remove => self.selected().map(|r| {
                let uri = r.uri.clone();
                RootsOut::Change(self.server.clone(), OperatorOp::RemoveRoot { uri })
            }),
            RootsMsg::Type(c) => {
                self.adding.get_or_insert_default().push(c);
                None
            }
            RootsMsg::Erase => {
                self.adding.as_mut().map(String::pop);
                None
            }
            RootsMsg::StopAdding => {
                self.adding = None;
                None
            }
            RootsMsg::Add => {
                let path = self.adding.take().unwrap_or_default().trim().to_owned();
                (!path.is_empty())
                    .then(|| RootsOut::Change(self.server.clone(), OperatorOp::AddRoot { path }))
            }
        };
        Update {
            next: Some(self),
            out,
            taken: true,
        }
    }
}

impl App {
    /// A key while the Roots view is open: typing a directory, else the keymap.
    pub(super) fn on_roots_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let Some(view) = &self.session.roots else {
            return Vec::new();
        };
        if view.adding.is_some() {
            return view
                .typed(&key)
                .map_or_else(Vec::new, |msg| self.roots_update(msg));
        }
        let scroll = |a| matches!(a, Action::Up | Action::Down | Action::Quit);
        let action = self.front_action(&key, scroll);
        action.map_or_else(Vec::new, |a| self.on_roots_action(a))
    }

    /// A paste while the Roots view is open: its first line types into the directory being
    /// added (control characters dropped); otherwise it does nothing.
    pub(super) fn on_roots_paste(&mut self, text: &str) {
        let Some(path) = self.session.roots.as_mut().and_then(|v| v.adding.as_mut()) else {
            return;
        };
        let line = text.lines().next().unwrap_or_default();
        for c in line.chars().filter(|c| !c.is_control()) {
            if path.len() >= PATH_CAP {
                break;
            }
            path.push(c);
        }
    }

    /// An action while the Roots view is open.
    pub(super) fn on_roots_action(&mut self, action: Action) -> Vec<Effect> {
        RootsView::message(action).map_or_else(Vec::new, |msg| self.roots_update(msg))
    }

    /// Runs the Roots view's update and what it asks.
    fn roots_update(&mut self, msg: RootsMsg) -> Vec<Effect> {
        let Some(view) = self.session.roots.take() else {
            return Vec::new();
        };
        let step = view.update(msg, &());
        self.session.roots = step.next;
        match step.out {
            None => Vec::new(),
            Some(RootsOut::Copy(text)) => vec![Effect::Copy(text)],
            Some(RootsOut::Change(server, op)) => self.roots_change(server, op),
        }
    }

    fn roots_change(&mut self, server: String, op: OperatorOp) -> Vec<Effect> {
        let id = self.id(super::Waiter::Session);
        if let Some(view) = &mut self.session.roots {
            view.roots = Load::Loading(id);
        }
        vec![Effect::Engine {
            id,
            request: EngineRequest::Operator { server, op },
        }]
    }

    /// The roots arrived (listed or changed).
    pub(super) fn on_roots(&mut self, id: ReqId, server: &str, list: &RootList) {
        let roots: Vec<RootItem> = list
            .roots
            .iter()
            .map(|r| RootItem {
                uri: sanitize_capped(&r.uri, 2048),
                name: sanitize_capped(&r.name, 256),
            })
            .collect();
        if list.notified {
            self.message = Some(format!(
                "roots changed: {} was sent roots/list_changed",
                sanitize_capped(server, 128)
            ));
        }
        if let Some(view) = &mut self.session.roots
            && view.roots.waits_for(id)
        {
            view.sel = view.sel.min(roots.len().saturating_sub(1));
            view.roots = Load::Ready(roots);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed() -> RootsView {
        let root = |uri: &str| RootItem {
            uri: uri.into(),
            name: String::new(),
        };
        RootsView {
            roots: Load::Ready(vec![root("file:///a"), root("file:///b")]),
            ..RootsView::new("demo")
        }
    }

    fn run(view: RootsView, msgs: &[RootsMsg]) -> (Option<RootsView>, Option<RootsOut>) {
        let mut state = Some(view);
        let mut out = None;
        for msg in msgs {
            let step = state.take().expect("open").update(*msg, &());
            (state, out) = (step.next, step.out);
        }
        (state, out)
    }

    #[test]
    fn update_selects_copies_and_removes_the_selected_root() {
        let (view, out) = run(listed(), &[RootsMsg::Down, RootsMsg::Down, RootsMsg::Copy]);
        assert_eq!(
            view.as_ref().map(|v| v.sel),
            Some(1),
            "stops at the last root"
        );
        assert_eq!(out, Some(RootsOut::Copy("file:///b".into())));
        let (_, out) = run(listed(), &[RootsMsg::Remove]);
        let uri = "file:///a".into();
        assert_eq!(
            out,
            Some(RootsOut::Change(
                "demo".into(),
                OperatorOp::RemoveRoot { uri }
            ))
        );
        assert_eq!(run(listed(), &[RootsMsg::Close]), (None, None));
    }

    #[test]
    fn update_types_a_directory_and_adds_it_trimmed_or_not_at_all_when_blank() {
        let typed = [' ', '/', 'x', 'y'].map(RootsMsg::Type);
        let mut msgs = vec![RootsMsg::StartAdding];
        msgs.extend(typed);
        msgs.extend([RootsMsg::Erase, RootsMsg::Add]);
        let (view, out) = run(listed(), &msgs);
        let path = "/x".into();
        assert_eq!(
            out,
            Some(RootsOut::Change(
                "demo".into(),
                OperatorOp::AddRoot { path }
            ))
        );
        assert_eq!(view.and_then(|v| v.adding), None, "adding ends");
        let (_, out) = run(
            listed(),
            &[RootsMsg::StartAdding, RootsMsg::Type(' '), RootsMsg::Add],
        );
        assert_eq!(out, None);
        let (view, _) = run(listed(), &[RootsMsg::StartAdding, RootsMsg::StopAdding]);
        assert_eq!(view.and_then(|v| v.adding), None);
    }

    #[test]
    fn while_typing_keys_type_and_nothing_is_listed_copies_nothing() {
        let view = run(listed(), &[RootsMsg::StartAdding]).0.expect("open");
        let key = |c| KeyEvent::new(c, KeyModifiers::NONE);
        assert_eq!(
            view.typed(&key(KeyCode::Char('q'))),
            Some(RootsMsg::Type('q'))
        );
        assert_eq!(view.typed(&key(KeyCode::Enter)), Some(RootsMsg::Add));
        assert_eq!(listed().typed(&key(KeyCode::Char('q'))), None, "not typing");
        let (_, out) = run(RootsView::new("demo"), &[RootsMsg::Copy, RootsMsg::Remove]);
        assert_eq!(out, None);
    }
}
