//! The Log tab: notifications and JSON-RPC traffic, newest at the bottom (the selection scrolls
//! back; Enter opens a traffic line's body), and under them the stdio server's kept stderr.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::theme::{fg, theme, tinted};
use crate::app::tabs::LogTab;

/// The list's and the stderr block's areas (the block only when there is stderr).
pub fn split(pane: &LogTab, area: Rect) -> (Rect, Rect) {
    if pane.stderr.is_empty() {
        return (area, Rect::default());
    }
    let want = u16::try_from(pane.stderr.len() + 1)
        .unwrap_or(u16::MAX)
        .min(area.height / 3)
        .max(2);
    let [list, stderr] =
        Layout::vertical([Constraint::Min(1), Constraint::Length(want)]).areas(area);
    (list, stderr)
}

/// How the log list is shown.
pub struct Shown<'a> {
    /// The selected line (counted back from the newest).
    pub sel: usize,
    /// Whether the list has the focus.
    pub focused: bool,
    /// The key that shows the next filter, as the keymap says (none when unbound).
    pub next_key: Option<&'a str>,
    /// The log level asked of the server this session, if any.
    pub level: Option<&'a str>,
}

/// The colour of a server log message of `level` (the line's kind), if it is one.
fn level_color(level: &str) -> Option<Style> {
    let style = Style::new();
    Some(match level {
        "debug" => style.fg(theme().dim),
        "info" => style.fg(theme().accent),
        "notice" => style.fg(theme().link),
        "warning" => style.fg(theme().warn),
        "error" => style.fg(theme().error),
        "critical" | "alert" | "emergency" => style.fg(theme().error).add_modifier(Modifier::BOLD),
        _ => return None,
    })
}

/// One line: its kind coloured (a log message's level and logger by level), then its text.
fn log_line(l: &crate::app::LogLine) -> Line<'static> {
    if let Some(style) = level_color(l.kind) {
        let mut spans = vec![Span::styled(format!("{:<8} ", l.kind), style)];
        let logger = l
            .logger
            .as_deref()
            .map(|g| format!("{g}: "))
            .filter(|p| l.text.starts_with(p.as_str()));
        match logger {
            Some(prefix) => {
                let rest = l.text[prefix.len()..].to_owned();
                spans.push(Span::styled(prefix, style.add_modifier(Modifier::ITALIC)));
                spans.push(Span::raw(rest));
            }
            None => spans.push(Span::raw(l.text.clone())),
        }
        return Line::from(spans);
    }
    let color = match l.kind {
        "→ sent" => theme().link,
        "← recv" => theme().ok,
        "exited" => theme().error,
        _ => theme().accent,
    };
    Line::from(vec![
        Span::styled(format!("{:<9}", l.kind), Style::new().fg(color)),
        Span::raw(l.text.clone()),
    ])
}

/// Draws the [`LogTab`] component: the log list into `list` and the stderr tail into `stderr`.
pub fn log_tab(pane: &LogTab, shown: &Shown, frame: &mut Frame, list: Rect, stderr: Rect) {
    let height = usize::from(list.height);
    let log = pane.visible();
    let mut lines = Vec::new();
    if let Some(level) = shown.level {
        lines.push(tinted(
            format!("server log level: {level} and up"),
            theme().dim,
        ));
    }
    if pane.shown != crate::app::LogFilter::All {
        lines.push(Line::styled(
            match shown.next_key {
                Some(key) => format!("showing {} ({key}: next)", pane.shown.label()),
                None => format!("showing {}", pane.shown.label()),
            },
            fg(theme().dim),
        ));
    }
    let height = height.saturating_sub(lines.len());
    if log.is_empty() {
        lines.push(tinted(
            "Nothing yet: progress, logging, list_changed, exits and the JSON-RPC traffic appear here.",
            theme().dim,
        ));
    }
    let len = log.len();
    let (sel, focused) = (shown.sel, shown.focused);
    let selected = len.checked_sub(sel.min(len.saturating_sub(1)) + 1);
    let skip = len.saturating_sub(height + sel.min(len));
    lines.extend(
        log.iter()
            .enumerate()
            .skip(skip)
            .take(height)
            .map(|(i, l)| {
                let line = log_line(l);
                if focused && Some(i) == selected {
                    line.style(Style::new().add_modifier(Modifier::REVERSED))
                } else {
                    line
                }
            }),
    );
    frame.render_widget(Paragraph::new(lines), list);
    if stderr.height == 0 {
        return;
    }
    let block = Block::new()
        .borders(Borders::TOP)
        .border_style(fg(theme().dim))
        .title(tinted(" stderr ", theme().dim));
    let inner = block.inner(stderr);
    frame.render_widget(block, stderr);
    let shown = usize::from(inner.height);
    let tail: Vec<Line> = pane
        .stderr
        .iter()
        .skip(pane.stderr.len().saturating_sub(shown))
        .map(|l| tinted(l.clone(), theme().muted))
        .collect();
    frame.render_widget(Paragraph::new(tail), inner);
}
