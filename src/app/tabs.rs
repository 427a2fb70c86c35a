//! The main pane's tabs as components. Each server has one [`ServerPane`]: a component per tab
//! (tools, resources, prompts, log, config), each owning its catalog, its selection and its
//! filter, with `update(&mut self, TabMsg) -> Vec<Effect>`. The catalog tabs are one generic
//! [`CatalogTab`] over a [`Catalog`] (what it lists, how it loads); the Tools tab
//! (`app::tools_tab`) adds its search and marks around the same catalog code, the Log tab is
//! `app::log_tab`. The app routes a message to the tab in front
//! (`ServerPane::update`); what is drawn comes from the same state (`ui::tabs`,
//! `ui::log_tab`).

use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::keymap::Action;
pub use super::log_tab::{LogFilter, LogTab};
pub use super::tools_tab::{Search, ToolsTab};
use super::{Effect, Load, ReqId, Tab, ToolRow};
use crate::mcp::EngineRequest;
use crate::mcp::api::{OpResult, PromptList, ResourceList};
use crate::mcp::engine::Outcome;
use crate::mcp::proxy::ProxyRequest;
use crate::mcp::sanitize::{sanitize, sanitize_capped};
use serde_json::Value;

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
    /// A key typed into the filter (not `Keep`, which the app turns into opening the entry).
    FilterKey(super::QueryKey),
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
    /// A new filter, taking text.
    pub fn started() -> Option<Self> {
        Some(Self {
            query: String::new(),
            editing: true,
        })
    }

    /// A key typed into `filter` while it takes text, in a view whose keys are fixed (spills,
    /// agents): typing narrows (`sel` back to the top), `Enter` keeps the filter and gives the
    /// keys back with `enter`, `Esc` clears it, up and down still move. `None` when no filter
    /// takes text (the key is an action then).
    pub fn typed(
        filter: &mut Option<Self>,
        sel: &mut usize,
        key: &KeyEvent,
        enter: Option<Action>,
    ) -> Option<Option<Action>> {
        let f = filter.as_mut().filter(|f| f.editing)?;
        match key.code {
            KeyCode::Esc => *filter = None,
            KeyCode::Enter => {
                f.editing = false;
                return Some(enter);
            }
            KeyCode::Up => return Some(Some(Action::Up)),
            KeyCode::Down => return Some(Some(Action::Down)),
            KeyCode::Backspace => {
                f.query.pop();
                *sel = 0;
            }
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                f.query.push(c);
                *sel = 0;
            }
            _ => {}
        }
        Some(None)
    }

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
                self.filter = ListFilter::started();
                self.sel = 0;
            }
            TabMsg::FilterKey(key) => self.on_filter_key(key, flip),
            TabMsg::Show { .. } | TabMsg::Forget => {}
        }
        Vec::new()
    }

    fn on_filter_key(&mut self, key: super::QueryKey, flip: impl Fn(isize) -> isize) {
        use super::QueryKey;
        let Some(filter) = self.filter.as_mut() else {
            return;
        };
        match key {
            QueryKey::Clear => self.filter = None,
            QueryKey::Move(delta) => self.sel = self.sel.saturating_add_signed(flip(delta)),
            QueryKey::Erase => {
                filter.query.pop();
                self.sel = 0;
            }
            QueryKey::Type(c) => {
                filter.query.push(c);
                self.sel = 0;
            }
            QueryKey::Keep => filter.editing = false,
            QueryKey::Ignore => {}
        }
    }
}

/// An entry a list can filter: its name and description.
pub trait Listed {
    /// The entry's name (sanitised).
    fn name(&self) -> &str;
    /// The entry's description (sanitised).
    fn description(&self) -> &str;
}

/// One kind of catalog a server lists: the request that loads it and the rows its typed result
/// becomes. A new catalog (skills, say) is a type implementing this and a [`CatalogTab`] of it.
pub trait Catalog {
    /// One row of the list.
    type Row: Listed + std::fmt::Debug;
    /// What the list holds, in words ("tools", "prompts").
    const WHAT: &'static str;
    /// The engine request that lists the catalog of `server`.
    fn request(server: String) -> EngineRequest;
    /// The rows of a reply, when it is this catalog's result.
    fn rows(result: &OpResult) -> Option<Vec<Self::Row>>;
}

/// The tool catalog (`tools.list`).
#[derive(Debug)]
pub struct Tools;

impl Catalog for Tools {
    type Row = ToolRow;
    const WHAT: &'static str = "tools";
    fn request(server: String) -> EngineRequest {
        EngineRequest::Agent(ProxyRequest::ToolsList { server })
    }
    fn rows(result: &OpResult) -> Option<Vec<ToolRow>> {
        match result {
            OpResult::Tools(list) => Some(super::tools_tab::tool_rows(list)),
            _ => None,
        }
    }
}

