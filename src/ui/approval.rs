//! Drawing the approval modal, always in front: who asks, the server, the operation, the
//! effects (labelled server-claimed when they come from the tool's annotations), changed
//! definitions and what the poisoning scan finds in the tool, the first 4 KiB of the arguments
//! (as many rows as fit) and the keys; the "always" confirmation; and, when asked for, all of
//! the arguments in the one text viewer.

use ratatui::Frame;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::theme::{fg, theme, tinted};
use super::viewer::wrap_styled;
use crate::app::App;
use crate::app::approval::Pending;
use crate::app::keymap::{Action, Ctx};
use crate::app::layout::{Areas, centered};
use crate::app::viewer::wrap;
use crate::mcp::policy::approval_text;

fn field(label: &str, value: String, style: Style) -> Line<'static> {
    Line::from(vec![
        Span::styled(format!("{label:<11}"), fg(theme().dim)),
        Span::styled(value, style),
    ])
}

/// The lines above the arguments: who, what, the effects and warnings.
fn header(app: &App, pending: &Pending) -> Vec<Line<'static>> {
    let r = &pending.request;
    let mut lines = Vec::new();
    if let Some(pid) = pending.agent {
        let project = app
            .agents
            .iter()
            .find(|a| a.pid == pid)
            .map(|a| format!("  {}", a.project))
            .unwrap_or_default();
        lines.push(field(
            "agent",
            format!("mcpdeck serve pid {pid}{project}"),
            fg(theme().warn),
        ));
    }
    lines.push(field("server", r.server.clone(), Style::new()));
    lines.push(field("operation", r.operation.clone(), Style::new()));
    lines.push(field("effects", approval_text::effects(r), Style::new()));
    if let Some(sandbox) = &r.sandbox {
        lines.push(tinted(format!("sandboxed: {sandbox}"), theme().dim));
    }
    if r.server_changed {
        lines.push(tinted(
            "⚠ the server's definition changed this session",
            theme().warn,
        ));
    }
    if r.tool_changed {
        lines.push(tinted(
            "⚠ the tool's definition changed since it was listed",
            theme().warn,
        ));
    }
    // The drift from its pins across restarts: what changed, then the diff (sanitised).
    for (i, line) in r.drift.iter().take(12).enumerate() {
        let style = if i == 0 {
            fg(theme().warn)
        } else {
            fg(theme().muted)
        };
        lines.push(Line::styled(format!("  {line}"), style));
    }
    // What the poisoning scan finds in the tool's definition (sanitised by the engine).
    if !r.findings.is_empty() {
        lines.push(tinted(
            "⚑ the poisoning scan flags the tool's definition:",
            theme().warn,
        ));
    }
    for line in r.findings.iter().take(6) {
        lines.push(tinted(format!("  {line}"), theme().muted));
    }
    if r.findings.len() > 6 {
        lines.push(Line::styled(
            format!(
                "  … {} more (`mcpdeck scan {}`)",
                r.findings.len() - 6,
                r.server
            ),
            fg(theme().dim),
        ));
    }
    lines
}

/// The lines below the arguments: the queue and the keys (or the "always" question). The key
/// that shows all the arguments is offered only when `offer_view` (some do not fit).
fn footer(app: &App, pending: &Pending, offer_view: bool) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    if app.approvals.len() > 1 {
        lines.push(tinted(
            format!("({} more waiting)", app.approvals.len() - 1),
            theme().dim,
        ));
    }
    if pending.confirming_always {
        let file = app
            .policy_path
            .as_ref()
            .map(|p| crate::mcp::sanitize::sanitize(&p.display().to_string()).into_owned())
            .unwrap_or_default();
        lines.push(Line::styled(
            format!(
                "Add the allow rule `{}` to {file}? Type y to add it and allow; any other key goes back.",
                pending.always_rule()
            ),
            fg(theme().on_accent).bg(theme().warn),
        ));
        return lines;
    }
    let keys = if pending.armed(app.now) {
        approval_hints(app, offer_view)
            .iter()
            .map(|(key, desc)| format!("{key} {desc}"))
            .collect::<Vec<_>>()
            .join(" · ")
    } else {
        "(keys are ignored for a moment)".to_owned()
    };
    lines.push(tinted(keys, theme().accent));
    lines
}

