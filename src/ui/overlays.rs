//! Global views drawn over the panes (the overlay layer): help, config doctor, trust,
//! approvals, sign-in and operator-started errors here; the spills list, the spill pager, agent
//! sessions, the editor, policy, hosts and panels each in their own file, called from here.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, BorderType, Borders, Clear, Paragraph, Wrap};

use super::main_pane::tone_style;
use super::theme::{fg, theme, tinted};
use crate::app::keymap::{Action, Ctx};
use crate::app::layout::centered;
use crate::app::{App, Overlay};

pub(super) fn popup<'a>(
    frame: &mut Frame,
    area: Rect,
    title: &'a str,
    color: Color,
) -> (Rect, Block<'a>) {
    frame.render_widget(Clear, area);
    let block = Block::new()
        .borders(Borders::ALL)
        .border_type(BorderType::Rounded)
        .border_style(Style::new().fg(color))
        .title(Line::styled(
            format!(" {title} "),
            Style::new().add_modifier(Modifier::BOLD),
        ));
    let inner = block.inner(area);
    (inner, block)
}

/// Draws an empty [`popup`] over `area` and returns the inside to draw in.
pub(super) fn framed(frame: &mut Frame, area: Rect, title: &str, color: Color) -> Rect {
    let (inner, block) = popup(frame, area, title, color);
    frame.render_widget(block, area);
    inner
}

/// Draws `lines` in an accent box titled `title` over the bottom of `body`, as tall as the
/// lines (at most `body`); nothing when not even one line fits.
pub(super) fn bottom_box(frame: &mut Frame, body: Rect, title: String, lines: Vec<Line<'_>>) {
    let height = u16::try_from(lines.len() + 2)
        .unwrap_or(u16::MAX)
        .min(body.height);
    if height < 3 {
        return;
    }
    let area = Rect::new(body.x, body.y + body.height - height, body.width, height);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(fg(theme().accent))
        .title(title);
    frame.render_widget(Clear, area);
    frame.render_widget(Paragraph::new(lines).block(block), area);
}

/// Draws the global view that is open.
pub fn render(app: &App, frame: &mut Frame, a: &crate::app::layout::Areas) {
    // The status line and footer stay visible under views.
    let (body, big) = (a.overlay, a.big);
    match &app.overlay {
        None => {}
        Some(Overlay::Help(view)) => {
            let inner = framed(frame, big, "Keys", theme().accent);
            super::help::render_help(app, frame, inner, view.scroll);
        }
        Some(Overlay::Doctor(view)) => render_doctor(app, *view, frame, big),
        Some(Overlay::Policy(view)) => {
            let inner = framed(frame, big, "Policy", theme().warn);
            super::policy_view::render(view, frame, inner);
        }
        Some(Overlay::Trust(view)) => render_trust(app, view, frame, big),
        Some(Overlay::Spills(view)) => super::spills_view::render(app, view, frame, big),
        Some(Overlay::Pager(pager)) => super::pager::render(pager, frame, big),
        Some(Overlay::Agents(view)) => {
            let inner = framed(frame, big, "Agent sessions", theme().accent);
            super::agents_view::render(app, view, frame, inner);
        }
        Some(Overlay::Approvals(view)) => render_approvals(app, view.scroll, frame, big),
        Some(Overlay::Editor(editor)) => super::editor::render(editor, frame, big),
        Some(Overlay::Error(error)) => render_error(error, frame, body),
        Some(Overlay::SignIn(view)) => render_sign_in(app, view, frame, body),
        Some(Overlay::Panel(view)) => super::panels::render(app, *view, frame, body),
        Some(Overlay::Hosts(view)) => {
            let title = format!(
                "Hosts · {}",
                view.data.as_ref().map_or("", |d| d.project.as_str())
            );
            let inner = framed(frame, big, &title, theme().accent);
            super::hosts::render(view, frame, inner);
        }
    }
}

fn render_doctor(app: &App, view: crate::app::DoctorView, frame: &mut Frame, big: Rect) {
    let inner = framed(frame, big, "Config doctor", theme().accent);
    let selected = app.info.doctor_files.get(view.file).map(|f| f.line);
    let lines = doctor_rows(
        &app.info.doctor,
        view.scroll,
        selected,
        (inner.width, inner.height),
    );
    frame.render_widget(Paragraph::new(lines), inner);
}

