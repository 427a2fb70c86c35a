//! The main pane's tabs as components. Each server has one [`ServerPane`]: a component per tab
//! (tools, resources, prompts, log, config), each owning its catalog, its selection and its
//! filter, with `update(&mut self, TabMsg) -> Vec<Effect>`. The app routes a message to the
//! tab in front (`ServerPane::update`); what is drawn comes from the same state (`ui::lists`,
//! `ui::log_tab`).

use std::collections::VecDeque;
use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::{Effect, Load, LogLine, PromptRow, ReqId, ResourceRow, Tab, ToolRow};
use crate::mcp::proxy::ProxyRequest;

/// What a tab component is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TabMsg {
    /// The tab is shown for `server`: a catalog tab loads itself the first time (with `id`),
    /// the Log tab asks for the server's kept stderr.
    Show {
        /// The server the tab belongs to.
        server: String,
        /// The request id a load would carry.
        id: ReqId,
        /// The time of the message.
        now: Instant,
    },
    /// Move the selection by this many rows (the Log tab counts back from its newest line).
    Move(isize),
    /// Put the selection on this row (a click), counted as drawn.
    Select(usize),
    /// Keep the selection inside a list of this many rows.
    Clamp(usize),
    /// `/`: start typing a filter.
    StartFilter,
    /// A key typed into the filter (not Enter, which the app turns into opening the entry).
    FilterKey(KeyEvent),
    /// The catalog belonged to a connection that is gone: ask again when next shown.
    Forget,
}

/// A filter typed over a list (`/`): entries whose name or description contain the query.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListFilter {
    /// The query typed so far.
    pub query: String,
    /// Whether keys still go into the query.
    pub editing: bool,
}

impl ListFilter {
    /// Whether an entry with `name` and `description` passes (case-insensitive).
    pub fn keeps(&self, name: &str, description: &str) -> bool {
        let q = self.query.to_lowercase();
        q.is_empty() || name.to_lowercase().contains(&q) || description.to_lowercase().contains(&q)
    }
}

/// A list's selection and filter: the part every list tab shares.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ListState {
    /// The selected row (the Log tab counts it back from the newest line).
    pub sel: usize,
    /// The filter narrowing the list, if any.
    pub filter: Option<ListFilter>,
}

impl ListState {
    /// Whether keys go into the filter.
    pub fn filtering(&self) -> bool {
        self.filter.as_ref().is_some_and(|f| f.editing)
    }

    /// Whether an entry passes the filter.
    pub fn keeps(&self, name: &str, description: &str) -> bool {
        self.filter
            .as_ref()
            .is_none_or(|f| f.keeps(name, description))
    }

    /// Handles the messages every list shares; `back_in_time` flips the arrows (the Log tab).
    #[allow(clippy::needless_pass_by_value)] // every component's update takes its message
    pub fn update(&mut self, msg: TabMsg, back_in_time: bool) -> Vec<Effect> {
        let flip = |d: isize| if back_in_time { -d } else { d };
        match msg {
            TabMsg::Move(delta) => self.sel = self.sel.saturating_add_signed(flip(delta)),
            TabMsg::Select(row) => self.sel = row,
            TabMsg::Clamp(len) => self.sel = self.sel.min(len.saturating_sub(1)),
            TabMsg::StartFilter => {
                self.filter = Some(ListFilter {
                    query: String::new(),
                    editing: true,
                });
                self.sel = 0;
            }
            TabMsg::FilterKey(key) => self.on_filter_key(key, flip),
            TabMsg::Show { .. } | TabMsg::Forget => {}
        }
        Vec::new()
    }

    fn on_filter_key(&mut self, key: KeyEvent, flip: impl Fn(isize) -> isize) {
        let Some(filter) = self.filter.as_mut() else {
            return;
        };
        match key.code {
            KeyCode::Esc => self.filter = None,
            KeyCode::Up => self.sel = self.sel.saturating_add_signed(flip(-1)),
            KeyCode::Down => self.sel = self.sel.saturating_add_signed(flip(1)),
            KeyCode::Backspace => {
                filter.query.pop();
                self.sel = 0;
            }
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                filter.query.push(c);
                self.sel = 0;
            }
            _ => {}
        }
    }
}

/// A search of the tool catalog.
#[derive(Debug, Clone, PartialEq)]
pub struct Search {
    /// The query typed so far.
    pub query: String,
    /// Whether keys still go into the query.
    pub editing: bool,
    /// The matches.
    pub results: Load<Vec<ToolRow>>,
}

