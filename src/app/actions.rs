//! Named actions (what keymaps point to): navigation, opening, calling, submitting, going back,
//! copying. Each returns the effects the runtime must carry out.

use super::agents_view::AgentsView;
use super::overlays::{ApprovalsView, DoctorView, HelpView};
use super::result_keys::result_takes;
use super::spills_view::SpillsView;
use super::{RawForm, ResultScreen};
use ratatui_textarea::TextArea;

use super::form::{Form, Target};
use super::keymap::Action;
use super::{App, Detail, Effect, Focus, Load, Overlay, Running, Screen, TABS, Tab, Waiter};
use crate::mcp::proxy::ProxyRequest;
use crate::mcp::sanitize::sanitize;

use super::update::PAGE;

impl App {
    /// An action for the panes (nothing is open over them). The screen in front takes its own
    /// first (a result: its viewer and links, [`result_takes`]); every other action has one arm
    /// here, so a new action fails to compile until it says what the panes do with it.
    pub(super) fn on_action(&mut self, action: Action) -> Vec<Effect> {
        if matches!(self.screen, Screen::Result(..)) && result_takes(action) {
            return self.on_result(action);
        }
        match action {
            Action::Quit => self.quit(),
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
            Action::Reload => self.reload(),
            Action::Copy => self.on_copy(),
            Action::Back => self.on_back(),
            Action::Submit => self.on_submit(),
            Action::ToggleRaw => self.toggle_raw(),
            Action::LogFilter => self.cycle_log_filter(),
            Action::Fold | Action::FoldAll => self.fold(action == Action::FoldAll),
            Action::FullText => self.toggle_full_text(),
            Action::ToggleModel => self.toggle_model(),
            Action::Suspend => vec![Effect::Suspend],
            Action::Complete => self.on_complete(),
            Action::Help => self.open_view(Overlay::Help(HelpView::default())),
            Action::Trust => self.open_view(Overlay::Trust(super::TrustView::default())),
            Action::Doctor => self.open_view(Overlay::Doctor(DoctorView::opened(&self.info))),
            Action::Policy => self.open_policy_view(),
            Action::Approvals => self.open_view(Overlay::Approvals(ApprovalsView::default())),
            Action::Agents => self.open_view(Overlay::Agents(AgentsView::default())),
            Action::Spills => self.open_view(Overlay::Spills(SpillsView::default())),
            Action::Hosts => self.open_view(Overlay::Hosts(Box::default())),
            Action::Panel(index) => self.open_panel(index),
            Action::Edit => self.edit_config(),
            Action::SignIn => self.sign_in(),
            Action::SignOut => self.sign_out(),
            Action::Workspace => self.toggle_side(),
            Action::TaskMode => self.toggle_task_mode(),
            Action::Tasks => self.open_tasks(),
            Action::ReadUri => self.open_uri_form(),
            Action::Ping => self.ping(),
            Action::Disconnect => self.disconnect(),
            Action::Roots => self.open_roots(),
            Action::LogLevelUp | Action::LogLevelDown => {
                self.step_log_level(action == Action::LogLevelUp)
            }
            Action::Subscribe => self.toggle_subscription(),
            // A result's own (taken above), and the actions of the layers over the panes
            // (approvals, asks, the global views, the editor, the side panel): nothing here, on
            // any other screen or when a keymap binds one for the panes.
            Action::Top
            | Action::Bottom
            | Action::RawJson
            | Action::NextMatch
            | Action::PrevMatch
            | Action::Grant
            | Action::Revoke
            | Action::Delete
            | Action::TestConnect
            | Action::Save
            | Action::AllowOnce
            | Action::AllowSession
            | Action::Deny
            | Action::AllowAlways
            | Action::ViewArguments
            | Action::Decline
            | Action::Toggle
            | Action::NextOption
            | Action::PrevOption
            | Action::OpenUrl
            | Action::StopReason
            | Action::Import
            | Action::ImportProject
            | Action::AddRoot => Vec::new(),
        }
    }

    /// Opens a global view, with the effects that fill it.
    fn open_view(&mut self, overlay: Overlay) -> Vec<Effect> {
        let effects = match &overlay {
            Overlay::Agents(_) => vec![Effect::ScanAgents],
            Overlay::Spills(_) => vec![Effect::RefreshSpills],
            Overlay::Hosts(_) => vec![Effect::Hosts(super::hosts::HostsEffect::Read)],
            _ => Vec::new(),
        };
        self.overlay = Some(overlay);
        effects
    }

    fn quit(&mut self) -> Vec<Effect> {
        self.quitting = true;
        vec![Effect::Quit]
    }

    fn reload(&mut self) -> Vec<Effect> {
        self.message = Some("reloading the configuration…".to_owned());
        vec![Effect::Reload { asked: true }]
    }

    /// Folds or opens the JSON container on the cursor line of the result in front (or all).
    fn fold(&mut self, all: bool) -> Vec<Effect> {
        if let Screen::Result(ResultScreen { view, .. }) = &mut self.screen
            && !view.show_model
        {
            view.toggle_fold(all);
        }
        Vec::new()
    }

    /// A tool detail's whole description, or its first 2 KiB again.
    fn toggle_full_text(&mut self) -> Vec<Effect> {
        if let Screen::Detail(d) = &mut self.screen {
            if d.full_description.is_some() {
                d.show_full = !d.show_full;
            } else {
                self.message = Some("the description is shown whole".to_owned());
            }
        }
        Vec::new()
    }

    /// A result's model-visible text, or its human view again.
    fn toggle_model(&mut self) -> Vec<Effect> {
        if let Screen::Result(ResultScreen { view, .. }) = &mut self.screen {
            view.show_model = !view.show_model;
            view.viewer = super::viewer::Viewer::default();
        }
        Vec::new()
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
        // The Skills tab is there only for a server that declares the extension.
        let skills = self.server().is_some_and(|s| s.skills);
        let tabs: Vec<Tab> = TABS
            .into_iter()
            .filter(|t| *t != Tab::Skills || skills)
            .collect();
        let at = tabs.iter().position(|t| *t == self.tab).unwrap_or(0);
        let next = if forward {
            (at + 1) % tabs.len()
        } else {
            (at + tabs.len() - 1) % tabs.len()
        };
        self.tab = tabs[next];
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
    fn toggle_raw(&mut self) -> Vec<Effect> {
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
        Vec::new()
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
            Tab::Skills => self.open_skill(server, sel),
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
