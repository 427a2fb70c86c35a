//! Draws a server's elicitation: who asks and its message, then the form (one line per field,
//! a window around the focus, the focused field's description, constraints and problem below)
//! or the URL with its origin emphasised. Every string was sanitised by the engine.

use std::fmt::Write as _;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::theme::{fg, theme, tinted};
use crate::app::App;
use crate::app::elicitation::{ElicitMode, ElicitState, FieldValue, FormState};
use crate::app::keymap::{Action, Ctx};
use crate::mcp::client::{FieldKind, FormField};

fn dim_style() -> Style {
    fg(theme().dim)
}

/// Draws `e` in `area`.
pub fn render(app: &App, e: &ElicitState, frame: &mut Frame, area: Rect) {
    let (title, area) = match e.mode {
        ElicitMode::Form(_) => ("Server asks for input", area),
        // A URL needs a few lines, not the whole screen.
        ElicitMode::Url { .. } => (
            "Server asks you to open a URL",
            crate::app::layout::centered(area, 96, 14),
        ),
    };
    let inner = super::overlays::framed(frame, area, title, theme().kind);
    let mut head = vec![Line::from(vec![
        Span::styled("server  ", dim_style()),
        Span::styled(e.server.clone(), Style::new().add_modifier(Modifier::BOLD)),
        Span::styled(waiting(app), dim_style()),
    ])];
    if e.withdrawn {
        head.push(withdrawn_line());
    }
    head.extend(e.message.lines().take(4).map(|l| Line::raw(l.to_owned())));
    if !crate::app::server_asks::armed(e.shown_at, app.now) {
        head.push(Line::styled("(keys are ignored for a moment)", dim_style()));
    }
    let head_rows = u16::try_from(head.len().min(6)).unwrap_or(6) + 1;
    let [top, rest] =
        Layout::vertical([Constraint::Length(head_rows), Constraint::Min(1)]).areas(inner);
    frame.render_widget(Paragraph::new(head).wrap(Wrap { trim: false }), top);
    match &e.mode {
        ElicitMode::Form(form) => render_form(app, form, frame, rest),
        ElicitMode::Url { url, origin, .. } => render_url(url, origin, frame, rest),
    }
}

/// The line a withdrawn request's modal leads with (the sampling modal's too).
pub(super) fn withdrawn_line() -> Line<'static> {
    tinted(
        format!("⚠ {}", crate::app::server_asks::WITHDRAWN),
        theme().warn,
    )
}

fn waiting(app: &App) -> String {
    match app.asks.len() {
        0 | 1 => String::new(),
        n => format!("  ({} more waiting)", n - 1),
    }
}

fn render_url(url: &str, origin: &str, frame: &mut Frame, area: Rect) {
    let mut lines = vec![Line::from(vec![
        Span::styled("origin  ", dim_style()),
        Span::styled(
            if origin.is_empty() {
                "(not a web address)".to_owned()
            } else {
                origin.to_owned()
            },
            Style::new()
                .fg(theme().warn)
                .add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
        ),
    ])];
    lines.push(Line::from(vec![
        Span::styled("url     ", dim_style()),
        Span::raw(url.to_owned()),
    ]));
    lines.push(Line::raw(""));
    lines.push(Line::styled(
        "mcpdeck never opens it by itself. Open it, finish there, then accept \
         (this closes by itself when the server says it is complete).",
        dim_style(),
    ));
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), area);
}

fn render_form(app: &App, form: &FormState, frame: &mut Frame, area: Rect) {
    let [list, about] = Layout::vertical([Constraint::Min(1), Constraint::Length(3)]).areas(area);
    let height = usize::from(list.height);
    let start = crate::app::layout::window_start(form.focus, height);
    let label_w = form
        .form
        .fields
        .iter()
        .map(|f| f.title.chars().count())
        .max()
        .unwrap_or(0)
        .min(usize::from(list.width) / 3);
    let lines: Vec<Line> = form
        .form
        .fields
        .iter()
        .zip(&form.values)
        .enumerate()
        .skip(start)
        .take(height)
        .map(|(i, (field, value))| field_line(form, i, field, value, label_w))
        .collect();
    if lines.is_empty() {
        let empty = Line::styled(
            "(the server asks for no fields: accept or decline)",
            dim_style(),
        );
        frame.render_widget(Paragraph::new(empty), list);
    } else {
        frame.render_widget(Paragraph::new(lines), list);
    }
    let Some((field, _)) = form.focused() else {
        return;
    };
    let mut notes = Vec::new();
    if !field.description.is_empty() {
        notes.push(Line::raw(field.description.clone()));
    }
    notes.push(Line::styled(constraints(app, field), dim_style()));
    if let Some(Some(problem)) = form.errors.get(form.focus) {
        notes.push(tinted(format!("✗ {problem}"), theme().error));
    }
    frame.render_widget(Paragraph::new(notes).wrap(Wrap { trim: true }), about);
}