/// The Tools tab: the catalog and the engine-side ranked search over it.
#[derive(Debug, Default)]
pub struct ToolsTab {
    /// The tool catalog (`None` until first shown).
    pub catalog: Option<Load<Vec<ToolRow>>>,
    /// The active search.
    pub search: Option<Search>,
    /// Selection.
    pub list: ListState,
    /// The catalog's token costs (asked for once the catalog is in).
    pub costs: Option<Load<super::costs::ToolCosts>>,
    /// How the catalog drifted from its pins across restarts (asked for once it is in).
    pub drift: Option<Load<super::drift::ToolDrift>>,
    /// What the poisoning scan found in the server's tools, prompts and templates (asked for
    /// once the tool list is in; the Prompts and Resources tabs read it too).
    pub scan: Option<Load<super::scan_marks::ScanMarks>>,
}

impl ToolsTab {
    /// Handles one message.
    pub fn update(&mut self, msg: TabMsg) -> Vec<Effect> {
        match msg {
            TabMsg::Show { server, id, .. } if self.catalog.is_none() => {
                self.catalog = Some(Load::Loading(id));
                load(id, ProxyRequest::ToolsList { server })
            }
            TabMsg::Forget => {
                self.catalog = None;
                self.search = None;
                self.costs = None;
                self.drift = None;
                self.scan = None;
                Vec::new()
            }
            msg => self.list.update(msg, false),
        }
    }

    /// The rows shown: the search's matches while searching, else the catalog.
    pub fn visible(&self) -> Option<&[ToolRow]> {
        if let Some(search) = &self.search
            && !search.query.trim().is_empty()
        {
            return match &search.results {
                Load::Ready(rows) => Some(rows),
                _ => None,
            };
        }
        match &self.catalog {
            Some(Load::Ready(rows)) => Some(rows),
            _ => None,
        }
    }

    /// `/`: starts a new search (the last matches stay until new ones arrive).
    pub fn start_search(&mut self) {
        let results = self.search.take().map_or(Load::Idle, |s| s.results);
        self.search = Some(Search {
            query: String::new(),
            editing: true,
            results,
        });
    }

    /// A key typed into the search: the query changes and, when it is not blank, a search with
    /// `id` is asked for.
    pub fn on_search_key(&mut self, key: KeyEvent, server: &str, id: ReqId) -> Vec<Effect> {
        let Some(search) = self.search.as_mut() else {
            return Vec::new();
        };
        match key.code {
            KeyCode::Esc => {
                self.search = None;
                return Vec::new();
            }
            KeyCode::Enter => {
                search.editing = false;
                return Vec::new();
            }
            KeyCode::Up | KeyCode::Down => {
                let delta = if key.code == KeyCode::Up { -1 } else { 1 };
                self.list.sel = self.list.sel.saturating_add_signed(delta);
                return Vec::new();
            }
            KeyCode::Backspace => {
                search.query.pop();
            }
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                search.query.push(c);
            }
            _ => return Vec::new(),
        }
        self.list.sel = 0;
        if search.query.trim().is_empty() {
            search.results = Load::Idle;
            return Vec::new();
        }
        search.results = Load::Loading(id);
        let request = ProxyRequest::ToolsSearch {
            server: server.to_owned(),
            query: search.query.clone(),
        };
        vec![Effect::Execute { id, request }]
    }
}

/// The Resources tab: resources, then templates.
#[derive(Debug, Default)]
pub struct ResourcesTab {
    /// Resources and templates (`None` until first shown).
    pub catalog: Option<Load<(Vec<ResourceRow>, Vec<ResourceRow>)>>,
    /// Selection and filter.
    pub list: ListState,
}

impl ResourcesTab {
    /// Handles one message.
    pub fn update(&mut self, msg: TabMsg) -> Vec<Effect> {
        match msg {
            TabMsg::Show { server, id, .. } if self.catalog.is_none() => {
                self.catalog = Some(Load::Loading(id));
                load(id, ProxyRequest::ResourcesList { server })
            }
            TabMsg::Forget => {
                self.catalog = None;
                Vec::new()
            }
            msg => self.list.update(msg, false),
        }
    }