/// Resources, then templates (`resources.list`).
#[derive(Debug)]
pub struct Resources;

impl Catalog for Resources {
    type Row = ResourceRow;
    const WHAT: &'static str = "resources";
    fn request(server: String) -> EngineRequest {
        EngineRequest::Agent(ProxyRequest::ResourcesList { server })
    }
    fn rows(result: &OpResult) -> Option<Vec<ResourceRow>> {
        match result {
            OpResult::Resources(list) => Some(resource_rows(list)),
            _ => None,
        }
    }
}

/// Prompts (`prompts.list`).
#[derive(Debug)]
pub struct Prompts;

impl Catalog for Prompts {
    type Row = PromptRow;
    const WHAT: &'static str = "prompts";
    fn request(server: String) -> EngineRequest {
        EngineRequest::Agent(ProxyRequest::PromptsList { server })
    }
    fn rows(result: &OpResult) -> Option<Vec<PromptRow>> {
        match result {
            OpResult::Prompts(list) => Some(prompt_rows(list)),
            _ => None,
        }
    }
}

/// A catalog's load state: `None` until first shown.
pub type CatalogLoad<C> = Option<Load<Vec<<C as Catalog>::Row>>>;

/// A tab listing one catalog: it loads the first time it is shown, forgets with its connection,
/// and filters by name and description.
#[derive(Debug)]
pub struct CatalogTab<C: Catalog> {
    /// The catalog (`None` until first shown).
    pub catalog: CatalogLoad<C>,
    /// Selection and filter.
    pub list: ListState,
}

impl<C: Catalog> Default for CatalogTab<C> {
    fn default() -> Self {
        Self {
            catalog: None,
            list: ListState::default(),
        }
    }
}

impl<C: Catalog> CatalogTab<C> {
    /// Handles one message.
    pub fn update(&mut self, msg: TabMsg) -> Vec<Effect> {
        catalog_update::<C>(&mut self.catalog, &mut self.list, msg)
    }

    /// The rows shown, narrowed by the filter.
    pub fn entries(&self) -> Vec<&C::Row> {
        let Some(Load::Ready(rows)) = &self.catalog else {
            return Vec::new();
        };
        rows.iter()
            .filter(|r| self.list.keeps(r.name(), r.description()))
            .collect()
    }

    /// The catalog's reply `outcome`, kept when the tab still waits for `id`.
    pub fn settle(&mut self, id: ReqId, outcome: &Outcome) {
        settle_catalog::<C>(&mut self.catalog, id, outcome);
    }
}

/// What every catalog tab does with a message: load once when shown, forget, or move the list.
pub(super) fn catalog_update<C: Catalog>(
    catalog: &mut CatalogLoad<C>,
    list: &mut ListState,
    msg: TabMsg,
) -> Vec<Effect> {
    match msg {
        TabMsg::Show { server, id, .. } if catalog.is_none() => {
            *catalog = Some(Load::Loading(id));
            load(id, C::request(server))
        }
        TabMsg::Forget => {
            *catalog = None;
            Vec::new()
        }
        msg => list.update(msg, false),
    }
}

/// Keeps a catalog reply when `catalog` still waits for `id`.
pub(super) fn settle_catalog<C: Catalog>(
    catalog: &mut CatalogLoad<C>,
    id: ReqId,
    outcome: &Outcome,
) {
    if catalog.as_ref().is_some_and(|l| l.waits_for(id)) {
        *catalog = Some(super::incoming::settle(outcome, C::rows));
    }
}

/// [`Listed`] for rows that keep their name and description in fields of those names.
macro_rules! listed_by_fields {
    ($($row:ty),+) => {$(
        impl Listed for $row {
            fn name(&self) -> &str {
                &self.name
            }
            fn description(&self) -> &str {
                &self.description
            }
        }
    )+};
}

listed_by_fields!(ToolRow, ResourceRow, PromptRow, super::skills_tab::SkillRow);

/// The Resources tab: resources, then templates.
pub type ResourcesTab = CatalogTab<Resources>;

/// The Prompts tab.
pub type PromptsTab = CatalogTab<Prompts>;

/// One server's tabs.
#[derive(Debug, Default)]
pub struct ServerPane {
    /// The Tools tab.
    pub tools: ToolsTab,
    /// The Resources tab.
    pub resources: ResourcesTab,
    /// The Prompts tab.
    pub prompts: PromptsTab,
    /// The Skills tab (shown for a server that declares the skills extension).
    pub skills: super::skills_tab::SkillsTab,
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
            Tab::Skills => self.skills.update(msg),
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
            Tab::Skills => &self.skills.list,
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
            Tab::Skills => &mut self.skills.list,
            Tab::Log => &mut self.log.list,
            Tab::Config => &mut self.config,
        }
    }

    /// Every catalog belonged to a connection that is gone.
    pub fn forget_catalogs(&mut self) {
        for tab in [Tab::Tools, Tab::Resources, Tab::Prompts, Tab::Skills] {
            self.update(tab, TabMsg::Forget);
        }
    }
}

