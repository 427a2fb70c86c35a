//! The totals panel (`#`): how many servers are configured, how many are in each state, and
//! the sizes of the catalogs listed so far.

use crossterm::event::{KeyCode, KeyModifiers};

use super::{Content, PanelSpec};
use crate::app::keymap::Ctx;
use crate::app::{App, ServerRow};

/// The totals panel.
pub const PANEL: PanelSpec = PanelSpec {
    name: "totals",
    keys: (
        Ctx::Global,
        &[(KeyCode::Char('#'), KeyModifiers::NONE)],
        "totals of all servers",
    ),
    content: |app: &App| Some(content(&app.servers.rows)),
};

fn content(rows: &[ServerRow]) -> Content {
    let mut states: Vec<(&'static str, usize)> = Vec::new();
    for row in rows {
        match states.iter_mut().find(|(s, _)| *s == row.state.label()) {
            Some((_, n)) => *n += 1,
            None => states.push((row.state.label(), 1)),
        }
    }
    let states = states.iter().map(|(s, n)| format!("{n} {s}"));
    let listed = |i: usize| rows.iter().filter_map(|r| r.counts[i]).sum::<usize>();
    let lines = vec![
        ("servers", rows.len().to_string()),
        ("states", states.collect::<Vec<_>>().join(" · ")),
        ("tools", listed(0).to_string()),
        ("resources", listed(1).to_string()),
        ("prompts", listed(2).to_string()),
    ];
    ("Totals".to_owned(), lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::status::ServerState;

    fn row(state: ServerState, counts: [Option<usize>; 3]) -> ServerRow {
        ServerRow {
            name: "s".into(),
            state,
            transport: "stdio".into(),
            layer: "user".into(),
            badges: Vec::new(),
            info: None,
            error: None,
            counts,
            sandbox: None,
            roots: None,
            skills: false,
        }
    }

    #[test]
    fn totals_count_states_in_order_and_sum_what_was_listed() {
        let rows = [
            row(ServerState::Connected, [Some(2), None, Some(1)]),
            row(ServerState::Failed, [None; 3]),
            row(ServerState::Connected, [Some(3), Some(4), None]),
        ];
        let (title, lines) = content(&rows);
        assert_eq!(title, "Totals");
        let value = |l: &str| lines.iter().find(|(k, _)| *k == l).map(|(_, v)| v.as_str());
        assert_eq!(value("servers"), Some("3"));
        assert_eq!(value("states"), Some("2 connected · 1 failed"));
        assert_eq!(value("tools"), Some("5"));
        assert_eq!(value("resources"), Some("4"));
        assert_eq!(value("prompts"), Some("1"));
    }
}
