//! The global views in front of the panes. Each is a [`Component`] that owns its state
//! (scroll, selection, a typed confirmation) and asks the app for [`Asks`]: the help and the
//! approvals list (`overlays/help.rs`, `overlays/approvals.rs`), the doctor and the trust view
//! (`overlays/doctor.rs`, `overlays/trust.rs`), the error modal (here), and the views with files
//! of their own (spills, pager, agents, policy, hosts, sign-in, panels, the config editor).
//! Drawing is `ui::overlays`.

use std::collections::VecDeque;
use std::path::PathBuf;

use crossterm::event::KeyEvent;

use super::agents::AgentRow;
use super::agents_view::AgentsView;
use super::approval::{Answered, Pending};
use super::auth::SignInView;
use super::component::{Component, KeyMsg, Update};
use super::editor::Editor;
use super::hosts::HostsView;
use super::info::ConfigInfo;
use super::keymap::{Action, Ctx, Keymap};
use super::panels::PanelView;
use super::policy_view::PolicyView;
use super::spills_view::SpillsView;
use super::update::PAGE;
use super::{App, Effect, Msg, Pager, SpillRow, viewer};
use crate::mcp::sanitize::sanitize_capped;

mod approvals;
mod doctor;
mod help;
mod trust;
pub use approvals::ApprovalsView;
pub use doctor::DoctorView;
pub use help::HelpView;
pub use trust::TrustView;

/// A global view over the panes.
#[derive(Debug)]
pub enum Overlay {
    /// The `?` help.
    Help(HelpView),
    /// The config doctor: scroll and the selected file (`e` edits it).
    Doctor(DoctorView),
    /// The trust view.
    Trust(TrustView),
    /// The spills list: the selected entry and a filter.
    Spills(super::spills_view::SpillsView),
    /// Approvals: pending and decided this session.
    Approvals(ApprovalsView),
    /// Attached agent sessions (`mcpdeck serve`), scrolled.
    Agents(super::agents_view::AgentsView),
    /// The config editor.
    Editor(Box<super::editor::Editor>),
    /// The spill pager.
    Pager(super::pager::Pager),
    /// An operator-started failure.
    Error(ErrorView),
    /// The user's policy file and its rules.
    Policy(super::policy_view::PolicyView),
    /// Other agent hosts' configurations (`app::hosts`).
    Hosts(Box<super::hosts::HostsView>),
    /// A sign-in under way: its authorization URL (`app::auth`).
    SignIn(super::auth::SignInView),
    /// A registered panel (`app::panels`).
    Panel(super::panels::PanelView),
}

/// What an overlay or a server's ask asks of the app: effects to run, and a status message.
#[derive(Debug, Default, PartialEq)]
pub struct Asks {
    /// Effects to run.
    pub effects: Vec<Effect>,
    /// A status message.
    pub message: Option<String>,
    /// What to open next: the view that closed hands over to it, or one opens over it.
    pub next: Option<Next>,
}

/// A layer a view asks to open as it answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// The spills list, in place of the pager that closed (its back key).
    Spills,
    /// The doctor the editor was opened from, as it was.
    Doctor(DoctorView),
    /// The key box, over the view in front.
    KeyHelp,
}

impl Asks {
    /// Only a status message.
    pub fn said(message: &str) -> Self {
        Self {
            message: Some(message.to_owned()),
            ..Self::default()
        }
    }
}

impl From<Effect> for Asks {
    fn from(effect: Effect) -> Self {
        Some(effect).into()
    }
}

impl From<Option<Effect>> for Asks {
    fn from(effect: Option<Effect>) -> Self {
        Self {
            effects: effect.into_iter().collect(),
            ..Self::default()
        }
    }
}

/// An operator-started failure, shown as a modal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorView {
    /// What failed.
    pub title: String,
    /// The error class.
    pub class: String,
    /// The message (sanitised).
    pub message: String,
}

/// The error modal takes a panel's two actions: copy its text (`class: message`), close.
impl Component for ErrorView {
    type Msg = Action;
    type Env<'a> = ();
    type Out = Effect;

    fn message(action: Action) -> Option<Action> {
        PanelView::message(action)
    }

    fn update(self, action: Action, (): &()) -> Update<Self> {
        match action {
            Action::Copy => {
                let text = format!("{}: {}", self.class, self.message);
                Update::then(self, Effect::Copy(text))
            }
            Action::Back | Action::Quit => Update::close(None),
            _ => Update::pass(self),
        }
    }
}