    /// The rows shown (resources, then templates, marked `true`), narrowed by the filter.
    pub fn entries(&self) -> Vec<(&ResourceRow, bool)> {
        let Some(Load::Ready((resources, templates))) = &self.catalog else {
            return Vec::new();
        };
        resources
            .iter()
            .map(|r| (r, false))
            .chain(templates.iter().map(|t| (t, true)))
            .filter(|(r, _)| self.list.keeps(&r.name, &r.description))
            .collect()
    }
}

/// The Prompts tab.
#[derive(Debug, Default)]
pub struct PromptsTab {
    /// The prompts (`None` until first shown).
    pub catalog: Option<Load<Vec<PromptRow>>>,
    /// Selection and filter.
    pub list: ListState,
}

impl PromptsTab {
    /// Handles one message.
    pub fn update(&mut self, msg: TabMsg) -> Vec<Effect> {
        match msg {
            TabMsg::Show { server, id, .. } if self.catalog.is_none() => {
                self.catalog = Some(Load::Loading(id));
                load(id, ProxyRequest::PromptsList { server })
            }
            TabMsg::Forget => {
                self.catalog = None;
                Vec::new()
            }
            msg => self.list.update(msg, false),
        }
    }

    /// The rows shown, narrowed by the filter.
    pub fn entries(&self) -> Vec<&PromptRow> {
        let Some(Load::Ready(prompts)) = &self.catalog else {
            return Vec::new();
        };
        prompts
            .iter()
            .filter(|p| self.list.keeps(&p.name, &p.description))
            .collect()
    }
}

/// Which lines the Log tab shows (`v` cycles).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum LogFilter {
    /// Everything.
    #[default]
    All,
    /// JSON-RPC traffic only.
    Traffic,
    /// Notifications only (progress, logging, list changes, exits).
    Events,
}

impl LogFilter {
    /// The next filter in the cycle.
    #[must_use]
    pub fn next(self) -> Self {
        match self {
            Self::All => Self::Traffic,
            Self::Traffic => Self::Events,
            Self::Events => Self::All,
        }
    }

    /// The filter's name.
    pub fn label(self) -> &'static str {
        match self {
            Self::All => "all",
            Self::Traffic => "traffic",
            Self::Events => "notifications",
        }
    }
}

/// The Log tab: notifications and traffic, newest last, and the stdio server's stderr.
#[derive(Debug, Default)]
pub struct LogTab {
    /// Notifications and traffic, newest last (bounded by the app).
    pub lines: VecDeque<LogLine>,
    /// Which lines are shown.
    pub shown: LogFilter,
    /// The stdio server's kept stderr, sanitised lines (refreshed while the Log tab shows).
    pub stderr: Vec<String>,
    /// When the stderr was last asked for.
    pub stderr_asked: Option<Instant>,
    /// Selection (counted back from the newest line) and filter.
    pub list: ListState,
}

impl LogTab {
    /// Handles one message.
    pub fn update(&mut self, msg: TabMsg) -> Vec<Effect> {
        match msg {
            TabMsg::Show { server, now, .. } => {
                self.stderr_asked = Some(now);
                vec![Effect::ReadStderr(server)]
            }
            msg => self.list.update(msg, true),
        }
    }

    /// The next view of the log (all, traffic, notifications); returns its name.
    pub fn cycle(&mut self) -> &'static str {
        self.shown = self.shown.next();
        self.list.sel = 0;
        self.shown.label()
    }

    /// The lines shown, oldest first.
    pub fn visible(&self) -> Vec<&LogLine> {
        self.lines
            .iter()
            .filter(|l| match self.shown {
                LogFilter::All => true,
                LogFilter::Traffic => l.body.is_some(),
                LogFilter::Events => l.body.is_none(),
            })
            .filter(|l| self.list.keeps(l.kind, &l.text))
            .collect()
    }
}

/// One server's tabs.
#[derive(Debug, Default)]
pub struct ServerPane {
    /// The Tools tab.
    pub tools: ToolsTab,
    /// The Resources tab.
    pub resources: ResourcesTab,
    /// The Prompts tab.
    pub prompts: PromptsTab,
    /// The Log tab.
    pub log: LogTab,
    /// The Config tab (its selection is the scroll offset).
    pub config: ListState,
}

impl ServerPane {
    /// Routes a message to the tab component `tab`.
    pub fn update(&mut self, tab: Tab, msg: TabMsg) -> Vec<Effect> {
        match tab {
            Tab::Tools => self.tools.update(msg),
            Tab::Resources => self.resources.update(msg),
            Tab::Prompts => self.prompts.update(msg),
            Tab::Log => self.log.update(msg),
            Tab::Config => self.config.update(msg, false),
        }
    }

