//! The main pane: the selected server's title, the tab bar, and whichever screen is in front
//! (the tab's list, a tool's detail, the call form or raw editor, a running call, a result).

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Wrap};

use super::pane_block;
use crate::app::form::{FieldKind, Form};
use crate::app::info::{InfoLine, Tone};
use crate::app::keymap::{Action, Ctx};
use crate::app::layout::window_start;
use crate::app::{
    App, Detail, Focus, HeaderKind, Load, Progress, ResultView, Running, Screen, Tab,
};

/// Draws the main pane into `area`.
pub fn render(app: &App, frame: &mut Frame, a: &crate::app::layout::Areas) {
    let (area, tabs, body) = (a.main, a.tabs, a.body);
    let title = match app.server() {
        Some(s) => {
            let mut t = format!(" {} · {} · {}", s.name, s.state.label(), s.transport);
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
        Screen::Browse => render_tab(app, frame, body),
        Screen::Detail(d) => render_detail(d, frame, body),
        Screen::Form(form) => render_form(form, frame, body),
        Screen::Raw(form, area, error) => {
            let [head, edit, err] = Layout::vertical([
                Constraint::Length(1),
                Constraint::Min(1),
                Constraint::Length(1),
            ])
            .areas(body);
            frame.render_widget(
                Paragraph::new(Line::styled(
                    format!(
                        "{} — raw JSON arguments ({} back to the form)",
                        target_name(form),
                        app.keymap
                            .key_for(Ctx::Form, Action::ToggleRaw)
                            .unwrap_or_default()
                    ),
                    Style::new().add_modifier(Modifier::BOLD),
                )),
                head,
            );
            frame.render_widget(&**area, edit);
            if let Some(e) = error {
                frame.render_widget(
                    Paragraph::new(Line::styled(e.clone(), Style::new().fg(Color::Red))),
                    err,
                );
            }
        }
        Screen::Running(run) => render_running(app, run, frame, body),
        Screen::Result(view, _) => render_result(view, frame, body),
    }
}

fn target_name(form: &Form) -> String {
    match &form.target {
        crate::app::form::Target::Tool(t) => format!("call {t}"),
        crate::app::form::Target::Prompt(p) => format!("prompt {p}"),
    }
}

fn render_tabs(app: &App, frame: &mut Frame, area: Rect) {
    let counts = app.server().map(|s| s.counts).unwrap_or_default();
    let spans: Vec<Span> = crate::app::layout::tab_labels(counts)
        .into_iter()
        .map(|(tab, label)| {
            let style = if tab == app.tab {
                Style::new()
                    .fg(Color::Cyan)
                    .add_modifier(Modifier::BOLD | Modifier::UNDERLINED)
            } else {
                Style::new().fg(Color::Gray)
            };
            Span::styled(format!(" {label} "), style)
        })
        .collect();
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// One selectable row.
fn row(selected: bool, focused: bool, spans: Vec<Span<'static>>) -> Line<'static> {
    let marker = if selected { "> " } else { "  " };
    let mut all = vec![Span::raw(marker)];
    all.extend(spans);
    let line = Line::from(all);
    if selected && focused {
        line.style(Style::new().add_modifier(Modifier::REVERSED))
    } else {
        line
    }
}

fn load_line<T>(app: &App, load: Option<&Load<T>>, what: &str) -> Option<Line<'static>> {
    match load {
        None | Some(Load::Idle) => Some(Line::styled(
            format!(
                "{} connects and lists {what}.",
                app.keymap
                    .key_for(Ctx::Servers, Action::Open)
                    .unwrap_or_default()
            ),
            Style::new().fg(Color::DarkGray),
        )),
        Some(Load::Loading(_)) => Some(Line::styled(
            format!("Loading {what}…"),
            Style::new().fg(Color::Yellow),
        )),
        Some(Load::Failed(class, message)) => Some(Line::styled(
            format!("✗ {class}: {message}"),
            Style::new().fg(Color::Red),
        )),
        Some(Load::Ready(_)) => None,
    }
}

fn render_tab(app: &App, frame: &mut Frame, area: Rect) {
    let Some(pane) = app.pane() else {
        frame.render_widget(
            Paragraph::new("No server is configured. Add one to ~/.config/mcpdeck/config.json."),
            area,
        );
        return;
    };
    let focused = app.focus == Focus::Main;
    let tab = crate::app::TABS
        .iter()
        .position(|t| *t == app.tab)
        .unwrap_or(0);
    let sel = pane.sel[tab];
    let mut area = area;
    let mut lines: Vec<Line> = Vec::new();
    if app.tab == Tab::Tools
        && let Some(search) = &pane.search
    {
        let [bar, rest] = Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(area);
        let cursor = if search.editing { "▏" } else { "" };
        let status = match &search.results {
            Load::Loading(_) => " …".to_owned(),
            Load::Ready(r) => format!("  {} match(es)", r.len()),
            Load::Failed(c, m) => format!("  {c}: {m}"),
            Load::Idle => String::new(),
        };
        frame.render_widget(
            Paragraph::new(Line::from(vec![
                Span::styled("/ ", Style::new().fg(Color::Cyan)),
                Span::raw(format!("{}{cursor}", search.query)),
                Span::styled(status, Style::new().fg(Color::DarkGray)),
            ])),
            bar,
        );
        area = rest;
    }
    if let Some(filter) = pane.filter.as_ref().filter(|f| f.tab == app.tab) {
        let [bar, rest] = Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(area);
        let cursor = if filter.editing { "▏" } else { "" };
        frame.render_widget(
            Paragraph::new(Line::from(vec![
                Span::styled("/ ", Style::new().fg(Color::Cyan)),
                Span::raw(format!("{}{cursor}", filter.query)),
                Span::styled(
                    format!(
                        "  {} shown · {} clears",
                        app.list_len(),
                        app.keymap
                            .key_for(Ctx::List, Action::Back)
                            .unwrap_or_default()
                    ),
                    Style::new().fg(Color::DarkGray),
                ),
            ])),
            bar,
        );
        area = rest;
    }
    let height = usize::from(area.height);
    let start = window_start(sel, height);
    match app.tab {
        Tab::Tools => {
            if let Some(line) = load_line(app, pane.tools.as_ref(), "tools") {
                lines.push(line);
            }
            if let Some(tools) = app.visible_tools() {
                if tools.is_empty() {
                    lines.push(Line::styled("(none)", Style::new().fg(Color::DarkGray)));
                }
                let name_width = tools
                    .iter()
                    .skip(start)
                    .take(height)
                    .map(|t| t.name.chars().count())
                    .max()
                    .unwrap_or(0)
                    .min(28);
                lines.extend(
                    tools
                        .iter()
                        .enumerate()
                        .skip(start)
                        .take(height)
                        .map(|(i, t)| {
                            row(
                                i == sel,
                                focused,
                                vec![
                                    Span::styled(
                                        format!("{:<name_width$}  ", t.name),
                                        Style::new().fg(Color::White),
                                    ),
                                    Span::styled(
                                        t.description.clone(),
                                        Style::new().fg(Color::Gray),
                                    ),
                                ],
                            )
                        }),
                );
            }
        }
        Tab::Resources => {
            if let Some(line) = load_line(app, pane.resources.as_ref(), "resources") {
                lines.push(line);
            }
            if let Some(Load::Ready(_)) = &pane.resources {
                let entries = app.resource_entries();
                if entries.is_empty() {
                    lines.push(Line::styled("(none)", Style::new().fg(Color::DarkGray)));
                }
                let name_width =
                    name_column(entries.iter().map(|(r, _)| r.name.as_str()), area.width);
                lines.extend(
                    entries
                        .into_iter()
                        .enumerate()
                        .skip(start)
                        .take(height)
                        .map(|(i, (r, template))| {
                            let kind = if template { "template " } else { "" };
                            row(
                                i == sel,
                                focused,
                                vec![
                                    Span::styled(kind, Style::new().fg(Color::Magenta)),
                                    Span::raw(format!("{:<name_width$}  ", r.name)),
                                    Span::styled(
                                        format!("{} ", r.meta),
                                        Style::new().fg(Color::DarkGray),
                                    ),
                                    Span::styled(
                                        r.description.clone(),
                                        Style::new().fg(Color::Gray),
                                    ),
                                ],
                            )
                        }),
                );
            }
        }
        Tab::Prompts => {
            if let Some(line) = load_line(app, pane.prompts.as_ref(), "prompts") {
                lines.push(line);
            }
            if let Some(Load::Ready(_)) = &pane.prompts {
                let prompts = app.prompt_entries();
                if prompts.is_empty() {
                    lines.push(Line::styled("(none)", Style::new().fg(Color::DarkGray)));
                }
                let name_width = name_column(prompts.iter().map(|p| p.name.as_str()), area.width);
                lines.extend(
                    prompts
                        .into_iter()
                        .enumerate()
                        .skip(start)
                        .take(height)
                        .map(|(i, p)| {
                            row(
                                i == sel,
                                focused,
                                vec![
                                    Span::raw(format!("{:<name_width$}  ", p.name)),
                                    Span::styled(
                                        p.description.clone(),
                                        Style::new().fg(Color::Gray),
                                    ),
                                ],
                            )
                        }),
                );
            }
        }
        Tab::Log => {
            let (list, stderr) = super::log_tab::split(pane, area);
            super::log_tab::render(pane, sel, focused, frame, list, stderr);
            return;
        }
        Tab::Config => {
            let info = app.server().and_then(|s| app.info.servers.get(&s.name));
            if let Some(info) = info {
                lines.extend(info_lines(info, sel, height));
            }
            if let Some(Some((class, message))) = app.server().map(|s| &s.error) {
                lines.push(Line::styled(
                    format!("last error {class}: {message}"),
                    Style::new().fg(Color::Red),
                ));
            }
        }
    }
    frame.render_widget(Paragraph::new(lines), area);
}

/// The name column's width: the longest name, at most a third of the pane.
fn name_column<'a>(names: impl Iterator<Item = &'a str>, width: u16) -> usize {
    names
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(0)
        .min(usize::from(width / 3))
}

/// Info lines with their tones, from `start`, at most `height`.
pub fn info_lines(info: &[InfoLine], start: usize, height: usize) -> Vec<Line<'static>> {
    info.iter()
        .skip(start)
        .take(height)
        .map(|l| {
            let style = match l.tone {
                Tone::Plain => Style::new(),
                Tone::Heading => Style::new().add_modifier(Modifier::BOLD),
                Tone::Warn => Style::new().fg(Color::Yellow),
                Tone::Error => Style::new().fg(Color::Red),
                Tone::Dim => Style::new().fg(Color::DarkGray),
            };
            Line::styled(l.text.clone(), style)
        })
        .collect()
}

