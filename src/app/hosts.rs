//! The Hosts view (`H`): other agent hosts' MCP configuration for this project, one tab per host
//! (its files found or absent, its servers with provenance, variables and positioned
//! diagnostics) and a side-by-side tab (each server name: same as mcpdeck, differs in which
//! fields, only here). From a host's server the operator can test-connect it through mcpdeck's
//! engine (trust rules apply; `${input:…}` values are asked here, used once and never kept in
//! this state) and import it into mcpdeck's user or project file after a preview and a typed
//! `y`. File reads, connections and writes are effects; their answers are [`HostsMsg`]s.
//! Drawing is `ui::hosts`.

use crossterm::event::{KeyCode, KeyEvent};

use super::component::{Component, Update};
use super::hosts_data::HostsData;
use super::keymap::Action;
use super::overlays::{Asks, Overlay, reads};
use super::update::PAGE;
use super::{App, Effect};
use crate::mcp::hosts::HostId;
use crate::mcp::sanitize::sanitize_capped;

/// An operator's answer to a `${input:…}` prompt: kept out of `Debug` output.
#[derive(Clone, PartialEq, Eq)]
pub struct Answer(pub String);

impl std::fmt::Debug for Answer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Answer(…)")
    }
}

/// Which mcpdeck file an import writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportTo {
    /// `$XDG_CONFIG_HOME/mcpdeck/mcp.json`.
    User,
    /// `<project>/.mcpdeck/mcp.json` (inert until the project is trusted).
    Project,
}

/// A planned import, shown before anything is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportPreview {
    /// The host imported from.
    pub host: HostId,
    /// The server imported.
    pub server: String,
    /// The file written.
    pub to: ImportTo,
    /// That file's path (sanitised).
    pub path: String,
    /// The preview lines (sanitised).
    pub lines: Vec<String>,
    /// Whether there is anything to write.
    pub writes: bool,
}

impl ImportPreview {
    /// The preview of `plan` (importing `server` into `to`), sanitised for the screen.
    pub fn of(plan: &crate::mcp::hosts::import::ImportPlan, server: &str, to: ImportTo) -> Self {
        Self {
            host: plan.host,
            server: sanitize_capped(server, 128),
            to,
            path: sanitize_capped(&plan.path.display().to_string(), 512),
            lines: plan
                .preview()
                .iter()
                .map(|l| sanitize_capped(l, 4096))
                .collect(),
            writes: plan.text.is_some(),
        }
    }
}

/// The Hosts view's requests to the runtime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostsEffect {
    /// Read every host's files; answer with [`HostsMsg::Data`].
    Read,
    /// Test-connect a host's server; answer with [`HostsMsg::Connected`].
    Connect {
        /// The host.
        host: HostId,
        /// The server.
        server: String,
        /// The operator's answers to its `${input:…}` prompts, by id (used once).
        answers: Vec<(String, Answer)>,
    },
    /// Plan importing a host's server; answer with [`HostsMsg::Planned`].
    Plan {
        /// The host.
        host: HostId,
        /// The server.
        server: String,
        /// The file to write.
        to: ImportTo,
    },
    /// Write the import the operator confirmed; answer with [`HostsMsg::Imported`] (then the
    /// configuration reloads and the hosts are read again).
    Write {
        /// The confirmed preview: the write happens only if planning again gives the same.
        preview: ImportPreview,
    },
}

/// Answers for the Hosts view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HostsMsg {
    /// Every host's files, read.
    Data(Box<HostsData>),
    /// A test-connect finished: what answered, or why not.
    Connected(Result<String, String>),
    /// An import was planned (or refused, with why).
    Planned(Result<ImportPreview, String>),
    /// An import was written (with the backup), or why not.
    Imported(Result<String, String>),
}

/// What the view is doing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum HostsMode {
    /// Browsing.
    #[default]
    Browse,
    /// Asking for `${input:…}` values before a test-connect (keys type the answer).
    Asking {
        /// The host.
        host: HostId,
        /// The server.
        server: String,
        /// The ids still to ask, the current one first.
        pending: Vec<String>,
        /// Answers given so far.
        answers: Vec<(String, Answer)>,
        /// The answer typed so far (shown masked).
        typed: Answer,
    },
    /// Waiting for the runtime (the words say for what).
    Busy(String),
    /// An import preview waiting for a typed `y`.
    Confirm(ImportPreview),
}

