//! Named actions (what keymaps point to): navigation, opening, calling, submitting, going back,
//! copying. Each returns the effects the runtime must carry out.

use super::{RawForm, ResultScreen};
use ratatui_textarea::TextArea;

use super::form::{Form, Target};
use super::keymap::Action;
use super::{App, Detail, Effect, Focus, Load, Overlay, Running, Screen, TABS, Tab, Waiter};
use crate::mcp::proxy::ProxyRequest;
use crate::mcp::sanitize::sanitize;

use super::update::{PAGE, tab_index};

impl App {
    pub(super) fn on_action(&mut self, action: Action) -> Vec<Effect> {
        if let Some(effects) = self.on_result_action(action) {
            return effects;
        }
        if let Some(effects) = self.on_view_action(action) {
            return effects;
        }
        if let Some(effects) = self.on_client_action(action) {
            return effects;
        }
        if let Some(effects) = self.on_session_action(action) {
            return effects;
        }
        match action {
            Action::Quit => {
                self.quitting = true;
                vec![Effect::Quit]
            }
            Action::FocusNext => self.focus_next(),
            Action::Up => self.move_by(-1),
            Action::Down => self.move_by(1),
            Action::PageUp => self.move_by(-(PAGE.cast_signed())),
            Action::PageDown => self.move_by(PAGE.cast_signed()),
            Action::NextTab | Action::PrevTab => self.next_tab(action == Action::NextTab),
            Action::Open => self.on_open(),
            Action::Search => self.start_search(),
            Action::Filter => self.start_filter(),
            Action::Call => self.on_call(),
            Action::Reconnect => self.reconnect(),
            Action::Reload => {
                self.message = Some("reloading the configuration…".to_owned());
                vec![Effect::Reload { asked: true }]
            }
            Action::Copy => self.on_copy(),
            Action::Back => self.on_back(),
            Action::Submit => self.on_submit(),
            Action::ToggleRaw => {
                self.toggle_raw();
                Vec::new()
            }
            Action::LogFilter => self.cycle_log_filter(),
            Action::Fold | Action::FoldAll => {
                if let Screen::Result(ResultScreen { view, .. }) = &mut self.screen
                    && !view.show_model
                {
                    view.toggle_fold(action == Action::FoldAll);
                }
                Vec::new()
            }
            Action::FullText => {
                if let Screen::Detail(d) = &mut self.screen {
                    if d.full_description.is_some() {
                        d.show_full = !d.show_full;
                    } else {
                        self.message = Some("the description is shown whole".to_owned());
                    }
                }
                Vec::new()
            }
            Action::ToggleModel => {
                if let Screen::Result(ResultScreen { view, .. }) = &mut self.screen {
                    view.show_model = !view.show_model;
                    view.viewer = super::viewer::Viewer::default();
                }
                Vec::new()
            }
            Action::Suspend => vec![Effect::Suspend],
            Action::Complete => self.on_complete(),
            // Handled where their views are.
            _ => Vec::new(),
        }
    }

    /// The actions that open a global view (or the editor, or the side panel).
    fn on_view_action(&mut self, action: Action) -> Option<Vec<Effect>> {
        let (overlay, effects) = match action {
            Action::Help => (Overlay::Help(0), Vec::new()),
            Action::Trust => (Overlay::Trust(super::TrustView::default()), Vec::new()),
            Action::Doctor => (
                Overlay::Doctor(super::overlays::DoctorView::opened(&self.info)),
                Vec::new(),
            ),
            Action::Policy => return Some(self.open_policy_view()),
            Action::Approvals => (Overlay::Approvals(0), Vec::new()),
            Action::Agents => (
                Overlay::Agents(super::agents_view::AgentsView::default()),
                vec![Effect::ScanAgents],
            ),
            Action::Spills => (
                Overlay::Spills(super::spills_view::SpillsView::default()),
                vec![Effect::RefreshSpills],
            ),
            Action::Hosts => (
                Overlay::Hosts(Box::default()),
                vec![Effect::Hosts(super::hosts::HostsEffect::Read)],
            ),
            Action::Panel(index) => return Some(self.open_panel(index)),
            Action::Edit => return Some(self.edit_config()),
            Action::SignIn => return Some(self.sign_in()),
            Action::SignOut => return Some(self.sign_out()),
            Action::Workspace => return Some(self.toggle_side()),
            _ => return None,
        };
        self.overlay = Some(overlay);
        Some(effects)
    }

    /// Tab: servers → main pane → side panel (when shown) → servers.
    fn focus_next(&mut self) -> Vec<Effect> {
        if !matches!(self.screen, Screen::Browse) {
            return Vec::new();
        }
        self.focus = match self.focus {
            Focus::Servers => Focus::Main,
            Focus::Main if self.side_panel => Focus::Side,
            Focus::Main | Focus::Side => Focus::Servers,
        };
        if self.focus == Focus::Main {
            return self.ensure_tab();
        }
        Vec::new()
    }

