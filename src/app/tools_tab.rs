//! The Tools tab: the tool catalog (a [`CatalogTab`]'s catalog code over [`Tools`]), the
//! engine-side ranked search over it, and what is asked once the catalog is in (token costs,
//! drift from the pins, the poisoning scan's marks). Drawn by `ui::tools_tab`.

use super::incoming::settle;
use super::tabs::{CatalogLoad, ListState, TabMsg, Tools, catalog_update, settle_catalog};
use super::{Effect, Load, QueryKey, ReqId};
use crate::mcp::api::OpResult;
use crate::mcp::api::{ToolList, ToolSearch};
use crate::mcp::catalog::summary::ToolSummary;
use crate::mcp::engine::{EngineRequest, OperatorOp, Outcome};
use crate::mcp::proxy::ProxyRequest;
use crate::mcp::sanitize::sanitize_capped;

/// A search of the tool catalog.
#[derive(Debug, Clone, PartialEq)]
pub struct Search {
    /// The query typed so far.
    pub query: String,
    /// Whether keys still go into the query.
    pub editing: bool,
    /// The matches.
    pub results: Load<Vec<ToolRow>>,
    /// How many tools match in all (the results are the best of them).
    pub total: usize,
}

/// The Tools tab: the catalog and the engine-side ranked search over it.
#[derive(Debug, Default)]
pub struct ToolsTab {
    /// The tool catalog (`None` until first shown).
    pub catalog: CatalogLoad<Tools>,
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
        if msg == TabMsg::Forget {
            self.search = None;
            self.costs = None;
            self.drift = None;
            self.scan = None;
        }
        catalog_update::<Tools>(&mut self.catalog, &mut self.list, msg)
    }

    /// The catalog's reply `outcome`, kept when the tab still waits for `id`.
    pub fn settle(&mut self, id: ReqId, outcome: &Outcome) {
        settle_catalog::<Tools>(&mut self.catalog, id, outcome);
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
        let (results, total) = self
            .search
            .take()
            .map_or((Load::Idle, 0), |s| (s.results, s.total));
        self.search = Some(Search {
            query: String::new(),
            editing: true,
            results,
            total,
        });
    }

    /// A key typed into the search: the query changes and, when it is not blank, a search with
    /// `id` is asked for.
    pub fn on_search_key(&mut self, key: QueryKey, server: &str, id: ReqId) -> Vec<Effect> {
        let Some(search) = self.search.as_mut() else {
            return Vec::new();
        };
        match key {
            QueryKey::Clear => {
                self.search = None;
                return Vec::new();
            }
            QueryKey::Keep => {
                search.editing = false;
                return Vec::new();
            }
            QueryKey::Move(delta) => {
                self.list.sel = self.list.sel.saturating_add_signed(delta);
                return Vec::new();
            }
            QueryKey::Erase => {
                search.query.pop();
            }
            QueryKey::Type(c) => search.query.push(c),
            QueryKey::Ignore => return Vec::new(),
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
        super::tabs::load(id, crate::mcp::EngineRequest::Agent(request))
    }
}

/// Where [`ToolsTab`] keeps one thing asked once its catalog is in.
pub(super) type AfterCatalog<T> = fn(&mut ToolsTab) -> &mut Option<Load<T>>;

impl super::App {
    /// Asks the engine for `op` about `server` once its tool list is in and `slot` is still
    /// empty (asked once); `slot` then waits for the reply.
    pub(super) fn ask_after_catalog<T>(
        &mut self,
        server: &str,
        slot: AfterCatalog<T>,
        waiter: super::Waiter,
        op: impl FnOnce(&Self) -> OperatorOp,
    ) -> Vec<Effect> {
        let Some(pane) = self.panes.get_mut(server) else {
            return Vec::new();
        };
        if !matches!(pane.tools.catalog, Some(Load::Ready(_))) || slot(&mut pane.tools).is_some() {
            return Vec::new();
        }
        let op = op(self);
        let id = self.id(waiter);
        if let Some(pane) = self.panes.get_mut(server) {
            *slot(&mut pane.tools) = Some(Load::Loading(id));
        }
        let server = server.to_owned();
        super::tabs::load(id, EngineRequest::Operator { server, op })
    }

    /// The reply to [`Self::ask_after_catalog`], kept when `slot` still waits for `id` (dropped
    /// when the tab forgot its catalog meanwhile).
    pub(super) fn settle_after_catalog<T>(
        &mut self,
        server: &str,
        slot: AfterCatalog<T>,
        id: ReqId,
        outcome: &Outcome,
        pick: impl FnOnce(&OpResult) -> Option<T>,
    ) {
        if let Some(pane) = self.panes.get_mut(server)
            && slot(&mut pane.tools)
                .as_ref()
                .is_some_and(|l| l.waits_for(id))
        {
            *slot(&mut pane.tools) = Some(settle(outcome, pick));
        }
    }
}

/// One tool in a list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolRow {
    /// The name (sanitised).
    pub name: String,
    /// The one-line description (sanitised).
    pub description: String,
    /// Required argument names.
    pub required: Vec<String>,
}

fn tool_row(t: &ToolSummary) -> ToolRow {
    ToolRow {
        name: sanitize_capped(&t.name, 256),
        description: sanitize_capped(&t.description, 400).replace('\n', " "),
        required: t.required.iter().map(|s| sanitize_capped(s, 128)).collect(),
    }
}

/// Tools from a `tools.list` result.
pub fn tool_rows(list: &ToolList) -> Vec<ToolRow> {
    list.tools.iter().map(tool_row).collect()
}

/// Tools from a `tools.search` result.
pub fn search_rows(search: &ToolSearch) -> Vec<ToolRow> {
    search.matches.iter().map(|m| tool_row(&m.tool)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_blank_search_asks_nothing_and_a_query_asks_with_the_id() {
        let mut tools = ToolsTab::default();
        tools.start_search();
        assert!(tools.on_search_key(QueryKey::Type(' '), "s", 7).is_empty());
        let effects = tools.on_search_key(QueryKey::Type('a'), "s", 8);
        assert!(matches!(
            effects.as_slice(),
            [Effect::Engine {
                id: 8,
                request: crate::mcp::EngineRequest::Agent(ProxyRequest::ToolsSearch { .. })
            }]
        ));
    }
}
