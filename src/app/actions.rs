//! Named actions (what keymaps point to): navigation, opening, calling, submitting, going back,
//! copying. Each returns the effects the runtime must carry out.

use ratatui_textarea::TextArea;

use super::form::{Form, Target};
use super::keymap::Action;
use super::{
    App, Detail, Effect, Focus, Load, Overlay, Running, Screen, Search, TABS, Tab, Waiter,
};
use crate::mcp::proxy::ProxyRequest;
use crate::mcp::sanitize::sanitize;

use super::update::{PAGE, tab_index};

impl App {
    pub(super) fn on_action(&mut self, action: Action) -> Vec<Effect> {
        if let Some(effects) = self.on_result_action(action) {
            return effects;
        }
        match action {
            Action::Quit => {
                self.quitting = true;
                vec![Effect::Quit]
            }
            Action::Help => {
                self.overlay = Some(Overlay::Help(0));
                Vec::new()
            }
            Action::FocusNext => {
                if matches!(self.screen, Screen::Browse) {
                    self.focus = match self.focus {
                        Focus::Servers => Focus::Main,
                        Focus::Main if self.side_panel => Focus::Side,
                        Focus::Main | Focus::Side => Focus::Servers,
                    };
                    if self.focus == Focus::Main {
                        return self.ensure_tab();
                    }
                }
                Vec::new()
            }
            Action::Up => self.move_by(-1),
            Action::Down => self.move_by(1),
            Action::PageUp => self.move_by(-(PAGE.cast_signed())),
            Action::PageDown => self.move_by(PAGE.cast_signed()),
            Action::NextTab | Action::PrevTab => {
                if !matches!(self.screen, Screen::Browse) {
                    return Vec::new();
                }
                let at = tab_index(self.tab);
                let next = if action == Action::NextTab {
                    (at + 1) % TABS.len()
                } else {
                    (at + TABS.len() - 1) % TABS.len()
                };
                self.tab = TABS[next];
                self.focus = Focus::Main;
                self.ensure_tab()
            }
            Action::Open => self.on_open(),
            Action::Search => {
                let Some(server) = self.server().map(|s| s.name.clone()) else {
                    return Vec::new();
                };
                if let Some(pane) = self.panes.get_mut(&server) {
                    let results = pane.search.take().map_or(Load::Idle, |s| s.results);
                    let query = String::new();
                    pane.search = Some(Search {
                        query,
                        editing: true,
                        results,
                    });
                }
                self.tab = Tab::Tools;
                self.focus = Focus::Main;
                Vec::new()
            }
            Action::Filter => self.start_filter(),
            Action::Call => self.on_call(),
            Action::Reconnect => {
                let Some(server) = self.server().map(|s| s.name.clone()) else {
                    return Vec::new();
                };
                if let Some(pane) = self.panes.get_mut(&server) {
                    pane.tools = None;
                    pane.resources = None;
                    pane.prompts = None;
                    pane.search = None;
                }
                let id = self.id(Waiter::Reconnect);
                self.message = Some(format!("reconnecting {server}…"));
                vec![
                    Effect::Execute {
                        id,
                        request: ProxyRequest::Reconnect { server },
                    },
                    Effect::RefreshStatus,
                ]
            }
            Action::Trust => {
                self.overlay = Some(Overlay::Trust(super::TrustView::default()));
                Vec::new()
            }
            Action::Doctor => {
                self.overlay = Some(Overlay::Doctor(0));
                Vec::new()
            }
            Action::Edit => {
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
            Action::Approvals => {
                self.overlay = Some(Overlay::Approvals(0));
                Vec::new()
            }
            Action::Agents => {
                self.overlay = Some(Overlay::Agents(0));
                vec![Effect::ScanAgents]
            }
            Action::Spills => {
                self.overlay = Some(Overlay::Spills(0));
                vec![Effect::RefreshSpills]
            }
            Action::Workspace => self.toggle_side(),
            Action::Copy => self.on_copy(),
            Action::Back => self.on_back(),
            Action::Submit => self.on_submit(),
            Action::ToggleRaw => {
                self.screen = match std::mem::replace(&mut self.screen, Screen::Browse) {
                    Screen::Form(form) => {
                        let text = serde_json::to_string_pretty(&form.lenient_value())
                            .unwrap_or_else(|_| "{}".to_owned());
                        let area = TextArea::new(text.lines().map(str::to_owned).collect());
                        Screen::Raw(form, Box::new(area), None)
                    }
                    Screen::Raw(mut form, area, _) => {
                        let text = area.lines().join("\n");
                        match serde_json::from_str::<serde_json::Value>(&text) {
                            Ok(v) if v.is_object() => {
                                form.fill(&v);
                                Screen::Form(form)
                            }
                            Ok(_) => Screen::Raw(
                                form,
                                area,
                                Some("arguments must be a JSON object".to_owned()),
                            ),
                            Err(e) => Screen::Raw(form, area, Some(format!("invalid JSON: {e}"))),
                        }
                    }
                    other => other,
                };
                Vec::new()
            }
            Action::LogFilter => {
                let tab = tab_index(Tab::Log);
                let server = self.server().map(|s| s.name.clone()).unwrap_or_default();
                if self.tab == Tab::Log
                    && let Some(pane) = self.panes.get_mut(&server)
                {
                    pane.log_filter = pane.log_filter.next();
                    pane.sel[tab] = 0;
                    self.message = Some(format!("log: {}", pane.log_filter.label()));
                }
                Vec::new()
            }
            Action::Fold | Action::FoldAll => {
                if let Screen::Result(view, _) = &mut self.screen
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
                if let Screen::Result(view, _) = &mut self.screen {
                    view.show_model = !view.show_model;
                    view.viewer = super::viewer::Viewer::default();
                }
                Vec::new()
            }
            Action::Suspend => vec![Effect::Suspend],
            // Handled where their views are.
            Action::Grant
            | Action::Revoke
            | Action::Save
            | Action::AllowOnce
            | Action::AllowSession
            | Action::Deny
            | Action::Delete
            | Action::TestConnect
            | Action::Top
            | Action::Bottom
            | Action::NextMatch
            | Action::PrevMatch => Vec::new(),
        }
    }

    /// Starts a filter over the Resources or Prompts list.
    fn start_filter(&mut self) -> Vec<Effect> {
        let Some(server) = self.server().map(|s| s.name.clone()) else {
            return Vec::new();
        };
        if self.focus != Focus::Main || !matches!(self.tab, Tab::Resources | Tab::Prompts) {
            return Vec::new();
        }
        let tab = self.tab;
        if let Some(pane) = self.panes.get_mut(&server) {
            pane.filter = Some(super::ListFilter {
                tab,
                query: String::new(),
                editing: true,
            });
            pane.sel[tab_index(tab)] = 0;
        }
        Vec::new()
    }

    pub(super) fn move_by(&mut self, delta: isize) -> Vec<Effect> {
        let scroll = |v: &mut usize| *v = v.saturating_add_signed(delta);
        match &mut self.screen {
            Screen::Detail(d) => {
                scroll(&mut d.scroll);
                return Vec::new();
            }
            Screen::Form(form) => {
                form.move_focus(delta.signum());
                return Vec::new();
            }
            Screen::Browse => {}
            _ => return Vec::new(),
        }
        if self.focus == Focus::Servers {
            let max = self.servers.len().saturating_sub(1);
            self.selected = self.selected.saturating_add_signed(delta).min(max);
            return Vec::new();
        }
        let tab = tab_index(self.tab);
        let server = self.server().map(|s| s.name.clone()).unwrap_or_default();
        // The Log tab counts back from its newest line at the bottom: up goes back in time.
        let delta = if self.tab == Tab::Log { -delta } else { delta };
        if let Some(pane) = self.panes.get_mut(&server) {
            pane.sel[tab] = pane.sel[tab].saturating_add_signed(delta);
        }
        self.clamp_selection();
        Vec::new()
    }

    /// Keeps the current tab's selection inside its list.
    pub(super) fn clamp_selection(&mut self) {
        let len = self.list_len();
        let tab = tab_index(self.tab);
        let server = self.server().map(|s| s.name.clone()).unwrap_or_default();
        if let Some(pane) = self.panes.get_mut(&server) {
            pane.sel[tab] = pane.sel[tab].min(len.saturating_sub(1));
        }
    }

    /// How many rows the current tab shows.
    pub fn list_len(&self) -> usize {
        let Some(pane) = self.pane() else {
            return 0;
        };
        match self.tab {
            Tab::Tools => self.visible_tools().map_or(0, <[_]>::len),
            Tab::Resources => self.resource_entries().len(),
            Tab::Prompts => self.prompt_entries().len(),
            Tab::Log => pane.visible_log().len(),
            Tab::Config => self
                .server()
                .and_then(|s| self.info.servers.get(&s.name))
                .map_or(0, Vec::len),
        }
    }

    /// The Resources tab's rows (resources, then templates, marked `true`), narrowed by the
    /// filter.
    pub fn resource_entries(&self) -> Vec<(&super::ResourceRow, bool)> {
        let Some(pane) = self.pane() else {
            return Vec::new();
        };
        let Some(Load::Ready((resources, templates))) = &pane.resources else {
            return Vec::new();
        };
        let filter = pane.filter.as_ref().filter(|f| f.tab == Tab::Resources);
        resources
            .iter()
            .map(|r| (r, false))
            .chain(templates.iter().map(|t| (t, true)))
            .filter(|(r, _)| filter.is_none_or(|f| f.keeps(&r.name, &r.description)))
            .collect()
    }

    /// The Prompts tab's rows, narrowed by the filter.
    pub fn prompt_entries(&self) -> Vec<&super::PromptRow> {
        let Some(pane) = self.pane() else {
            return Vec::new();
        };
        let Some(Load::Ready(prompts)) = &pane.prompts else {
            return Vec::new();
        };
        let filter = pane.filter.as_ref().filter(|f| f.tab == Tab::Prompts);
        prompts
            .iter()
            .filter(|p| filter.is_none_or(|f| f.keeps(&p.name, &p.description)))
            .collect()
    }

    /// The tool rows shown: the search's matches while searching, else the catalog.
    pub fn visible_tools(&self) -> Option<&[super::ToolRow]> {
        let pane = self.pane()?;
        if let Some(search) = &pane.search
            && !search.query.trim().is_empty()
        {
            return match &search.results {
                Load::Ready(rows) => Some(rows),
                _ => None,
            };
        }
        match &pane.tools {
            Some(Load::Ready(rows)) => Some(rows),
            _ => None,
        }
    }

    /// Starts loading the current tab's catalog when it was never asked for.
    pub(super) fn ensure_tab(&mut self) -> Vec<Effect> {
        let Some(server) = self.server().map(|s| s.name.clone()) else {
            return Vec::new();
        };
        let id = self.next_id;
        let Some(pane) = self.panes.get_mut(&server) else {
            return Vec::new();
        };
        let (waiter, request) = match self.tab {
            Tab::Tools if pane.tools.is_none() => {
                pane.tools = Some(Load::Loading(id));
                (
                    Waiter::Tools(server.clone()),
                    ProxyRequest::ToolsList { server },
                )
            }
            Tab::Resources if pane.resources.is_none() => {
                pane.resources = Some(Load::Loading(id));
                (
                    Waiter::Resources(server.clone()),
                    ProxyRequest::ResourcesList { server },
                )
            }
            Tab::Prompts if pane.prompts.is_none() => {
                pane.prompts = Some(Load::Loading(id));
                (
                    Waiter::Prompts(server.clone()),
                    ProxyRequest::PromptsList { server },
                )
            }
            Tab::Log => {
                pane.stderr_asked = Some(self.now);
                return vec![Effect::ReadStderr(server)];
            }
            _ => return Vec::new(),
        };
        let registered = self.id(waiter);
        debug_assert_eq!(registered, id);
        vec![Effect::Execute { id, request }, Effect::RefreshStatus]
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
        let sel = self.pane().map_or(0, |p| p.sel[tab_index(self.tab)]);
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
                let Some((row, template)) = entries.get(sel) else {
                    return Vec::new();
                };
                let reference = row.reference.clone();
                if *template || reference.is_empty() {
                    self.message =
                        Some("templates are listed only; read a resource by reference".to_owned());
                    return Vec::new();
                }
                let id = self.id(Waiter::Run);
                self.screen = Screen::Running(Running {
                    id,
                    form: Form::new(&server, Target::Tool(String::new()), serde_json::json!({})),
                    started: self.now,
                    progress: None,
                    cancelling: false,
                });
                vec![Effect::Execute {
                    id,
                    request: ProxyRequest::ResourcesRead { server, reference },
                }]
            }
            Tab::Prompts => {
                let Some(prompt) = self.prompt_entries().get(sel).copied().cloned() else {
                    return Vec::new();
                };
                let form = Form::new(&server, Target::Prompt(prompt.name.clone()), prompt.schema);
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

    /// Enter on a Log line: a traffic line's body, pretty-printed, as a result view.
    fn open_log_line(&mut self, server: &str, sel: usize) -> Vec<Effect> {
        let Some(pane) = self.panes.get(server) else {
            return Vec::new();
        };
        let lines = pane.visible_log();
        let Some(line) = lines
            .len()
            .checked_sub(sel + 1)
            .and_then(|i| lines.get(i).copied())
        else {
            return Vec::new();
        };
        let Some(body) = &line.body else {
            return Vec::new();
        };
        let title = format!("{} {}", line.kind, line.text);
        let view = match serde_json::from_str::<serde_json::Value>(body) {
            Ok(v) => super::ResultView::new(title, Vec::new(), Some(v), Vec::new()),
            Err(_) => super::ResultView::new(
                title,
                body.lines().map(str::to_owned).collect(),
                None,
                Vec::new(),
            ),
        };
        let mut view = Box::new(view);
        view.model.clone_from(&view.plain);
        self.screen = Screen::Result(view, None);
        Vec::new()
    }

    pub(super) fn open_detail(&mut self, server: String, tool: String, call: bool) -> Vec<Effect> {
        let id = self.id(Waiter::Detail);
        self.call_when_described = call;
        self.screen = Screen::Detail(Detail {
            server: server.clone(),
            tool: tool.clone(),
            load: Load::Loading(id),
            scroll: 0,
            full_description: None,
            show_full: false,
        });
        vec![Effect::Execute {
            id,
            request: ProxyRequest::ToolsDescribe { server, tool },
        }]
    }

    pub(super) fn on_call(&mut self) -> Vec<Effect> {
        match std::mem::replace(&mut self.screen, Screen::Browse) {
            Screen::Detail(d) => {
                if let Load::Ready(desc) = &d.load {
                    let schema = desc.input_schema.clone();
                    self.screen =
                        Screen::Form(Form::new(&d.server, Target::Tool(d.tool.clone()), schema));
                    self.last_detail = Some(d);
                } else {
                    self.call_when_described = true;
                    self.screen = Screen::Detail(d);
                }
                Vec::new()
            }
            Screen::Result(view, Some(form)) => {
                drop(view);
                self.screen = Screen::Form(form);
                Vec::new()
            }
            Screen::Browse if self.tab == Tab::Tools && self.focus == Focus::Main => {
                let sel = self.pane().map_or(0, |p| p.sel[0]);
                let Some(tool) = self
                    .visible_tools()
                    .and_then(|t| t.get(sel))
                    .map(|t| t.name.clone())
                else {
                    return Vec::new();
                };
                let Some(server) = self.server().map(|s| s.name.clone()) else {
                    return Vec::new();
                };
                self.open_detail(server, tool, true)
            }
            Screen::Browse if self.tab == Tab::Prompts => {
                self.screen = Screen::Browse;
                self.on_open()
            }
            other => {
                self.screen = other;
                Vec::new()
            }
        }
    }

    pub(super) fn on_submit(&mut self) -> Vec<Effect> {
        let (form, value) = match std::mem::replace(&mut self.screen, Screen::Browse) {
            Screen::Form(mut form) => {
                if let Ok(v) = form.value() {
                    (form, v)
                } else {
                    self.screen = Screen::Form(form);
                    return Vec::new();
                }
            }
            Screen::Raw(mut form, area, _) => {
                let text = area.lines().join("\n");
                let error = match serde_json::from_str::<serde_json::Value>(&text) {
                    Ok(v) if v.is_object() => {
                        if form.validate(&v).is_ok() {
                            form.fill(&v);
                            let args = v;
                            return self.start_call(form, &args);
                        }
                        form.errors.first().cloned().or_else(|| {
                            form.fields
                                .iter()
                                .find_map(|f| f.error.as_ref().map(|e| format!("{}: {e}", f.name)))
                        })
                    }
                    Ok(_) => Some("arguments must be a JSON object".to_owned()),
                    Err(e) => Some(format!("invalid JSON: {e}")),
                };
                self.screen = Screen::Raw(form, area, error);
                return Vec::new();
            }
            other => {
                self.screen = other;
                return Vec::new();
            }
        };
        self.start_call(form, &value)
    }

    pub(super) fn start_call(&mut self, mut form: Form, value: &serde_json::Value) -> Vec<Effect> {
        let id = self.id(Waiter::Run);
        let server = form.server.clone();
        let request = match &form.target {
            Target::Tool(tool) => ProxyRequest::ToolsCall {
                server,
                tool: tool.clone(),
                args: value.as_object().cloned().unwrap_or_default(),
            },
            Target::Prompt(prompt) => ProxyRequest::PromptsGet {
                server,
                prompt: prompt.clone(),
                arguments: value
                    .as_object()
                    .map(|m| {
                        m.iter()
                            .map(|(k, v)| {
                                (
                                    k.clone(),
                                    v.as_str().map_or_else(|| v.to_string(), str::to_owned),
                                )
                            })
                            .collect()
                    })
                    .unwrap_or_default(),
            },
        };
        form.errors.clear();
        self.screen = Screen::Running(Running {
            id,
            form,
            started: self.now,
            progress: None,
            cancelling: false,
        });
        vec![Effect::Execute { id, request }]
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
            Screen::Form(form) | Screen::Raw(form, ..) => {
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
                let server = self.server().map(|s| s.name.clone()).unwrap_or_default();
                let tab = self.tab;
                let had_search = self.panes.get_mut(&server).is_some_and(|p| {
                    let filtered = p.filter.as_ref().is_some_and(|f| f.tab == tab);
                    if filtered {
                        p.filter = None;
                    }
                    p.search.take().is_some() || filtered
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
            Screen::Result(view, _) => {
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
                let sel = self.pane().map_or(0, |p| p.sel[0]);
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
