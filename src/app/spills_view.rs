//! The spills view's state: the selection and a filter (`/` starts it, typing narrows the list
//! by path, origin or type, `Enter` opens the highlighted spill, `Esc` clears), as in every list.

use crossterm::event::KeyEvent;

use super::Effect;
use super::component::{Component, Update};
use super::keymap::Action;
use super::overlays::{Asks, Shared, moves, reads, scrolled};
use super::tabs::ListFilter;
use crate::mcp::results::SpillEntry;
use crate::mcp::sanitize::{sanitize, sanitize_capped};

/// The spills view: which spill is selected and what the list is narrowed to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SpillsView {
    /// The selected entry among those shown.
    pub sel: usize,
    /// The filter narrowing the list, if one was started.
    pub filter: Option<ListFilter>,
}

impl SpillsView {
    /// The spills the filter keeps (all without one), in order.
    pub fn shown<'a>(&self, spills: &'a [SpillRow]) -> Vec<&'a SpillRow> {
        let keeps = |s: &&SpillRow| {
            let f = self.filter.as_ref();
            f.is_none_or(|f| f.keeps(&s.shown, &s.origin) || f.keeps(&s.mime, ""))
        };
        spills.iter().filter(keeps).collect()
    }

    /// A key typed while the filter takes text ([`ListFilter::typed`]): `Enter` opens the
    /// highlighted spill (the filter stays).
    pub fn filter_key(&mut self, key: &KeyEvent) -> Option<Option<Action>> {
        ListFilter::typed(&mut self.filter, &mut self.sel, key, Some(Action::Open))
    }
}

/// The spills list filters, opens, copies and deletes the selected spill.
impl Component for SpillsView {
    type Msg = Action;
    type Env<'a> = Shared<'a>;
    type Out = Asks;

    fn message(action: Action) -> Option<Action> {
        let own = matches!(action, Action::Filter | Action::Open | Action::Delete);
        (own || reads(action)).then_some(action)
    }

    fn update(mut self, action: Action, s: &Shared<'_>) -> Update<Self> {
        let shown = self.shown(s.spills);
        let spill = shown.get(self.sel);
        let effect = match action {
            Action::Filter => {
                let query = self.filter.take().map(|f| f.query).unwrap_or_default();
                self.filter = Some(ListFilter {
                    query,
                    editing: true,
                });
                None
            }
            Action::Open => spill.map(|s| Effect::ReadSpill {
                path: s.path.clone(),
                at: crate::app::SpillAt::Line(0),
            }),
            Action::Copy => spill.map(|s| Effect::Copy(s.shown.clone())),
            Action::Delete => spill.map(|s| Effect::DeleteSpill(s.basename.clone())),
            Action::Back | Action::Quit => return Update::close(None),
            action if moves(action) => {
                self.sel = scrolled(self.sel, action, shown.len().saturating_sub(1));
                None
            }
            _ => return Update::pass(self),
        };
        Update::then(self, effect.into())
    }
}

/// One spill of the session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpillRow {
    /// The file's name (the engine's key for it).
    pub basename: String,
    /// Full path (operator only).
    pub path: std::path::PathBuf,
    /// The path as shown, sanitised.
    pub shown: String,
    /// Size in bytes.
    pub size: u64,
    /// MIME type (sanitised).
    pub mime: String,
    /// The origin operation (sanitised).
    pub origin: String,
}

/// Spill rows.
pub fn spill_rows(spills: &[SpillEntry]) -> Vec<SpillRow> {
    spills
        .iter()
        .map(|s| SpillRow {
            basename: s.basename.clone(),
            path: s.path.clone(),
            shown: sanitize(&s.path.display().to_string()).into_owned(),
            size: s.size,
            mime: sanitize_capped(&s.mime, 128),
            origin: sanitize_capped(&s.origin, 256),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use crossterm::event::KeyCode;

    use super::*;
    use crate::app::info::ConfigInfo;
    use crate::app::overlays::shared;
    use crate::app::testkit::{ch, demo_app, key};
    use crate::app::{Effect, Msg, Overlay};
    use crate::mcp::results::SpillEntry;

    fn spill(name: &str, mime: &str, origin: &str) -> SpillEntry {
        SpillEntry {
            basename: name.to_owned(),
            path: format!("/run/spills/{name}").into(),
            size: 10,
            mime: mime.to_owned(),
            origin: origin.to_owned(),
        }
    }

    #[test]
    fn the_spills_list_opens_copies_and_deletes_the_selected_spill() {
        let info = ConfigInfo::default();
        let rows = spill_rows(&[
            spill("a.txt", "text/plain", "x"),
            spill("b.png", "image/png", "y"),
        ]);
        let mut s = shared(&info);
        s.spills = &rows;
        let view = SpillsView::default().update(Action::Down, &s);
        let view = view.next.expect("open");
        assert_eq!(view.sel, 1);
        let step = view.clone().update(Action::Delete, &s);
        assert_eq!(
            step.out,
            Some(Asks::from(Effect::DeleteSpill("b.png".into())))
        );
        let step = view.clone().update(Action::Copy, &s);
        assert_eq!(
            step.out,
            Some(Asks::from(Effect::Copy("/run/spills/b.png".into())))
        );
        let filtering = view.clone().update(Action::Filter, &s).next.expect("open");
        assert!(filtering.filter.is_some_and(|f| f.editing));
        let none = SpillsView::default().update(Action::Open, &shared(&info));
        assert_eq!(none.out, Some(Asks::default()), "no spill, nothing read");
        assert!(view.update(Action::Back, &s).next.is_none());
        assert!(
            !SpillsView::offers(Action::Top),
            "Home and End move nothing here"
        );
    }

    #[test]
    fn slash_filters_the_spills_and_enter_opens_the_highlighted_one() {
        let (mut app, _d) = demo_app();
        app.update(Msg::Spills(vec![
            spill("spill-1.txt", "text/plain", "tools.call echo"),
            spill("spill-2.png", "image/png", "tools.call image"),
            spill("spill-3.txt", "text/plain", "resources.read demo://readme"),
        ]));
        app.update(ch('s'));
        app.update(ch('/'));
        for c in "image".chars() {
            app.update(ch(c));
        }
        let Some(Overlay::Spills(view)) = &app.overlay else {
            panic!("{:?}", app.overlay)
        };
        assert_eq!(view.shown(&app.spills).len(), 1);
        let fx = app.update(key(KeyCode::Enter));
        assert_eq!(
            fx,
            vec![Effect::ReadSpill {
                path: "/run/spills/spill-2.png".into(),
                at: crate::app::SpillAt::Line(0)
            }]
        );
        // Esc while typing clears the filter; the view stays.
        let (mut app, _d) = demo_app();
        app.update(ch('s'));
        app.update(ch('/'));
        app.update(ch('x'));
        app.update(key(KeyCode::Esc));
        assert!(matches!(&app.overlay, Some(Overlay::Spills(v)) if v.filter.is_none()));
    }
}
