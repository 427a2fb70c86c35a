//! The Roots view: the roots the selected server is shown this session (by default the
//! project directory, or its definition's `roots`). `a` asks for a directory and adds it, `x`
//! removes the selected root; the engine then sends `notifications/roots/list_changed` to a
//! connected server. Changes last for the session only. Drawn by `ui::roots_view`; keys in
//! the `roots_view` keymap context.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::keymap::{Action, Ctx};
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

impl App {
    /// A key while the Roots view is open: typing a directory, else the keymap.
    pub(super) fn on_roots_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let Some(view) = &mut self.session.roots else {
            return Vec::new();
        };
        if let Some(path) = &mut view.adding {
            match key.code {
                KeyCode::Esc => view.adding = None,
                KeyCode::Enter => {
                    let path = std::mem::take(path).trim().to_owned();
                    view.adding = None;
                    if path.is_empty() {
                        return Vec::new();
                    }
                    let server = view.server.clone();
                    return self.roots_change(server, OperatorOp::AddRoot { path });
                }
                KeyCode::Backspace => {
                    path.pop();
                }
                KeyCode::Char(c)
                    if !key.modifiers.contains(KeyModifiers::CONTROL) && path.len() < PATH_CAP =>
                {
                    path.push(c);
                }
                _ => {}
            }
            return Vec::new();
        }
        let scroll = [Action::Up, Action::Down, Action::Quit];
        let action = self.keymap.lookup(&self.contexts(), &key).or_else(|| {
            let global = self.keymap.lookup(&[Ctx::Global], &key);
            global.filter(|a| scroll.contains(a))
        });
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
        let Some(view) = &mut self.session.roots else {
            return Vec::new();
        };
        let count = match &view.roots {
            Load::Ready(r) => r.len(),
            _ => 0,
        };
        match action {
            Action::Back | Action::Quit => self.session.roots = None,
            Action::Up => view.sel = view.sel.saturating_sub(1),
            Action::Down => view.sel = (view.sel + 1).min(count.saturating_sub(1)),
            Action::AddRoot => view.adding = Some(String::new()),
            Action::Copy => {
                if let Load::Ready(roots) = &view.roots
                    && let Some(root) = roots.get(view.sel)
                {
                    return vec![Effect::Copy(root.uri.clone())];
                }
            }
            Action::Delete => {
                let Load::Ready(roots) = &view.roots else {
                    return Vec::new();
                };
                let Some(root) = roots.get(view.sel) else {
                    return Vec::new();
                };
                let (server, uri) = (view.server.clone(), root.uri.clone());
                return self.roots_change(server, OperatorOp::RemoveRoot { uri });
            }
            _ => {}
        }
        Vec::new()
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
