//! Draws the Tasks view: one row per task of the server (id, status, created, last updated when
//! the server says, time to live, the server's status message), the selection reversed;
//! loading and failures in words. On a server whose protocol has no `tasks/list` (2026-07-28)
//! a first line says so, and the rows are the tasks this session started.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::theme::{fg, theme, tinted};
use crate::app::tasks_view::TasksView;
use crate::app::{App, Load};
use crate::mcp::api::TaskInfo;

fn dim_style() -> Style {
    fg(theme().dim)
}

fn status_color(status: &str) -> Color {
    match status {
        "completed" => theme().ok,
        "failed" => theme().error,
        "cancelled" => theme().dim,
        "input_required" => theme().kind,
        _ => theme().warn,
    }
}

fn ttl(ms: Option<u64>) -> String {
    match ms {
        None => "no limit".to_owned(),
        Some(ms) if ms >= 60_000 => format!("{} min", ms / 60_000),
        Some(ms) => format!("{} s", ms / 1000),
    }
}

/// Columns apart by this many spaces, so no two run together.
const GAP: usize = 2;
/// The message column keeps at least this many columns while the id gives way.
const MESSAGE_ROOM: usize = 12;
/// An id never narrower than this (its ends stay, its middle gives way to `…`).
const MIN_ID: usize = 9;

/// The widths of the status, ttl, created, updated and id columns for `tasks` in `width`
/// columns: each as wide as its widest cell (or heading), updated 0 when no task says; when the
/// row would leave the message less than [`MESSAGE_ROOM`], the id narrows first.
fn widths(tasks: &[TaskInfo], width: usize) -> [usize; 5] {
    let widest = |heading: &str, cell: &dyn Fn(&TaskInfo) -> String| {
        tasks
            .iter()
            .map(|t| cell(t).chars().count())
            .chain(std::iter::once(heading.chars().count()))
            .max()
            .unwrap_or(0)
    };
    let status = widest("status", &|t| t.status.clone());
    let ttl_w = widest("ttl", &|t| ttl(t.ttl_ms));
    let created = widest("created", &|t| created(t).to_owned());
    let updated = if tasks.iter().any(|t| t.last_updated_at.is_some()) {
        widest("updated", &|t| updated(t).to_owned())
    } else {
        0
    };
    let id = widest("id", &|t| t.task_id.clone());
    let gaps = if updated > 0 { 5 } else { 4 };
    let fixed = status + ttl_w + created + updated + gaps * GAP;
    let id = id.min(width.saturating_sub(fixed + MESSAGE_ROOM).max(MIN_ID));
    [status, ttl_w, created, updated, id]
}

fn created(t: &TaskInfo) -> &str {
    t.created_at.as_deref().unwrap_or("—")
}

/// When the task last changed: only the time when it is the day it was created on.
fn updated(t: &TaskInfo) -> &str {
    let Some(updated) = t.last_updated_at.as_deref() else {
        return "—";
    };
    let day = |s: &str| s.find('T').map(|at| s[..=at].to_owned());
    match (day(updated), t.created_at.as_deref().and_then(day)) {
        (Some(u), Some(c)) if u == c => &updated[u.len()..],
        _ => updated,
    }
}

/// The updated column's cell (nothing when the column is not shown).
fn updated_cell(t: Option<&TaskInfo>, width: usize) -> String {
    match (t, width) {
        (_, 0) => String::new(),
        (None, w) => cell("updated", w),
        (Some(t), w) => cell(updated(t), w),
    }
}

/// The first line of a view listing the tasks this session started.
const KNOWN_NOTE: &str = "Protocol 2026-07-28 has no tasks/list or tasks/result: the tasks this \
session started, as last polled.";

/// `text` padded to `width` and the gap; when longer, its middle gives way to `…`.
fn cell(text: &str, width: usize) -> String {
    let chars: Vec<char> = text.chars().collect();
    let shown = if chars.len() <= width {
        text.to_owned()
    } else {
        let kept = width.saturating_sub(1);
        let tail = kept / 2;
        let head: String = chars[..kept - tail].iter().collect();
        let end: String = chars[chars.len() - tail..].iter().collect();
        format!("{head}…{end}")
    };
    format!("{shown:<width$}{}", " ".repeat(GAP))
}

