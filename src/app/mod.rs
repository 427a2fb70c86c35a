//! The console's state and its pure state machine.
//!
//! [`App::update`] takes one [`Msg`] (a key, a paste, a resize, an engine result, a connection
//! event, an approval request) and returns the [`Effect`]s the runtime must carry out (engine
//! requests tagged with a [`ReqId`], cancellations, clipboard writes, quitting). It never awaits,
//! never draws and does no IO; the only clock it reads is [`App::now`], set by the runtime before
//! each message (and by tests directly). Every string from a server or a configuration file is
//! sanitised where it enters this state. The console runtime lives in `crate::console`, drawing
//! in `crate::ui`.

mod actions;
pub mod agents;
pub mod agents_view;
pub mod approval;
pub mod auth;
mod call_form;
mod calls;
pub mod completion;
pub mod component;
pub mod confirm;
pub mod costs;
pub mod drift;
pub mod editor;
pub mod elicit_complete;
pub mod elicitation;
pub mod fold;
pub mod form;
pub mod form_meta;
pub mod hosts;
pub mod hosts_data;
mod incoming;
pub mod info;
pub mod key_ctx;
pub mod key_help;
mod key_spec;
pub mod keymap;
pub mod layers;
pub mod layout;
pub mod log_tab;
mod model;
mod msg;
pub mod overlays;
pub mod pager;
pub mod panels;
pub mod policy_view;
mod query_hints;
mod raw_json;
pub mod result_keys;
pub mod result_links;
pub mod roots_view;
pub mod sampling;
pub mod scan_marks;
pub mod server_asks;
pub mod server_list;
pub mod session;
pub mod side;
pub mod side_view;
pub mod skills_tab;
pub mod spills_view;
mod status;
mod tab_routing;
pub mod tabs;
pub mod tasks;
pub mod tasks_view;
pub mod templates;
pub mod tools_tab;
mod update;
pub mod viewer;

use std::collections::{BTreeMap, VecDeque};
use std::time::Instant;

use ratatui_textarea::TextArea;

pub use call_form::FormMsg;
pub use msg::{Effect, Msg};
pub use overlays::{DoctorView, ErrorView, Overlay, TrustView};
pub use pager::{PAGER_BYTES, PAGER_LINES, Pager, SpillAt};
pub use query_hints::QueryKey;
pub use server_list::{ServerList, ServerListMsg};
pub use tabs::{ListFilter, ListState, LogFilter, Search, ServerPane, TabMsg};

pub use log_tab::LogLine;
pub use model::{HeaderKind, ResultView};
pub use server_list::{ServerRow, server_rows};
pub use spills_view::SpillRow;
pub use tabs::{PromptRow, ResourceRow};
pub use tools_tab::ToolRow;

use crate::mcp::status::StatusReport;

/// Identifies one engine request; results carrying an older id are dropped.
pub type ReqId = u64;

/// What an engine request's reply is for; [`App`] keeps one per request in flight, so a
/// reply goes straight to its waiter (and one nobody waits for any more is dropped).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Waiter {
    /// A server's tool list.
    Tools(String),
    /// A server's resources and templates.
    Resources(String),
    /// A server's prompts.
    Prompts(String),
    /// A tool search on a server.
    Search(String),
    /// The tool detail screen's description.
    Detail,
    /// The call, read or prompt shown as running.
    Run,
    /// A reconnect (its answer goes to the status line).
    Reconnect,
    /// A workspace form's tool description.
    SideForm,
    /// The workspace panel's call.
    SideRun,
    /// The Tasks view's list or a cancellation from it.
    Tasks,
    /// The template listing a template's variables form is built from (the template's name).
    Template(String),
    /// The call form's suggestion list (`completion/complete`).
    Completion,
    /// A session control (ping, disconnect, roots, log level, subscription).
    Session,
    /// A server's tool costs (`tools.cost`).
    Costs(String),
    /// A server's drift from its pins (`pins`).
    Drift(String),
    /// A server's poisoning scan (`scan`).
    Scan(String),
    /// A server's skills (`skills.list`).
    Skills(String),
}

/// Something loaded in the background.
#[derive(Debug, Clone, PartialEq)]
pub enum Load<T> {
    /// Not asked for yet.
    Idle,
    /// Asked for with this id.
    Loading(ReqId),
    /// Arrived.
    Ready(T),
    /// Failed with an error class and message (sanitised).
    Failed(String, String),
}

impl<T> Load<T> {
    /// Whether this is waiting for `id`.
    pub fn waits_for(&self, id: ReqId) -> bool {
        matches!(self, Self::Loading(i) if *i == id)
    }
}

/// Which pane has the focus.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Focus {
    /// The servers pane.
    Servers,
    /// The main pane.
    Main,
    /// The workspace side panel.
    Side,
}