/// The doctor's lines from `start`, each wrapped at the pane's width (a continuation row indented
/// under its line's text, so a long path or diagnostic reads whole), until `height` rows are
/// filled; the `selected` file's line (what `e` edits) reversed, every row of it.
fn doctor_rows(
    doctor: &[crate::app::info::InfoLine],
    start: usize,
    selected: Option<usize>,
    (width, height): (u16, u16),
) -> Vec<Line<'static>> {
    let width = usize::from(width).max(1);
    let mut rows = Vec::new();
    for (i, line) in doctor.iter().enumerate().skip(start) {
        let indent = line.text.len() - line.text.trim_start().len() + 2;
        let indent = if indent * 2 < width { indent } else { 0 };
        let mut style = tone_style(line.tone);
        if Some(i) == selected {
            style = style.add_modifier(Modifier::REVERSED);
        }
        let first = crate::app::viewer::wrap_words(&line.text, width);
        let (head, rest) = first.split_first().map_or((String::new(), ""), |(h, _)| {
            (
                h.clone(),
                line.text.get(h.len()..).unwrap_or("").trim_start(),
            )
        });
        rows.push(Line::styled(head, style));
        if !rest.is_empty() {
            let pad = " ".repeat(indent);
            for row in crate::app::viewer::wrap_words(rest, width - indent) {
                rows.push(Line::styled(format!("{pad}{row}"), style));
            }
        }
        if rows.len() >= usize::from(height) {
            break;
        }
    }
    rows.truncate(usize::from(height));
    rows
}

fn render_trust(app: &App, view: &crate::app::TrustView, frame: &mut Frame, big: Rect) {
    let crate::app::TrustView { viewer, confirm } = view;
    let inner = framed(frame, big, "Project trust", theme().warn);
    let [text, prompt] = Layout::vertical([Constraint::Min(1), Constraint::Length(1)]).areas(inner);
    let lines: Vec<String> = app.info.trust.iter().map(|l| l.text.clone()).collect();
    let styles: Vec<Style> = app.info.trust.iter().map(|l| tone_style(l.tone)).collect();
    super::viewer::render_viewer_styled(viewer, &lines, &styles, frame, text);
    if confirm.is_some() {
        let line = Line::styled(
            "Trust these definitions? Type y to trust, any other key cancels.",
            fg(theme().on_accent).bg(theme().warn),
        );
        frame.render_widget(Paragraph::new(line).wrap(Wrap { trim: false }), prompt);
    }
}

fn render_approvals(app: &App, scroll: usize, frame: &mut Frame, big: Rect) {
    let inner = framed(frame, big, "Approvals", theme().warn);
    let mut lines = vec![tinted(format!("policy mode {}", app.policy), theme().dim)];
    for p in &app.approvals {
        lines.push(Line::styled(
            format!(
                "pending        {}  {}",
                p.request.server, p.request.operation
            ),
            fg(theme().warn),
        ));
    }
    for (server, operation, answered) in app.decided.iter().rev() {
        let color = match answered {
            crate::app::approval::Answered::Denied => theme().error,
            _ => theme().ok,
        };
        lines.push(Line::from(vec![
            Span::styled(format!("{:<15}", answered.label()), Style::new().fg(color)),
            Span::raw(format!("{server}  {operation}")),
        ]));
    }
    if lines.len() == 1 {
        lines.push(tinted(
            "No approvals yet (enforce mode asks here before running an operation).",
            theme().dim,
        ));
    }
    let lines: Vec<Line> = lines.into_iter().skip(scroll).collect();
    frame.render_widget(Paragraph::new(lines), inner);
}

fn render_error(error: &crate::app::ErrorView, frame: &mut Frame, body: Rect) {
    let crate::app::ErrorView {
        title,
        class,
        message,
    } = error;
    let area = centered(body, 60, 8);
    let inner = framed(frame, area, title, theme().error);
    frame.render_widget(
        Paragraph::new(vec![
            Line::styled(
                class.clone(),
                fg(theme().error).add_modifier(Modifier::BOLD),
            ),
            Line::raw(message.clone()),
        ])
        .wrap(Wrap { trim: false }),
        inner,
    );
}

fn render_sign_in(app: &App, view: &crate::app::auth::SignInView, frame: &mut Frame, body: Rect) {
    let key = |action| app.keymap.key_for(Ctx::View, action).unwrap_or_default();
    let (copy, close) = (key(Action::Copy), key(Action::Back));
    let mut lines = vec![tinted(
        format!("{copy} copies the URL · {close} cancels the sign-in"),
        theme().accent,
    )];
    match &view.url {
        None => lines.push(tinted("Looking up how the server signs in…", theme().dim)),
        Some(url) => {
            lines.push(Line::raw(
                "Opening it with $BROWSER or xdg-open. If no browser opens, open this URL yourself:",
            ));
            lines.push(Line::raw(""));
            lines.push(tinted(url.clone(), theme().accent));
            lines.push(Line::raw(""));
            lines.push(tinted(
                "Waiting up to 5 minutes for the browser to come back to 127.0.0.1.",
                theme().dim,
            ));
        }
    }
    let width = usize::from(body.width.min(76).saturating_sub(2).max(1));
    let needed: usize = lines.iter().map(|l| l.width().max(1).div_ceil(width)).sum();
    let height = u16::try_from(needed + 2).unwrap_or(u16::MAX);
    let area = centered(body, 76, height);
    let title = format!("Sign in to {}", view.server);
    let inner = framed(frame, area, &title, theme().accent);
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), inner);
}
