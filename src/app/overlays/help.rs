//! The `?` help as a component: it scrolls the keymap's bindings, copies them as text and
//! closes.

use super::{Asks, Shared, moves, reads, scrolled};
use crate::app::Effect;
use crate::app::component::{Component, Update};
use crate::app::key_help::{HelpLine, help_layout};
use crate::app::keymap::Action;

/// The help's state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HelpView {
    /// The first line shown.
    pub scroll: usize,
}

/// The help copies every binding: a heading per context, then `keys  description` rows.
impl Component for HelpView {
    type Msg = Action;
    type Env<'a> = Shared<'a>;
    type Out = Asks;

    fn message(action: Action) -> Option<Action> {
        reads(action).then_some(action)
    }

    fn update(self, action: Action, s: &Shared<'_>) -> Update<Self> {
        let rows = s.keymap.help_rows();
        match action {
            Action::Copy => {
                let text: Vec<String> = help_layout(&rows, 80)
                    .into_iter()
                    .map(|line| match line {
                        HelpLine::Heading(name) => name.to_owned(),
                        HelpLine::Row { keys, desc } => format!("  {keys}  {desc}"),
                    })
                    .map(|line| line.trim_end().to_owned())
                    .collect();
                Update::then(self, Effect::Copy(text.join("\n")).into())
            }
            Action::Back | Action::Quit => Update::close(None),
            action if moves(action) => Update::stay(Self {
                scroll: scrolled(self.scroll, action, rows.len()),
            }),
            _ => Update::pass(self),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::info::ConfigInfo;
    use crate::app::overlays::shared;

    #[test]
    fn the_help_copies_its_bindings_scrolls_and_closes() {
        let info = ConfigInfo::default();
        let step = HelpView::default().update(Action::Copy, &shared(&info));
        let Some(Asks { effects, .. }) = step.out else {
            panic!("y copies");
        };
        let [Effect::Copy(text)] = effects.as_slice() else {
            panic!("{effects:?}");
        };
        assert!(text.starts_with("everywhere\n  q/C-c"), "{text}");
        assert!(text.contains("\n  ?") && text.contains("help"), "{text}");
        let down = HelpView::default().update(Action::Down, &shared(&info));
        assert_eq!(down.next, Some(HelpView { scroll: 1 }));
        let up = HelpView::default().update(Action::Up, &shared(&info));
        assert_eq!(up.next, Some(HelpView { scroll: 0 }), "kept at the top");
        let closed = HelpView::default().update(Action::Back, &shared(&info));
        assert!(closed.next.is_none());
        assert!(HelpView::offers(Action::Copy) && !HelpView::offers(Action::Edit));
    }
}
