//! Drawing a call's life (the app side is `app::calls`): the tool's detail with its input
//! schema as a field tree, the call form, and the running call with its spinner and progress
//! bar.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::main_pane::{json_lines, target_name};
use super::theme::{fg, theme, tinted};
use crate::app::keymap::Ctx;
use crate::app::{App, Detail, Load, Progress, Running};

/// Draws a tool's detail.
pub fn render_detail(d: &Detail, frame: &mut Frame, area: Rect) {
    let mut lines: Vec<Line> = vec![Line::styled(
        d.tool.clone(),
        Style::new().add_modifier(Modifier::BOLD),
    )];
    // How it drifted from its pins across restarts: the summary in the warning colour, the diff.
    for (i, line) in d.drift.iter().enumerate() {
        let colour = if i == 0 { theme().warn } else { theme().muted };
        let text = if i == 0 {
            format!("Δ {line}")
        } else {
            format!("  {line}")
        };
        lines.push(Line::styled(text, Style::new().fg(colour)));
    }
    lines.extend(findings_lines(&d.findings));
    match &d.load {
        Load::Idle | Load::Loading(_) => {
            lines.push(tinted("Describing…", theme().warn));
        }
        Load::Failed(c, m) => lines.push(tinted(format!("✗ {c}: {m}"), theme().error)),
        Load::Ready(desc) => {
            let capped = desc.description.as_deref();
            let text = match (&d.full_description, d.show_full) {
                (Some(full), true) => Some(full.as_str()),
                _ => capped,
            };
            if let Some(text) = text {
                lines.extend(text.lines().map(|l| Line::raw(l.to_owned())));
            }
            if d.full_description.is_some() {
                let hint = if d.show_full {
                    "(f: cut at 2 KiB again)"
                } else {
                    "(f: the whole description)"
                };
                lines.push(tinted(hint, theme().dim));
            }
            lines.push(Line::raw(""));
            lines.push(tinted("Input", theme().accent));
            lines.extend(field_tree(&desc.input_schema, 1));
            for (value, label) in [
                (&desc.output_schema, "Output schema"),
                (
                    &desc.server_claimed_annotations,
                    "Annotations (server-claimed)",
                ),
                (&desc.meta, "_meta"),
            ] {
                let Some(v) = value.as_ref().filter(|v| !v.is_null()) else {
                    continue;
                };
                lines.push(Line::raw(""));
                lines.push(tinted(label, theme().accent));
                lines.extend(
                    json_lines(v)
                        .into_iter()
                        .map(|l| Line::raw(format!("  {l}"))),
                );
            }
        }
    }
    let visible: Vec<Line> = lines.into_iter().skip(d.scroll).collect();
    frame.render_widget(Paragraph::new(visible).wrap(Wrap { trim: false }), area);
}

/// An input schema as a field tree: name, type, required mark, description.
fn field_tree(schema: &serde_json::Value, depth: usize) -> Vec<Line<'static>> {
    let mut out = Vec::new();
    let required: Vec<&str> = schema
        .get("required")
        .and_then(|r| r.as_array())
        .map(|r| r.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default();
    let Some(props) = schema.get("properties").and_then(|p| p.as_object()) else {
        return out;
    };
    for (name, prop) in props {
        let ty = prop
            .get("type")
            .map(|t| t.as_str().map_or_else(|| t.to_string(), str::to_owned))
            .or_else(|| prop.get("enum").map(|e| format!("enum {e}")))
            .or_else(|| prop.get("anyOf").map(|_| "anyOf".to_owned()))
            .unwrap_or_else(|| "any".to_owned());
        let star = if required.contains(&name.as_str()) {
            "*"
        } else {
            ""
        };
        let desc = prop
            .get("description")
            .and_then(|d| d.as_str())
            .unwrap_or("");
        out.push(Line::from(vec![
            Span::raw("  ".repeat(depth)),
            Span::styled(format!("{name}{star}"), fg(theme().text)),
            Span::styled(format!(" : {ty}  "), fg(theme().kind)),
            Span::styled(desc.replace('\n', " "), fg(theme().muted)),
        ]));
        if depth < 4 {
            out.extend(field_tree(prop, depth + 1));
            if let Some(items) = prop.get("items") {
                out.extend(field_tree(items, depth + 1));
            }
        }
    }
    out
}