    /// The next (or previous) main-pane tab.
    fn next_tab(&mut self, forward: bool) -> Vec<Effect> {
        if !matches!(self.screen, Screen::Browse) {
            return Vec::new();
        }
        let at = tab_index(self.tab);
        let next = if forward {
            (at + 1) % TABS.len()
        } else {
            (at + TABS.len() - 1) % TABS.len()
        };
        self.tab = TABS[next];
        self.focus = Focus::Main;
        self.ensure_tab()
    }

    /// Starts a search of the selected server's tool catalog.
    fn start_search(&mut self) -> Vec<Effect> {
        let Some(pane) = self.pane_mut() else {
            return Vec::new();
        };
        pane.tools.start_search();
        self.tab = Tab::Tools;
        self.focus = Focus::Main;
        Vec::new()
    }

    /// Reconnects the selected server; its catalogs belonged to the old connection.
    pub(super) fn reconnect(&mut self) -> Vec<Effect> {
        let Some(server) = self.server().map(|s| s.name.clone()) else {
            return Vec::new();
        };
        if let Some(pane) = self.panes.get_mut(&server) {
            pane.forget_catalogs();
        }
        let id = self.id(Waiter::Reconnect);
        self.message = Some(format!("reconnecting {server}…"));
        vec![Effect::Engine {
            id,
            request: crate::mcp::EngineRequest::Agent(ProxyRequest::Reconnect { server }),
        }]
    }

    /// Opens the selected server's configuration file in the editor (Config tab only).
    fn edit_config(&mut self) -> Vec<Effect> {
        if self.tab != Tab::Config {
            return Vec::new();
        }
        let Some(server) = self.server().map(|s| s.name.clone()) else {
            return Vec::new();
        };
        match self.info.sources.get(&server) {
            Some((path, layer)) if *layer != crate::mcp::config::Layer::Packaged => {
                vec![Effect::OpenEditor {
                    path: path.clone(),
                    layer: *layer,
                }]
            }
            _ => {
                self.message = Some("packaged definitions are built in".to_owned());
                Vec::new()
            }
        }
    }

    /// The Log tab's next view: all lines, traffic, notifications.
    fn cycle_log_filter(&mut self) -> Vec<Effect> {
        if self.tab == Tab::Log
            && let Some(pane) = self.pane_mut()
        {
            let label = pane.log.cycle();
            self.message = Some(format!("log: {label}"));
        }
        Vec::new()
    }

    /// Switches between the call form and its raw JSON twin (a bad JSON stays, with the error).
    fn toggle_raw(&mut self) {
        self.screen = match std::mem::replace(&mut self.screen, Screen::Browse) {
            Screen::Form(form) => {
                let text = serde_json::to_string_pretty(&form.lenient_value())
                    .unwrap_or_else(|_| "{}".to_owned());
                let area = TextArea::new(text.lines().map(str::to_owned).collect());
                Screen::Raw(RawForm {
                    form,
                    area: Box::new(area),
                    error: None,
                })
            }
            Screen::Raw(RawForm { mut form, area, .. }) => {
                let text = area.lines().join("\n");
                match serde_json::from_str::<serde_json::Value>(&text) {
                    Ok(v) if v.is_object() => {
                        form.fill(&v);
                        Screen::Form(form)
                    }
                    Ok(_) => Screen::Raw(RawForm {
                        form,
                        area,
                        error: Some("arguments must be a JSON object".to_owned()),
                    }),
                    Err(e) => Screen::Raw(RawForm {
                        form,
                        area,
                        error: Some(format!("invalid JSON: {e}")),
                    }),
                }
            }
            other => other,
        };
    }

    pub(super) fn on_open(&mut self) -> Vec<Effect> {
        if self.focus == Focus::Servers {
            self.focus = Focus::Main;
            self.tab = Tab::Tools;
            self.screen = Screen::Browse;
            return self.ensure_tab();
        }
        let Some(server) = self.server().map(|s| s.name.clone()) else {
            return Vec::new();
        };
        let sel = self.tab_selection();
        match self.tab {
            Tab::Tools => {
                let Some(tool) = self
                    .visible_tools()
                    .and_then(|t| t.get(sel))
                    .map(|t| t.name.clone())
                else {
                    return Vec::new();
                };
                self.open_detail(server, tool, false)
            }
            Tab::Resources => {
                let entries = self.resource_entries();
                let Some(row) = entries.get(sel) else {
                    return Vec::new();
                };
                let reference = row.reference.clone();
                if row.template || reference.is_empty() {
                    let name = row.name.clone();
                    return self.open_template(server, &name);
                }
                self.opened_resource(&server, &reference);
                let id = self.id(Waiter::Run);
                self.screen = Screen::Running(Running::without_form(id, &server, self.now));
                vec![Effect::Engine {
                    id,
                    request: crate::mcp::EngineRequest::Agent(ProxyRequest::ResourcesRead {
                        server,
                        reference,
                    }),
                }]
            }
            Tab::Prompts => {
                let Some(prompt) = self.prompt_entries().get(sel).copied().cloned() else {
                    return Vec::new();
                };
                let mut form =
                    Form::new(&server, Target::Prompt(prompt.name.clone()), prompt.schema);
                form.findings =
                    self.findings(&server, crate::mcp::scan::Kind::Prompt, &prompt.name);
                if form.fields.is_empty() {
                    self.screen = Screen::Form(form);
                    return self.on_submit();
                }
                self.screen = Screen::Form(form);
                Vec::new()
            }
            Tab::Log => self.open_log_line(&server, sel),
            Tab::Config => Vec::new(),
        }
    }

