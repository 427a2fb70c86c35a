//! The main pane: the selected server's title, the tab bar, and whichever screen is in front
//! (the tab's list, a tool's detail, the call form or raw editor, a running call, a result).

use crate::app::ResultScreen;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::pane_block;
use super::theme::{fg, theme};
use crate::app::form::Form;
use crate::app::info::{InfoLine, Tone};
use crate::app::{App, Focus, HeaderKind, ResultView, Screen};

/// Draws the main pane into `area`.
pub fn render(app: &App, frame: &mut Frame, a: &crate::app::layout::Areas) {
    let (area, tabs, body) = (a.main, a.tabs, a.body);
    let title = match app.server() {
        Some(s) => {
            let mut t = format!(" {} · {} · {}", s.name, app.state_label(s), s.transport);
            if let Some(auth) = app.auth_line(&s.name) {
                t.push_str(" · ");
                t.push_str(&auth);
            }
            // What the server may reach before its own words: the roots (short), then whether it
            // is confined; the title is cut where the pane ends (the Config tab has the rules
            // whole).
            if let Some(roots) = &s.roots {
                t.push_str(" · roots: ");
                t.push_str(roots);
            }
            if let Some(sandbox) = &s.sandbox {
                t.push_str(" · sandboxed: ");
                t.push_str(sandbox);
            }
            if let Some(info) = &s.info {
                t.push_str(" · ");
                t.push_str(info);
            }
            t.push(' ');
            t
        }
        None => " no servers configured ".to_owned(),
    };
    let block = pane_block(Line::from(title), app.focus == Focus::Main);
    frame.render_widget(block, area);
    render_tabs(app, frame, tabs);
    match &app.screen {
        Screen::Browse => super::tabs::render_tab(app, frame, body),
        Screen::Detail(d) => super::calls::render_detail(d, frame, body),
        Screen::Form(form) => {
            super::call_form::call_form(form, frame, body);
            super::completion::render(app, frame, body);
        }
        Screen::Raw(raw) => super::call_form::raw_form(app, raw, frame, body),
        Screen::Running(run) => super::calls::render_running(app, run, frame, body),
        Screen::Result(ResultScreen { view, .. }) => {
            render_result(view, frame, body);
            super::result_links::render(view, frame, body);
        }
    }
}

pub(super) fn target_name(form: &Form) -> String {
    match &form.target {
        crate::app::form::Target::Tool(t) => format!("call {t}"),
        crate::app::form::Target::Prompt(p) => format!("prompt {p}"),
        crate::app::form::Target::Template(t) => format!("read template {t}"),
        crate::app::form::Target::Uri => "read a resource by URI".to_owned(),
    }
}

fn render_tabs(app: &App, frame: &mut Frame, area: Rect) {
    let (counts, skills) = app
        .server()
        .map(|s| (s.counts, s.skills))
        .unwrap_or_default();
    let labels = crate::app::layout::tab_labels(counts, skills);
    let first = crate::app::layout::tabs_from(&labels, app.tab, usize::from(area.width));
    let scrolled =
        (first > 0).then(|| Span::styled(crate::app::layout::TABS_SCROLLED, fg(theme().dim)));
    let spans: Vec<Span> = scrolled
        .into_iter()
        .chain(labels.into_iter().skip(first).map(|(tab, label)| {
            let style = if tab == app.tab {
                Style::new()
                    .fg(theme().accent)
                    .add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
            } else {
                fg(theme().muted)
            };
            Span::styled(format!(" {label} "), style)
        }))
        .collect();
    let mut spans = spans;
    // The Tools tab's token costs, after the labels (clicks there select no tab).
    if app.tab == crate::app::Tab::Tools
        && let Some(crate::app::Load::Ready(costs)) =
            app.pane().and_then(|p| p.tools.costs.as_ref())
    {
        let used: usize = spans.iter().map(Span::width).sum();
        let note = format!("  {}", costs.summary());
        if used + unicode_width::UnicodeWidthStr::width(note.as_str()) <= usize::from(area.width) {
            spans.push(Span::styled(note, fg(theme().dim)));
        }
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// Info lines with their tones, from `start`, at most `height`.
pub fn info_lines(info: &[InfoLine], start: usize, height: usize) -> Vec<Line<'static>> {
    info.iter()
        .skip(start)
        .take(height)
        .map(|l| Line::styled(l.text.clone(), tone_style(l.tone)))
        .collect()
}

/// How a configuration-derived line's tone is drawn.
pub fn tone_style(tone: Tone) -> Style {
    match tone {
        Tone::Plain => Style::new(),
        Tone::Heading => Style::new().add_modifier(Modifier::BOLD),
        Tone::Warn => fg(theme().warn),
        Tone::Error => fg(theme().error),
        Tone::Dim => fg(theme().dim),
    }
}

pub(super) fn json_lines(value: &serde_json::Value) -> Vec<String> {
    serde_json::to_string_pretty(value)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn render_result(view: &ResultView, frame: &mut Frame, area: Rect) {
    let (text_area, header_rows) = crate::app::result_keys::result_text_area(view, area);
    let header: Vec<Line> = view
        .header(usize::from(area.width), usize::from(area.height / 2))
        .into_iter()
        .map(|(kind, row)| {
            let color = match kind {
                HeaderKind::Ok => theme().ok,
                HeaderKind::Error => theme().error,
                HeaderKind::Spill => theme().kind,
            };
            Line::styled(row, Style::new().fg(color))
        })
        .collect();
    let header_area = Rect::new(
        area.x,
        area.y,
        area.width,
        u16::try_from(header_rows)
            .unwrap_or(u16::MAX)
            .min(area.height),
    );
    frame.render_widget(Paragraph::new(header), header_area);
    // The viewer's area: the text rows, the scrollbar column and the position row.
    let viewer_area = Rect::new(
        area.x,
        text_area.y,
        area.width,
        text_area
            .height
            .saturating_add(1)
            .min(area.height.saturating_sub(header_area.height)),
    );
    let cursor = view.has_cursor().then_some(view.cursor);
    super::viewer::render_viewer(&view.viewer, view.body(), cursor, frame, viewer_area);
}
