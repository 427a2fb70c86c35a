//! The server list component: every configured server and which one is selected. The rest of
//! the console follows the selection (the main pane shows the selected server's tabs); drawing
//! is `ui::server_list::server_list`.

use super::{Effect, ServerRow};

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