/// Draws the approval in front: the modal, or its arguments in the viewer.
pub fn render(app: &App, pending: &Pending, frame: &mut Frame, a: &Areas) {
    if let Some(viewer) = &pending.viewer {
        let title = format!(
            "Arguments · {} on {}",
            pending.request.operation, pending.request.server
        );
        let inner = super::overlays::framed(frame, a.big, &title, theme().warn);
        super::viewer::render_viewer(viewer, &pending.arguments, None, frame, inner);
        return;
    }
    let body = a.overlay;
    let width = body.width.saturating_sub(8).clamp(40, 96).min(body.width);
    let (mut lines, all_fit) = modal_lines(app, pending, body, width, true);
    if all_fit {
        lines = modal_lines(app, pending, body, width, false).0;
    }
    let height = u16::try_from(lines.len() + 2).unwrap_or(u16::MAX);
    let area = centered(body, width, height);
    let title = approval_text::question(&pending.request);
    let inner = super::overlays::framed(frame, area, &title, theme().warn);
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The modal's lines for a box `width` wide in `body`, and whether every argument line shows
/// whole (then the key that shows them all in the viewer need not be offered).
fn modal_lines(
    app: &App,
    pending: &Pending,
    body: ratatui::layout::Rect,
    width: u16,
    offer_view: bool,
) -> (Vec<Line<'static>>, bool) {
    let inner_width = usize::from(width.saturating_sub(2)).max(1);
    // Every line is cut here, so the height is known: the arguments get the rows left over.
    let cut = |lines: Vec<Line<'static>>| -> Vec<Line<'static>> {
        lines
            .iter()
            .flat_map(|l| wrap_styled(l, inner_width))
            .collect()
    };
    let mut head = cut(header(app, pending));
    let foot = cut(footer(app, pending, offer_view));
    // The keys always show: a header taller than the box (a long drift, many findings on a
    // small terminal) leaves out its last rows, and says how many.
    let most = usize::from(body.height).saturating_sub(foot.len() + 2);
    if head.len() > most && most > 1 {
        let left_out = head.len() - (most - 1);
        head.truncate(most - 1);
        head.push(tinted(
            format!("… {left_out} rows more: enlarge the terminal"),
            theme().dim,
        ));
    }
    let room = usize::from(body.height).saturating_sub(head.len() + foot.len() + 2);
    let mut lines = head;
    // The arguments take the rows left over; their title says how many lines that is, and it
    // may wrap, which leaves fewer rows: settle both.
    let mut title_rows = 1;
    let all_fit = loop {
        let (args, title, fit) =
            arguments(pending, inner_width, room.saturating_sub(title_rows), app);
        let Some(title) = title.map(|t| cut(vec![t])) else {
            break fit;
        };
        if title.len() > title_rows && title.len() < room {
            title_rows = title.len();
            continue;
        }
        if title.len() > room {
            break false;
        }
        let left = room - title.len();
        let whole = fit && args.len() <= left;
        lines.extend(title);
        lines.extend(args.into_iter().take(left));
        break whole;
    };
    lines.extend(foot);
    (lines, all_fit)
}

/// Whether every argument of `pending` shows whole in the modal at the console's size.
pub(super) fn arguments_fit(app: &App, pending: &Pending) -> bool {
    let body = app.areas().overlay;
    let width = body.width.saturating_sub(8).clamp(40, 96).min(body.width);
    modal_lines(app, pending, body, width, true).1
}

/// The approval's key hints; the "all arguments" key only when `offer_view`.
pub(super) fn approval_hints(app: &App, offer_view: bool) -> Vec<(String, &str)> {
    let view = app.keymap.key_for(Ctx::Approval, Action::ViewArguments);
    let mut hints = app.keymap.hints(&[Ctx::Approval]);
    if !offer_view {
        hints.retain(|(key, _)| Some(key) != view.as_ref());
    }
    hints
}

/// The argument rows that fit in `room` rows (within the first 4 KiB), and the line that
/// introduces them (saying how much more the viewer shows; `None` when there are none), and
/// whether every line shows whole.
fn arguments(
    pending: &Pending,
    width: usize,
    room: usize,
    app: &App,
) -> (Vec<Line<'static>>, Option<Line<'static>>, bool) {
    if pending.arguments.is_empty() {
        return (Vec::new(), None, true);
    }
    let mut out = Vec::new();
    let mut lines_shown = 0;
    let shown = pending.shown_arguments();
    'fill: for (line, whole) in shown.iter().zip(&pending.arguments) {
        for row in wrap(&format!("  {line}"), width) {
            if out.len() >= room {
                break 'fill;
            }
            out.push(Line::raw(row));
        }
        if line == whole {
            lines_shown += 1;
        }
    }
    let total = pending.arguments.len();
    let mut title = "arguments".to_owned();
    if lines_shown < total {
        let key = app
            .keymap
            .key_for(Ctx::Approval, Action::ViewArguments)
            .map(|k| format!(" · {k} shows all"))
            .unwrap_or_default();
        title = format!("arguments (lines 1–{lines_shown} of {total}{key})");
    }
    let title = tinted(title, theme().dim);
    (out, Some(title), lines_shown == total)
}
