//! The workspace side panel (issue 6): a form per `workspace_*` tool and a readable result,
//! toggled with `w`. Each tool's form is built from the schema the engine describes, and each
//! run is an ordinary `tools.call` to the packaged `workspace` server, so the panel goes through
//! the same engine path (trust, policy, approvals, shaping) as every other call.

use std::time::Instant;

use crossterm::event::{KeyEvent, KeyModifiers};

use super::form::{FieldKind, Form, Target};
use super::keymap::{Action, Ctx};
use super::side_view::{SideLine, outcome_lines};
use super::{App, Effect, Focus, Load, ReqId};
use crate::mcp::engine::{EngineRequest, Outcome};
use crate::mcp::proxy::ProxyRequest;
use crate::mcp::sanitize::sanitize_capped;
use crate::workspace::packaged::WORKSPACE_SERVER;

/// The panel's tools, in tab order.
pub const WORKSPACE_TOOLS: [&str; 4] = [
    "workspace_find",
    "workspace_query",
    "workspace_check",
    "workspace_capsule",
];

/// A workspace call in flight.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SideRun {
    /// The request id.
    pub id: ReqId,
    /// Which tool.
    pub tool: usize,
    /// When it started.
    pub started: Instant,
    /// Whether Esc asked to cancel it.
    pub cancelling: bool,
}

/// A finished workspace call, as readable lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideResult {
    /// Which tool answered.
    pub tool: usize,
    /// The lines (sanitised).
    pub lines: Vec<SideLine>,
}

/// The side panel's state.
#[derive(Debug, Default)]
pub struct WorkspacePanel {
    /// The selected tool (index into [`WORKSPACE_TOOLS`]).
    pub tool: usize,
    /// Each tool's form, built from its described schema.
    pub forms: [Option<Load<Form>>; 4],
    /// The call in flight.
    pub run: Option<SideRun>,
    /// The last result.
    pub result: Option<SideResult>,
    /// The result's scroll offset.
    pub scroll: usize,
}

impl WorkspacePanel {
    /// The selected tool's form, when it is ready.
    pub fn form(&self) -> Option<&Form> {
        match &self.forms[self.tool] {
            Some(Load::Ready(form)) => Some(form),
            _ => None,
        }
    }

    fn form_mut(&mut self) -> Option<&mut Form> {
        match &mut self.forms[self.tool] {
            Some(Load::Ready(form)) => Some(form),
            _ => None,
        }
    }

    /// A paste while the panel has the focus types into its form's focused field.
    pub(super) fn on_paste(&mut self, text: &str) {
        if let Some(form) = self.form_mut() {
            form.update(super::FormMsg::Paste(text.to_owned()));
        }
    }
}

impl App {
    /// Whether a `workspace` server is configured.
    pub fn has_workspace(&self) -> bool {
        self.servers.rows.iter().any(|s| s.name == WORKSPACE_SERVER)
    }

    /// `w`: shows the panel (focused) or hides it.
    pub(super) fn toggle_side(&mut self) -> Vec<Effect> {
        if self.side_panel {
            self.side_panel = false;
            if self.focus == Focus::Side {
                self.focus = Focus::Main;
            }
            return Vec::new();
        }
        self.side_panel = true;
        self.focus = Focus::Side;
        self.describe_side_tool()
    }

    /// Asks the engine for the selected tool's schema when its form was never built.
    fn describe_side_tool(&mut self) -> Vec<Effect> {
        if !self.has_workspace() {
            return Vec::new();
        }
        let tool = self.side.tool;
        if matches!(
            self.side.forms[tool],
            Some(Load::Ready(_) | Load::Loading(_))
        ) {
            return Vec::new();
        }
        let id = self.id(super::Waiter::SideForm);
        self.side.forms[tool] = Some(Load::Loading(id));
        vec![Effect::Engine {
            id,
            request: EngineRequest::Agent(ProxyRequest::ToolsDescribe {
                server: WORKSPACE_SERVER.to_owned(),
                tool: WORKSPACE_TOOLS[tool].to_owned(),
            }),
        }]
    }

