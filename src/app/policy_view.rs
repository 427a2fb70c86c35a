//! The policy view (`P`): the user's policy file — where it is, its mode and every rule — with
//! a selection; `x` removes the selected rule after a typed `y`. The runtime reads and edits the
//! file with the engine's own policy code (the same as `mcpdeck policy`), atomically and with
//! the previous file backed up; this component only holds what was read and asks for effects.

use std::path::PathBuf;

use crossterm::event::KeyEvent;

use super::component::{Component, Update};
use super::confirm::Confirm;
use super::keymap::Action;
use super::overlays::{Asks, Overlay, Shared, moves, reads, scrolled};
use super::{App, Effect, Msg};
use crate::mcp::sanitize::sanitize_capped;

/// What the policy file holds, as read (strings sanitised on entry).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PolicyListing {
    /// The file.
    pub path: PathBuf,
    /// Whether it exists (absent: audit mode, no rules).
    pub exists: bool,
    /// The mode's word (`audit`, `enforce`).
    pub mode: String,
    /// The rules in file order: (is an allow rule, the rule).
    pub rules: Vec<(bool, String)>,
}

impl PolicyListing {
    /// The listing with every rule sanitised (a rule is text from a file).
    #[must_use]
    pub fn sanitised(mut self) -> Self {
        for (_, rule) in &mut self.rules {
            *rule = sanitize_capped(rule, 512);
        }
        self
    }
}

/// The policy view's state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PolicyView {
    /// The selected rule.
    pub sel: usize,
    /// What was read: `None` while reading, else the listing or why it could not be read.
    pub listing: Option<Result<PolicyListing, String>>,
    /// The rule a typed `y` removes, while the question is open.
    pub confirm: Option<Confirm<String>>,
}

impl PolicyView {
    /// The selected rule's text, when there is one.
    pub fn selected_rule(&self) -> Option<&str> {
        match &self.listing {
            Some(Ok(l)) => l.rules.get(self.sel).map(|(_, r)| r.as_str()),
            _ => None,
        }
    }

    fn rule_count(&self) -> usize {
        match &self.listing {
            Some(Ok(l)) => l.rules.len(),
            _ => 0,
        }
    }
}

/// The policy view removes (after a typed `y`) and copies the selected rule, and reads the file
/// again.
impl Component for PolicyView {
    type Msg = Action;
    type Env<'a> = Shared<'a>;
    type Out = Asks;

    fn message(action: Action) -> Option<Action> {
        (reads(action) || matches!(action, Action::Delete | Action::Reconnect)).then_some(action)
    }

    fn update(mut self, action: Action, s: &Shared<'_>) -> Update<Self> {
        let asks = match action {
            Action::Delete => match self.selected_rule().map(str::to_owned) {
                Some(rule) => {
                    let said = format!("type y to remove `{rule}` from the policy file");
                    self.confirm = Some(Confirm::new(rule));
                    Asks::said(&said)
                }
                None => Asks::said("no rule to remove"),
            },
            Action::Copy => self
                .selected_rule()
                .map(|r| Effect::Copy(r.to_owned()))
                .into(),
            Action::Reconnect => {
                self.listing = None;
                s.policy_path.map(|p| Effect::ReadPolicy(p.clone())).into()
            }
            Action::Back | Action::Quit => return Update::close(None),
            action if moves(action) => {
                let max = self.rule_count().saturating_sub(1);
                self.sel = scrolled(self.sel, action, max);
                Asks::default()
            }
            _ => return Update::pass(self),
        };
        Update::then(self, asks)
    }
}

impl App {
    /// Opens the policy view and reads the file.
    pub(super) fn open_policy_view(&mut self) -> Vec<Effect> {
        let Some(path) = self.policy_path.clone() else {
            self.message = Some("no policy file is known to this console".to_owned());
            return Vec::new();
        };
        self.overlay = Some(Overlay::Policy(PolicyView::default()));
        vec![Effect::ReadPolicy(path)]
    }

    /// A key while the policy view waits for the typed `y` of a removal.
    pub(super) fn on_policy_confirm_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let Some(Overlay::Policy(view)) = &mut self.overlay else {
            return Vec::new();
        };
        let rule = view.confirm.take().and_then(|c| c.answer(&key));
        if let (Some(rule), Some(policy)) = (rule, self.policy_path.clone()) {
            self.message = Some(format!("removing `{rule}`…"));
            return vec![Effect::RemoveRule { policy, rule }];
        }
        self.message = Some("no rule removed".to_owned());
        Vec::new()
    }

    /// The policy file was read or edited.
    pub(super) fn on_policy_msg(&mut self, msg: Msg) -> Vec<Effect> {
        match msg {
            Msg::PolicyRead(read) => {
                if let Some(Overlay::Policy(view)) = &mut self.overlay {
                    let read = read
                        .map(PolicyListing::sanitised)
                        .map_err(|e| sanitize_capped(&e, 600));
                    if let Ok(l) = &read {
                        view.sel = view.sel.min(l.rules.len().saturating_sub(1));
                    }
                    view.listing = Some(read);
                }
                Vec::new()
            }
            Msg::PolicySaved(result) => {
                self.message = Some(match result {
                    Ok(m) | Err(m) => sanitize_capped(&m, 400),
                });
                // Said while the call it allowed runs: its result must not hide it.
                self.message_kept = self
                    .message
                    .clone()
                    .filter(|_| matches!(self.screen, super::Screen::Running(_)));
                match (&self.overlay, &self.policy_path) {
                    (Some(Overlay::Policy(_)), Some(path)) => {
                        vec![Effect::ReadPolicy(path.clone())]
                    }
                    _ => Vec::new(),
                }
            }
            _ => Vec::new(),
        }
    }
}
