//! Drawing the tabs (the state is `app::tabs`): one catalog list (tools, resources
//! and templates, prompts; each kind adds only its columns) and the Config tab's lines, with the
//! search or filter bar above them and the name column aligned. Only the visible window of a
//! list is built. The Log tab draws in `log_tab`.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::main_pane::info_lines;
use super::theme::theme;
use crate::app::keymap::{Action, Ctx};
use crate::app::layout::window_start;
use crate::app::scan_marks::ScanMarks;
use crate::app::tabs::{
    Catalog, CatalogTab, Listed, Prompts, PromptsTab, Resources, ResourcesTab, ToolsTab,
};
use crate::app::{App, Focus, Load, PromptRow, ResourceRow, ServerPane, Tab};
use crate::mcp::scan::Kind;

/// One selectable row.
fn row(selected: bool, focused: bool, spans: Vec<Span<'static>>) -> Line<'static> {
    let marker = if selected { "> " } else { "  " };
    let mut all = vec![Span::raw(marker)];
    all.extend(spans);
    let mut line = Line::from(all);
    if selected && focused {
        line = line.style(Style::new().add_modifier(Modifier::REVERSED));
    }
    line
}

/// The lines shown while a catalog is not there yet (or failed): a failure wraps at `width`
/// instead of being cut at the pane's edge.
fn load_lines<T>(
    app: &App,
    load: Option<&Load<T>>,
    what: &str,
    width: usize,
) -> Vec<Line<'static>> {
    match load {
        None | Some(Load::Idle) => Some(Line::styled(
            format!(
                "{} connects and lists {what}.",
                app.keymap
                    .key_for(Ctx::Servers, Action::Open)
                    .unwrap_or_default()
            ),
            Style::new().fg(theme().dim),
        )),
        Some(Load::Loading(_)) => Some(Line::styled(
            format!("Loading {what}…"),
            Style::new().fg(theme().warn),
        )),
        Some(Load::Failed(class, message)) => {
            let server = app.server().map(|s| s.name.as_str());
            let message = app.failure_words(server, class, message);
            return crate::app::viewer::wrap_words(&format!("✗ {class}: {message}"), width)
                .into_iter()
                .map(|row| Line::styled(row, Style::new().fg(theme().error)))
                .collect();
        }
        Some(Load::Ready(_)) => None,
    }
    .into_iter()
    .collect()
}

/// The narrowest the name column's limit gets on a narrow pane, so short names stay whole.
const MIN_NAME_LIMIT: usize = 12;

/// The name column's width: the longest name, at most a third of the pane (but never less than
/// [`MIN_NAME_LIMIT`] when a name is that long).
fn name_column<'a>(names: impl Iterator<Item = &'a str>, width: u16) -> usize {
    names
        .map(|n| n.chars().count())
        .max()
        .unwrap_or(0)
        .min(usize::from(width / 3).max(MIN_NAME_LIMIT))
}

/// `name` in a column `width` wide followed by the gap: padded when shorter, so the next column
/// stays aligned; when longer, its middle gives way to `…` and both ends stay, so names that
/// share a long prefix (`trigger-sampling-request`, `trigger-sampling-request-async`) still
/// differ on screen.
pub(super) fn name_cell(name: &str, width: usize) -> String {
    let chars: Vec<char> = name.chars().collect();
    if chars.len() <= width {
        return format!("{name:<width$}  ");
    }
    let kept = width.saturating_sub(1);
    let tail = kept / 3;
    let head: String = chars[..kept - tail].iter().collect();
    let end: String = chars[chars.len() - tail..].iter().collect();
    format!("{head}…{end}  ")
}

/// Draws the current tab's list into `area`.
pub fn render_tab(app: &App, frame: &mut Frame, area: Rect) {
    let Some(pane) = app.pane() else {
        frame.render_widget(
            Paragraph::new("No server is configured. Add one to ~/.config/mcpdeck/config.json."),
            area,
        );
        return;
    };
    let sel = pane.list(app.tab).sel;
    let area = render_query_bar(app, pane, frame, area);
    let height = usize::from(area.height);
    let window = List {
        start: window_start(sel, height),
        height,
        sel,
        focused: app.focus == Focus::Main,
        width: area.width,
    };
    let lines = match app.tab {
        Tab::Tools => super::tools_tab::lines(app, &pane.tools, &window),
        Tab::Resources => resources_tab(app, &pane.resources, &pane.tools, &window),
        Tab::Prompts => prompts_tab(app, &pane.prompts, &pane.tools, &window),
        Tab::Skills => super::skills_tab::lines(app, &pane.skills, &window),
        Tab::Log => {
            let (list, stderr) = super::log_tab::split(&pane.log, area);
            let next = app.keymap.key_for(
                crate::app::keymap::Ctx::LogTab,
                crate::app::keymap::Action::LogFilter,
            );
            let shown = super::log_tab::Shown {
                sel,
                focused: window.focused,
                next_key: next.as_deref(),
                level: app
                    .server()
                    .and_then(|s| app.session.levels.get(&s.name))
                    .map(String::as_str),
            };
            super::log_tab::log_tab(&pane.log, &shown, frame, list, stderr);
            return;
        }
        Tab::Config => config_tab(app, &window),
    };
    frame.render_widget(Paragraph::new(lines), area);
}