    /// Keys while the panel has the focus: its keymap first, then typing into the form.
    pub(super) fn on_side_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let action = self.keymap.lookup(&[Ctx::Side], &key).or_else(|| {
            // Control keys keep their global meaning (C-c quits, C-z suspends).
            key.modifiers
                .contains(KeyModifiers::CONTROL)
                .then(|| self.keymap.lookup(&[Ctx::Global], &key))
                .flatten()
        });
        if let Some(action) = action {
            return self.on_side_action(action);
        }
        if let Some(form) = self.side.form_mut() {
            form.on_text_key(&key);
        }
        Vec::new()
    }

    pub(super) fn on_side_action(&mut self, action: Action) -> Vec<Effect> {
        let scroll = |panel: &mut WorkspacePanel, delta: isize| {
            let max = panel.result.as_ref().map_or(0, |r| r.lines.len());
            panel.scroll = panel
                .scroll
                .saturating_add_signed(delta)
                .min(max.saturating_sub(1));
        };
        match action {
            Action::NextTab | Action::PrevTab => {
                let n = WORKSPACE_TOOLS.len();
                let step = if action == Action::NextTab { 1 } else { n - 1 };
                self.side.tool = (self.side.tool + step) % n;
                self.describe_side_tool()
            }
            Action::Up => {
                scroll(&mut self.side, -1);
                Vec::new()
            }
            Action::Down => {
                scroll(&mut self.side, 1);
                Vec::new()
            }
            Action::PageUp => {
                scroll(&mut self.side, -(super::update::PAGE.cast_signed()));
                Vec::new()
            }
            Action::PageDown => {
                scroll(&mut self.side, super::update::PAGE.cast_signed());
                Vec::new()
            }
            Action::Submit => self.run_side_tool(),
            Action::Back => {
                if let Some(run) = &mut self.side.run {
                    run.cancelling = true;
                    return vec![Effect::Cancel(run.id)];
                }
                self.focus = Focus::Main;
                Vec::new()
            }
            Action::Copy => {
                let Some(result) = &self.side.result else {
                    return Vec::new();
                };
                let text: Vec<&str> = result.lines.iter().map(|l| l.text.as_str()).collect();
                vec![Effect::Copy(text.join("\n"))]
            }
            Action::Workspace => self.toggle_side(),
            Action::Quit => self.on_action(Action::Quit),
            Action::Suspend => vec![Effect::Suspend],
            _ => Vec::new(),
        }
    }

    /// Enter: validates the form and calls the tool (one call at a time).
    fn run_side_tool(&mut self) -> Vec<Effect> {
        if self.side.run.is_some() {
            self.message = Some("a workspace call is already running".to_owned());
            return Vec::new();
        }
        let tool = self.side.tool;
        let Some(form) = self.side.form_mut() else {
            return Vec::new();
        };
        let Ok(args) = form.value() else {
            return Vec::new();
        };
        let id = self.id(super::Waiter::SideRun);
        self.side.run = Some(SideRun {
            id,
            tool,
            started: self.now,
            cancelling: false,
        });
        self.side.scroll = 0;
        vec![Effect::Engine {
            id,
            request: EngineRequest::Agent(ProxyRequest::ToolsCall {
                server: WORKSPACE_SERVER.to_owned(),
                tool: WORKSPACE_TOOLS[tool].to_owned(),
                args: args.as_object().cloned().unwrap_or_default(),
            }),
        }]
    }

    /// Takes an engine result the panel waits for; `false` when it is not the panel's.
    pub(super) fn side_done(&mut self, id: ReqId, outcome: &Outcome) -> bool {
        if self.side.run.is_some_and(|r| r.id == id) {
            let tool = self.side.run.take().map_or(0, |r| r.tool);
            self.side.result = Some(SideResult {
                tool,
                lines: outcome_lines(WORKSPACE_TOOLS[tool], outcome),
            });
            self.side.scroll = 0;
            return true;
        }
        let Some(slot) = self
            .side
            .forms
            .iter_mut()
            .position(|f| f.as_ref().is_some_and(|l| l.waits_for(id)))
        else {
            return false;
        };
        self.side.forms[slot] = Some(match &outcome.body {
            Ok(success) => {
                let schema = match &success.result {
                    crate::mcp::api::OpResult::Describe(d) => d.input_schema.clone(),
                    _ => serde_json::Value::Null,
                };
                let mut form = Form::new(
                    WORKSPACE_SERVER,
                    Target::Tool(WORKSPACE_TOOLS[slot].to_owned()),
                    schema,
                );
                // Start where the operator types: the first text field (the question).
                if let Some(at) = form.fields.iter().position(|f| f.kind == FieldKind::Text) {
                    form.focus = at;
                }
                Load::Ready(form)
            }
            Err(f) => Load::Failed(
                sanitize_capped(f.class.name(), 64),
                sanitize_capped(&f.message, 512),
            ),
        });
        true
    }
}