/// The app state the overlays read (they never change it directly).
pub struct Shared<'a> {
    /// The session's spills.
    pub spills: &'a [SpillRow],
    /// Configuration-derived views.
    pub info: &'a ConfigInfo,
    /// Attached agent sessions.
    pub agents: &'a [AgentRow],
    /// The keymap in force (the help lists it).
    pub keymap: &'a Keymap,
    /// The policy mode.
    pub policy: &'a str,
    /// Pending approvals.
    pub approvals: &'a VecDeque<Pending>,
    /// Approvals decided this session: server, operation, answer.
    pub decided: &'a [(String, String, Answered)],
    /// The pager's text area (columns, rows).
    pub pager_viewport: (u16, u16),
    /// The user's policy file.
    pub policy_path: Option<&'a PathBuf>,
}

/// `v` moved by the scroll `action` asks for, kept at most `max`.
pub(super) fn scrolled(v: usize, action: Action, max: usize) -> usize {
    let delta: isize = match action {
        Action::Up => -1,
        Action::Down => 1,
        Action::PageUp => -(PAGE.cast_signed()),
        Action::PageDown => PAGE.cast_signed(),
        _ => 0,
    };
    v.saturating_add_signed(delta).min(max)
}

/// Whether `action` is a line or page key (what [`scrolled`] moves by).
pub(super) fn moves(action: Action) -> bool {
    matches!(
        action,
        Action::Up | Action::Down | Action::PageUp | Action::PageDown
    )
}

/// Whether a read-only view takes `action`: copy, a line or page key, close.
pub(super) fn reads(action: Action) -> bool {
    moves(action) || matches!(action, Action::Copy | Action::Back | Action::Quit)
}

impl Overlay {
    /// The keymap contexts this view answers to, most specific first, and which of their
    /// actions the footer may offer (those its update takes).
    pub fn keys(&self) -> (&'static [Ctx], fn(Action) -> bool) {
        match self {
            Self::Help(_) => (&[Ctx::View], HelpView::offers),
            Self::Doctor(_) => (&[Ctx::DoctorView, Ctx::View], DoctorView::offers),
            Self::Trust(_) => (&[Ctx::TrustView, Ctx::View], TrustView::offers),
            Self::Spills(_) => (&[Ctx::SpillsView, Ctx::View], SpillsView::offers),
            Self::Approvals(_) => (&[Ctx::View], ApprovalsView::offers),
            Self::Agents(_) => (&[Ctx::AgentsView, Ctx::View], AgentsView::offers),
            Self::Editor(_) => (&[Ctx::Editor], Box::<Editor>::offers),
            Self::Pager(_) => (&[Ctx::Pager, Ctx::View], Pager::offers),
            Self::Error(_) => (&[Ctx::View], ErrorView::offers),
            Self::Policy(_) => (&[Ctx::PolicyView, Ctx::View], PolicyView::offers),
            Self::Hosts(_) => (&[Ctx::HostsView, Ctx::View], Box::<HostsView>::offers),
            Self::SignIn(_) => (&[Ctx::View], SignInView::offers),
            Self::Panel(_) => (&[Ctx::View], PanelView::offers),
        }
    }
}

/// Hands `action` to the component `view` (put back in front by `front`): the view next and
/// what it asks; a view that does not take the action stays as it was.
fn route<C: Component>(
    view: C,
    action: Action,
    env: &C::Env<'_>,
    front: fn(C) -> Overlay,
) -> (Option<Overlay>, Option<Asks>)
where
    C::Out: Into<Asks>,
{
    match C::message(action) {
        Some(msg) => {
            let step = view.update(msg, env);
            (step.next.map(front), step.out.map(Into::into))
        }
        None => (Some(front(view)), None),
    }
}

