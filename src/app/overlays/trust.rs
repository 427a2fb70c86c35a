//! The trust view (`t`) as a component: it grants trust after a typed `y`, revokes it, copies
//! its text and scrolls it.

use super::{Asks, Shared, moves, reads};
use crate::app::component::{Component, Update};
use crate::app::confirm::Confirm;
use crate::app::keymap::Action;
use crate::app::{Effect, viewer};

/// The trust view's state: its text (the project's state, the changes since it was trusted,
/// each definition and its risks) scrolls in the one text viewer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TrustView {
    /// Scroll position over the wrapped rows.
    pub viewer: viewer::Viewer,
    /// The grant a typed `y` sends, while the prompt waits for it.
    pub confirm: Option<Confirm<Effect>>,
}

/// The trust view grants (after a typed `y`) and revokes trust, copies and scrolls its text.
impl Component for TrustView {
    type Msg = Action;
    type Env<'a> = Shared<'a>;
    type Out = Asks;

    fn message(action: Action) -> Option<Action> {
        let own = matches!(
            action,
            Action::Grant | Action::Revoke | Action::Top | Action::Bottom
        );
        (own || reads(action)).then_some(action)
    }

    fn update(mut self, action: Action, s: &Shared<'_>) -> Update<Self> {
        let lines = || -> Vec<String> { s.info.trust.iter().map(|l| l.text.clone()).collect() };
        match action {
            Action::Grant if s.info.trustable => {
                self.confirm = Some(Confirm::new(Effect::GrantTrust));
                Update::then(self, Asks::said("type y to trust these definitions"))
            }
            Action::Grant => {
                self.confirm = None;
                Update::then(self, Asks::said("no project configuration to trust"))
            }
            Action::Revoke => Update::then(self, Effect::RevokeTrust.into()),
            Action::Copy => Update::then(self, Effect::Copy(lines().join("\n")).into()),
            Action::Back | Action::Quit => Update::close(None),
            action if moves(action) || matches!(action, Action::Top | Action::Bottom) => {
                // The prompt row under the text is the one difference from the pager's layout.
                let (w, h) = s.pager_viewport;
                self.viewer.viewport = (w, h.saturating_sub(1));
                self.viewer.scroll(&lines(), action);
                Update::stay(self)
            }
            _ => Update::pass(self),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::info::ConfigInfo;
    use crate::app::overlays::{lines, shared};
    use crossterm::event::{KeyCode, KeyEvent};

    #[test]
    fn the_trust_view_confirms_the_grant_it_names_and_copies_its_text() {
        let info = ConfigInfo {
            trust: lines(&["untrusted", "a", "b", "c", "d", "e"]),
            trustable: true,
            ..ConfigInfo::default()
        };
        let step = TrustView::default().update(Action::Grant, &shared(&info));
        let view = step.next.expect("stays open");
        assert_eq!(view.confirm, Some(Confirm::new(Effect::GrantTrust)));
        assert_eq!(
            step.out,
            Some(Asks::said("type y to trust these definitions"))
        );
        let granted = view
            .clone()
            .confirm
            .and_then(|c| c.answer(&KeyEvent::from(KeyCode::Char('y'))));
        assert_eq!(granted, Some(Effect::GrantTrust));
        let copied = view.update(Action::Copy, &shared(&info)).out;
        assert_eq!(
            copied,
            Some(Asks::from(Effect::Copy("untrusted\na\nb\nc\nd\ne".into())))
        );
        let untrustable = ConfigInfo::default();
        let step = TrustView::default().update(Action::Grant, &shared(&untrustable));
        assert!(
            step.next.expect("open").confirm.is_none(),
            "nothing to confirm"
        );
        assert_eq!(
            step.out,
            Some(Asks::said("no project configuration to trust"))
        );
        let step = TrustView::default().update(Action::Revoke, &shared(&info));
        assert_eq!(step.out, Some(Asks::from(Effect::RevokeTrust)));
        let step = TrustView::default().update(Action::Bottom, &shared(&info));
        assert_eq!(
            step.next.expect("open").viewer.top,
            4,
            "six lines in two rows"
        );
        assert!(
            TrustView::default()
                .update(Action::Back, &shared(&info))
                .next
                .is_none()
        );
        assert_eq!(TrustView::message(Action::Delete), None);
        assert!(TrustView::offers(Action::Copy) && !TrustView::offers(Action::Edit));
    }
}