/// The visible window of a list.
pub(super) struct List {
    start: usize,
    height: usize,
    sel: usize,
    focused: bool,
    width: u16,
}

/// The tool search's or the list filter's bar, when one is open; returns the area left below.
fn render_query_bar(app: &App, pane: &ServerPane, frame: &mut Frame, area: Rect) -> Rect {
    let (query, editing, status) = if app.tab == Tab::Tools
        && let Some(search) = &pane.tools.search
    {
        let status = match &search.results {
            Load::Loading(_) => " …".to_owned(),
            Load::Ready(r) if search.total > r.len() => {
                format!("  {} of {} matches", r.len(), search.total)
            }
            Load::Ready(r) => format!("  {} match(es)", r.len()),
            Load::Failed(c, m) => format!("  {c}: {m}"),
            Load::Idle => String::new(),
        };
        (&search.query, search.editing, status)
    } else if let Some(filter) = &pane.list(app.tab).filter {
        let status = format!(
            "  {} shown · {} clears",
            app.list_len(),
            app.keymap
                .key_for(Ctx::List, Action::Back)
                .unwrap_or_default()
        );
        (&filter.query, filter.editing, status)
    } else {
        return area;
    };
    let [bar, rest] = Layout::vertical([Constraint::Length(1), Constraint::Min(0)]).areas(area);
    let cursor = if editing { "▏" } else { "" };
    frame.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled("/ ", Style::new().fg(theme().accent)),
            Span::raw(format!("{query}{cursor}")),
            Span::styled(status, Style::new().fg(theme().dim)),
        ])),
        bar,
    );
    rest
}

fn none_line() -> Line<'static> {
    Line::styled("(none)", Style::new().fg(theme().dim))
}

/// A catalog tab's lines (the generic [`CatalogTab`] and the Tools tab): the load state, then
/// `(none)` or the window of `shown`, the name column as wide as the longest name; `cells`
/// draws one row's columns given that width.
pub(super) fn catalog_lines<L, R: Listed>(
    app: &App,
    (load, what): (Option<&Load<L>>, &str),
    shown: Option<Vec<&R>>,
    w: &List,
    cells: impl Fn(&R, usize) -> Vec<Span<'static>>,
) -> Vec<Line<'static>> {
    let mut lines = load_lines(app, load, what, usize::from(w.width));
    let Some(shown) = shown else {
        return lines;
    };
    if shown.is_empty() {
        lines.push(none_line());
    }
    let name_width = name_column(shown.iter().map(|r| r.name()), w.width);
    lines.extend(
        shown
            .iter()
            .enumerate()
            .skip(w.start)
            .take(w.height)
            .map(|(i, r)| row(i == w.sel, w.focused, cells(r, name_width))),
    );
    lines
}

/// The scan's findings of `kind`, when some definition of that kind has any (its list then
/// has a mark column).
pub(super) fn scan_marks(tools: &ToolsTab, kind: Kind) -> Option<&ScanMarks> {
    match &tools.scan {
        Some(Load::Ready(marks)) if marks.any(kind) => Some(marks),
        _ => None,
    }
}

/// The scan mark column: `⚑ ` (in the warning colour) before a definition with findings.
pub(super) fn scan_cell(marks: &ScanMarks, kind: Kind, name: &str) -> Span<'static> {
    let mark = if marks.of(kind, name).is_empty() {
        "  "
    } else {
        "⚑ "
    };
    Span::styled(mark, Style::new().fg(theme().warn))
}

/// The rows a catalog tab shows, once its catalog is in.
pub(super) fn ready<C: Catalog>(tab: &CatalogTab<C>) -> Option<Vec<&C::Row>> {
    matches!(&tab.catalog, Some(Load::Ready(_))).then(|| tab.entries())
}

