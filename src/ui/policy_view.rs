//! Drawing the policy view: the file, its mode, the rules with the selected one highlighted,
//! and the typed confirmation of a removal.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::theme::{fg, theme, tinted};
use crate::app::layout::window_start;
use crate::app::policy_view::{PolicyListing, PolicyView};
use crate::app::viewer::wrap_words;

/// Draws `view` into `area` (inside its box).
pub fn render(view: &PolicyView, frame: &mut Frame, area: Rect) {
    let dim = fg(theme().dim);
    let listing = match &view.listing {
        None => {
            frame.render_widget(Paragraph::new(Line::styled("reading…", dim)), area);
            return;
        }
        Some(Err(e)) => {
            frame.render_widget(
                Paragraph::new(tinted(e.clone(), theme().error)).wrap(Wrap { trim: false }),
                area,
            );
            return;
        }
        Some(Ok(listing)) => listing,
    };
    let head_rows = head_lines(listing, usize::from(area.width));
    let head_height = u16::try_from(head_rows.len()).unwrap_or(u16::MAX);
    let [head, list, prompt] = Layout::vertical([
        Constraint::Length(head_height),
        Constraint::Min(1),
        Constraint::Length(u16::from(view.confirm.is_some()) * 2),
    ])
    .areas(area);
    frame.render_widget(Paragraph::new(head_rows), head);
    frame.render_widget(Paragraph::new(rule_lines(view, listing, list.height)), list);
    if let Some(rule) = view
        .confirm
        .as_ref()
        .map(crate::app::confirm::Confirm::what)
    {
        let line = Line::styled(
            format!(
                "Remove `{rule}`? Type y to remove it (the file is backed up), any other key keeps it."
            ),
            fg(theme().on_accent).bg(theme().warn),
        );
        frame.render_widget(Paragraph::new(line).wrap(Wrap { trim: false }), prompt);
    }
}

/// The file, its mode, and how rules combine, wrapped between words at `width` columns.
fn head_lines(listing: &PolicyListing, width: usize) -> Vec<Line<'static>> {
    let dim = fg(theme().dim);
    let path = crate::mcp::sanitize::sanitize(&listing.path.display().to_string()).into_owned();
    let absent = if listing.exists {
        ""
    } else {
        " (absent: audit mode, no rules)"
    };
    let mut lines = labelled("file  ", &format!("{path}{absent}"), width);
    lines.extend(labelled("mode  ", &listing.mode, width));
    lines.extend(
        wrap_words(
            "Deny wins over allow; an allow rule lets an operation run without asking.",
            width,
        )
        .into_iter()
        .map(|row| Line::styled(row, dim)),
    );
    lines
}

/// `label` (dimmed) then `text`, in rows of at most `width` columns.
fn labelled(label: &'static str, text: &str, width: usize) -> Vec<Line<'static>> {
    let dim = fg(theme().dim);
    wrap_words(&format!("{label}{text}"), width)
        .into_iter()
        .enumerate()
        .map(|(i, row)| match row.strip_prefix(label) {
            Some(rest) if i == 0 => {
                Line::from(vec![Span::styled(label, dim), Span::raw(rest.to_owned())])
            }
            _ => Line::raw(row),
        })
        .collect()
}

/// The rules in the window of `height` rows around the selection (or why there are none).
fn rule_lines(view: &PolicyView, listing: &PolicyListing, height: u16) -> Vec<Line<'static>> {
    let dim = fg(theme().dim);
    let mut lines = Vec::new();
    if listing.rules.is_empty() {
        lines.push(Line::styled(
            "No rules. \"Always allow\" in an approval adds one.",
            dim,
        ));
    }
    let height = usize::from(height);
    let start = window_start(view.sel, height);
    for (i, (allow, rule)) in listing.rules.iter().enumerate().skip(start).take(height) {
        let (kind, color) = if *allow {
            ("allow ", theme().ok)
        } else {
            ("deny  ", theme().error)
        };
        let mut line = Line::from(vec![
            Span::styled(kind, Style::new().fg(color)),
            Span::raw(rule.clone()),
        ]);
        if i == view.sel {
            line = line.style(Style::new().add_modifier(Modifier::REVERSED));
        }
        lines.push(line);
    }
    lines
}
