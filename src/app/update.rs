//! [`App::update`]: messages in, effects out. Input handling is layered: a pending approval
//! takes every key first, then a global view, then text entry (forms, the raw editor, the search
//! box), then the keymap. Engine results are matched to what waits for their id; anything else
//! is stale and dropped.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEventKind};
use ratatui_textarea::{Input, Key, TextArea};

use super::form::{Form, Target};
use super::keymap::{Action, Ctx, lookup};
use super::model::{
    clean_json, prompt_rows, resource_rows, result_view, search_rows, server_rows, spill_rows,
    tool_rows,
};
use super::{
    App, Detail, Effect, Focus, LOG_CAP, Load, LogLine, Msg, Overlay, Pager, ReqId, Running,
    Screen, Search, TABS, Tab, approval,
};
use crate::mcp::connection::{ConnectionEvent, ServerEvent};
use crate::mcp::engine::Outcome;
use crate::mcp::proxy::ProxyRequest;
use crate::mcp::sanitize::{sanitize, sanitize_capped};

/// Rows a page key moves.
const PAGE: usize = 10;

impl App {
    /// Handles one message.
    pub fn update(&mut self, msg: Msg) -> Vec<Effect> {
        match msg {
            Msg::Key(key) if key.kind == KeyEventKind::Release => Vec::new(),
            Msg::Key(key) => self.on_key(key),
            // A paste never answers an approval and never runs anything: it only types.
            Msg::Paste(text) => self.on_paste(&text),
            Msg::Mouse(mouse) => self.on_mouse(mouse),
            Msg::Resize(w, h) => {
                self.size = (w, h);
                Vec::new()
            }
            Msg::Tick => Vec::new(),
            Msg::Status(status) => {
                let rows = server_rows(&status);
                status.project.trust.label().clone_into(&mut self.trust);
                self.servers = rows;
                self.selected = self.selected.min(self.servers.len().saturating_sub(1));
                Vec::new()
            }
            Msg::Done { id, outcome } => self.on_done(id, &outcome),
            Msg::Event(event) => self.on_event(&event),
            Msg::Spills(spills) => {
                self.spills = spill_rows(&spills);
                Vec::new()
            }
            Msg::SpillPage {
                path,
                offset,
                size,
                text,
            } => {
                match text {
                    Ok(text) => {
                        let lines = sanitize(&text).lines().map(str::to_owned).collect();
                        self.overlay = Some(Overlay::Pager(Pager {
                            path,
                            offset,
                            size,
                            lines,
                        }));
                    }
                    Err(e) => self.message = Some(sanitize_capped(&e, 256)),
                }
                Vec::new()
            }
            Msg::Approval(request, reply) => {
                self.approvals
                    .push_back(approval::Pending::new(request, reply, self.now));
                Vec::new()
            }
            Msg::Copied(result) => {
                self.message = Some(match result {
                    Ok(path) => format!("copied via {path}"),
                    Err(e) => format!("copy failed: {}", sanitize_capped(&e, 200)),
                });
                Vec::new()
            }
            Msg::TrustChanged(result) => {
                self.message = Some(match result {
                    Ok(m) | Err(m) => sanitize_capped(&m, 256),
                });
                vec![Effect::RefreshStatus]
            }
            Msg::Info(info) => {
                self.trust.clone_from(&info.trust_state);
                self.info = *info;
                Vec::new()
            }
        }
    }

