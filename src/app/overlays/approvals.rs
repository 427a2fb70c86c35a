//! The approvals list (`a`) as a component: the policy mode, the pending approvals and those
//! decided this session; it scrolls, copies its lines and closes.

use super::{Asks, Shared, moves, reads, scrolled};
use crate::app::Effect;
use crate::app::component::{Component, Update};
use crate::app::keymap::Action;

/// The approvals list's state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ApprovalsView {
    /// The first line shown.
    pub scroll: usize,
}

/// The list's lines as copied: the mode, then one `state  server  operation` line each.
fn text(s: &Shared<'_>) -> String {
    let mut lines = vec![format!("policy mode {}", s.policy)];
    let row = |state: &str, server: &str, op: &str| format!("{state:<15}{server}  {op}");
    let pending = s.approvals.iter().map(|p| &p.request);
    lines.extend(pending.map(|r| row("pending", &r.server, &r.operation)));
    lines.extend(
        s.decided
            .iter()
            .rev()
            .map(|(s, op, a)| row(a.label(), s, op)),
    );
    lines.join("\n")
}

/// The approvals list copies its lines.
impl Component for ApprovalsView {
    type Msg = Action;
    type Env<'a> = Shared<'a>;
    type Out = Asks;

    fn message(action: Action) -> Option<Action> {
        reads(action).then_some(action)
    }

    fn update(self, action: Action, s: &Shared<'_>) -> Update<Self> {
        let max = s.approvals.len() + s.decided.len();
        match action {
            Action::Copy => Update::then(self, Effect::Copy(text(s)).into()),
            Action::Back | Action::Quit => Update::close(None),
            action if moves(action) => Update::stay(Self {
                scroll: scrolled(self.scroll, action, max),
            }),
            _ => Update::pass(self),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::approval::Answered;
    use crate::app::info::ConfigInfo;
    use crate::app::overlays::shared;

    #[test]
    fn the_approvals_list_copies_its_lines_and_scrolls_over_them() {
        let info = ConfigInfo::default();
        let mut s = shared(&info);
        let decided = [
            (
                "files".to_owned(),
                "tools/call read".to_owned(),
                Answered::Denied,
            ),
            (
                "files".to_owned(),
                "tools/call list".to_owned(),
                Answered::Once,
            ),
        ];
        s.decided = &decided;
        let step = ApprovalsView::default().update(Action::Copy, &s);
        let copied = "policy mode audit\nallowed once   files  tools/call list\n\
                      denied         files  tools/call read";
        assert_eq!(step.out, Some(Asks::from(Effect::Copy(copied.into()))));
        let view = ApprovalsView { scroll: 1 };
        let down = view.update(Action::PageDown, &s);
        assert_eq!(
            down.next,
            Some(ApprovalsView { scroll: 2 }),
            "kept at the end"
        );
        assert!(view.update(Action::Back, &s).next.is_none());
        assert!(ApprovalsView::offers(Action::Copy) && !ApprovalsView::offers(Action::Top));
    }
}
