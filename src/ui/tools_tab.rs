//! Draws the Tools tab (`app::tools_tab`): the catalog or the search's matches, with the scan,
//! drift and token columns when there is something to show in them.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use super::tabs::{List, catalog_lines, name_cell, scan_cell, scan_marks};
use super::theme::theme;
use crate::app::tabs::{Catalog, Tools, ToolsTab};
use crate::app::{App, Load, ToolRow};
use crate::mcp::scan::Kind;

/// The Tools tab component ([`ToolsTab`]): the catalog or the search's matches.
pub(super) fn lines(app: &App, tab: &ToolsTab, w: &List) -> Vec<Line<'static>> {
    let costs = match &tab.costs {
        Some(Load::Ready(costs)) => Some(costs),
        _ => None,
    };
    // The drift mark column, only while some tool drifted from its pins.
    let drift = match &tab.drift {
        Some(Load::Ready(drift)) if !drift.by_name.is_empty() => Some(drift),
        _ => None,
    };
    let scan = scan_marks(tab, Kind::Tool);
    let shown = tab.visible().map(|tools| tools.iter().collect());
    let load = (tab.catalog.as_ref(), Tools::WHAT);
    catalog_lines(app, load, shown, w, |t: &ToolRow, name_width| {
        let mut spans = Vec::new();
        if let Some(scan) = scan {
            spans.push(scan_cell(scan, Kind::Tool, &t.name));
        }
        if let Some(drift) = drift {
            let mark = if drift.by_name.contains_key(&t.name) {
                "Δ "
            } else {
                "  "
            };
            spans.push(Span::styled(mark, Style::new().fg(theme().warn)));
        }
        spans.push(Span::styled(
            name_cell(&t.name, name_width),
            Style::new().fg(theme().text),
        ));
        if let Some(costs) = costs {
            spans.push(Span::styled(
                token_cell(costs.by_name.get(&t.name).copied()),
                Style::new().fg(theme().dim),
            ));
        }
        spans.push(Span::styled(
            t.description.clone(),
            Style::new().fg(theme().muted),
        ));
        spans
    })
}

/// The tokens column: `  92 tok  `, right-aligned, blank for a tool not in the costs.
fn token_cell(tokens: Option<usize>) -> String {
    tokens.map_or_else(|| " ".repeat(10), |n| format!("{n:>4} tok  "))
}