/// The Hosts view's state.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostsView {
    /// What was read, once it arrived.
    pub data: Option<Box<HostsData>>,
    /// The tab: a host's index in [`HostId::ALL`], or `HostId::ALL.len()` for side by side.
    pub tab: usize,
    /// The selected server (or matrix row).
    pub sel: usize,
    /// Lines scrolled past the selected entry (to read a long detail).
    pub scroll: usize,
    /// What it is doing.
    pub mode: HostsMode,
    /// The last test-connect or import outcome.
    pub outcome: Option<Result<String, String>>,
}

/// How many tabs the view has: one per host, then side by side.
pub const HOST_TABS: usize = HostId::ALL.len() + 1;

impl HostsView {
    /// Whether the side-by-side tab is in front.
    pub fn side_by_side(&self) -> bool {
        self.tab >= HostId::ALL.len()
    }

    /// The host whose tab is in front.
    pub fn host(&self) -> Option<HostId> {
        HostId::ALL.get(self.tab).copied()
    }

    /// How many entries the tab in front lists.
    fn entries(&self) -> usize {
        let Some(data) = &self.data else { return 0 };
        if self.side_by_side() {
            return data.matrix.len();
        }
        data.hosts.get(self.tab).map_or(0, |h| h.servers.len())
    }

    /// The selected host server's name, on a host's tab.
    fn selected_server(&self) -> Option<(HostId, &super::hosts_data::HostServer)> {
        let host = self.host()?;
        let server = self
            .data
            .as_ref()?
            .hosts
            .get(self.tab)?
            .servers
            .get(self.sel)?;
        Some((host, server))
    }

    /// The text `y` copies: the selected server's detail, or the selected matrix row's.
    fn copy_text(&self) -> Option<String> {
        let data = self.data.as_ref()?;
        let (name, lines) = if self.side_by_side() {
            let row = data.matrix.get(self.sel)?;
            (&row.name, &row.detail)
        } else {
            let (_, server) = self.selected_server()?;
            (&server.name, &server.detail)
        };
        let body: Vec<&str> = lines.iter().map(|l| l.text.as_str()).collect();
        Some(format!("{name}\n{}", body.join("\n")))
    }

    /// Whether keys type text (an input answer or the import confirmation).
    pub fn takes_text(&self) -> bool {
        matches!(self.mode, HostsMode::Asking { .. } | HostsMode::Confirm(_))
    }

    /// A key while the view takes text: the effects and a status message.
    pub(super) fn on_text_key(&mut self, key: KeyEvent) -> (Vec<Effect>, Option<String>) {
        match std::mem::take(&mut self.mode) {
            HostsMode::Confirm(preview) => {
                if key.code == KeyCode::Char('y') {
                    self.mode = HostsMode::Busy(format!("writing {}…", preview.path));
                    (vec![Effect::Hosts(HostsEffect::Write { preview })], None)
                } else {
                    (
                        Vec::new(),
                        Some("import cancelled; nothing written".to_owned()),
                    )
                }
            }
            HostsMode::Asking {
                host,
                server,
                mut pending,
                mut answers,
                mut typed,
            } => {
                match key.code {
                    KeyCode::Esc => {
                        return (Vec::new(), Some("test connect cancelled".to_owned()));
                    }
                    KeyCode::Char(c) => typed.0.push(c),
                    KeyCode::Backspace => {
                        typed.0.pop();
                    }
                    KeyCode::Enter if !pending.is_empty() => {
                        let id = pending.remove(0);
                        answers.push((id, std::mem::replace(&mut typed, Answer(String::new()))));
                    }
                    _ => {}
                }
                if pending.is_empty() {
                    self.mode = HostsMode::Busy(format!("test connect of `{server}`…"));
                    let effect = HostsEffect::Connect {
                        host,
                        server,
                        answers,
                    };
                    return (vec![Effect::Hosts(effect)], None);
                }
                self.mode = HostsMode::Asking {
                    host,
                    server,
                    pending,
                    answers,
                    typed,
                };
                (Vec::new(), None)
            }
            other => {
                self.mode = other;
                (Vec::new(), None)
            }
        }
    }
}

/// The Hosts view moves between tabs and servers, reads again, copies, test-connects and
/// imports.
impl Component for Box<HostsView> {
    type Msg = Action;
    type Env<'a> = ();
    type Out = Asks;

    fn message(action: Action) -> Option<Action> {
        let own = matches!(
            action,
            Action::NextTab
                | Action::PrevTab
                | Action::Reconnect
                | Action::TestConnect
                | Action::Import
                | Action::ImportProject
        );
        (own || reads(action)).then_some(action)
    }

