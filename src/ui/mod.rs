//! Console drawing: a pure function of [`App`] state. No IO, no locks, no engine
//! calls; lists build only their visible window. Every string drawn here was sanitised when it
//! entered the state.

mod agents_view;
mod approval;
mod call_form;
mod calls;
mod completion;
mod editor;
mod elicitation;
mod help;
mod hosts;
mod key_help;
mod layers;
mod log_tab;
mod main_pane;
mod overlays;
mod pager;
mod panels;
mod policy_view;
mod result_links;
mod roots_view;
mod sampling;
mod server_list;
mod side;
mod skills_tab;
mod spills_view;
mod tabs;
mod tasks_view;
pub mod theme;
mod tools_tab;
mod viewer;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use crate::app::App;
use crate::app::keymap::{Action, Ctx};
use theme::{fg, theme};
use unicode_width::UnicodeWidthStr;

/// Draws the whole console: its layer stack, back to front.
pub fn render(app: &App, frame: &mut Frame) {
    let size = frame.area();
    let a = app.areas_for((size.width, size.height));
    layers::render(app, frame, &a);
}

/// The base layer: the panes, the status line and the footer.
fn render_panes(app: &App, frame: &mut Frame, a: &crate::app::layout::Areas) {
    server_list::server_list(app, frame, a.servers);
    main_pane::render(app, frame, a);
    if app.side_panel {
        side::render(app, frame, a.side);
    }
    render_status(app, frame, a.status);
    render_footer(app, frame, a.footer);
}

/// The border style of a pane with or without the focus.
fn pane_block(title: Line<'_>, focused: bool) -> Block<'_> {
    let style = if focused {
        fg(theme().accent)
    } else {
        fg(theme().dim)
    };
    Block::new()
        .borders(Borders::ALL)
        .border_style(style)
        .title(title)
}

/// The status line, wrapped onto the rows the layout gave it.
fn render_status(app: &App, frame: &mut Frame, area: Rect) {
    let rows: Vec<Line> =
        crate::app::viewer::wrap_words(&app.status_text(), usize::from(area.width))
            .into_iter()
            .map(Line::from)
            .collect();
    frame.render_widget(
        Paragraph::new(rows).style(fg(theme().on_accent).bg(theme().muted)),
        area,
    );
}

/// The hints of `contexts` as one line of text: `y copy · Esc close`.
pub(crate) fn hint_text(app: &App, contexts: &[Ctx]) -> String {
    app.keymap
        .hints(contexts)
        .iter()
        .map(|(key, desc)| format!("{key} {desc}"))
        .collect::<Vec<_>>()
        .join(" · ")
}

/// The footer: the focused component's hints, the most important first; when they do not fit,
/// as many as fit and then the help key with "more".
fn render_footer(app: &App, frame: &mut Frame, area: Rect) {
    let contexts = app.contexts();
    let mut hints = layers::hints(app, &contexts);
    // The help key of the contexts in force: `?` where keys do not type, the component's own
    // (`F1`) in the editor and the form.
    let help = contexts
        .iter()
        .find_map(|ctx| app.keymap.key_for(*ctx, Action::Help));
    let more = help.as_ref().map(|k| format!(" {k} more"));
    let width = usize::from(area.width);
    let cost = |key: &str, desc: &str| key.width() + desc.width() + 3;
    let total: usize = hints.iter().map(|(k, d)| cost(k, d)).sum();
    if total > width {
        // "? more" stands for the help key's own hint.
        hints.retain(|(k, _)| Some(k) != help.as_ref());
    }
    let room = if total > width {
        width.saturating_sub(more.as_deref().map_or(0, UnicodeWidthStr::width))
    } else {
        width
    };
    let mut spans = Vec::new();
    let mut used = 0;
    for (key, desc) in &hints {
        used += cost(key, desc);
        if used > room {
            break;
        }
        spans.push(Span::styled(format!(" {key}"), fg(theme().accent)));
        spans.push(Span::raw(format!(" {desc} ")));
    }
    if total > width
        && let Some(more) = more
    {
        spans.push(Span::styled(more, fg(theme().accent)));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

#[cfg(test)]
mod annotations_tests;
#[cfg(test)]
mod approval_tests;
#[cfg(test)]
mod client_tests;
#[cfg(test)]
mod completion_tests;
#[cfg(test)]
mod drift_tests;
#[cfg(test)]
mod hosts_tests;
#[cfg(test)]
mod key_help_tests;
#[cfg(test)]
mod live_tests;
#[cfg(test)]
mod pager_tests;
#[cfg(test)]
mod raw_json_tests;
#[cfg(test)]
mod sandbox_tests;
#[cfg(test)]
mod scan_marks_tests;
#[cfg(test)]
mod session_tests;
#[cfg(test)]
mod skills_tests;
#[cfg(test)]
pub(crate) mod tests;
#[cfg(test)]
mod trial_tests;
#[cfg(test)]
mod views_tests;
