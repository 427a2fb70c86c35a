//! The call form component's drawing: the schema form and its raw JSON twin (`app::call_form`).

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::main_pane::target_name;
use super::theme::{fg, theme, tinted};
use crate::app::form::{FieldKind, Form};
use crate::app::keymap::{Action, Ctx};
use crate::app::{App, RawForm};

/// Draws the call form component ([`Form`]): one line per field, its error or description under it.
pub fn call_form(form: &Form, frame: &mut Frame, area: Rect) {
    let task = if form.as_task { " · as a task" } else { "" };
    let mut lines = vec![Line::styled(
        format!("{} on {}{task}", target_name(form), form.server),
        Style::new().add_modifier(Modifier::BOLD),
    )];
    lines.extend(super::calls::findings_lines(&form.findings));
    if form.fields.iter().all(|f| f.kind == FieldKind::Meta) {
        lines.push(tinted("No arguments. Enter runs it.", theme().dim));
    }
    for (i, f) in form.fields.iter().enumerate() {
        let focused = i == form.focus;
        let kind = match &f.kind {
            FieldKind::Text => "string",
            FieldKind::Number => "number",
            FieldKind::Integer => "integer",
            FieldKind::Bool => "bool ␣",
            FieldKind::Enum(_) => "enum ␣",
            FieldKind::Json => "json",
            FieldKind::Meta => "key=value …",
        };
        let star = if f.required { "*" } else { "" };
        let null = if f.nullable { "|null" } else { "" };
        let cursor = if focused { "▏" } else { "" };
        let mut value = fg(theme().text);
        if focused {
            value = value.bg(theme().dim);
        }
        lines.push(Line::from(vec![
            Span::raw(if focused { "> " } else { "  " }),
            Span::styled(format!("{}{star}", f.name), fg(theme().accent)),
            Span::styled(format!(" ({kind}{null}) "), fg(theme().dim)),
            Span::styled(format!("{}{cursor}", f.value), value),
        ]));
        if let Some(e) = &f.error {
            lines.push(tinted(format!("    ✗ {e}"), theme().error));
        } else if focused && !f.description.is_empty() {
            lines.push(tinted(format!("    {}", f.description), theme().dim));
        }
    }
    for e in &form.errors {
        lines.push(tinted(format!("✗ {e}"), theme().error));
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), area);
}

/// Draws the raw JSON twin ([`RawForm`]): a title naming the key back to the form, the editor,
/// and why the text is not valid arguments, when it is not.
pub fn raw_form(app: &App, raw: &RawForm, frame: &mut Frame, body: Rect) {
    let RawForm { form, area, error } = raw;
    let [head, edit, err] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(1),
    ])
    .areas(body);
    frame.render_widget(
        Paragraph::new(Line::styled(
            format!(
                "{} — raw JSON arguments ({} back to the form)",
                target_name(form),
                app.keymap
                    .key_for(Ctx::Form, Action::ToggleRaw)
                    .unwrap_or_default()
            ),
            Style::new().add_modifier(Modifier::BOLD),
        )),
        head,
    );
    frame.render_widget(&**area, edit);
    if let Some(e) = error {
        frame.render_widget(Paragraph::new(tinted(e.clone(), theme().error)), err);
    }
}
