//! Routing to the tab components (`app/tabs.rs`): what each tab's list shows, moving and
//! clamping its selection, starting a filter, and showing a tab (which loads its catalog the
//! first time).

use super::{App, Effect, Focus, Screen, ServerPane, Tab, TabMsg, Waiter};

impl App {
    /// The selected server's tabs, to change.
    pub(super) fn pane_mut(&mut self) -> Option<&mut ServerPane> {
        let server = self.server()?.name.clone();
        self.panes.get_mut(&server)
    }

    /// Sends `msg` to the tab in front (of the selected server).
    pub(super) fn route_to_tab(&mut self, msg: TabMsg) -> Vec<Effect> {
        let tab = self.tab;
        self.pane_mut()
            .map_or_else(Vec::new, |pane| pane.update(tab, msg))
    }

    /// Starts a filter over the Resources, Prompts, Skills or Log list.
    pub(super) fn start_filter(&mut self) -> Vec<Effect> {
        if self.focus != Focus::Main
            || !matches!(
                self.tab,
                Tab::Resources | Tab::Prompts | Tab::Skills | Tab::Log
            )
        {
            return Vec::new();
        }
        self.route_to_tab(TabMsg::StartFilter)
    }

    pub(super) fn move_by(&mut self, delta: isize) -> Vec<Effect> {
        let scroll = |v: &mut usize| *v = v.saturating_add_signed(delta);
        match &mut self.screen {
            Screen::Detail(d) => {
                scroll(&mut d.scroll);
                return Vec::new();
            }
            Screen::Form(form) => return form.update(super::FormMsg::Move(delta)),
            Screen::Browse => {}
            _ => return Vec::new(),
        }
        if self.focus == Focus::Servers {
            let effects = self.servers.update(super::ServerListMsg::Move(delta));
            self.leave_absent_skills();
            return effects;
        }
        let effects = self.route_to_tab(TabMsg::Move(delta));
        self.clamp_selection();
        effects
    }

    /// With the Skills tab in front and a server selected that does not declare the skills
    /// extension (its bar has no Skills tab), shows its Tools tab instead.
    pub(super) fn leave_absent_skills(&mut self) {
        if self.tab == Tab::Skills && !self.server().is_some_and(|s| s.skills) {
            self.tab = Tab::Tools;
        }
    }

    /// Keeps the current tab's selection inside its list (clamping asks for nothing).
    pub(super) fn clamp_selection(&mut self) {
        let len = self.list_len();
        let effects = self.route_to_tab(TabMsg::Clamp(len));
        debug_assert!(effects.is_empty());
    }

    /// The selection of the tab in front.
    pub fn tab_selection(&self) -> usize {
        self.pane().map_or(0, |p| p.list(self.tab).sel)
    }

    /// How many rows the current tab shows.
    pub fn list_len(&self) -> usize {
        let Some(pane) = self.pane() else {
            return 0;
        };
        match self.tab {
            Tab::Tools => pane.tools.visible().map_or(0, <[_]>::len),
            Tab::Resources => pane.resources.entries().len(),
            Tab::Prompts => pane.prompts.entries().len(),
            Tab::Skills => pane.skills.entries().len(),
            Tab::Log => pane.log.visible().len(),
            Tab::Config => self
                .server()
                .and_then(|s| self.info.servers.get(&s.name))
                .map_or(0, Vec::len),
        }
    }

    /// The Resources tab's rows (resources, then templates), narrowed by the filter.
    pub fn resource_entries(&self) -> Vec<&super::ResourceRow> {
        self.pane().map_or_else(Vec::new, |p| p.resources.entries())
    }

    /// The Prompts tab's rows, narrowed by the filter.
    pub fn prompt_entries(&self) -> Vec<&super::PromptRow> {
        self.pane().map_or_else(Vec::new, |p| p.prompts.entries())
    }

    /// The tool rows shown: the search's matches while searching, else the catalog.
    pub fn visible_tools(&self) -> Option<&[super::ToolRow]> {
        self.pane()?.tools.visible()
    }

    /// Shows the current tab: it loads its catalog when it was never asked for.
    pub(super) fn ensure_tab(&mut self) -> Vec<Effect> {
        let Some(server) = self.server().map(|s| s.name.clone()) else {
            return Vec::new();
        };
        let id = self.next_id;
        let now = self.now;
        let effects = self.route_to_tab(TabMsg::Show {
            server: server.clone(),
            id,
            now,
        });
        let waiter = match self.tab {
            Tab::Tools => Waiter::Tools(server),
            Tab::Resources => Waiter::Resources(server),
            Tab::Prompts => Waiter::Prompts(server),
            Tab::Skills => Waiter::Skills(server),
            Tab::Log | Tab::Config => return effects,
        };
        if effects
            .iter()
            .any(|e| matches!(e, Effect::Engine { id: i, .. } if *i == id))
        {
            let registered = self.id(waiter);
            debug_assert_eq!(registered, id);
        }
        effects
    }
}