fn json_lines(value: &serde_json::Value) -> Vec<String> {
    serde_json::to_string_pretty(value)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

fn render_detail(d: &Detail, frame: &mut Frame, area: Rect) {
    let mut lines: Vec<Line> = vec![Line::styled(
        d.tool.clone(),
        Style::new().add_modifier(Modifier::BOLD),
    )];
    match &d.load {
        Load::Idle | Load::Loading(_) => {
            lines.push(Line::styled("Describing…", Style::new().fg(Color::Yellow)));
        }
        Load::Failed(c, m) => lines.push(Line::styled(
            format!("✗ {c}: {m}"),
            Style::new().fg(Color::Red),
        )),
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
                lines.push(Line::styled(hint, Style::new().fg(Color::DarkGray)));
            }
            lines.push(Line::raw(""));
            lines.push(Line::styled("Input", Style::new().fg(Color::Cyan)));
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
                lines.push(Line::styled(label, Style::new().fg(Color::Cyan)));
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
            Span::styled(format!("{name}{star}"), Style::new().fg(Color::White)),
            Span::styled(format!(" : {ty}  "), Style::new().fg(Color::Magenta)),
            Span::styled(desc.replace('\n', " "), Style::new().fg(Color::Gray)),
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

fn render_form(form: &Form, frame: &mut Frame, area: Rect) {
    let mut lines = vec![Line::styled(
        format!("{} on {}", target_name(form), form.server),
        Style::new().add_modifier(Modifier::BOLD),
    )];
    if form.fields.is_empty() {
        lines.push(Line::styled(
            "No arguments. Enter runs it.",
            Style::new().fg(Color::DarkGray),
        ));
    }
    for (i, f) in form.fields.iter().enumerate() {
        let focused = i == form.focus;
        let kind = match &f.kind {
            FieldKind::Text => "string",
            FieldKind::Number => "number",
            FieldKind::Integer => "integer",
            FieldKind::Bool => "bool ␣",
            FieldKind::Enum(_) => "enum ␣",
            FieldKind::Json => "json",
        };
        let star = if f.required { "*" } else { "" };
        let null = if f.nullable { "|null" } else { "" };
        let cursor = if focused { "▏" } else { "" };
        let mut value = Style::new().fg(Color::White);
        if focused {
            value = value.bg(Color::DarkGray);
        }
        lines.push(Line::from(vec![
            Span::raw(if focused { "> " } else { "  " }),
            Span::styled(format!("{}{star}", f.name), Style::new().fg(Color::Cyan)),
            Span::styled(
                format!(" ({kind}{null}) "),
                Style::new().fg(Color::DarkGray),
            ),
            Span::styled(format!("{}{cursor}", f.value), value),
        ]));
        if let Some(e) = &f.error {
            lines.push(Line::styled(
                format!("    ✗ {e}"),
                Style::new().fg(Color::Red),
            ));
        } else if focused && !f.description.is_empty() {
            lines.push(Line::styled(
                format!("    {}", f.description),
                Style::new().fg(Color::DarkGray),
            ));
        }
    }
    for e in &form.errors {
        lines.push(Line::styled(format!("✗ {e}"), Style::new().fg(Color::Red)));
    }
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), area);
}