/// The main pane's tabs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tab {
    /// The tool catalog.
    Tools,
    /// Resources and templates.
    Resources,
    /// Prompts.
    Prompts,
    /// Notifications and traffic.
    Log,
    /// The server's definition.
    Config,
    /// The server's skills (when it declares the skills extension).
    Skills,
}

/// Every tab, in order.
pub const TABS: [Tab; 6] = [
    Tab::Tools,
    Tab::Resources,
    Tab::Prompts,
    Tab::Skills,
    Tab::Log,
    Tab::Config,
];

/// The tool detail view.
#[derive(Debug, Clone)]
pub struct Detail {
    /// The server.
    pub server: String,
    /// The tool.
    pub tool: String,
    /// The description JSON (sanitised strings).
    pub load: Load<Box<crate::mcp::catalog::describe::ToolDescription>>,
    /// Scroll offset.
    pub scroll: usize,
    /// The whole description (sanitised), when it is longer than the 2 KiB shown.
    pub full_description: Option<String>,
    /// Show `full_description` instead of the capped one.
    pub show_full: bool,
    /// How the tool drifted from its pins across restarts (sanitised), empty when it did not.
    pub drift: Vec<String>,
    /// What the poisoning scan found in the tool (one line each, sanitised), empty when
    /// nothing.
    pub findings: Vec<String>,
}

/// A call in flight.
#[derive(Debug)]
pub struct Running {
    /// The request id.
    pub id: ReqId,
    /// The form it came from (to call again).
    pub form: form::Form,
    /// When it started.
    pub started: Instant,
    /// The last progress report.
    pub progress: Option<Progress>,
    /// Whether Esc was pressed.
    pub cancelling: bool,
}

impl Running {
    /// An operation that has no call form behind it (a resource read, a task's result): there
    /// is nothing to call again.
    pub fn without_form(id: ReqId, server: &str, started: Instant) -> Self {
        Self {
            id,
            form: form::Form::new(
                server,
                form::Target::Tool(String::new()),
                serde_json::json!({}),
            ),
            started,
            progress: None,
            cancelling: false,
        }
    }
}

/// A running call's last progress report.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// How much is done.
    pub done: f64,
    /// Out of how much, when the server says.
    pub total: Option<f64>,
    /// The server's message (sanitised).
    pub message: Option<String>,
}

/// What the main pane shows over the tab list.
#[derive(Debug)]
pub enum Screen {
    /// The tab's list.
    Browse,
    /// A tool's detail.
    Detail(Detail),
    /// The call form.
    Form(form::Form),
    /// The raw JSON editor for a form.
    Raw(RawForm),
    /// A call in flight.
    Running(Running),
    /// A finished call or read.
    Result(ResultScreen),
}

/// The raw JSON twin of a call form (`C-e` switches without losing input).
#[derive(Debug)]
pub struct RawForm {
    /// The form it edits (filled back when switching to the form).
    pub form: form::Form,
    /// The JSON text.
    pub area: Box<TextArea<'static>>,
    /// Why the text cannot become the form's arguments, when it cannot.
    pub error: Option<String>,
}

/// A finished call, read or prompt, in the text viewer.
#[derive(Debug)]
pub struct ResultScreen {
    /// What is shown.
    pub view: Box<ResultView>,
    /// The form it came from (`c` calls again), if any.
    pub form: Option<form::Form>,
}