/// The spinner frame for `elapsed`.
pub fn spinner(elapsed: std::time::Duration) -> &'static str {
    const FRAMES: [&str; 8] = ["⣾", "⣽", "⣻", "⢿", "⡿", "⣟", "⣯", "⣷"];
    let at = usize::try_from(elapsed.as_millis() / 100).unwrap_or(0) % FRAMES.len();
    FRAMES[at]
}

/// Draws a running call.
pub fn render_running(app: &App, run: &Running, frame: &mut Frame, area: Rect) {
    let elapsed = app.now.saturating_duration_since(run.started);
    let [head, gauge, msg] = Layout::vertical([
        Constraint::Length(2),
        Constraint::Length(1),
        Constraint::Min(0),
    ])
    .areas(area);
    let what = if run.cancelling {
        "cancelling"
    } else {
        "running"
    };
    frame.render_widget(
        Paragraph::new(vec![
            Line::from(format!(
                "{} {what} {} · {:.1}s",
                spinner(elapsed),
                target_name(&run.form),
                elapsed.as_secs_f64()
            )),
            tinted(super::hint_text(app, &[Ctx::Running]), theme().dim),
        ]),
        head,
    );
    if let Some(p) = &run.progress {
        frame.render_widget(Paragraph::new(progress_line(p, gauge.width)), gauge);
        if let Some(m) = &p.message {
            frame.render_widget(Paragraph::new(m.clone()).wrap(Wrap { trim: false }), msg);
        }
    }
}

/// A progress report as a bar with the count beside it (`████░░░░ 3/10`), or the count alone
/// when the total is unknown.
pub fn progress_line(p: &Progress, width: u16) -> Line<'static> {
    let count = match p.total {
        Some(total) => format!(" {}/{}", number(p.done), number(total)),
        None => format!("progress {}", number(p.done)),
    };
    let Some(total) = p.total.filter(|t| *t > 0.0) else {
        return Line::raw(count);
    };
    let bar_w = u8::try_from(usize::from(width).saturating_sub(count.chars().count()))
        .unwrap_or(40)
        .min(40);
    let ratio = (p.done / total).clamp(0.0, 1.0);
    // The bar is at most 40 cells: the rounded product fits and is not negative.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let filled = ((ratio * f64::from(bar_w)).round() as usize).min(usize::from(bar_w));
    let bar_w = usize::from(bar_w);
    Line::from(vec![
        Span::styled("█".repeat(filled), fg(theme().accent)),
        Span::styled("░".repeat(bar_w - filled), fg(theme().dim)),
        Span::raw(count),
    ])
}

/// A progress number as a person writes it: `3`, not `3.0`.
fn number(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{n:.0}")
    } else {
        format!("{n}")
    }
}

/// What the poisoning scan found in a definition (sanitised by the app): a heading, then each
/// finding (rule, field, line and column, excerpt); nothing when it found nothing.
pub(super) fn findings_lines(findings: &[String]) -> Vec<Line<'static>> {
    if findings.is_empty() {
        return Vec::new();
    }
    let count = findings.len();
    let noun = if count == 1 { "finding" } else { "findings" };
    let heading = format!("⚑ {count} poisoning-scan {noun}");
    let mut lines = vec![tinted(heading, theme().warn)];
    let muted = fg(theme().muted);
    lines.extend(
        findings
            .iter()
            .map(|f| Line::styled(format!("  {f}"), muted)),
    );
    lines
}