    /// Enter on a Log line, as a result view: a traffic line's body, pretty-printed; any other
    /// line's whole text.
    fn open_log_line(&mut self, server: &str, sel: usize) -> Vec<Effect> {
        let Some(pane) = self.panes.get(server) else {
            return Vec::new();
        };
        let lines = pane.log.visible();
        let Some(line) = lines
            .len()
            .checked_sub(sel + 1)
            .and_then(|i| lines.get(i).copied())
        else {
            return Vec::new();
        };
        let view = match &line.body {
            // An event line (a failure, a server's log message): its whole text, wrapped.
            None => super::ResultView::new(
                line.kind.to_owned(),
                line.text.lines().map(str::to_owned).collect(),
                None,
                Vec::new(),
            ),
            Some(body) => log_body_view(format!("{} {}", line.kind, line.text), body),
        };
        let mut view = Box::new(view);
        view.model.clone_from(&view.plain);
        self.screen = Screen::Result(ResultScreen { view, form: None });
        Vec::new()
    }

    pub(super) fn on_back(&mut self) -> Vec<Effect> {
        match std::mem::replace(&mut self.screen, Screen::Browse) {
            Screen::Running(mut run) => {
                run.cancelling = true;
                let id = run.id;
                self.screen = Screen::Running(run);
                self.message = Some("cancelling…".to_owned());
                return vec![Effect::Cancel(id)];
            }
            Screen::Form(form) | Screen::Raw(RawForm { form, .. }) => {
                if let Target::Tool(tool) = &form.target
                    && !tool.is_empty()
                {
                    // Back to the tool's detail, without asking the engine again.
                    if let Some(desc) = self.last_detail.take()
                        && desc.tool == *tool
                    {
                        self.screen = Screen::Detail(desc);
                    }
                }
            }
            Screen::Detail(_) | Screen::Result(..) => {}
            Screen::Browse => {
                let tab = self.tab;
                let had_search = self.pane_mut().is_some_and(|p| {
                    let filtered = p.list_mut(tab).filter.take().is_some();
                    p.tools.search.take().is_some() || filtered
                });
                if !had_search {
                    self.focus = Focus::Servers;
                }
            }
        }
        Vec::new()
    }

    pub(super) fn on_copy(&mut self) -> Vec<Effect> {
        let text = match &self.screen {
            Screen::Detail(Detail {
                load: Load::Ready(desc),
                ..
            }) => serde_json::to_string_pretty(&desc.input_schema).unwrap_or_default(),
            Screen::Result(ResultScreen { view, .. }) => {
                let lines = if view.show_model {
                    &view.model
                } else {
                    &view.plain
                };
                match &view.error {
                    Some((class, message)) if !view.show_model => {
                        format!("{class}: {message}\n{}", lines.join("\n"))
                    }
                    _ => lines.join("\n"),
                }
            }
            Screen::Browse if self.focus == Focus::Servers => {
                let Some(server) = self.server() else {
                    return Vec::new();
                };
                self.info
                    .servers
                    .get(&server.name)
                    .map(|lines| {
                        lines
                            .iter()
                            .map(|l| l.text.as_str())
                            .collect::<Vec<_>>()
                            .join("\n")
                    })
                    .unwrap_or_default()
            }
            Screen::Browse if self.tab == Tab::Tools => {
                let sel = self.pane().map_or(0, |p| p.tools.list.sel);
                match self.visible_tools().and_then(|t| t.get(sel)) {
                    Some(t) => t.name.clone(),
                    None => return Vec::new(),
                }
            }
            _ => return Vec::new(),
        };
        if text.is_empty() {
            return Vec::new();
        }
        vec![Effect::Copy(sanitize(&text).into_owned())]
    }
}

/// A traffic line's body as a result view: foldable JSON when it parses, else its lines.
fn log_body_view(title: String, body: &str) -> super::ResultView {
    match serde_json::from_str::<serde_json::Value>(body) {
        Ok(v) => super::ResultView::new(title, Vec::new(), Some(v), Vec::new()),
        Err(_) => super::ResultView::new(
            title,
            body.lines().map(str::to_owned).collect(),
            None,
            Vec::new(),
        ),
    }
}
