//! Registered panels: small read-only views over the panes, each a title and labelled lines
//! read live from the app. One opens with its action (its name in `keys.toml`), `Esc` closes it
//! and `y` copies its text. A new panel is a file under `app/panels/` with a [`PanelSpec`] and
//! a line here ([`PANELS`]); the keymap, the help, routing, hints and drawing (`ui::panels`)
//! find it there.

mod about;
mod totals;

use crossterm::event::{KeyCode, KeyModifiers};

use super::component::{Component, Update};
use super::keymap::{Action, Ctx};
use super::{App, Effect, Overlay};

/// One registered panel.
pub struct PanelSpec {
    /// Its action's name in `keys.toml`.
    pub name: &'static str,
    /// Where its default keys apply, the keys, and the description the help shows (no keys:
    /// `assets/keymap.toml` binds it).
    pub keys: (Ctx, &'static [(KeyCode, KeyModifiers)], &'static str),
    /// Its title and lines for the app as it is now; `None` when there is nothing to show.
    pub content: fn(&App) -> Option<Content>,
}

/// What a panel shows: a title and (label, value) lines.
pub type Content = (String, Vec<(&'static str, String)>);

/// Every panel; an [`Action::Panel`] is an index here.
pub const PANELS: &[PanelSpec] = &[about::PANEL, totals::PANEL];

/// The panel action named `name`.
pub fn named(name: &str) -> Option<Action> {
    let i = PANELS.iter().position(|p| p.name == name)?;
    u8::try_from(i).ok().map(Action::Panel)
}

/// A panel's text as copied: the title, then `label: value` lines.
pub fn text((title, lines): &Content) -> String {
    let lines = lines.iter().map(|(l, v)| format!("{l}: {v}"));
    std::iter::once(title.clone())
        .chain(lines)
        .collect::<Vec<_>>()
        .join("\n")
}

/// An open panel: which one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PanelView {
    /// Its index in [`PANELS`].
    pub index: u8,
}

impl PanelView {
    /// Its content now.
    pub fn content(self, app: &App) -> Option<Content> {
        PANELS
            .get(usize::from(self.index))
            .and_then(|p| (p.content)(app))
    }
}

impl Component for PanelView {
    type Msg = Action;
    /// Its content now.
    type Env<'a> = Option<Content>;
    type Out = Effect;

    fn message(action: Action) -> Option<Action> {
        matches!(action, Action::Copy | Action::Back | Action::Quit).then_some(action)
    }

    fn update(self, action: Action, content: &Option<Content>) -> Update<Self> {
        match (action, content) {
            (Action::Copy, Some(content)) => Update::then(self, Effect::Copy(text(content))),
            (Action::Copy, None) => Update::stay(self),
            (Action::Back | Action::Quit, _) => Update::close(None),
            _ => Update::pass(self),
        }
    }
}

impl App {
    /// Opens panel `index` when it has something to show.
    pub(super) fn open_panel(&mut self, index: u8) -> Vec<Effect> {
        let view = PanelView { index };
        if view.content(self).is_some() {
            self.overlay = Some(Overlay::Panel(view));
        }
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn update_copies_the_text_shown_and_closes() {
        let view = PanelView { index: 0 };
        let content = Some(("About demo".to_owned(), vec![("state", "ready".to_owned())]));
        let step = view.update(Action::Copy, &content);
        assert_eq!(step.next, Some(view));
        assert_eq!(
            step.out,
            Some(Effect::Copy("About demo\nstate: ready".into()))
        );
        let step = view.update(Action::Copy, &None);
        assert_eq!(
            (step.next, step.out),
            (Some(view), None),
            "nothing shown, nothing copied"
        );
        assert!(view.update(Action::Back, &content).next.is_none());
        assert!(PanelView::offers(Action::Copy) && !PanelView::offers(Action::Down));
    }

    #[test]
    fn a_key_the_panel_does_not_take_leaves_it_open() {
        use crate::app::testkit::{ch, demo_app, key};
        use crossterm::event::KeyCode;
        let (mut app, _dir) = demo_app();
        app.focus = crate::app::Focus::Servers;
        app.update(ch('i'));
        assert!(matches!(app.overlay, Some(Overlay::Panel(_))), "i opens it");
        for code in [KeyCode::Down, KeyCode::PageDown, KeyCode::Up] {
            app.update(key(code));
            let open = matches!(app.overlay, Some(Overlay::Panel(PanelView { index: 0 })));
            assert!(open, "{code:?} leaves it open");
        }
        app.update(key(KeyCode::Esc));
        assert!(app.overlay.is_none(), "Esc closes it");
    }

    #[test]
    fn every_panel_has_its_own_name_and_is_found_by_it() {
        for (i, p) in PANELS.iter().enumerate() {
            let i = u8::try_from(i).expect("few panels");
            assert_eq!(named(p.name), Some(Action::Panel(i)), "{}", p.name);
        }
    }
}
