//! The Tools tab's drift from the pins across restarts: once a server's tool list has arrived,
//! the app asks the engine how the server's definitions differ from their pins (`pins`, without
//! accepting anything); the list then marks each drifted tool and its detail shows the change.
//! A server the project's committed pin file names is compared with the file instead (as
//! `mcpdeck pins check` does), and its changes say so.

use std::collections::HashMap;

use super::{App, Effect, Load, ReqId, Waiter};
use crate::mcp::api::OpResult;
use crate::mcp::engine::{OperatorOp, Outcome};
use crate::mcp::scan::Kind;

/// A server's drifted tools as the console shows them.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ToolDrift {
    /// The change's lines (summary with ratings, then the diff; sanitised) by tool name.
    pub by_name: HashMap<String, Vec<String>>,
}

fn drift_of(result: &OpResult, against: Option<&str>) -> Option<ToolDrift> {
    let OpResult::Pins(report) = result else {
        return None;
    };
    let by_name = report
        .changes
        .iter()
        .filter(|c| c.kind == Kind::Tool)
        .map(|c| {
            let source = against.map(|file| format!("compared with the committed pin file {file}"));
            let lines = source
                .into_iter()
                .chain(c.lines())
                .map(|l| crate::mcp::sanitize::sanitize_capped(&l, 400))
                .collect();
            (crate::mcp::sanitize::sanitize_capped(&c.name, 256), lines)
        })
        .collect();
    Some(ToolDrift { by_name })
}

impl App {
    /// Asks for `server`'s drift once its tool list is in (and not already asked).
    pub(crate) fn ask_drift(&mut self, server: &str) -> Vec<Effect> {
        let op = |app: &Self| match app.committed_pins(server) {
            Some((_, pins)) => OperatorOp::CheckPins { pins: pins.clone() },
            None => OperatorOp::Pins { accept: false },
        };
        let waiter = Waiter::Drift(server.to_owned());
        self.ask_after_catalog(server, |t| &mut t.drift, waiter, op)
    }

    /// The committed pin file's name and its pins for `server`, when the file names it.
    fn committed_pins(
        &self,
        server: &str,
    ) -> Option<(
        &str,
        &std::collections::BTreeMap<String, crate::mcp::pins::Pin>,
    )> {
        let file = self.info.committed_pins.as_ref()?;
        Some((file.shown.as_str(), file.servers.get(server)?))
    }

    /// The drift arrived (dropped when the tab forgot its catalog meanwhile).
    pub(super) fn on_drift(&mut self, server: &str, id: ReqId, outcome: &Outcome) {
        let against = self.committed_pins(server).map(|(file, _)| file.to_owned());
        let pick = |r: &OpResult| drift_of(r, against.as_deref());
        self.settle_after_catalog(server, |t| &mut t.drift, id, outcome, pick);
    }

    /// How `tool` of `server` drifted, as its detail shows it (empty when it did not).
    pub(super) fn tool_drift(&self, server: &str, tool: &str) -> Vec<String> {
        match self.panes.get(server).and_then(|p| p.tools.drift.as_ref()) {
            Some(Load::Ready(drift)) => drift.by_name.get(tool).cloned().unwrap_or_default(),
            _ => Vec::new(),
        }
    }
}
