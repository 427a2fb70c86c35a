//! The console's one layer stack: what is open, front first. Key, paste and mouse routing, the
//! footer's hints, the key box's contexts and the draw order (`ui::layers`, back to front) all
//! walk [`App::layers`]; nothing else decides what is in front. Each layer's state lives where
//! it always did (the approval queue, the asks, the overlay…); [`App::is_open`] reads it, and
//! [`ORDER`] is the one precedence.

use crossterm::event::{KeyEvent, MouseEvent};

use super::component::Component;
use super::key_help::KeyHelp;
use super::keymap::{Action, Ctx};
use super::roots_view::RootsView;
use super::tasks_view::TasksView;
use super::{App, Effect, Focus, Screen, Tab};

/// One kind of thing open in the console.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layer {
    /// The oldest pending approval: in front of everything, the operator must answer it.
    Approval,
    /// The oldest request a server made of the operator (elicitation, sampling).
    Ask,
    /// The box with the keys of the layer it was opened over.
    KeyHelp,
    /// The Tasks view.
    Tasks,
    /// The Roots view.
    Roots,
    /// A global view ([`super::Overlay`]: help, doctor, trust, spills, pager, editor, …).
    Overlay,
    /// The workspace side panel while it has the focus (tiled: drawn with the panes).
    Side,
    /// The base view: the servers pane, the main pane's screen, status line and footer.
    Panes,
}

/// Every layer kind, front to back: the console's one order of precedence.
pub const ORDER: [Layer; 8] = [
    Layer::Approval,
    Layer::Ask,
    Layer::KeyHelp,
    Layer::Tasks,
    Layer::Roots,
    Layer::Overlay,
    Layer::Side,
    Layer::Panes,
];

impl App {
    /// Whether `layer` is open.
    pub fn is_open(&self, layer: Layer) -> bool {
        match layer {
            Layer::Approval => !self.approvals.is_empty(),
            Layer::Ask => !self.asks.is_empty(),
            Layer::KeyHelp => self.key_help.is_some(),
            Layer::Tasks => self.tasks_view.is_some(),
            Layer::Roots => self.session.roots.is_some(),
            Layer::Overlay => self.overlay.is_some(),
            Layer::Side => self.side_panel && self.focus == Focus::Side,
            Layer::Panes => true,
        }
    }

    /// What is open, front first; the panes are always last.
    pub fn layers(&self) -> Vec<Layer> {
        ORDER.into_iter().filter(|l| self.is_open(*l)).collect()
    }

    /// The layer in front: it takes keys, pastes and the mouse, and the footer shows its hints.
    pub fn front(&self) -> Layer {
        ORDER
            .into_iter()
            .find(|l| self.is_open(*l))
            .unwrap_or(Layer::Panes)
    }

    /// The action `key` means to the layer in front: its contexts' binding, else a
    /// binding of the global context that `also` accepts (the scroll keys and quit).
    pub(super) fn front_action(&self, key: &KeyEvent, also: fn(Action) -> bool) -> Option<Action> {
        let global = self.keymap.lookup(&[Ctx::Global], key).filter(|a| also(*a));
        self.keymap.lookup(&self.contexts(), key).or(global)
    }

    /// The keymap contexts of the layer in front, most specific first (for dispatch and hints).
    pub fn contexts(&self) -> Vec<Ctx> {
        match self.front() {
            Layer::Approval => match self.approvals.front() {
                Some(p) if p.viewer.is_some() => vec![Ctx::ApprovalArguments],
                _ => vec![Ctx::Approval],
            },
            Layer::Ask => self.asks.front().map(|a| vec![a.ctx()]).unwrap_or_default(),
            Layer::KeyHelp => vec![Ctx::KeyHelp],
            Layer::Tasks => vec![Ctx::TasksView, Ctx::View],
            Layer::Roots => vec![Ctx::RootsView, Ctx::View],
            Layer::Overlay => self
                .overlay
                .as_ref()
                .map_or(Vec::new(), |o| o.keys().0.to_vec()),
            Layer::Side => vec![Ctx::Side],
            Layer::Panes => self.panes_contexts(),
        }
    }

