//! What each tab's list shows and where its selection is: the rows (narrowed by a filter or
//! the tool search), moving and clamping the selection, starting a filter, and loading a tab's
//! catalog the first time it is shown.

use super::update::tab_index;
use super::{App, Effect, Focus, Load, Screen, Tab, Waiter};
use crate::mcp::proxy::ProxyRequest;

impl App {
    /// Starts a filter over the Resources or Prompts list.
    pub(super) fn start_filter(&mut self) -> Vec<Effect> {
        let Some(server) = self.server().map(|s| s.name.clone()) else {
            return Vec::new();
        };
        if self.focus != Focus::Main || !matches!(self.tab, Tab::Resources | Tab::Prompts) {
            return Vec::new();
        }
        let tab = self.tab;
        if let Some(pane) = self.panes.get_mut(&server) {
            pane.filter = Some(super::ListFilter {
                tab,
                query: String::new(),
                editing: true,
            });
            pane.sel[tab_index(tab)] = 0;
        }
        Vec::new()
    }

    pub(super) fn move_by(&mut self, delta: isize) -> Vec<Effect> {
        let scroll = |v: &mut usize| *v = v.saturating_add_signed(delta);
        match &mut self.screen {
            Screen::Detail(d) => {
                scroll(&mut d.scroll);
                return Vec::new();
            }
            Screen::Form(form) => {
                form.move_focus(delta.signum());
                return Vec::new();
            }
            Screen::Browse => {}
            _ => return Vec::new(),
        }
        if self.focus == Focus::Servers {
            let max = self.servers.len().saturating_sub(1);
            self.selected = self.selected.saturating_add_signed(delta).min(max);
            return Vec::new();
        }
        let tab = tab_index(self.tab);
        let server = self.server().map(|s| s.name.clone()).unwrap_or_default();
        // The Log tab counts back from its newest line at the bottom: up goes back in time.
        let delta = if self.tab == Tab::Log { -delta } else { delta };
        if let Some(pane) = self.panes.get_mut(&server) {
            pane.sel[tab] = pane.sel[tab].saturating_add_signed(delta);
        }
        self.clamp_selection();
        Vec::new()
    }

    /// Keeps the current tab's selection inside its list.
    pub(super) fn clamp_selection(&mut self) {
        let len = self.list_len();
        let tab = tab_index(self.tab);
        let server = self.server().map(|s| s.name.clone()).unwrap_or_default();
        if let Some(pane) = self.panes.get_mut(&server) {
            pane.sel[tab] = pane.sel[tab].min(len.saturating_sub(1));
        }
    }

    /// How many rows the current tab shows.
    pub fn list_len(&self) -> usize {
        let Some(pane) = self.pane() else {
            return 0;
        };
        match self.tab {
            Tab::Tools => self.visible_tools().map_or(0, <[_]>::len),
            Tab::Resources => self.resource_entries().len(),
            Tab::Prompts => self.prompt_entries().len(),
            Tab::Log => pane.visible_log().len(),
            Tab::Config => self
                .server()
                .and_then(|s| self.info.servers.get(&s.name))
                .map_or(0, Vec::len),
        }
    }

    /// The Resources tab's rows (resources, then templates, marked `true`), narrowed by the
    /// filter.
    pub fn resource_entries(&self) -> Vec<(&super::ResourceRow, bool)> {
        let Some(pane) = self.pane() else {
            return Vec::new();
        };
        let Some(Load::Ready((resources, templates))) = &pane.resources else {
            return Vec::new();
        };
        let filter = pane.filter.as_ref().filter(|f| f.tab == Tab::Resources);
        resources
            .iter()
            .map(|r| (r, false))
            .chain(templates.iter().map(|t| (t, true)))
            .filter(|(r, _)| filter.is_none_or(|f| f.keeps(&r.name, &r.description)))
            .collect()
    }

    /// The Prompts tab's rows, narrowed by the filter.
    pub fn prompt_entries(&self) -> Vec<&super::PromptRow> {
        let Some(pane) = self.pane() else {
            return Vec::new();
        };
        let Some(Load::Ready(prompts)) = &pane.prompts else {
            return Vec::new();
        };
        let filter = pane.filter.as_ref().filter(|f| f.tab == Tab::Prompts);
        prompts
            .iter()
            .filter(|p| filter.is_none_or(|f| f.keeps(&p.name, &p.description)))
            .collect()
    }

    /// The tool rows shown: the search's matches while searching, else the catalog.
    pub fn visible_tools(&self) -> Option<&[super::ToolRow]> {
        let pane = self.pane()?;
        if let Some(search) = &pane.search
            && !search.query.trim().is_empty()
        {
            return match &search.results {
                Load::Ready(rows) => Some(rows),
                _ => None,
            };
        }
        match &pane.tools {
            Some(Load::Ready(rows)) => Some(rows),
            _ => None,
        }
    }

    /// Starts loading the current tab's catalog when it was never asked for.
    pub(super) fn ensure_tab(&mut self) -> Vec<Effect> {
        let Some(server) = self.server().map(|s| s.name.clone()) else {
            return Vec::new();
        };
        let id = self.next_id;
        let Some(pane) = self.panes.get_mut(&server) else {
            return Vec::new();
        };
        let (waiter, request) = match self.tab {
            Tab::Tools if pane.tools.is_none() => {
                pane.tools = Some(Load::Loading(id));
                (
                    Waiter::Tools(server.clone()),
                    ProxyRequest::ToolsList { server },
                )
            }
            Tab::Resources if pane.resources.is_none() => {
                pane.resources = Some(Load::Loading(id));
                (
                    Waiter::Resources(server.clone()),
                    ProxyRequest::ResourcesList { server },
                )
            }
            Tab::Prompts if pane.prompts.is_none() => {
                pane.prompts = Some(Load::Loading(id));
                (
                    Waiter::Prompts(server.clone()),
                    ProxyRequest::PromptsList { server },
                )
            }
            Tab::Log => {
                pane.stderr_asked = Some(self.now);
                return vec![Effect::ReadStderr(server)];
            }
            _ => return Vec::new(),
        };
        let registered = self.id(waiter);
        debug_assert_eq!(registered, id);
        vec![Effect::Execute { id, request }, Effect::RefreshStatus]
    }
}
