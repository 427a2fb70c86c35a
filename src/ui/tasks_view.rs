//! Draws the Tasks view: one row per task of the server (id, status, created, time to live,
//! the server's status message), the selection reversed; loading and failures in words.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::theme::theme;
use crate::app::tasks_view::TasksView;
use crate::app::{App, Load};

fn dim_style() -> Style {
    Style::new().fg(theme().dim)
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

/// Draws `view` in `area`.
pub fn render(_app: &App, view: &TasksView, frame: &mut Frame, area: Rect) {
    let title = format!("Tasks of {}", view.server);
    let (inner, block) = super::overlays::popup(frame, area, &title, theme().accent);
    frame.render_widget(block, area);
    let mut lines = vec![Line::styled(
        format!(
            "{:<15}{:<10}{:<22}{:<34} message",
            "status", "ttl", "created", "id"
        ),
        dim_style(),
    )];
    match &view.tasks {
        Load::Idle | Load::Loading(_) => lines.push(Line::styled("listing tasks…", dim_style())),
        Load::Failed(class, message) => lines.push(Line::styled(
            format!("{class}: {message}"),
            Style::new().fg(theme().error),
        )),
        Load::Ready(tasks) if tasks.is_empty() => lines.push(Line::styled(
            "No tasks on this session (a tool run as a task appears here while the server keeps it).",
            dim_style(),
        )),
        Load::Ready(tasks) => {
            let height = usize::from(inner.height).saturating_sub(1);
            let start = crate::app::layout::window_start(view.sel, height);
            for (i, t) in tasks.iter().enumerate().skip(start).take(height) {
                let mut line = Line::from(vec![
                    Span::styled(
                        format!("{:<15}", t.status),
                        Style::new().fg(status_color(&t.status)),
                    ),
                    Span::raw(format!(
                        "{:<10}{:<22}{:<34} ",
                        ttl(t.ttl_ms),
                        t.created_at.as_deref().unwrap_or("—"),
                        t.task_id
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