    fn on_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        if !self.approvals.is_empty() {
            return self.on_approval_key(key);
        }
        if self.overlay.is_some() {
            return self.on_overlay_key(key);
        }
        if matches!(self.screen, Screen::Form(_)) {
            return self.on_form_key(key);
        }
        if matches!(self.screen, Screen::Raw(..)) {
            return self.on_raw_key(key);
        }
        if self.searching() {
            return self.on_search_key(key);
        }
        let contexts = self.contexts();
        match lookup(&contexts, &key) {
            Some(action) => self.on_action(action),
            None => Vec::new(),
        }
    }

    fn on_approval_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let Some(front) = self.approvals.front() else {
            return Vec::new();
        };
        if !front.armed(self.now) {
            return Vec::new();
        }
        let decision = match key.code {
            KeyCode::Esc => Some(crate::mcp::policy::approval::Decision::Deny),
            KeyCode::Char(c) if key.modifiers - KeyModifiers::SHIFT == KeyModifiers::NONE => {
                approval::decision_for(c)
            }
            _ => None,
        };
        let Some(decision) = decision else {
            return Vec::new();
        };
        if let Some(pending) = self.approvals.pop_front() {
            self.message = Some(format!(
                "{:?}: {} {}",
                decision, pending.request.server, pending.request.operation
            ));
            pending.answer(decision);
            // The next request's guard starts when it is first shown.
            if let Some(next) = self.approvals.front_mut() {
                next.shown_at = self.now;
            }
        }
        Vec::new()
    }

    fn on_overlay_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        if let Some(Overlay::Trust(_, confirming @ true)) = &mut self.overlay {
            *confirming = false;
            if key.code == KeyCode::Char('y') {
                return vec![Effect::GrantTrust];
            }
            self.message = Some("trust not granted".to_owned());
            return Vec::new();
        }
        if matches!(self.overlay, Some(Overlay::Help(_))) && key.code == KeyCode::Char('?') {
            self.overlay = None;
            return Vec::new();
        }
        let contexts = self.contexts();
        let Some(action) = lookup(&contexts, &key).or_else(|| {
            lookup(&[Ctx::Global], &key).filter(|a| {
                matches!(
                    a,
                    Action::Up | Action::Down | Action::PageUp | Action::PageDown | Action::Quit
                )
            })
        }) else {
            return Vec::new();
        };
        let overlay = self.overlay.take();
        let (next, effects) = self.on_overlay_action(overlay, action);
        self.overlay = next;
        effects
    }

    fn on_overlay_action(
        &mut self,
        overlay: Option<Overlay>,
        action: Action,
    ) -> (Option<Overlay>, Vec<Effect>) {
        let Some(overlay) = overlay else {
            return (None, Vec::new());
        };
        let delta: isize = match action {
            Action::Up => -1,
            Action::Down => 1,
            Action::PageUp => -(PAGE.cast_signed()),
            Action::PageDown => PAGE.cast_signed(),
            _ => 0,
        };
        let step = |v: usize, max: usize| v.saturating_add_signed(delta).min(max);
        match (overlay, action) {
            (Overlay::Pager(_), Action::Back) => (Some(Overlay::Spills(0)), Vec::new()),
            (_, Action::Back | Action::Quit) => (None, Vec::new()),
            (Overlay::Pager(p), Action::PageDown | Action::Down) => {
                let next = p.offset + super::PAGER_WINDOW;
                if next < p.size {
                    let effect = Effect::ReadSpill {
                        path: p.path.clone(),
                        offset: next,
                    };
                    return (Some(Overlay::Pager(p)), vec![effect]);
                }
                (Some(Overlay::Pager(p)), Vec::new())
            }
            (Overlay::Pager(p), Action::PageUp | Action::Up) => {
                let effect = Effect::ReadSpill {
                    path: p.path.clone(),
                    offset: p.offset.saturating_sub(super::PAGER_WINDOW),
                };
                (Some(Overlay::Pager(p)), vec![effect])
            }
            (Overlay::Pager(p), Action::Copy) => {
                let text = p.path.display().to_string();
                (
                    Some(Overlay::Pager(p)),
                    vec![Effect::Copy(sanitize(&text).into_owned())],
                )
            }
            (Overlay::Spills(sel), Action::Open) => {
                let effects = self
                    .spills
                    .get(sel)
                    .map(|s| Effect::ReadSpill {
                        path: s.path.clone(),
                        offset: 0,
                    })
                    .into_iter()
                    .collect();
                (Some(Overlay::Spills(sel)), effects)
            }
            (Overlay::Spills(sel), Action::Copy) => {
                let effects = self
                    .spills
                    .get(sel)
                    .map(|s| Effect::Copy(s.shown.clone()))
                    .into_iter()
                    .collect();
                (Some(Overlay::Spills(sel)), effects)
            }
            (Overlay::Spills(sel), _) => {
                let max = self.spills.len().saturating_sub(1);
                (Some(Overlay::Spills(step(sel, max))), Vec::new())
            }
            (Overlay::Trust(scroll, _), Action::Grant) => {
                if self.info.trustable {
                    self.message = Some("type y to trust these definitions".to_owned());
                    (Some(Overlay::Trust(scroll, true)), Vec::new())
                } else {
                    self.message = Some("no project configuration to trust".to_owned());
                    (Some(Overlay::Trust(scroll, false)), Vec::new())
                }
            }
            (Overlay::Trust(scroll, c), Action::Revoke) => {
                (Some(Overlay::Trust(scroll, c)), vec![Effect::RevokeTrust])
            }
            (Overlay::Trust(scroll, c), _) => {
                let max = self.info.trust.len().saturating_sub(1);
                (Some(Overlay::Trust(step(scroll, max), c)), Vec::new())
            }
            (Overlay::Doctor(scroll), Action::Copy) => {
                let text = self
                    .info
                    .doctor
                    .iter()
                    .map(|l| l.text.as_str())
                    .collect::<Vec<_>>()
                    .join("\n");
                (Some(Overlay::Doctor(scroll)), vec![Effect::Copy(text)])
            }
            (Overlay::Help(scroll), _) => {
                let max = super::keymap::help_rows().len();
                (Some(Overlay::Help(step(scroll, max))), Vec::new())
            }
            (Overlay::Doctor(scroll), _) => {
                let max = self.info.doctor.len().saturating_sub(1);
                (Some(Overlay::Doctor(step(scroll, max))), Vec::new())
            }
            (Overlay::Error(t, class, message), Action::Copy) => {
                let effect = Effect::Copy(format!("{class}: {message}"));
                (Some(Overlay::Error(t, class, message)), vec![effect])
            }
            (other, _) => (Some(other), Vec::new()),
        }
    }

    fn on_form_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        if let Some(action) = lookup(&[Ctx::Form], &key) {
            return self.on_action(action);
        }
        let Screen::Form(form) = &mut self.screen else {
            return Vec::new();
        };
        match key.code {
            KeyCode::Tab => form.move_focus(1),
            KeyCode::BackTab => form.move_focus(-1),
            KeyCode::Backspace => form.backspace(),
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => form.type_char(c),
            _ => {}
        }
        Vec::new()
    }

    fn on_raw_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let is_ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        if (key.code == KeyCode::Esc || is_ctrl)
            && let Some(action) = lookup(&[Ctx::Form], &key)
        {
            return self.on_action(action);
        }
        if let Screen::Raw(_, area, error) = &mut self.screen {
            area.input(to_input(key));
            *error = None;
        }
        Vec::new()
    }

    fn searching(&self) -> bool {
        matches!(self.screen, Screen::Browse)
            && self.focus == Focus::Main
            && self.tab == Tab::Tools
            && self
                .pane()
                .and_then(|p| p.search.as_ref())
                .is_some_and(|s| s.editing)
    }

    fn on_search_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let Some(server) = self.server().map(|s| s.name.clone()) else {
            return Vec::new();
        };
        let id = self.id();
        let Some(pane) = self.panes.get_mut(&server) else {
            return Vec::new();
        };
        let Some(search) = pane.search.as_mut() else {
            return Vec::new();
        };
        match key.code {
            KeyCode::Esc => {
                pane.search = None;
                return Vec::new();
            }
            KeyCode::Enter => {
                search.editing = false;
                return Vec::new();
            }
            KeyCode::Up => {
                pane.sel[0] = pane.sel[0].saturating_sub(1);
                return Vec::new();
            }
            KeyCode::Down => {
                pane.sel[0] = pane.sel[0].saturating_add(1);
                return Vec::new();
            }
            KeyCode::Backspace => {
                search.query.pop();
            }
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                search.query.push(c);
            }
            _ => return Vec::new(),
        }
        pane.sel[0] = 0;
        if search.query.trim().is_empty() {
            search.results = Load::Idle;
            return Vec::new();
        }
        search.results = Load::Loading(id);
        vec![Effect::Execute {
            id,
            request: ProxyRequest::ToolsSearch {
                server,
                query: search.query.clone(),
            },
        }]
    }

    fn on_paste(&mut self, text: &str) -> Vec<Effect> {
        if !self.approvals.is_empty() || self.overlay.is_some() {
            return Vec::new();
        }
        match &mut self.screen {
            Screen::Form(form) => {
                if let Some(f) = form.focused() {
                    f.value.push_str(text);
                    f.error = None;
                }
            }
            Screen::Raw(_, area, _) => {
                area.insert_str(text);
            }
            _ => {}
        }
        Vec::new()
    }

    fn on_mouse(&mut self, mouse: crossterm::event::MouseEvent) -> Vec<Effect> {
        if !self.approvals.is_empty() || self.overlay.is_some() {
            return Vec::new();
        }
        let areas = crate::app::layout::areas(self.size, self.side_panel);
        let inside = |r: ratatui::layout::Rect| {
            mouse.column >= r.x
                && mouse.column < r.x + r.width
                && mouse.row >= r.y
                && mouse.row < r.y + r.height
        };
        match mouse.kind {
            MouseEventKind::ScrollDown => self.on_action(Action::Down),
            MouseEventKind::ScrollUp => self.on_action(Action::Up),
            MouseEventKind::Down(_) if inside(areas.servers) => {
                let row = usize::from(mouse.row.saturating_sub(areas.servers.y + 1));
                if row < self.servers.len() {
                    if row != self.selected {
                        self.screen = Screen::Browse;
                    }
                    self.selected = row;
                }
                self.focus = Focus::Servers;
                Vec::new()
            }
            MouseEventKind::Down(_)
                if inside(areas.main) && matches!(self.screen, Screen::Browse) =>
            {
                self.focus = Focus::Main;
                // Rows start below the border and the tab bar.
                let row = usize::from(mouse.row.saturating_sub(areas.main.y + 2));
                let tab = tab_index(self.tab);
                let server = self.server().map(|s| s.name.clone()).unwrap_or_default();
                if let Some(pane) = self.panes.get_mut(&server) {
                    let offset = super::layout::window_start(
                        pane.sel[tab],
                        usize::from(areas.main.height.saturating_sub(3)),
                    );
                    pane.sel[tab] = offset + row;
                    self.clamp_selection();
                }
                self.ensure_tab()
            }
            _ => Vec::new(),
        }
    }

    fn on_action(&mut self, action: Action) -> Vec<Effect> {
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
                        Focus::Main => Focus::Servers,
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
                let id = self.id();
                self.message = Some(format!("reconnecting {server}…"));
                self.reconnects.push(id);
                vec![
                    Effect::Execute {
                        id,
                        request: ProxyRequest::Reconnect { server },
                    },
                    Effect::RefreshStatus,
                ]
            }
            Action::Trust => {
                self.overlay = Some(Overlay::Trust(0, false));
                Vec::new()
            }
            Action::Doctor => {
                self.overlay = Some(Overlay::Doctor(0));
                Vec::new()
            }
            Action::Spills => {
                self.overlay = Some(Overlay::Spills(0));
                vec![Effect::RefreshSpills]
            }
            Action::Workspace => {
                self.side_panel = !self.side_panel;
                Vec::new()
            }
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
            Action::ToggleModel => {
                if let Screen::Result(view, _) = &mut self.screen {
                    view.show_model = !view.show_model;
                    view.scroll = 0;
                }
                Vec::new()
            }
            Action::Suspend => vec![Effect::Suspend],
            Action::Grant | Action::Revoke => Vec::new(),
        }
    }

    fn move_by(&mut self, delta: isize) -> Vec<Effect> {
        let scroll = |v: &mut usize| *v = v.saturating_add_signed(delta);
        match &mut self.screen {
            Screen::Detail(d) => {
                scroll(&mut d.scroll);
                return Vec::new();
            }
            Screen::Result(view, _) => {
                let max = if view.show_model {
                    view.model.len()
                } else {
                    view.lines.len()
                };
                scroll(&mut view.scroll);
                view.scroll = view.scroll.min(max.saturating_sub(1));
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
        if let Some(pane) = self.panes.get_mut(&server) {
            scroll(&mut pane.sel[tab]);
        }
        self.clamp_selection();
        Vec::new()
    }

    /// Keeps the current tab's selection inside its list.
    fn clamp_selection(&mut self) {
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
            Tab::Resources => match &pane.resources {
                Some(Load::Ready((r, t))) => r.len() + t.len(),
                _ => 0,
            },
            Tab::Prompts => match &pane.prompts {
                Some(Load::Ready(p)) => p.len(),
                _ => 0,
            },
            Tab::Log => pane.log.len(),
            Tab::Config => self
                .server()
                .and_then(|s| self.info.servers.get(&s.name))
                .map_or(0, Vec::len),
        }
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
    fn ensure_tab(&mut self) -> Vec<Effect> {
        let Some(server) = self.server().map(|s| s.name.clone()) else {
            return Vec::new();
        };
        let id = self.next_id;
        let Some(pane) = self.panes.get_mut(&server) else {
            return Vec::new();
        };
        let request = match self.tab {
            Tab::Tools if pane.tools.is_none() => {
                pane.tools = Some(Load::Loading(id));
                ProxyRequest::ToolsList { server }
            }
            Tab::Resources if pane.resources.is_none() => {
                pane.resources = Some(Load::Loading(id));
                ProxyRequest::ResourcesList { server }
            }
            Tab::Prompts if pane.prompts.is_none() => {
                pane.prompts = Some(Load::Loading(id));
                ProxyRequest::PromptsList { server }
            }
            _ => return Vec::new(),
        };
        self.next_id += 1;
        vec![Effect::Execute { id, request }, Effect::RefreshStatus]
    }

    fn on_open(&mut self) -> Vec<Effect> {
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
                let Some(Some(Load::Ready((resources, _)))) = self.pane().map(|p| &p.resources)
                else {
                    return Vec::new();
                };
                let Some(reference) = resources.get(sel).map(|r| r.reference.clone()) else {
                    self.message =
                        Some("templates are listed only; read a resource by reference".to_owned());
                    return Vec::new();
                };
                let id = self.id();
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
                let Some(Some(Load::Ready(prompts))) = self.pane().map(|p| &p.prompts) else {
                    return Vec::new();
                };
                let Some(prompt) = prompts.get(sel).cloned() else {
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
            Tab::Log | Tab::Config => Vec::new(),
        }
    }

    fn open_detail(&mut self, server: String, tool: String, call: bool) -> Vec<Effect> {
        let id = self.id();
        self.call_when_described = call;
        self.screen = Screen::Detail(Detail {
            server: server.clone(),
            tool: tool.clone(),
            load: Load::Loading(id),
            scroll: 0,
        });
        vec![Effect::Execute {
            id,
            request: ProxyRequest::ToolsDescribe { server, tool },
        }]
    }

    fn on_call(&mut self) -> Vec<Effect> {
        match std::mem::replace(&mut self.screen, Screen::Browse) {
            Screen::Detail(d) => {
                if let Load::Ready(desc) = &d.load {
                    let schema = desc.get("inputSchema").cloned().unwrap_or_default();
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

    fn on_submit(&mut self) -> Vec<Effect> {
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

    fn start_call(&mut self, mut form: Form, value: &serde_json::Value) -> Vec<Effect> {
        let id = self.id();
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

    fn on_back(&mut self) -> Vec<Effect> {
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
                let had_search = self
                    .panes
                    .get_mut(&server)
                    .and_then(|p| p.search.take())
                    .is_some();
                if !had_search {
                    self.focus = Focus::Servers;
                }
            }
        }
        Vec::new()
    }

    fn on_copy(&mut self) -> Vec<Effect> {
        let text = match &self.screen {
            Screen::Detail(Detail {
                load: Load::Ready(desc),
                ..
            }) => serde_json::to_string_pretty(desc.get("inputSchema").unwrap_or(desc))
                .unwrap_or_default(),
            Screen::Result(view, _) => {
                let lines = if view.show_model {
                    &view.model
                } else {
                    &view.lines
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

    fn on_done(&mut self, id: ReqId, outcome: &Outcome) -> Vec<Effect> {
        let mut effects = vec![Effect::RefreshStatus];
        if let Some(at) = self.reconnects.iter().position(|r| *r == id) {
            self.reconnects.remove(at);
            self.message = Some(match &outcome.body {
                Ok(_) => "reconnected".to_owned(),
                Err(f) => format!(
                    "{}: {}",
                    sanitize_capped(&f.class, 64),
                    sanitize_capped(&f.message, 200)
                ),
            });
            effects.extend(self.ensure_tab());
            return effects;
        }
        let failed = |o: &Outcome| match &o.body {
            Err(f) => Some((
                sanitize_capped(&f.class, 64),
                sanitize_capped(&f.message, 2048),
            )),
            Ok(_) => None,
        };
        let result = |o: &Outcome| {
            o.body
                .as_ref()
                .map(|s| s.result.clone())
                .unwrap_or_default()
        };
        for pane in self.panes.values_mut() {
            if pane.tools.as_ref().is_some_and(|l| l.waits_for(id)) {
                pane.tools = Some(match failed(outcome) {
                    Some((c, m)) => Load::Failed(c, m),
                    None => Load::Ready(tool_rows(&result(outcome))),
                });
                return effects;
            }
            if pane.resources.as_ref().is_some_and(|l| l.waits_for(id)) {
                pane.resources = Some(match failed(outcome) {
                    Some((c, m)) => Load::Failed(c, m),
                    None => Load::Ready(resource_rows(&result(outcome))),
                });
                return effects;
            }
            if pane.prompts.as_ref().is_some_and(|l| l.waits_for(id)) {
                pane.prompts = Some(match failed(outcome) {
                    Some((c, m)) => Load::Failed(c, m),
                    None => Load::Ready(prompt_rows(&result(outcome))),
                });
                return effects;
            }
            if let Some(search) = pane.search.as_mut()
                && search.results.waits_for(id)
            {
                search.results = match failed(outcome) {
                    Some((c, m)) => Load::Failed(c, m),
                    None => Load::Ready(search_rows(&result(outcome))),
                };
                return effects;
            }
        }
        match &mut self.screen {
            Screen::Detail(d) if d.load.waits_for(id) => {
                d.load = match failed(outcome) {
                    Some((c, m)) => Load::Failed(c, m),
                    None => Load::Ready(clean_json(&result(outcome))),
                };
                if std::mem::take(&mut self.call_when_described) && matches!(d.load, Load::Ready(_))
                {
                    effects.extend(self.on_call());
                }
            }
            Screen::Running(run) if run.id == id => {
                let view = result_view(outcome);
                let Screen::Running(run) = std::mem::replace(&mut self.screen, Screen::Browse)
                else {
                    return effects;
                };
                if !view.spills.is_empty() {
                    effects.push(Effect::RefreshSpills);
                }
                let form = matches!(&run.form.target, Target::Tool(t) | Target::Prompt(t) if !t.is_empty())
                    .then_some(run.form);
                self.screen = Screen::Result(Box::new(view), form);
                self.message = None;
            }
            // Stale: the operator moved on; the result is dropped.
            _ => {}
        }
        effects
    }

    fn on_event(&mut self, event: &ServerEvent) -> Vec<Effect> {
        let server = sanitize_capped(&event.server, 128);
        let (kind, text, stale) = match &event.event {
            ConnectionEvent::Progress {
                progress,
                total,
                message,
                ..
            } => {
                let message = message.as_deref().map(|m| sanitize_capped(m, 256));
                if let Screen::Running(run) = &mut self.screen
                    && run.form.server == *event.server
                {
                    run.progress = Some((*progress, *total, message.clone()));
                }
                let total = total.map(|t| format!("/{t}")).unwrap_or_default();
                (
                    "progress",
                    format!("{progress}{total} {}", message.unwrap_or_default()),
                    None,
                )
            }
            ConnectionEvent::Log {
                level,
                logger,
                data,
            } => {
                let data = data
                    .as_str()
                    .map_or_else(|| data.to_string(), str::to_owned);
                let logger = logger
                    .as_deref()
                    .map(|l| format!("{l}: "))
                    .unwrap_or_default();
                (
                    "log",
                    sanitize_capped(&format!("{level:?} {logger}{data}"), 1024),
                    None,
                )
            }
            ConnectionEvent::ToolListChanged => {
                ("changed", "tools/list_changed".to_owned(), Some(Tab::Tools))
            }
            ConnectionEvent::ResourceListChanged => (
                "changed",
                "resources/list_changed".to_owned(),
                Some(Tab::Resources),
            ),
            ConnectionEvent::PromptListChanged => (
                "changed",
                "prompts/list_changed".to_owned(),
                Some(Tab::Prompts),
            ),
            ConnectionEvent::ResourceUpdated { uri } => {
                ("updated", sanitize_capped(uri, 512), None)
            }
            ConnectionEvent::Exited { status } => ("exited", sanitize_capped(status, 256), None),
        };
        let Some(pane) = self.panes.get_mut(&*event.server) else {
            return Vec::new();
        };
        pane.log.push_back(LogLine { kind, text });
        while pane.log.len() > LOG_CAP {
            pane.log.pop_front();
        }
        match stale {
            Some(Tab::Tools) => pane.tools = None,
            Some(Tab::Resources) => pane.resources = None,
            Some(Tab::Prompts) => pane.prompts = None,
            _ => {}
        }
        let exited = kind == "exited";
        let _ = server;
        let mut effects = Vec::new();
        if stale.is_some() && self.focus == Focus::Main {
            effects.extend(self.ensure_tab());
        }
        if exited {
            effects.push(Effect::RefreshStatus);
        }
        effects
    }
}

/// The index of a tab in [`TABS`].
pub fn tab_index(tab: Tab) -> usize {
    TABS.iter().position(|t| *t == tab).unwrap_or(0)
}

/// A crossterm key as the text area's input.
fn to_input(key: KeyEvent) -> Input {
    let k = match key.code {
        KeyCode::Char(c) => Key::Char(c),
        KeyCode::Backspace => Key::Backspace,
        KeyCode::Enter => Key::Enter,
        KeyCode::Left => Key::Left,
        KeyCode::Right => Key::Right,
        KeyCode::Up => Key::Up,
        KeyCode::Down => Key::Down,
        KeyCode::Tab => Key::Tab,
        KeyCode::Delete => Key::Delete,
        KeyCode::Home => Key::Home,
        KeyCode::End => Key::End,
        KeyCode::PageUp => Key::PageUp,
        KeyCode::PageDown => Key::PageDown,
        KeyCode::Esc => Key::Esc,
        _ => Key::Null,
    };
    Input {
        key: k,
        ctrl: key.modifiers.contains(KeyModifiers::CONTROL),
        alt: key.modifiers.contains(KeyModifiers::ALT),
        shift: key.modifiers.contains(KeyModifiers::SHIFT),
    }
}