/// Draws `view` in `area`.
pub fn render(_app: &App, view: &TasksView, frame: &mut Frame, area: Rect) {
    let title = format!("Tasks of {}", view.server);
    let (inner, block) = super::overlays::popup(frame, area, &title, theme().accent);
    frame.render_widget(block, area);
    let tasks = match &view.tasks {
        Load::Ready(tasks) => tasks.as_slice(),
        _ => &[],
    };
    let [status_w, ttl_w, created_w, updated_w, id_w] = widths(tasks, usize::from(inner.width));
    let mut lines = Vec::new();
    if view.known {
        let rows = crate::app::viewer::wrap_words(KNOWN_NOTE, usize::from(inner.width).max(1));
        lines.extend(
            rows.into_iter()
                .map(|r| tinted(r.trim_start().to_owned(), theme().warn)),
        );
    }
    lines.push(Line::styled(
        format!(
            "{}{}{}{}{}message",
            cell("status", status_w),
            cell("ttl", ttl_w),
            cell("created", created_w),
            updated_cell(None, updated_w),
            cell("id", id_w)
        ),
        dim_style(),
    ));
    match &view.tasks {
        Load::Idle | Load::Loading(_) => lines.push(Line::styled("listing tasks…", dim_style())),
        Load::Failed(class, message) => lines.push(tinted(
            format!("{class}: {message}"),
            theme().error,
        )),
        Load::Ready(tasks) if tasks.is_empty() && view.known => lines.push(Line::styled(
            "No task started on this session yet (a tool the server runs as a task appears here).",
            dim_style(),
        )),
        Load::Ready(tasks) if tasks.is_empty() => lines.push(Line::styled(
            "No tasks on this session (a tool run as a task appears here while the server keeps it).",
            dim_style(),
        )),
        Load::Ready(tasks) => {
            let height = usize::from(inner.height).saturating_sub(lines.len());
            let start = crate::app::layout::window_start(view.sel, height);
            for (i, t) in tasks.iter().enumerate().skip(start).take(height) {
                let mut line = Line::from(vec![
                    Span::styled(
                        cell(&t.status, status_w),
                        Style::new().fg(status_color(&t.status)),
                    ),
                    Span::raw(format!(
                        "{}{}{}{}",
                        cell(&ttl(t.ttl_ms), ttl_w),
                        cell(created(t), created_w),
                        updated_cell(Some(t), updated_w),
                        cell(&t.task_id, id_w)
                    )),
                    Span::styled(t.status_message.clone().unwrap_or_default(), dim_style()),
                ]);
                if i == view.sel {
                    line = line.style(Style::new().add_modifier(Modifier::REVERSED));
                }
                lines.push(line);
            }
        }
    }
    frame.render_widget(Paragraph::new(lines), inner);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(id: &str, status: &str, created: &str) -> TaskInfo {
        TaskInfo {
            task_id: id.into(),
            status: status.into(),
            status_message: None,
            created_at: Some(created.into()),
            ttl_ms: None,
            poll_interval_ms: None,
            last_updated_at: None,
        }
    }

    /// Cells longer than the old fixed columns (a fractional timestamp, a long id, a long
    /// status) keep a gap before the next column.
    #[test]
    fn columns_never_run_together() {
        let tasks = [
            task(
                "a-task-id-much-longer-than-thirty-four-characters-0001",
                "input_required",
                "2026-12-01T03:00:00.123456789+01:00",
            ),
            task("t2", "working", "2026-12-01T03:00:00Z"),
        ];
        let w = widths(&tasks, 120);
        assert_eq!(w[..4], [14, 8, 35, 0]);
        let row = |t: &TaskInfo| {
            format!(
                "{}{}{}{}",
                cell(&t.status, w[0]),
                cell(&ttl(t.ttl_ms), w[1]),
                cell(created(t), w[2]),
                cell(&t.task_id, w[4])
            )
        };
        let first = row(&tasks[0]);
        assert!(first.contains("input_required  no limit  2026-12-01T03:00:00.123456789+01:00  "));
        assert!(first.ends_with("  "), "{first:?}");
        assert!(first.chars().count() <= 120 - MESSAGE_ROOM, "{first}");
        assert!(first.contains('…'), "the id gave way: {first}");
        let second = row(&tasks[1]);
        assert!(
            second.starts_with("working         no limit  2026-12-01T03:00:00Z"),
            "{second}"
        );
    }
}