    /// The selection and filter of `tab`.
    pub fn list(&self, tab: Tab) -> &ListState {
        match tab {
            Tab::Tools => &self.tools.list,
            Tab::Resources => &self.resources.list,
            Tab::Prompts => &self.prompts.list,
            Tab::Log => &self.log.list,
            Tab::Config => &self.config,
        }
    }

    /// The selection and filter of `tab`, to change.
    pub fn list_mut(&mut self, tab: Tab) -> &mut ListState {
        match tab {
            Tab::Tools => &mut self.tools.list,
            Tab::Resources => &mut self.resources.list,
            Tab::Prompts => &mut self.prompts.list,
            Tab::Log => &mut self.log.list,
            Tab::Config => &mut self.config,
        }
    }

    /// Every catalog belonged to a connection that is gone.
    pub fn forget_catalogs(&mut self) {
        for tab in [Tab::Tools, Tab::Resources, Tab::Prompts] {
            self.update(tab, TabMsg::Forget);
        }
    }
}

/// The effects of a catalog load: the request (the engine pushes the connecting state).
fn load(id: ReqId, request: ProxyRequest) -> Vec<Effect> {
    vec![Effect::Execute { id, request }]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyEvent;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn a_catalog_tab_loads_once_and_again_after_forget() {
        let now = Instant::now();
        let show = |id| TabMsg::Show {
            server: "s".to_owned(),
            id,
            now,
        };
        let mut tab = PromptsTab::default();
        assert_eq!(
            tab.update(show(1)).len(),
            1,
            "the request alone: status is pushed"
        );
        assert_eq!(tab.catalog, Some(Load::Loading(1)));
        assert!(tab.update(show(2)).is_empty(), "already asked for");
        tab.update(TabMsg::Forget);
        assert!(matches!(
            tab.update(show(3)).first(),
            Some(Effect::Execute { id: 3, .. })
        ));
    }

    #[test]
    fn the_log_tab_moves_back_in_time_and_filters_by_typing() {
        let mut log = LogTab::default();
        log.update(TabMsg::Move(-1));
        assert_eq!(log.list.sel, 1, "up goes back from the newest line");
        log.update(TabMsg::StartFilter);
        assert_eq!(log.list.sel, 0);
        log.update(TabMsg::FilterKey(key(KeyCode::Char('x'))));
        assert_eq!(
            log.list.filter.as_ref().map(|f| f.query.as_str()),
            Some("x")
        );
        log.update(TabMsg::FilterKey(key(KeyCode::Up)));
        assert_eq!(log.list.sel, 1);
        log.update(TabMsg::FilterKey(key(KeyCode::Esc)));
        assert_eq!(log.list.filter, None);
    }

    fn resource(name: &str, description: &str) -> ResourceRow {
        ResourceRow {
            reference: String::new(),
            name: name.to_owned(),
            meta: String::new(),
            description: description.to_owned(),
        }
    }

    #[test]
    fn the_resources_filter_narrows_templates_too_and_belongs_to_its_tab() {
        let mut pane = ServerPane::default();
        pane.resources.catalog = Some(Load::Ready((
            vec![resource("structure.md", "the layout")],
            vec![
                resource("user-profile", "a user by id"),
                resource("repo-file", "a file in a repo"),
            ],
        )));
        pane.update(Tab::Resources, TabMsg::StartFilter);
        for c in "user".chars() {
            pane.update(Tab::Resources, TabMsg::FilterKey(key(KeyCode::Char(c))));
        }
        let names: Vec<(&str, bool)> = pane
            .resources
            .entries()
            .iter()
            .map(|(r, template)| (r.name.as_str(), *template))
            .collect();
        assert_eq!(names, [("user-profile", true)]);
        assert_eq!(
            pane.list(Tab::Prompts).filter,
            None,
            "other tabs keep theirs"
        );
    }

    #[test]
    fn a_blank_search_asks_nothing_and_a_query_asks_with_the_id() {
        let mut tools = ToolsTab::default();
        tools.start_search();
        assert!(
            tools
                .on_search_key(key(KeyCode::Char(' ')), "s", 7)
                .is_empty()
        );
        let effects = tools.on_search_key(key(KeyCode::Char('a')), "s", 8);
        assert!(matches!(
            effects.as_slice(),
            [Effect::Execute {
                id: 8,
                request: ProxyRequest::ToolsSearch { .. }
            }]
        ));
    }
}
