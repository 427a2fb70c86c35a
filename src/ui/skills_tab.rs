//! Draws the Skills tab (`app::skills_tab`): each skill's name and description, and how many
//! files its entry lists (`dynamic` when the server says they change).

use ratatui::text::{Line, Span};

use super::tabs::{List, catalog_lines, name_cell, ready};
use super::theme::{fg, theme};
use crate::app::App;
use crate::app::skills_tab::{SkillRow, Skills, SkillsTab};
use crate::app::tabs::Catalog;

/// The Skills tab component ([`SkillsTab`]).
pub(super) fn lines(app: &App, tab: &SkillsTab, w: &List) -> Vec<Line<'static>> {
    // A server that does not declare the extension (yet: its status may still be coming).
    if let Some(server) = app.server().filter(|s| !s.skills) {
        return vec![Line::styled(
            format!(
                "{} does not declare the skills extension (io.modelcontextprotocol/skills): \
                 it has no skills to list.",
                server.name
            ),
            fg(theme().dim),
        )];
    }
    let load = (tab.catalog.as_ref(), Skills::WHAT);
    catalog_lines(app, load, ready(tab), w, |s: &SkillRow, name_width| {
        let files = match s.files {
            Some(1) => "1 file".to_owned(),
            Some(n) => format!("{n} files"),
            None => "dynamic".to_owned(),
        };
        let files = format!("{files:<9}");
        vec![
            Span::raw(name_cell(&s.name, name_width)),
            Span::styled(files, fg(theme().dim)),
            Span::styled(s.description.clone(), fg(theme().muted)),
        ]
    })
}