/// The console state.
#[derive(Debug)]
pub struct App {
    /// The injected clock: the time of the message being handled.
    pub now: Instant,
    /// Terminal size (columns, rows).
    pub size: (u16, u16),
    /// The server list component (every configured server, the selection).
    pub servers: ServerList,
    /// The project's trust state label.
    pub trust: String,
    /// The policy mode shown in the status line.
    pub policy: String,
    /// Focused pane.
    pub focus: Focus,
    /// Active main tab.
    pub tab: Tab,
    /// Per-server catalogs by name.
    pub panes: BTreeMap<String, ServerPane>,
    /// What the main pane shows.
    pub screen: Screen,
    /// The global view in front, if any.
    pub overlay: Option<Overlay>,
    /// Pending approvals, oldest first.
    pub approvals: VecDeque<approval::Pending>,
    /// The Tasks view, when open.
    pub tasks_view: Option<tasks_view::TasksView>,
    /// Approvals answered this session, oldest first: (server, operation, answer).
    pub decided: Vec<(String, String, approval::Answered)>,
    /// The user's policy file ("always allow" adds rules to it; the policy view lists them).
    pub policy_path: Option<std::path::PathBuf>,
    /// A server's requests of the operator (elicitation, sampling), oldest first.
    pub asks: VecDeque<server_asks::ServerAsk>,
    /// The session's spills.
    pub spills: Vec<SpillRow>,
    /// Attached agent sessions, by pid.
    pub agents: Vec<agents::AgentRow>,
    /// Configuration-derived views.
    pub info: info::ConfigInfo,
    /// The last transient message.
    pub message: Option<String>,
    /// Whether the workspace side panel is shown.
    pub side_panel: bool,
    /// The workspace side panel's state.
    pub side: side::WorkspacePanel,
    /// The keymap in force (defaults patched by `keys.toml`).
    pub keymap: keymap::Keymap,
    /// Next request id.
    next_id: ReqId,
    /// Requests in flight and what their replies are for.
    waiting: std::collections::HashMap<ReqId, Waiter>,
    /// Open the call form as soon as the pending description arrives.
    call_when_described: bool,
    /// The detail a form was opened from (Esc returns to it).
    last_detail: Option<Detail>,
    /// Whether the app asked to quit.
    pub quitting: bool,
    /// Sign-in states of OAuth servers and sign-ins under way.
    pub auth: auth::AuthPanel,
    /// Argument completion in the call form.
    pub completer: completion::Completer,
    /// A status message about what the operator decided while a call ran (a policy rule
    /// written): the call's result does not clear it while it is still the one shown.
    pub(crate) message_kept: Option<String>,
    /// URL elicitations the servers said were complete before their request arrived.
    pub early_completions: elicit_complete::EarlyCompletions,
    /// Session controls: log levels, subscriptions, the Roots view.
    pub session: session::SessionState,
    /// The box with the keys of the component in front (its help key where `?` types).
    pub key_help: Option<key_help::KeyHelp>,
    /// The tasks-extension tasks this console started (the 2026 Tasks view lists them).
    pub session_tasks: tasks_view::SessionTasks,
}

/// How many log lines a server keeps.
pub const LOG_CAP: usize = 500;

impl App {
    /// A console over `status`, with `info` from the configuration, at time `now`.
    pub fn new(status: &StatusReport, info: info::ConfigInfo, now: Instant) -> Self {
        let servers = ServerList::new(server_rows(status));
        let panes = servers
            .rows
            .iter()
            .map(|s| (s.name.clone(), ServerPane::default()))
            .collect();
        Self {
            now,
            size: (80, 24),
            servers,
            trust: status.project.trust.label().to_owned(),
            policy: "audit".to_owned(),
            focus: Focus::Servers,
            tab: Tab::Tools,
            panes,
            screen: Screen::Browse,
            overlay: None,
            approvals: VecDeque::new(),
            asks: VecDeque::new(),
            tasks_view: None,
            decided: Vec::new(),
            policy_path: None,
            spills: Vec::new(),
            agents: Vec::new(),
            info,
            message: None,
            side_panel: false,
            side: side::WorkspacePanel::default(),
            keymap: keymap::Keymap::default(),
            next_id: 1,
            waiting: std::collections::HashMap::new(),
            call_when_described: false,
            last_detail: None,
            quitting: false,
            auth: auth::AuthPanel::default(),
            completer: completion::Completer::default(),
            message_kept: None,
            early_completions: elicit_complete::EarlyCompletions::default(),
            session: session::SessionState::default(),
            key_help: None,
            session_tasks: tasks_view::SessionTasks::default(),
        }
    }

    /// A fresh request id whose reply goes to `waiter`.
    fn id(&mut self, waiter: Waiter) -> ReqId {
        let id = self.next_id;
        self.next_id += 1;
        self.waiting.insert(id, waiter);
        id
    }

    /// The selected server row.
    pub fn server(&self) -> Option<&ServerRow> {
        self.servers.current()
    }

    /// The selected server's catalog state.
    pub fn pane(&self) -> Option<&ServerPane> {
        self.panes.get(&self.server()?.name)
    }

    /// Whether something animates (the runtime ticks only then).
    pub fn animating(&self) -> bool {
        matches!(self.screen, Screen::Running(_))
            || self.side.run.is_some()
            || self
                .servers
                .rows
                .iter()
                .any(|s| s.state == crate::mcp::status::ServerState::Connecting)
            || self.approvals.front().is_some_and(|a| !a.armed(self.now))
            || self.completer.due().is_some()
    }
}

#[cfg(test)]
pub mod auth_tests;
#[cfg(test)]
mod completion_tests;
#[cfg(test)]
mod component_tests;
#[cfg(test)]
mod doctor_tests;
#[cfg(test)]
pub mod hosts_tests;
#[cfg(test)]
mod reload_tests;
#[cfg(test)]
mod side_tests;
#[cfg(test)]
pub mod testkit;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod view_tests;
#[cfg(test)]
mod walk_tests;
