//! The side-by-side matrix: every server name across mcpdeck and the hosts, and for each host
//! whether its definition is the same as mcpdeck's, differs (which fields), or exists only there.

use serde_json::{Value, json};

use super::convert::{Places, diff, from_deck, settled};
use super::{HostId, HostReport};
use crate::mcp::config::ConfigSet;

/// One host's cell for one server name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Cell {
    /// The host does not define the name.
    Absent,
    /// The host's definition is invalid under its own rules.
    Invalid,
    /// Same definition as mcpdeck's.
    Same,
    /// Defined differently: the differing fields.
    Differs(Vec<String>),
    /// Defined by the host; mcpdeck has no valid definition of the name.
    OnlyHere,
}

impl Cell {
    /// A short label for tables.
    pub(crate) fn label(&self) -> &'static str {
        match self {
            Self::Absent => "-",
            Self::Invalid => "invalid",
            Self::Same => "same",
            Self::Differs(_) => "differs",
            Self::OnlyHere => "only here",
        }
    }
}

/// One server name across everything.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    /// The server name.
    pub name: String,
    /// mcpdeck's state for it: `None` absent, `Some(valid)`.
    pub deck: Option<bool>,
    /// Each host's cell, in [`HostId::ALL`] order.
    pub cells: Vec<(HostId, Cell)>,
}

/// Builds the matrix, rows sorted by name.
pub(crate) fn matrix(config: &ConfigSet, reports: &[HostReport], places: &Places<'_>) -> Vec<Row> {
    let mut names: Vec<String> = config
        .servers
        .iter()
        .map(|s| s.entry.name.clone())
        .chain(
            reports
                .iter()
                .flat_map(|r| r.servers.iter().map(|s| s.entry.name.clone())),
        )
        .collect();
    names.sort();
    names.dedup();
    names
        .into_iter()
        .map(|name| {
            let deck_entry = config.server(&name);
            let deck_def = deck_entry
                .and_then(|e| e.entry.def.as_ref())
                .map(|d| settled(&from_deck(d), places));
            let cells = reports
                .iter()
                .map(|r| {
                    let cell = match r.server(&name) {
                        None => Cell::Absent,
                        Some(s) => match (&s.entry.def, &deck_def) {
                            (None, _) => Cell::Invalid,
                            (Some(_), None) => Cell::OnlyHere,
                            (Some(h), Some(d)) => {
                                let fields = diff(d, &settled(h, places));
                                if fields.is_empty() {
                                    Cell::Same
                                } else {
                                    Cell::Differs(fields)
                                }
                            }
                        },
                    };
                    (r.host, cell)
                })
                .collect();
            Row {
                deck: deck_entry.map(|e| e.entry.def.is_some()),
                name,
                cells,
            }
        })
        .collect()
}

/// The matrix as JSON.
pub(crate) fn matrix_view(rows: &[Row]) -> Value {
    Value::Array(
        rows.iter()
            .map(|r| {
                let hosts: serde_json::Map<String, Value> = r
                    .cells
                    .iter()
                    .map(|(h, c)| {
                        let v = match c {
                            Cell::Differs(fields) => json!({"state": "differs", "fields": fields}),
                            other => json!({"state": other.label()}),
                        };
                        (h.id().to_owned(), v)
                    })
                    .collect();
                let deck = match r.deck {
                    None => "absent",
                    Some(true) => "valid",
                    Some(false) => "invalid",
                };
                json!({"name": r.name, "mcpdeck": deck, "hosts": hosts})
            })
            .collect(),
    )
}