impl App {
    /// A key while an overlay is open: the editor and a trust confirmation take text; the
    /// rest go through the overlay's keymap contexts (and the global scroll keys and quit).
    pub(super) fn on_overlay_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        if let Some(Overlay::Editor(_)) = &self.overlay
            && let Some(Overlay::Editor(editor)) = self.overlay.take()
        {
            let action = self.keymap.lookup(&[Ctx::Editor], &key);
            let msg = action.and_then(Box::<Editor>::message);
            let step = editor.update(msg.unwrap_or(KeyMsg::Type(key)), &());
            return self.then(step.next.map(Overlay::Editor), step.out);
        }
        if let Some(Overlay::Trust(t)) = &mut self.overlay
            && let Some(confirm) = t.confirm.take()
        {
            let granted = confirm.answer(&key);
            if granted.is_none() {
                self.message = Some("trust not granted".to_owned());
            }
            return granted.into_iter().collect();
        }
        if matches!(&self.overlay, Some(Overlay::Policy(v)) if v.confirm.is_some()) {
            return self.on_policy_confirm_key(key);
        }
        if let Some(Overlay::Pager(p)) = &mut self.overlay
            && let Some(effects) = p.search_key(&key)
        {
            return effects;
        }
        let typed = match &mut self.overlay {
            Some(Overlay::Spills(v)) => v.filter_key(&key),
            Some(Overlay::Agents(v)) => v.filter_key(&key),
            _ => None,
        };
        match typed {
            Some(Some(action)) => return self.on_overlay_action(action),
            Some(None) => return Vec::new(),
            None => {}
        }
        if let Some(Overlay::Hosts(view)) = &mut self.overlay
            && view.takes_text()
        {
            let (effects, message) = view.on_text_key(key);
            self.message = message.or(self.message.take());
            return effects;
        }
        if matches!(self.overlay, Some(Overlay::Help(_)))
            && self.keymap.lookup(&[Ctx::Global], &key) == Some(Action::Help)
        {
            self.overlay = None;
            return Vec::new();
        }
        let action = self.front_action(&key, |a| moves(a) || a == Action::Quit);
        action.map_or_else(Vec::new, |a| self.on_overlay_action(a))
    }

    /// A paste while a global view is in front: only the config editor takes text.
    pub(super) fn on_overlay_paste(&mut self, text: &str) {
        if let Some(Overlay::Editor(editor)) = &mut self.overlay {
            editor.area.insert_str(text);
            editor.dirty = true;
            editor.check();
        }
    }

    /// Hands `action` to the overlay in front.
    fn on_overlay_action(&mut self, action: Action) -> Vec<Effect> {
        let Some(overlay) = self.overlay.take() else {
            return Vec::new();
        };
        let s = &self.shared();
        let (next, asks) = match overlay {
            Overlay::Panel(v) => route(v, action, &v.content(self), Overlay::Panel),
            Overlay::Error(v) => route(v, action, &(), Overlay::Error),
            Overlay::Trust(v) => route(v, action, s, Overlay::Trust),
            Overlay::Doctor(v) => route(v, action, s, Overlay::Doctor),
            Overlay::Help(v) => route(v, action, s, Overlay::Help),
            Overlay::Approvals(v) => route(v, action, s, Overlay::Approvals),
            Overlay::Spills(v) => route(v, action, s, Overlay::Spills),
            Overlay::Agents(v) => route(v, action, s, Overlay::Agents),
            Overlay::Pager(v) => route(v, action, s, Overlay::Pager),
            Overlay::Policy(v) => route(v, action, s, Overlay::Policy),
            Overlay::Hosts(v) => route(v, action, &(), Overlay::Hosts),
            Overlay::SignIn(v) => route(v, action, &(), Overlay::SignIn),
            Overlay::Editor(v) => route(v, action, &(), Overlay::Editor),
        };
        self.then(next, asks)
    }

    /// Puts the overlay `next` in front and does what it asks.
    fn then(&mut self, next: Option<Overlay>, asks: Option<Asks>) -> Vec<Effect> {
        self.overlay = next;
        let Some(asks) = asks else {
            return Vec::new();
        };
        if asks.message.is_some() {
            self.message = asks.message;
        }
        match asks.next {
            Some(Next::Spills) => self.overlay = Some(Overlay::Spills(SpillsView::default())),
            Some(Next::Doctor(view)) => self.overlay = Some(Overlay::Doctor(view)),
            Some(Next::KeyHelp) => return self.open_key_help(),
            None => {}
        }
        asks.effects
    }

    /// The app state the overlays read.
    fn shared(&self) -> Shared<'_> {
        Shared {
            spills: &self.spills,
            info: &self.info,
            agents: &self.agents,
            keymap: &self.keymap,
            policy: &self.policy,
            approvals: &self.approvals,
            decided: &self.decided,
            pager_viewport: self.pager_viewport(),
            policy_path: self.policy_path.as_ref(),
        }
    }

    /// The replies for the overlays: a spill window, the editor's file, its save and test
    /// connect.
    pub(super) fn on_overlay_msg(&mut self, msg: Msg) -> Vec<Effect> {
        match msg {
            Msg::SpillPage {
                path,
                at,
                window: Ok(window),
            } => {
                // A read for the pager in front keeps its viewer (the search); else a new one.
                let mut pager = match self.overlay.take() {
                    Some(Overlay::Pager(p)) if p.path == path => p,
                    other => {
                        let from_spills = matches!(other, Some(Overlay::Spills(_)));
                        self.overlay = other;
                        super::pager::Pager {
                            path,
                            window: crate::mcp::results::SpillWindow::default(),
                            viewer: viewer::Viewer::default(),
                            from_spills,
                        }
                    }
                };
                pager.viewer.viewport = self.pager_viewport();
                if let Some(message) = pager.land(&at, window) {
                    self.message = Some(message);
                }
                self.overlay = Some(Overlay::Pager(pager));
            }
            Msg::SpillPage { window: Err(e), .. } | Msg::EditorText { text: Err(e), .. } => {
                self.message = Some(sanitize_capped(&e, 256));
            }
            Msg::EditorText {
                path,
                layer,
                text: Ok(text),
            } => {
                let mut editor = super::editor::Editor::new(path, layer, &text);
                editor.server = self.server().map(|s| s.name.clone());
                if let Some(Overlay::Doctor(d)) = &self.overlay {
                    editor.from_doctor = Some(*d);
                }
                self.overlay = Some(Overlay::Editor(Box::new(editor)));
            }
            Msg::Saved(result) => {
                if result.is_ok()
                    && let Some(Overlay::Editor(editor)) = &mut self.overlay
                {
                    editor.dirty = false;
                }
                self.message = Some(match result {
                    Ok(m) | Err(m) => sanitize_capped(&m, 300),
                });
            }
            Msg::TestConnected(result) => {
                let result = result
                    .map(|m| sanitize_capped(&m, 300))
                    .map_err(|m| sanitize_capped(&m, 600));
                self.message = Some(match &result {
                    Ok(m) | Err(m) => m.clone(),
                });
                if let Some(Overlay::Editor(editor)) = &mut self.overlay {
                    editor.test = Some(result);
                }
            }
            _ => {}
        }
        Vec::new()
    }
}

