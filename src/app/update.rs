//! [`App::update`]: messages in, effects out. Keys, pastes and the mouse go to the layer in
//! front (`app::layers`); what reaches the panes goes to text entry (forms, the raw editor, the
//! search box) first, then the keymap. Engine results are matched to what waits for their id;
//! anything else is stale and dropped.

use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers, MouseEventKind};
use ratatui_textarea::{Input, Key};

use super::keymap::{Action, Ctx};
use super::server_list::server_rows;
use super::spills_view::spill_rows;
use super::{App, Effect, Focus, Msg, Screen, Tab, approval};
use crate::mcp::sanitize::{sanitize, sanitize_capped};

/// Rows a page key moves.
pub(super) const PAGE: usize = 10;

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
            // The engine pushes status changes (`Msg::Status`); a tick only animates.
            Msg::Tick => self.on_completion_tick(),
            Msg::Status(status) => self.on_status(&status),
            Msg::Done { id, outcome } => self.on_done(id, &outcome),
            Msg::Event(event) => self.on_event(&event),
            Msg::Spills(spills) => {
                self.spills = spill_rows(&spills);
                Vec::new()
            }
            msg @ (Msg::SpillPage { .. }
            | Msg::EditorText { .. }
            | Msg::Saved(_)
            | Msg::TestConnected(_)) => self.on_overlay_msg(msg),
            Msg::Approval(request) => {
                self.approvals
                    .push_back(approval::Pending::new(request, self.now));
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
                Vec::new()
            }
            Msg::Info(info) => self.on_info(*info, &std::collections::BTreeSet::new()),
            Msg::FilesChanged(_) => vec![Effect::Reload { asked: false }],
            Msg::Reloaded { said, mode } => {
                self.message = Some(sanitize_capped(&said, 256));
                self.policy = mode;
                Vec::new()
            }
            Msg::Stderr { server, text } => {
                if let Some(pane) = self.panes.get_mut(&server) {
                    pane.log.stderr = text
                        .map(|t| sanitize(&t).lines().map(str::to_owned).collect())
                        .unwrap_or_default();
                }
                Vec::new()
            }
            Msg::SpillDeleted(result) => {
                self.message = Some(match result {
                    Ok(m) | Err(m) => sanitize_capped(&m, 300),
                });
                vec![Effect::RefreshSpills]
            }
            msg @ (Msg::AgentSnapshot(_)
            | Msg::AgentApproval { .. }
            | Msg::AgentFlagged { .. }
            | Msg::ApprovalWithdrawn { .. }
            | Msg::AgentGone(_)) => self.on_agent_msg(msg),
            msg @ (Msg::PolicyRead(_) | Msg::PolicySaved(_)) => self.on_policy_msg(msg),
            msg @ (Msg::Elicit { .. } | Msg::Sample { .. } | Msg::ClientNote { .. }) => {
                self.on_server_ask_msg(msg)
            }
            Msg::Hosts(msg) => self.on_hosts_msg(msg),
            Msg::Auth(msg) => self.on_auth_msg(msg),
            Msg::Rebuilt { info, kept } => self.on_info(*info, &kept),
            msg @ Msg::AskWithdrawn { .. } => self.on_server_ask_msg(msg),
            Msg::SpillCopied(result) => {
                self.message = Some(match result {
                    Ok(m) | Err(m) => sanitize_capped(&m, 512),
                });
                Vec::new()
            }
        }
    }

    /// A fresh status report: the server rows (a reloaded configuration may name new servers).
    fn on_status(&mut self, status: &crate::mcp::status::StatusReport) -> Vec<Effect> {
        let rows = server_rows(status);
        status.project.trust.label().clone_into(&mut self.trust);
        for row in &rows {
            self.panes.entry(row.name.clone()).or_default();
        }
        self.servers.update(super::ServerListMsg::Rows(rows))
    }

    /// The engine was rebuilt (trust change or reloaded configuration): the catalogs of the
    /// servers it started again belonged to the old connections; those of the `kept` servers
    /// (same definition, same state: same connection) stay.
    fn on_info(
        &mut self,
        info: super::info::ConfigInfo,
        kept: &std::collections::BTreeSet<String>,
    ) -> Vec<Effect> {
        for (name, pane) in &mut self.panes {
            if !kept.contains(name) {
                pane.forget_catalogs();
            }
        }
        let shown_kept = self.server().is_some_and(|s| kept.contains(&s.name));
        if matches!(self.screen, Screen::Browse) && self.focus == Focus::Main && !shown_kept {
            self.focus = Focus::Servers;
        }
        self.trust.clone_from(&info.trust_state);
        self.info = info;
        Vec::new()
    }

    /// What the attached agent sessions report.
    fn on_agent_msg(&mut self, msg: Msg) -> Vec<Effect> {
        match msg {
            Msg::AgentSnapshot(snapshot) => self.on_agent_snapshot(&snapshot),
            Msg::AgentApproval { pid, request } => self.on_agent_approval(pid, request),
            Msg::AgentFlagged { pid, request } => self.on_agent_flagged(pid, &request),
            Msg::ApprovalWithdrawn {
                agent,
                ticket,
                settled,
            } => self.withdraw_approval(agent, ticket, &settled),
            Msg::AgentGone(pid) => self.on_agent_gone(pid),
            _ => {}
        }
        Vec::new()
    }

    /// A key for the panes (nothing is open over them): text entry (forms, the raw editor, the
    /// search box, a filter) first, then the keymap.
    pub(super) fn on_panes_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        if matches!(self.screen, Screen::Form(_)) {
            return self.on_form_key(key);
        }
        if matches!(self.screen, Screen::Raw(..)) {
            return self.on_raw_key(key);
        }
        if self.searching() {
            return self.on_search_key(key);
        }
        if self.filtering() {
            return self.on_filter_key(key);
        }
        if self.result_searching() {
            return self.on_result_search_key(key);
        }
        let contexts = self.contexts();
        match self.keymap.lookup(&contexts, &key) {
            Some(action) => self.on_action(action),
            None => Vec::new(),
        }
    }

    pub(super) fn on_form_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        // The form's help key leaves an open suggestion list open under the box.
        if self.keymap.lookup(&[Ctx::Form], &key) == Some(Action::Help) {
            return self.open_key_help();
        }
        if let Some(effects) = self.on_completion_key(&key) {
            return effects;
        }
        if let Some(action) = self.keymap.lookup(&[Ctx::Form], &key) {
            return self.on_action(action);
        }
        match &mut self.screen {
            Screen::Form(form) => form.update(super::FormMsg::Key(key)),
            _ => Vec::new(),
        }
    }

    pub(super) fn on_raw_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let is_ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        // Characters type; Esc, control keys and function keys are the form's.
        if (matches!(key.code, KeyCode::Esc | KeyCode::F(_)) || is_ctrl)
            && let Some(action) = self.keymap.lookup(&[Ctx::Form], &key)
        {
            if action == Action::Help {
                return self.open_key_help();
            }
            return self.on_action(action);
        }
        match &mut self.screen {
            Screen::Raw(raw) => raw.update(super::FormMsg::Key(key)),
            _ => Vec::new(),
        }
    }

    pub(super) fn searching(&self) -> bool {
        matches!(self.screen, Screen::Browse)
            && self.focus == Focus::Main
            && self.tab == Tab::Tools
            && self
                .pane()
                .and_then(|p| p.tools.search.as_ref())
                .is_some_and(|s| s.editing)
    }

    /// Whether keys go into the current list's filter.
    pub(super) fn filtering(&self) -> bool {
        matches!(self.screen, Screen::Browse)
            && self.focus == Focus::Main
            && self.pane().is_some_and(|p| p.list(self.tab).filtering())
    }

    /// A key typed into a list filter: typing narrows, arrows move, Enter opens the highlighted
    /// entry (the filter stays), Esc clears the filter.
    pub(super) fn on_filter_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let key = self.query_key(Ctx::Filter, &key);
        if key == super::QueryKey::Keep {
            let tab = self.tab;
            if let Some(filter) = self
                .pane_mut()
                .and_then(|p| p.list_mut(tab).filter.as_mut())
            {
                filter.editing = false;
            }
            return self.on_open();
        }
        let effects = self.route_to_tab(super::TabMsg::FilterKey(key));
        self.clamp_selection();
        effects
    }

    /// A key typed into the tools search: typing asks the engine's ranked search, arrows move,
    /// Enter opens the highlighted match (the search stays), Esc clears it.
    pub(super) fn on_search_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let Some(server) = self.server().map(|s| s.name.clone()) else {
            return Vec::new();
        };
        let id = self.next_id;
        let key = self.query_key(Ctx::ToolSearch, &key);
        let Some(pane) = self.panes.get_mut(&server) else {
            return Vec::new();
        };
        let effects = pane.tools.on_search_key(key, &server, id);
        if !effects.is_empty() {
            let registered = self.id(super::Waiter::Search(server));
            debug_assert_eq!(registered, id);
        }
        // Keeping the query opens the highlighted match, as in every list's filter.
        if key == super::QueryKey::Keep {
            return self.on_open();
        }
        effects
    }

    /// A paste for the panes: it types into the call form or the raw editor.
    pub(super) fn on_panes_paste(&mut self, text: &str) -> Vec<Effect> {
        let msg = super::FormMsg::Paste(text.to_owned());
        match &mut self.screen {
            Screen::Form(form) => {
                let effects = form.update(msg);
                self.completion_typed();
                effects
            }
            Screen::Raw(raw) => raw.update(msg),
            _ => Vec::new(),
        }
    }

    /// A click or scroll on the panes: it lands on what was drawn there.
    pub(super) fn on_panes_mouse(&mut self, mouse: crossterm::event::MouseEvent) -> Vec<Effect> {
        let areas = self.areas();
        let inside = |r: ratatui::layout::Rect| {
            mouse.column >= r.x
                && mouse.column < r.x + r.width
                && mouse.row >= r.y
                && mouse.row < r.y + r.height
        };
        match mouse.kind {
            MouseEventKind::ScrollDown | MouseEventKind::ScrollUp
                if self.side_panel && inside(areas.side) =>
            {
                let action = if mouse.kind == MouseEventKind::ScrollDown {
                    Action::Down
                } else {
                    Action::Up
                };
                self.on_side_action(action)
            }
            MouseEventKind::ScrollDown => self.on_action(Action::Down),
            MouseEventKind::ScrollUp => self.on_action(Action::Up),
            MouseEventKind::Down(_) if inside(areas.servers) => {
                let row = usize::from(mouse.row.saturating_sub(areas.servers.y + 1));
                let before = self.servers.selected;
                let effects = self.servers.update(super::ServerListMsg::Select(row));
                if self.servers.selected != before {
                    self.screen = Screen::Browse;
                    self.leave_absent_skills();
                }
                self.focus = Focus::Servers;
                effects
            }
            MouseEventKind::Down(_) if self.side_panel && inside(areas.side) => {
                self.focus = Focus::Side;
                Vec::new()
            }
            MouseEventKind::Down(_)
                if inside(areas.main)
                    && mouse.row == areas.main.y + 1
                    && matches!(self.screen, Screen::Browse) =>
            {
                let (counts, skills) = self
                    .server()
                    .map(|s| (s.counts, s.skills))
                    .unwrap_or_default();
                let bar = (areas.main.x + 1, areas.main.width.saturating_sub(2));
                let Some(tab) =
                    super::layout::tab_at((counts, skills), self.tab, bar, mouse.column)
                else {
                    return Vec::new();
                };
                self.tab = tab;
                self.focus = Focus::Main;
                self.clamp_selection();
                self.ensure_tab()
            }
            MouseEventKind::Down(_)
                if inside(areas.main) && matches!(self.screen, Screen::Browse) =>
            {
                self.focus = Focus::Main;
                // Rows start below the border and the tab bar.
                let row = usize::from(mouse.row.saturating_sub(areas.main.y + 2));
                let offset = super::layout::window_start(
                    self.tab_selection(),
                    usize::from(areas.main.height.saturating_sub(3)),
                );
                let mut effects = self.route_to_tab(super::TabMsg::Select(offset + row));
                self.clamp_selection();
                effects.extend(self.ensure_tab());
                effects
            }
            _ => Vec::new(),
        }
    }
}

/// A crossterm key as the text area's input.
pub(super) fn to_input(key: KeyEvent) -> Input {
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
