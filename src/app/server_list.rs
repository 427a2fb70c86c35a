//! The server list component: every configured server and which one is selected. The rest of
//! the console follows the selection (the main pane shows the selected server's tabs); drawing
//! is `ui::server_list::server_list`.

use super::Effect;
use crate::mcp::sanitize::sanitize_capped;
use crate::mcp::status::{ServerState, StatusReport};
use crate::mcp::trust::TrustState;

/// What the server list is told.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerListMsg {
    /// Move the selection by this many rows.
    Move(isize),
    /// Select this row (a click); rows past the end are ignored.
    Select(usize),
    /// Fresh rows from a status report (a reloaded configuration may name new servers).
    Rows(Vec<ServerRow>),
}

/// Every configured server and the selection.
#[derive(Debug, Default)]
pub struct ServerList {
    /// The rows, in configuration order.
    pub rows: Vec<ServerRow>,
    /// The selected row.
    pub selected: usize,
}

impl ServerList {
    /// A list over `rows`, the first selected.
    pub fn new(rows: Vec<ServerRow>) -> Self {
        Self { rows, selected: 0 }
    }

    /// Handles one message. The list asks for nothing itself; the app compares the selection
    /// before and after to reset what depends on it.
    pub fn update(&mut self, msg: ServerListMsg) -> Vec<Effect> {
        let last = |rows: &[ServerRow]| rows.len().saturating_sub(1);
        match msg {
            ServerListMsg::Move(delta) => {
                self.selected = self
                    .selected
                    .saturating_add_signed(delta)
                    .min(last(&self.rows));
            }
            ServerListMsg::Select(row) if row < self.rows.len() => self.selected = row,
            ServerListMsg::Select(_) => {}
            ServerListMsg::Rows(rows) => {
                self.rows = rows;
                self.selected = self.selected.min(last(&self.rows));
            }
        }
        Vec::new()
    }

    /// The selected row.
    pub fn current(&self) -> Option<&ServerRow> {
        self.rows.get(self.selected)
    }

    /// Selects the server called `name`, if it is listed.
    pub fn select_name(&mut self, name: &str) {
        if let Some(at) = self.rows.iter().position(|r| r.name == name) {
            self.selected = at;
        }
    }
}

/// One server in the servers pane.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerRow {
    /// The configured name.
    pub name: String,
    /// The live state.
    pub state: ServerState,
    /// `stdio` / `http` / `?`.
    pub transport: String,
    /// The source layer label.
    pub layer: String,
    /// Badges: shadowed, inert, disabled, invalid, changed.
    pub badges: Vec<&'static str>,
    /// `protocol · server name version`, once connected.
    pub info: Option<String>,
    /// The last error: class and message.
    pub error: Option<(String, String)>,
    /// Catalog sizes (tools, resources, prompts) once listed.
    pub counts: [Option<usize>; 3],
    /// The sandbox's rules in one line (sanitised), when it runs in one.
    pub sandbox: Option<String>,
    /// The roots it is offered, in one line (sanitised), when it has a valid definition.
    pub roots: Option<String>,
    /// Whether it declared the skills extension (its tab bar then shows Skills).
    pub skills: bool,
}

/// The servers pane rows for a status report.
pub fn server_rows(status: &StatusReport) -> Vec<ServerRow> {
    status
        .servers
        .iter()
        .map(|s| {
            let mut badges = Vec::new();
            if !s.shadowed.is_empty() {
                badges.push("shadowed");
            }
            match s.state {
                ServerState::Inert => badges.push("inert"),
                ServerState::Disabled => badges.push("disabled"),
                ServerState::Invalid => badges.push("invalid"),
                _ => {}
            }
            if s.source.layer.is_project() && status.project.trust == TrustState::Changed {
                badges.push("changed");
            }
            if s.sandbox.is_some() {
                badges.push("sandboxed");
            }
            let r = &s.runtime;
            let info = r.protocol_version.as_ref().map(|p| {
                // The era: 2026-07-28 on is stateless; anything before began with initialize.
                let era = if p.as_str() >= "2026-07-28" {
                    "stateless"
                } else {
                    "legacy"
                };
                sanitize_capped(
                    &format!(
                        "{p} ({era}) · {} {}",
                        r.server_name.as_deref().unwrap_or("?"),
                        r.server_version.as_deref().unwrap_or("")
                    ),
                    200,
                )
            });
            ServerRow {
                name: sanitize_capped(&s.name, 128),
                state: s.state,
                transport: s.transport.unwrap_or("?").to_owned(),
                layer: s.source.layer.label().to_owned(),
                badges,
                info,
                error: r.last_error.as_ref().map(|e| {
                    (
                        sanitize_capped(&e.class, 64),
                        sanitize_capped(&e.message, 2048),
                    )
                }),
                counts: [r.tools, r.resources, r.prompts],
                sandbox: s.sandbox.clone(),
                roots: s.roots.clone(),
                skills: r.skills,
            }
        })
        .collect()
}