/// Test helpers the components' own tests share.
#[cfg(test)]
fn lines(texts: &[&str]) -> Vec<crate::app::info::InfoLine> {
    let line = |t: &&str| crate::app::info::InfoLine {
        text: (*t).to_owned(),
        tone: crate::app::info::Tone::Plain,
    };
    texts.iter().map(line).collect()
}

#[cfg(test)]
static KEYMAP: std::sync::LazyLock<Keymap> = std::sync::LazyLock::new(Keymap::default);
#[cfg(test)]
static NO_APPROVALS: VecDeque<Pending> = VecDeque::new();

#[cfg(test)]
pub(super) fn shared(info: &ConfigInfo) -> Shared<'_> {
    Shared {
        spills: &[],
        info,
        agents: &[],
        keymap: &KEYMAP,
        policy: "audit",
        approvals: &NO_APPROVALS,
        decided: &[],
        pager_viewport: (40, 3),
        policy_path: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyCode;

    fn error() -> ErrorView {
        ErrorView {
            title: "Sign in".into(),
            class: "auth".into(),
            message: "refused".into(),
        }
    }

    #[test]
    fn the_error_modal_copies_its_class_and_message_and_closes() {
        let step = error().update(Action::Copy, &());
        assert_eq!(step.next, Some(error()), "copying leaves it open");
        assert_eq!(step.out, Some(Effect::Copy("auth: refused".into())));
        let step = error().update(Action::Back, &());
        assert!(step.next.is_none() && step.out.is_none());
        assert_eq!(ErrorView::message(Action::Quit), Some(Action::Quit));
        assert!(ErrorView::offers(Action::Copy) && !ErrorView::offers(Action::Down));
    }

    #[test]
    fn a_key_the_error_modal_does_not_take_leaves_it_open() {
        let (mut app, _dir) = crate::app::testkit::demo_app();
        app.overlay = Some(Overlay::Error(error()));
        app.update(crate::app::testkit::key(KeyCode::Down));
        assert!(matches!(&app.overlay, Some(Overlay::Error(e)) if *e == error()));
        let copied = app.update(crate::app::testkit::ch('y'));
        assert_eq!(copied, vec![Effect::Copy("auth: refused".into())]);
        app.update(crate::app::testkit::key(KeyCode::Esc));
        assert!(app.overlay.is_none(), "Esc closes it");
    }
}
