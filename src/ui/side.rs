//! The workspace side panel: the tool tabs, the selected tool's form, and the last result.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::pane_block;
use super::theme::{fg, theme, tinted};
use crate::app::side::WORKSPACE_TOOLS;
use crate::app::side_view::LineKind;
use crate::app::{App, Focus, Load};

/// Draws the panel into `area`.
pub fn render(app: &App, frame: &mut Frame, area: Rect) {
    let focused = app.focus == Focus::Side;
    let block = pane_block(Line::from(" Workspace "), focused);
    let inner = block.inner(area);
    frame.render_widget(block, area);
    if !app.has_workspace() {
        frame.render_widget(
            Paragraph::new("no workspace server is configured").wrap(Wrap { trim: true }),
            inner,
        );
        return;
    }
    let form = form_lines(app, usize::from(inner.width));
    let form_height = u16::try_from(form.len())
        .unwrap_or(u16::MAX)
        .min(inner.height / 2);
    let [tabs, form_area, result] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(form_height),
        Constraint::Min(0),
    ])
    .areas(inner);
    render_tabs(app, frame, tabs);
    frame.render_widget(Paragraph::new(form), form_area);
    render_result(app, frame, result);
}

fn render_tabs(app: &App, frame: &mut Frame, area: Rect) {
    let spans: Vec<Span> = WORKSPACE_TOOLS
        .iter()
        .enumerate()
        .map(|(i, name)| {
            let label = name.trim_start_matches("workspace_");
            if i == app.side.tool {
                Span::styled(
                    format!("[{label}]"),
                    fg(theme().accent).add_modifier(Modifier::BOLD),
                )
            } else {
                Span::raw(format!(" {label} "))
            }
        })
        .collect();
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn form_lines(app: &App, width: usize) -> Vec<Line<'static>> {
    let panel = &app.side;
    match &panel.forms[panel.tool] {
        None | Some(Load::Idle | Load::Loading(_)) => {
            vec![tinted("reading the tool's schema…", theme().dim)]
        }
        Some(Load::Failed(class, message)) => {
            vec![tinted(format!("{class}: {message}"), theme().error)]
        }
        Some(Load::Ready(form)) => {
            let mut lines = Vec::new();
            for (i, field) in form.fields.iter().enumerate() {
                let mark = if field.required { "*" } else { "" };
                let focused = i == form.focus && app.focus == Focus::Side;
                let cursor = if focused { "▏" } else { "" };
                // While typing, the end of a long value stays in view.
                let room = width.saturating_sub(field.name.chars().count() + 3);
                let count = field.value.chars().count();
                let value = if focused && count > room && room > 1 {
                    let tail: String = field.value.chars().skip(count + 1 - room).collect();
                    format!("…{tail}")
                } else {
                    field.value.clone()
                };
                let style = if focused {
                    Style::new().add_modifier(Modifier::REVERSED)
                } else {
                    Style::new()
                };
                lines.push(Line::from(vec![
                    Span::styled(format!("{}{mark} ", field.name), fg(theme().dim)),
                    Span::styled(format!("{value}{cursor}"), style),
                ]));
                if let Some(e) = &field.error {
                    lines.push(tinted(format!("  {e}"), theme().error));
                }
            }
            lines.extend(form.errors.iter().map(|e| tinted(e.clone(), theme().error)));
            lines
        }
    }
}

fn render_result(app: &App, frame: &mut Frame, area: Rect) {
    let panel = &app.side;
    let mut lines = vec![tinted("─".repeat(usize::from(area.width)), theme().dim)];
    if let Some(run) = &panel.run {
        let elapsed = app.now.saturating_duration_since(run.started);
        let what = if run.cancelling {
            "cancelling"
        } else {
            "running"
        };
        lines.push(Line::from(format!(
            "{} {what} {} · {:.1}s",
            super::calls::spinner(elapsed),
            WORKSPACE_TOOLS[run.tool],
            elapsed.as_secs_f64()
        )));
    } else if let Some(result) = &panel.result {
        lines.extend(result.lines.iter().skip(panel.scroll).map(|l| {
            let style = match l.kind {
                LineKind::Summary => Style::new().add_modifier(Modifier::BOLD),
                LineKind::Heading => fg(theme().accent),
                LineKind::Text => Style::new(),
                LineKind::Dim => fg(theme().dim),
                LineKind::Error => fg(theme().error),
                LineKind::Warning => fg(theme().warn),
            };
            Line::styled(l.text.clone(), style)
        }));
    } else {
        let key = |a| {
            app.keymap
                .key_for(crate::app::keymap::Ctx::Side, a)
                .unwrap_or_default()
        };
        lines.push(Line::styled(
            format!(
                "{} runs the tool; {} {} switch tools",
                key(crate::app::keymap::Action::Submit),
                key(crate::app::keymap::Action::PrevTab),
                key(crate::app::keymap::Action::NextTab)
            ),
            fg(theme().dim),
        ));
    }
    // Only the visible window is built: wrapping can only make lines taller.
    lines.truncate(usize::from(area.height) + 1);
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), area);
}