/// The effects of a catalog load: the request (the engine pushes the connecting state).
pub(super) fn load(id: ReqId, request: EngineRequest) -> Vec<Effect> {
    vec![Effect::Engine { id, request }]
}

/// One resource or template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceRow {
    /// The opaque reference (empty for templates, which are listed only).
    pub reference: String,
    /// The name (sanitised).
    pub name: String,
    /// MIME type and size, as shown.
    pub meta: String,
    /// The description (sanitised).
    pub description: String,
    /// Whether it is a template (listed after the resources; opening one asks for its
    /// variables).
    pub template: bool,
}

fn meta(mime: Option<&str>, size: Option<u64>) -> String {
    let mime = mime.map(|m| sanitize_capped(m, 128)).unwrap_or_default();
    let size = size.map(|s| format!(" {s} B")).unwrap_or_default();
    format!("{mime}{size}")
}

/// A resource's MIME type and size, then its annotations (`· audience user · priority 0.5`).
fn resource_meta(r: &crate::mcp::catalog::ResourceSummary) -> String {
    let mut shown = meta(r.mime_type.as_deref(), r.size);
    if let Some(annotations) = &r.annotations {
        if !shown.is_empty() {
            shown.push_str(" · ");
        }
        shown.push_str(&sanitize_capped(&annotations.to_string(), 256));
    }
    shown
}

/// Resources, then templates, from a `resources.list` result.
pub fn resource_rows(list: &ResourceList) -> Vec<ResourceRow> {
    let resources = list.resources.iter().map(|r| ResourceRow {
        reference: sanitize_capped(&r.reference, 512),
        name: sanitize_capped(&r.name, 256),
        meta: resource_meta(r),
        description: sanitize_capped(&r.description, 400).replace('\n', " "),
        template: false,
    });
    let templates = list.templates.iter().map(|t| ResourceRow {
        reference: String::new(),
        name: sanitize_capped(&t.name, 256),
        meta: meta(t.mime_type.as_deref(), None),
        description: t
            .description
            .as_deref()
            .map(|d| sanitize_capped(d, 400).replace('\n', " "))
            .unwrap_or_default(),
        template: true,
    });
    resources.chain(templates).collect()
}

/// One prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptRow {
    /// The name (sanitised).
    pub name: String,
    /// The description (sanitised).
    pub description: String,
    /// The arguments as a JSON Schema of strings (for the form).
    pub schema: Value,
}

/// Prompts from a `prompts.list` result.
pub fn prompt_rows(list: &PromptList) -> Vec<PromptRow> {
    list.prompts
        .iter()
        .map(|p| {
            let mut props = serde_json::Map::new();
            let mut required = Vec::new();
            for arg in &p.arguments {
                let mut prop = serde_json::json!({"type": "string"});
                if !arg.description.is_empty() {
                    prop["description"] = Value::String(sanitize(&arg.description).into_owned());
                }
                let name = sanitize_capped(&arg.name, 128);
                props.insert(name.clone(), prop);
                if arg.required {
                    required.push(Value::String(name));
                }
            }
            PromptRow {
                name: sanitize_capped(&p.name, 256),
                description: sanitize_capped(&p.description, 400).replace('\n', " "),
                schema: serde_json::json!({"type": "object", "properties": props, "required": required}),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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
            Some(Effect::Engine {
                id: 3,
                request: crate::mcp::EngineRequest::Agent(_),
                ..
            })
        ));
    }

    fn resource(name: &str, description: &str, template: bool) -> ResourceRow {
        ResourceRow {
            reference: String::new(),
            name: name.to_owned(),
            meta: String::new(),
            description: description.to_owned(),
            template,
        }
    }

    #[test]
    fn the_resources_filter_narrows_templates_too_and_belongs_to_its_tab() {
        let mut pane = ServerPane::default();
        pane.resources.catalog = Some(Load::Ready(vec![
            resource("structure.md", "the layout", false),
            resource("user-profile", "a user by id", true),
            resource("repo-file", "a file in a repo", true),
        ]));
        pane.update(Tab::Resources, TabMsg::StartFilter);
        for c in "user".chars() {
            pane.update(
                Tab::Resources,
                TabMsg::FilterKey(crate::app::QueryKey::Type(c)),
            );
        }
        let names: Vec<(&str, bool)> = pane
            .resources
            .entries()
            .iter()
            .map(|r| (r.name.as_str(), r.template))
            .collect();
        assert_eq!(names, [("user-profile", true)]);
        assert_eq!(
            pane.list(Tab::Prompts).filter,
            None,
            "other tabs keep theirs"
        );
    }
}
