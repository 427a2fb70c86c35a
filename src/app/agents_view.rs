//! The agent sessions view's state: how far it is scrolled and a filter (`/` starts it, typing
//! narrows the sessions by pid, project, mode or server name, `Enter` keeps it, `Esc` clears),
//! as in every list. Drawing is `ui::agents_view`.

use crossterm::event::KeyEvent;

use super::Effect;
use super::agents::AgentRow;
use super::component::{Component, Update};
use super::keymap::Action;
use super::overlays::{Asks, Shared, moves, reads, scrolled};
use super::tabs::ListFilter;

/// The agent sessions view.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentsView {
    /// The first line shown.
    pub scroll: usize,
    /// The filter narrowing the sessions, if one was started.
    pub filter: Option<ListFilter>,
}

impl AgentsView {
    /// The sessions the filter keeps (all without one), in pid order.
    pub fn shown<'a>(&self, agents: &'a [AgentRow]) -> Vec<&'a AgentRow> {
        let Some(filter) = &self.filter else {
            return agents.iter().collect();
        };
        agents
            .iter()
            .filter(|a| {
                filter.keeps(&a.pid.to_string(), &a.project)
                    || filter.keeps(&a.mode, "")
                    || a.servers.iter().any(|(name, _)| filter.keeps(name, ""))
            })
            .collect()
    }

    /// A key typed while the filter takes text ([`ListFilter::typed`]; `Enter` only keeps it).
    pub fn filter_key(&mut self, key: &KeyEvent) -> Option<Option<Action>> {
        ListFilter::typed(&mut self.filter, &mut self.scroll, key, None)
    }
}

/// The agent sessions view looks again, filters, copies and scrolls.
impl Component for AgentsView {
    type Msg = Action;
    type Env<'a> = Shared<'a>;
    type Out = Asks;

    fn message(action: Action) -> Option<Action> {
        (reads(action) || matches!(action, Action::Reconnect | Action::Filter)).then_some(action)
    }

    fn update(mut self, action: Action, s: &Shared<'_>) -> Update<Self> {
        let shown = self.shown(s.agents);
        match action {
            Action::Reconnect => {
                let mut asks = Asks::said("looking for agent sessions…");
                asks.effects.push(Effect::ScanAgents);
                return Update::then(self, asks);
            }
            Action::Filter => {
                self.filter = ListFilter::started();
                self.scroll = 0;
            }
            Action::Copy => {
                let line = |a: &&AgentRow| {
                    let servers: Vec<String> = a
                        .servers
                        .iter()
                        .map(|(n, st)| format!("{n} {st}"))
                        .collect();
                    format!("{} {} {} {}", a.pid, a.project, a.mode, servers.join(", "))
                };
                let text: Vec<String> = shown.iter().map(line).collect();
                return Update::then(self, Effect::Copy(text.join("\n")).into());
            }
            Action::Back | Action::Quit => return Update::close(None),
            action if moves(action) => {
                let max = shown.iter().map(|a| a.servers.len() + 2).sum::<usize>();
                self.scroll = scrolled(self.scroll, action, max);
            }
            _ => return Update::pass(self),
        }
        Update::stay(self)
    }
}

#[cfg(test)]
mod tests {
    use crossterm::event::KeyCode;

    use crate::app::agents::AgentRow;
    use crate::app::keymap::Action;
    use crate::app::testkit::{ch, demo_app, key};
    use crate::app::{Effect, Overlay};

    fn row(pid: u32, project: &str, server: &str) -> AgentRow {
        AgentRow {
            pid,
            project: project.to_owned(),
            mode: "audit".to_owned(),
            servers: vec![(server.to_owned(), "connected".to_owned())],
            spills: 0,
            pending: 0,
            gone: false,
            flagged: Vec::new(),
        }
    }

    #[test]
    fn the_view_copies_the_sessions_shown_and_looks_again() {
        use super::{AgentsView, Asks, Component};
        let info = crate::app::info::ConfigInfo::default();
        let agents = [
            row(10, "/src/alpha", "github"),
            row(20, "/src/beta", "files"),
        ];
        let mut s = crate::app::overlays::shared(&info);
        s.agents = &agents;
        let step = AgentsView::default().update(Action::Copy, &s);
        let copied = "10 /src/alpha audit github connected\n20 /src/beta audit files connected";
        assert_eq!(step.out, Some(Asks::from(Effect::Copy(copied.into()))));
        let step = AgentsView::default().update(Action::Reconnect, &s);
        assert_eq!(step.out.expect("asks").effects, [Effect::ScanAgents]);
        let down = AgentsView::default().update(Action::PageDown, &s);
        assert_eq!(
            down.next.expect("open").scroll,
            6,
            "two sessions of three lines"
        );
        assert!(
            AgentsView::default()
                .update(Action::Back, &s)
                .next
                .is_none()
        );
    }

    #[test]
    fn slash_narrows_the_sessions_and_esc_clears() {
        let (mut app, _d) = demo_app();
        app.agents = vec![
            row(10, "/src/alpha", "github"),
            row(20, "/src/beta", "files"),
        ];
        assert_eq!(app.update(ch('A')), vec![Effect::ScanAgents]);
        app.update(ch('/'));
        for c in "beta".chars() {
            app.update(ch(c));
        }
        let Some(Overlay::Agents(view)) = &app.overlay else {
            panic!("{:?}", app.overlay);
        };
        let pids: Vec<u32> = view.shown(&app.agents).iter().map(|a| a.pid).collect();
        assert_eq!(pids, [20]);
        // A server name narrows too.
        app.update(key(KeyCode::Esc));
        app.update(ch('/'));
        for c in "git".chars() {
            app.update(ch(c));
        }
        let Some(Overlay::Agents(view)) = &app.overlay else {
            panic!("{:?}", app.overlay);
        };
        assert_eq!(view.shown(&app.agents).len(), 1);
        assert_eq!(view.shown(&app.agents)[0].pid, 10);
        // Esc while typing clears the filter; the view stays.
        app.update(key(KeyCode::Esc));
        assert!(matches!(&app.overlay, Some(Overlay::Agents(v)) if v.filter.is_none()));
    }
}
