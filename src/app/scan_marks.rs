//! The catalog's poisoning-scan marks: once a server's tool list has arrived, the app asks the
//! engine to scan everything the server says about itself (`scan`, the same rules as
//! `mcpdeck scan SERVER`); the Tools, Prompts and Resources lists then mark each definition
//! with findings, and a tool's detail and a prompt's or template's form list them (rule, field,
//! line and column, excerpt).

use std::collections::HashMap;

use super::{App, Effect, Load, ReqId, Waiter};
use crate::mcp::api::OpResult;
use crate::mcp::engine::{OperatorOp, Outcome};
use crate::mcp::scan::Kind;

/// A server's scan findings as the console shows them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ScanMarks {
    /// Each finding's line (see [`crate::mcp::scan::Finding::line`]; sanitised) by the kind
    /// and (sanitised) name of the definition it is in.
    pub by_definition: HashMap<(Kind, String), Vec<String>>,
}

impl ScanMarks {
    /// The findings in the `kind` definition named `name` (empty when there are none).
    pub fn of(&self, kind: Kind, name: &str) -> &[String] {
        self.by_definition
            .get(&(kind, name.to_owned()))
            .map_or(&[], Vec::as_slice)
    }

    /// Whether any definition of `kind` has findings (its list then has a mark column).
    pub fn any(&self, kind: Kind) -> bool {
        self.by_definition.keys().any(|(k, _)| *k == kind)
    }
}

fn marks_of(result: &OpResult) -> Option<ScanMarks> {
    let OpResult::Scan(report) = result else {
        return None;
    };
    let mut marks = ScanMarks::default();
    for finding in &report.findings {
        marks
            .by_definition
            .entry((finding.kind, finding.name.clone()))
            .or_default()
            .push(crate::mcp::sanitize::sanitize_capped(&finding.line(), 400));
    }
    Some(marks)
}

impl App {
    /// Asks for `server`'s scan once its tool list is in (and not already asked).
    pub(crate) fn ask_scan(&mut self, server: &str) -> Vec<Effect> {
        let waiter = Waiter::Scan(server.to_owned());
        self.ask_after_catalog(server, |t| &mut t.scan, waiter, |_| OperatorOp::Scan)
    }

    /// The scan arrived (dropped when the tab forgot its catalog meanwhile).
    pub(super) fn on_scan(&mut self, server: &str, id: ReqId, outcome: &Outcome) {
        self.settle_after_catalog(server, |t| &mut t.scan, id, outcome, marks_of);
    }

    /// What the scan found in the `kind` definition `name` of `server`, as a tool's detail or
    /// a prompt's or template's form shows it (empty when nothing, or not scanned yet).
    pub(super) fn findings(&self, server: &str, kind: Kind, name: &str) -> Vec<String> {
        match self.panes.get(server).and_then(|p| p.tools.scan.as_ref()) {
            Some(Load::Ready(marks)) => marks.of(kind, name).to_vec(),
            _ => Vec::new(),
        }
    }
}