fn field_line<'a>(
    form: &FormState,
    i: usize,
    field: &'a FormField,
    value: &FieldValue,
    label_w: usize,
) -> Line<'a> {
    let focused = i == form.focus;
    let mark = if field.required { "*" } else { " " };
    let title: String = field.title.chars().take(label_w).collect();
    let label_style = if focused {
        Style::new().add_modifier(Modifier::REVERSED)
    } else {
        Style::new()
    };
    let mut spans = vec![
        Span::styled(mark, fg(theme().error)),
        Span::styled(format!("{title:<label_w$}"), label_style),
        Span::raw("  "),
    ];
    spans.extend(value_spans(form, focused, field, value));
    if form.checked
        && let Some(Some(_)) = form.errors.get(i)
    {
        spans.push(Span::styled(" ✗", fg(theme().error)));
    }
    Line::from(spans)
}

fn value_spans<'a>(
    form: &FormState,
    focused: bool,
    field: &'a FormField,
    value: &FieldValue,
) -> Vec<Span<'a>> {
    let cursor = if focused { "▏" } else { "" };
    match (value, &field.kind) {
        (FieldValue::Text(t), _) if t.is_empty() => {
            vec![Span::raw(cursor), Span::styled("(empty)", dim_style())]
        }
        (FieldValue::Text(t), _) => vec![Span::raw(format!("{t}{cursor}"))],
        (FieldValue::Bool(None), _) => vec![Span::styled("[ ] (not answered)", dim_style())],
        (FieldValue::Bool(Some(b)), _) => vec![Span::raw(if *b { "[x] yes" } else { "[ ] no" })],
        (FieldValue::Single(choice), FieldKind::Single(options)) => {
            let label = choice
                .and_then(|c| options.get(c))
                .map_or("(none chosen)", |o| o.label.as_str());
            vec![Span::raw(format!("‹ {label} ›"))]
        }
        (FieldValue::Multi(chosen), FieldKind::Multi { options, .. }) => options
            .iter()
            .zip(chosen)
            .enumerate()
            .map(|(k, (o, c))| {
                let text = format!("[{}] {} ", if *c { "x" } else { " " }, o.label);
                if focused && k == form.option {
                    Span::styled(text, Style::new().add_modifier(Modifier::UNDERLINED))
                } else {
                    Span::raw(text)
                }
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The focused field's kind and bounds, in words (keys as the keymap has them).
fn constraints(app: &App, field: &FormField) -> String {
    let key = |action| {
        app.keymap
            .key_for(Ctx::Elicitation, action)
            .unwrap_or_default()
    };
    let (toggle, next, prev) = (
        key(Action::Toggle),
        key(Action::NextOption),
        key(Action::PrevOption),
    );
    let need = if field.required {
        "required"
    } else {
        "optional"
    };
    let kind = match &field.kind {
        FieldKind::Text {
            format,
            min_len,
            max_len,
        } => {
            let s = format
                .as_deref()
                .map_or_else(|| "text".to_owned(), |f| format!("text ({f})"));
            bounded(s, AT_LEAST, [*min_len, *max_len], " characters")
        }
        FieldKind::Number { integer, min, max } => {
            let s = if *integer { "whole number" } else { "number" }.to_owned();
            bounded(s, ["≥", "≤"], [*min, *max], "")
        }
        FieldKind::Boolean => format!("yes / no ({toggle})"),
        FieldKind::Single(o) => format!("one of {} ({prev} {next})", o.len()),
        FieldKind::Multi {
            options,
            min_items,
            max_items,
        } => {
            let s = format!(
                "any of {} ({prev} {next} move, {toggle} picks)",
                options.len()
            );
            bounded(s, AT_LEAST, [*min_items, *max_items], "")
        }
    };
    format!("{need} · {kind}")
}

/// How [`bounded`] words a lower and an upper bound of a length or a count.
const AT_LEAST: [&str; 2] = ["at least", "at most"];

/// `s` followed by `, LOW min UNIT` and `, HIGH max UNIT` for the bounds (min, max) given.
fn bounded<T: std::fmt::Display>(
    mut s: String,
    words: [&str; 2],
    bounds: [Option<T>; 2],
    unit: &str,
) -> String {
    for (word, bound) in words.into_iter().zip(bounds) {
        if let Some(m) = bound {
            let _ = write!(s, ", {word} {m}{unit}");
        }
    }
    s
}