/// The spinner frame for `elapsed`.
pub(super) fn spinner(elapsed: std::time::Duration) -> &'static str {
    const FRAMES: [&str; 8] = ["⣾", "⣽", "⣻", "⢿", "⡿", "⣟", "⣯", "⣷"];
    let at = usize::try_from(elapsed.as_millis() / 100).unwrap_or(0) % FRAMES.len();
    FRAMES[at]
}

fn render_running(app: &App, run: &Running, frame: &mut Frame, area: Rect) {
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
            Line::styled(
                super::hint_text(app, &[Ctx::Running]),
                Style::new().fg(Color::DarkGray),
            ),
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
    let bar_w = usize::from(width)
        .saturating_sub(count.chars().count())
        .min(40);
    let ratio = (p.done / total).clamp(0.0, 1.0);
    // The bar is at most 40 cells: the float-to-count rounding cannot overflow.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let filled = ((ratio * bar_w as f64).round() as usize).min(bar_w);
    Line::from(vec![
        Span::styled("█".repeat(filled), Style::new().fg(Color::Cyan)),
        Span::styled("░".repeat(bar_w - filled), Style::new().fg(Color::DarkGray)),
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

fn render_result(view: &ResultView, frame: &mut Frame, area: Rect) {
    let (text_area, header_rows) = crate::app::result_keys::result_text_area(view, area);
    let header: Vec<Line> = view
        .header(usize::from(area.width), usize::from(area.height / 2))
        .into_iter()
        .map(|(kind, row)| {
            let color = match kind {
                HeaderKind::Ok => Color::Green,
                HeaderKind::Error => Color::Red,
                HeaderKind::Spill => Color::Magenta,
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