    /// The contexts of the main pane's screen (or the servers pane), then the global ones.
    fn panes_contexts(&self) -> Vec<Ctx> {
        let mut out = match (&self.screen, self.focus) {
            (Screen::Detail(_), _) => vec![Ctx::Detail],
            (Screen::Form(_), _) if self.completer.open.is_some() => {
                return vec![Ctx::Completion, Ctx::Form];
            }
            (Screen::Form(_) | Screen::Raw(..), _) => return vec![Ctx::Form],
            (Screen::Running(_), _) => vec![Ctx::Running],
            (Screen::Result(r), _) if r.view.link_pick.is_some() => {
                vec![Ctx::ResultLinks, Ctx::Result]
            }
            (Screen::Result(..), _) => vec![Ctx::Result],
            (Screen::Browse, Focus::Servers) => vec![Ctx::Servers],
            (Screen::Browse, Focus::Main | Focus::Side) => {
                let tab = match self.tab {
                    Tab::Tools => Ctx::ToolsTab,
                    Tab::Resources => Ctx::ResourcesTab,
                    Tab::Prompts => Ctx::PromptsTab,
                    Tab::Skills => Ctx::SkillsTab,
                    Tab::Log => Ctx::LogTab,
                    Tab::Config => Ctx::ConfigTab,
                };
                vec![tab, Ctx::List]
            }
        };
        out.push(Ctx::Global);
        out
    }

    /// Whether the footer may offer `action` in the layer in front: a component offers only
    /// the actions its update takes.
    pub fn front_offers(&self, action: Action) -> bool {
        match (self.front(), &self.overlay) {
            (Layer::KeyHelp, _) => KeyHelp::offers(action),
            (Layer::Tasks, _) => TasksView::offers(action),
            (Layer::Roots, _) => RootsView::offers(action),
            (Layer::Overlay, Some(overlay)) => (overlay.keys().1)(action),
            _ => self.offers(action),
        }
    }

    /// A key goes to the layer in front, and only to it.
    pub(super) fn on_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        match self.front() {
            Layer::Approval => self.on_approval_key(key),
            Layer::Ask => self.on_ask_key(key),
            Layer::KeyHelp => self.on_key_help_key(key),
            Layer::Tasks => self.on_tasks_key(key),
            Layer::Roots => self.on_roots_key(key),
            Layer::Overlay => self.on_overlay_key(key),
            Layer::Side => self.on_side_key(key),
            Layer::Panes => self.on_panes_key(key),
        }
    }

    /// A paste types into the layer in front when it takes text; it never answers an approval
    /// and never runs anything.
    pub(super) fn on_paste(&mut self, text: &str) -> Vec<Effect> {
        match self.front() {
            // The key box hides what a paste would type into; the Tasks view takes no text.
            Layer::Approval | Layer::KeyHelp | Layer::Tasks => Vec::new(),
            Layer::Ask => self.on_ask_paste(text),
            Layer::Roots => {
                self.on_roots_paste(text);
                Vec::new()
            }
            Layer::Overlay => {
                self.on_overlay_paste(text);
                Vec::new()
            }
            Layer::Side => {
                self.side.on_paste(text);
                Vec::new()
            }
            Layer::Panes => self.on_panes_paste(text),
        }
    }

    /// The mouse reaches the panes only when nothing is open over them.
    pub(super) fn on_mouse(&mut self, mouse: MouseEvent) -> Vec<Effect> {
        match self.front() {
            Layer::Approval
            | Layer::Ask
            | Layer::KeyHelp
            | Layer::Tasks
            | Layer::Roots
            | Layer::Overlay => Vec::new(),
            Layer::Side | Layer::Panes => self.on_panes_mouse(mouse),
        }
    }
}

#[cfg(test)]
#[path = "layers_tests.rs"]
mod tests;