/// The Resources tab component ([`ResourcesTab`]): resources, then templates.
fn resources_tab(app: &App, tab: &ResourcesTab, tools: &ToolsTab, w: &List) -> Vec<Line<'static>> {
    let scan = scan_marks(tools, Kind::ResourceTemplate);
    let load = (tab.catalog.as_ref(), Resources::WHAT);
    catalog_lines(app, load, ready(tab), w, |r: &ResourceRow, name_width| {
        let (kind, color) = if r.template {
            ("template ".to_owned(), theme().kind)
        } else {
            let mark = app.subscription_mark(&r.reference);
            (mark.unwrap_or_default(), theme().ok)
        };
        let mut spans = Vec::new();
        if let Some(scan) = scan {
            if r.template {
                spans.push(scan_cell(scan, Kind::ResourceTemplate, &r.name));
            } else {
                spans.push(Span::raw("  "));
            }
        }
        spans.extend([
            Span::styled(kind, Style::new().fg(color)),
            Span::raw(name_cell(&r.name, name_width)),
            Span::styled(format!("{} ", r.meta), Style::new().fg(theme().dim)),
            Span::styled(r.description.clone(), Style::new().fg(theme().muted)),
        ]);
        spans
    })
}

/// The Prompts tab component ([`PromptsTab`]).
fn prompts_tab(app: &App, tab: &PromptsTab, tools: &ToolsTab, w: &List) -> Vec<Line<'static>> {
    let scan = scan_marks(tools, Kind::Prompt);
    let load = (tab.catalog.as_ref(), Prompts::WHAT);
    catalog_lines(app, load, ready(tab), w, |p: &PromptRow, name_width| {
        let mut spans = Vec::new();
        if let Some(scan) = scan {
            spans.push(scan_cell(scan, Kind::Prompt, &p.name));
        }
        spans.extend([
            Span::raw(name_cell(&p.name, name_width)),
            Span::styled(p.description.clone(), Style::new().fg(theme().muted)),
        ]);
        spans
    })
}

/// The Config tab: the selected server's definition, its sign-in and its last error.
fn config_tab(app: &App, w: &List) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    if let Some(auth) = app.server().and_then(|s| app.auth_line(&s.name)) {
        let store = app
            .auth
            .info
            .as_ref()
            .map_or(String::new(), |i| format!(" · store: {}", i.store));
        lines.push(Line::styled(
            format!("{auth}{store}"),
            Style::new().fg(theme().accent),
        ));
    }
    // What the poisoning scan found in the server's own text (`serverInfo`, `instructions`).
    if let Some(Load::Ready(marks)) = app.pane().and_then(|p| p.tools.scan.as_ref()) {
        let found = marks.of(Kind::Server, "server");
        if !found.is_empty() {
            lines.push(Line::styled(
                format!(
                    "⚑ the poisoning scan flags the server's instructions or serverInfo ({})",
                    found.len()
                ),
                Style::new().fg(theme().warn),
            ));
            lines.extend(
                found
                    .iter()
                    .map(|f| Line::styled(format!("  {f}"), Style::new().fg(theme().muted))),
            );
        }
    }
    if let Some(info) = app.server().and_then(|s| app.info.servers.get(&s.name)) {
        lines.extend(info_lines(info, w.sel, w.height));
    }
    if let Some(Some((class, message))) = app.server().map(|s| &s.error) {
        lines.push(Line::styled(
            format!("last error {class}: {message}"),
            Style::new().fg(theme().error),
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::{name_cell, name_column};

    #[test]
    fn names_align_in_a_column_of_the_longest_up_to_a_third() {
        let names = ["add", "long_task", "a_name_far_longer_than_a_third"];
        // A wide pane: a third is 40, the longest name (30) fits whole.
        assert_eq!(name_column(names.iter().copied(), 120), 30);
        // A narrow pane: a third is 8, but short names keep 12 columns.
        let w = name_column(names.iter().copied(), 24);
        assert_eq!(w, 12);
        assert_eq!(name_cell("long_task", w), "long_task     ");
        assert_eq!(name_cell("add", w), "add           ");
        let cut = name_cell("a_name_far_longer_than_a_third", w);
        assert_eq!(cut, "a_name_f…ird  ");
        assert_eq!(cut.chars().count(), w + 2, "every cell is as wide");
        // Names that differ only after the cut stay apart.
        let sync = name_cell("trigger-sampling-request", 18);
        let asynch = name_cell("trigger-sampling-request-async", 18);
        assert_ne!(sync, asynch);
        assert_eq!(asynch, "trigger-samp…async  ");
    }
}