    fn update(mut self, action: Action, (): &()) -> Update<Self> {
        let mut asks = Asks::default();
        let to = if action == Action::Import {
            ImportTo::User
        } else {
            ImportTo::Project
        };
        match action {
            Action::NextTab | Action::PrevTab => {
                let step = if action == Action::NextTab {
                    1
                } else {
                    HOST_TABS - 1
                };
                self.tab = (self.tab + step) % HOST_TABS;
                self.sel = 0;
                self.scroll = 0;
            }
            Action::Up => {
                self.sel = self.sel.saturating_sub(1);
                self.scroll = 0;
            }
            Action::Down => {
                self.sel = (self.sel + 1).min(self.entries().saturating_sub(1));
                self.scroll = 0;
            }
            Action::PageUp => self.scroll = self.scroll.saturating_sub(PAGE),
            Action::PageDown => self.scroll += PAGE,
            Action::Reconnect => {
                asks = Asks::said("reading the hosts' files again…");
                asks.effects.push(Effect::Hosts(HostsEffect::Read));
            }
            Action::Copy => asks = self.copy_text().map(Effect::Copy).into(),
            Action::TestConnect => match self.selected_server() {
                None => asks = Asks::said("select a host's server to test-connect"),
                Some((host, server)) => {
                    let name = server.name.clone();
                    let pending = server.inputs.clone();
                    if pending.is_empty() {
                        asks.effects.push(Effect::Hosts(HostsEffect::Connect {
                            host,
                            server: name.clone(),
                            answers: Vec::new(),
                        }));
                        self.mode = HostsMode::Busy(format!("test connect of `{name}`…"));
                    } else {
                        self.mode = HostsMode::Asking {
                            host,
                            server: name,
                            pending,
                            answers: Vec::new(),
                            typed: Answer(String::new()),
                        };
                    }
                }
            },
            Action::Import | Action::ImportProject => match self.selected_server() {
                None => asks = Asks::said("select a host's server to import"),
                Some((host, server)) => {
                    let server = server.name.clone();
                    self.mode = HostsMode::Busy(format!("preparing the import of `{server}`…"));
                    asks.effects
                        .push(Effect::Hosts(HostsEffect::Plan { host, server, to }));
                }
            },
            Action::Back | Action::Quit => return Update::close(None),
            _ => return Update::pass(self),
        }
        Update::then(self, asks)
    }
}

impl App {
    /// An answer for the Hosts view. Outcomes also go to the status line, so they are seen
    /// when the view was closed meanwhile.
    pub(super) fn on_hosts_msg(&mut self, msg: HostsMsg) -> Vec<Effect> {
        let view = match &mut self.overlay {
            Some(Overlay::Hosts(view)) => Some(view),
            _ => None,
        };
        match msg {
            HostsMsg::Data(data) => {
                if let Some(view) = view {
                    view.data = Some(data);
                    view.sel = view.sel.min(view.entries().saturating_sub(1));
                }
            }
            HostsMsg::Planned(Ok(preview)) => {
                if let Some(view) = view {
                    if preview.writes {
                        view.mode = HostsMode::Confirm(preview);
                        self.message = Some("type y to write, any other key cancels".to_owned());
                    } else {
                        view.mode = HostsMode::Browse;
                        view.outcome = Some(Ok(format!(
                            "`{}` is already in {}, unchanged; nothing to write",
                            preview.server, preview.path
                        )));
                    }
                }
            }
            HostsMsg::Connected(result) | HostsMsg::Imported(result) => {
                let result = result
                    .map(|m| sanitize_capped(&m, 600))
                    .map_err(|m| sanitize_capped(&m, 1200));
                self.message = Some(match &result {
                    Ok(m) | Err(m) => one_line(m),
                });
                if let Some(view) = view {
                    view.mode = HostsMode::Browse;
                    view.outcome = Some(result);
                }
            }
            HostsMsg::Planned(Err(why)) => {
                let why = sanitize_capped(&why, 1200);
                self.message = Some(one_line(&why));
                if let Some(view) = view {
                    view.mode = HostsMode::Browse;
                    view.outcome = Some(Err(why));
                }
            }
        }
        Vec::new()
    }
}

/// A many-line answer on the one status line: its lines in order, each reason after the
/// heading's colon and the next ones after `;` (`not importing anything: `a`: …; `b`: …`),
/// so a refusal says why even when the view is closed.
fn one_line(text: &str) -> String {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    let Some(first) = lines.next() else {
        return String::new();
    };
    let rest: Vec<&str> = lines.collect();
    if rest.is_empty() {
        first.to_owned()
    } else {
        format!("{first} {}", rest.join("; "))
    }
}
