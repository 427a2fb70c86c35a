//! Draws the Hosts view (`app::hosts`): a tab per host (files, servers with the selected one's
//! detail opened under it, known traps), a side-by-side tab (the matrix and the selected name in
//! words), and at the bottom whatever the view is doing (an input prompt, masked; an import
//! preview awaiting `y`; a running request; the last outcome).

use std::fmt::Write as _;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::main_pane::info_lines;
use super::theme::{fg, theme, tinted};
use crate::app::hosts::{HostsMode, HostsView};
use crate::app::hosts_data::{HostPanel, HostsData};
use crate::app::info::InfoLine;
use crate::mcp::hosts::HostId;

/// Draws the view inside the popup's `inner` area.
pub fn render(view: &HostsView, frame: &mut Frame, inner: Rect) {
    let bottom = bottom_lines(view);
    // Wrapped height; a prompt may take all but the tab bar and one body row, an outcome half.
    let width = usize::from(inner.width.max(1));
    let needed: usize = bottom
        .iter()
        .map(|l| l.width().max(1).div_ceil(width))
        .sum();
    let room = if matches!(view.mode, HostsMode::Asking { .. }) {
        inner.height.saturating_sub(2)
    } else {
        inner.height / 2
    };
    let bottom_height = u16::try_from(needed).unwrap_or(u16::MAX).min(room);
    let [tabs, body, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(bottom_height),
    ])
    .areas(inner);
    render_tabs(view, frame, tabs);
    let Some(data) = &view.data else {
        frame.render_widget(
            Paragraph::new(tinted("reading the hosts' files…", theme().dim)),
            body,
        );
        return;
    };
    if let HostsMode::Confirm(preview) = &view.mode {
        let mut lines: Vec<Line> = preview.lines.iter().map(|l| Line::raw(l.clone())).collect();
        lines.push(Line::raw(""));
        lines.push(Line::styled(
            format!(
                "Write {}? Type y to write (a backup is kept), any other key cancels.",
                preview.path
            ),
            fg(theme().on_accent).bg(theme().warn),
        ));
        frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), body);
    } else if view.side_by_side() {
        render_matrix(data, view, frame, body);
    } else if let Some(panel) = data.hosts.get(view.tab) {
        render_host(panel, view, frame, body);
    }
    frame.render_widget(Paragraph::new(bottom).wrap(Wrap { trim: false }), status);
}

/// The tab bar, or `‹ name › i/n` when it does not fit.
fn render_tabs(view: &HostsView, frame: &mut Frame, area: Rect) {
    let panels = view.data.as_ref().map_or(&[][..], |d| d.hosts.as_slice());
    let mut labels: Vec<(String, bool)> = HostId::ALL
        .iter()
        .enumerate()
        .map(|(i, host)| {
            let panel = panels.get(i);
            let count = panel.map_or_else(String::new, |p| {
                if p.found {
                    format!("({})", p.servers.len())
                } else {
                    " –".to_owned()
                }
            });
            (
                format!("{}{count}", host.name()),
                panel.is_some_and(|p| p.found),
            )
        })
        .collect();
    labels.push(("Side by side".to_owned(), true));
    let fits = |labels: &[(String, bool)]| {
        labels
            .iter()
            .map(|(l, _)| l.chars().count() + 2)
            .sum::<usize>()
            <= usize::from(area.width)
    };
    if !fits(&labels) {
        // Short names without counts, before giving up on showing every tab.
        let short = ["Claude", "Cursor", "VS Code", "Codex", "Gemini", "Windsurf"];
        for (label, name) in labels.iter_mut().zip(short) {
            name.clone_into(&mut label.0);
        }
    }
    let line = if fits(&labels) {
        Line::from(
            labels
                .into_iter()
                .enumerate()
                .map(|(i, (label, found))| {
                    let style = if i == view.tab {
                        Style::new()
                            .fg(theme().accent)
                            .add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
                    } else if found {
                        Style::new()
                    } else {
                        fg(theme().dim)
                    };
                    Span::styled(format!(" {label} "), style)
                })
                .collect::<Vec<_>>(),
        )
    } else {
        let label = labels.get(view.tab).map_or("", |(l, _)| l.as_str());
        Line::from(vec![
            Span::styled(
                format!("‹ {label} ›"),
                fg(theme().accent).add_modifier(Modifier::BOLD),
            ),
            Span::styled(
                format!(" {}/{}", view.tab + 1, labels.len()),
                fg(theme().dim),
            ),
        ])
    };
    frame.render_widget(Paragraph::new(line), area);
}

fn heading(text: impl Into<String>) -> Line<'static> {
    Line::styled(text.into(), Style::new().add_modifier(Modifier::BOLD))
}

