//! Draws the call form's suggestion list (the app side is `app::completion`): a box at the
//! bottom of the form naming the argument, at most [`VISIBLE`] suggestions around the
//! highlight, and how many there are in all. Every value was sanitised where it entered the
//! app.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::Line;

use super::theme::{fg, theme, tinted};
use crate::app::completion::{CompletionList, VISIBLE};
use crate::app::{App, Load, Screen};

/// Draws the open list over the bottom of `body` (the form's area), if a list is open for the
/// form in front.
pub fn render(app: &App, frame: &mut Frame, body: Rect) {
    let Some(list) = &app.completer.open else {
        return;
    };
    if !matches!(&app.screen, Screen::Form(f) if f.focus == list.field) {
        return;
    }
    // Half the form at most, so the field being completed stays in sight.
    let rows = usize::from(body.height / 2)
        .saturating_sub(3)
        .clamp(1, VISIBLE);
    let lines = list_lines(list, usize::from(body.width.saturating_sub(2)), rows);
    let title = format!(" {} — completions ", list.label);
    super::overlays::bottom_box(frame, body, title, lines);
}

/// The list's rows: the suggestions around the highlight, then a count or a state line.
fn list_lines(list: &CompletionList, width: usize, rows: usize) -> Vec<Line<'static>> {
    let dim = fg(theme().dim);
    let waiting = if list.due.is_some() {
        " (typing…)"
    } else {
        ""
    };
    match &list.load {
        Load::Idle | Load::Loading(_) => {
            vec![Line::styled(format!("asking the server…{waiting}"), dim)]
        }
        Load::Failed(class, message) => {
            vec![tinted(format!("✗ {class}: {message}"), theme().error)]
        }
        Load::Ready(s) if s.values.is_empty() => {
            vec![Line::styled(format!("no suggestions{waiting}"), dim)]
        }
        Load::Ready(s) => {
            let start = list.sel.saturating_sub(rows - 1);
            let mut lines: Vec<Line> = s
                .values
                .iter()
                .enumerate()
                .skip(start)
                .take(rows)
                .map(|(i, v)| {
                    let text: String = v.chars().take(width.saturating_sub(2)).collect();
                    if i == list.sel {
                        Line::styled(
                            format!("> {text}"),
                            Style::new()
                                .fg(theme().on_accent)
                                .bg(theme().accent)
                                .add_modifier(Modifier::BOLD),
                        )
                    } else {
                        Line::raw(format!("  {text}"))
                    }
                })
                .collect();
            let shown = s.values.len();
            let count = match s.total {
                Some(total) => format!("{shown} of {total}"),
                None if s.has_more => format!("{shown}, more exist"),
                None => format!("{shown}"),
            };
            lines.push(Line::styled(format!("{count}{waiting}"), dim));
            lines
        }
    }
}