/// One host: files, servers (the selected one opened), traps; scrolled to the selection.
fn render_host(panel: &HostPanel, view: &HostsView, frame: &mut Frame, area: Rect) {
    let mut lines: Vec<Line> = Vec::new();
    let (errors, warnings) = panel.counts;
    lines.push(heading(format!(
        "{} ({}) · {errors} error(s), {warnings} warning(s)",
        panel.host.name(),
        panel.host.id()
    )));
    if !panel.found {
        lines.push(tinted(
            "none of its files exists for this project",
            theme().dim,
        ));
    }
    lines.push(heading("files, lowest precedence first"));
    lines.extend(indent(&panel.files));
    lines.push(heading("servers"));
    let mut anchor = lines.len();
    if panel.servers.is_empty() {
        lines.push(tinted("  none", theme().dim));
    }
    let width = panel
        .servers
        .iter()
        .map(|s| s.name.chars().count())
        .max()
        .unwrap_or(0)
        .clamp(4, 24);
    for (i, s) in panel.servers.iter().enumerate() {
        let selected = i == view.sel;
        let marker = if selected { "▶ " } else { "  " };
        let mut style = if s.broken {
            fg(theme().error)
        } else {
            Style::new()
        };
        if selected {
            anchor = lines.len();
            style = style.add_modifier(Modifier::REVERSED);
        }
        lines.push(Line::styled(
            format!("{marker}{:<width$}  {}", s.name, s.summary),
            style,
        ));
        if selected {
            lines.extend(indent(&s.detail));
        }
    }
    if !panel.traps.is_empty() {
        lines.push(heading("known traps"));
        for t in &panel.traps {
            lines.push(tinted(format!("  ! {t}"), theme().warn));
        }
    }
    let height = usize::from(area.height);
    let start = if anchor < height / 2 {
        0
    } else {
        anchor.saturating_sub(2)
    };
    let start = (start + view.scroll).min(lines.len().saturating_sub(height));
    let shown: Vec<Line> = lines.into_iter().skip(start).take(height).collect();
    frame.render_widget(Paragraph::new(shown).wrap(Wrap { trim: false }), area);
}

fn indent(lines: &[InfoLine]) -> Vec<Line<'static>> {
    info_lines(lines, 0, lines.len())
}

/// The side-by-side tab: the matrix, then the selected name in words.
fn render_matrix(data: &HostsData, view: &HostsView, frame: &mut Frame, area: Rect) {
    if data.matrix.is_empty() {
        frame.render_widget(
            Paragraph::new(tinted("no servers in mcpdeck or any host", theme().dim)),
            area,
        );
        return;
    }
    let detail = data
        .matrix
        .get(view.sel)
        .map_or(&[][..], |r| r.detail.as_slice());
    let detail_height = u16::try_from(detail.len() + 1)
        .unwrap_or(u16::MAX)
        .min(area.height / 2);
    let [table, below] =
        Layout::vertical([Constraint::Min(2), Constraint::Length(detail_height)]).areas(area);
    let width = data
        .matrix
        .iter()
        .map(|r| r.name.chars().count())
        .max()
        .unwrap_or(6)
        .clamp(6, 20);
    let mut head = format!("  {:<width$}  {:<8}", "SERVER", "mcpdeck");
    for host in HostId::ALL {
        let short = match host {
            HostId::ClaudeCode => "claude",
            other => other.id(),
        };
        let _ = write!(head, " {short:<7}");
    }
    let mut lines = vec![heading(head)];
    let rows = usize::from(table.height).saturating_sub(1);
    let start = crate::app::layout::window_start(view.sel, rows);
    for (i, row) in data.matrix.iter().enumerate().skip(start).take(rows) {
        let marker = if i == view.sel { "▶ " } else { "  " };
        let name: String = row.name.chars().take(width).collect();
        let mut spans = vec![Span::raw(format!(
            "{marker}{name:<width$}  {:<8}",
            row.deck
        ))];
        for cell in &row.cells {
            let style = match *cell {
                "same" => fg(theme().ok),
                "differs" => fg(theme().warn),
                "invalid" => fg(theme().error),
                "-" => fg(theme().dim),
                _ => fg(theme().accent),
            };
            spans.push(Span::styled(format!(" {cell:<7}"), style));
        }
        let mut line = Line::from(spans);
        if i == view.sel {
            line = line.style(Style::new().add_modifier(Modifier::REVERSED));
        }
        lines.push(line);
    }
    frame.render_widget(Paragraph::new(lines), table);
    let mut words = Vec::new();
    if let Some(row) = data.matrix.get(view.sel) {
        words.push(heading(row.name.clone()));
        words.extend(indent(&row.detail));
    }
    frame.render_widget(Paragraph::new(words), below);
}

/// What the view is doing, for the bottom lines.
fn bottom_lines(view: &HostsView) -> Vec<Line<'static>> {
    match &view.mode {
        HostsMode::Asking {
            server,
            pending,
            typed,
            ..
        } => vec![
            Line::styled(
                format!(
                    "value for input `{}` of `{server}` (used once, not stored):",
                    pending.first().map_or("", String::as_str)
                ),
                fg(theme().on_accent).bg(theme().warn),
            ),
            Line::raw(format!(
                "> {}▏  Enter: next · Esc: cancel",
                "•".repeat(typed.0.chars().count())
            )),
        ],
        HostsMode::Busy(what) => vec![tinted(what.clone(), theme().accent)],
        HostsMode::Confirm(_) => Vec::new(),
        HostsMode::Browse => match &view.outcome {
            Some(Ok(m)) => vec![tinted(m.clone(), theme().ok)],
            Some(Err(m)) => m
                .lines()
                .map(|l| tinted(l.to_owned(), theme().error))
                .collect(),
            None => Vec::new(),
        },
    }
}
