//! The console's two message types: [`Msg`] (something that happened: input, an engine reply, a
//! background job's answer) and [`Effect`] (something the runtime must do). Both are plain data
//! (`Clone`, `PartialEq`); the runtime keeps every channel and sender.

use std::path::PathBuf;

use crossterm::event::{KeyEvent, MouseEvent};

use super::{ReqId, info};
use crate::mcp::connection::ServerEvent;
use crate::mcp::engine::{EngineRequest, Outcome};
use crate::mcp::policy::approval::{ApprovalRequest, Decision};
use crate::mcp::results::SpillEntry;
use crate::mcp::status::StatusReport;

/// Something that happened, for [`App::update`]: plain data (the runtime keeps every channel).
#[derive(Debug, Clone, PartialEq)]
pub enum Msg {
    /// A key was pressed.
    Key(KeyEvent),
    /// Text was pasted (bracketed paste).
    Paste(String),
    /// A mouse event.
    Mouse(MouseEvent),
    /// The terminal was resized to (columns, rows).
    Resize(u16, u16),
    /// Time passed (only sent while something animates).
    Tick,
    /// A fresh status report from the engine.
    Status(Box<StatusReport>),
    /// An engine request finished.
    Done {
        /// The request's id.
        id: ReqId,
        /// What came back.
        outcome: Box<Outcome>,
    },
    /// A connection notification.
    Event(ServerEvent),
    /// The session's spills.
    Spills(Vec<SpillEntry>),
    /// A window of a spill file's lines, read for the pager.
    SpillPage {
        /// The file.
        path: PathBuf,
        /// What was asked for.
        at: super::SpillAt,
        /// The lines read (lossy UTF-8, not yet sanitised), or the read error.
        window: Result<crate::mcp::results::SpillWindow, String>,
    },
    /// The engine asks the operator to approve an operation (answered with
    /// [`Effect::Answer`]).
    Approval(ApprovalRequest),
    /// A clipboard write finished: which path was used, or why it failed.
    Copied(Result<&'static str, String>),
    /// Trust was granted or revoked (the message), or that failed.
    TrustChanged(Result<String, String>),
    /// A configuration file was read for the editor.
    EditorText {
        /// The file.
        path: PathBuf,
        /// Its layer.
        layer: crate::mcp::config::Layer,
        /// Its text (empty when absent), or the read error.
        text: Result<String, String>,
    },
    /// The editor's save finished: a message, or why it failed.
    Saved(Result<String, String>),
    /// Configuration files the console watches changed on disk (a layer, `--config`, the trust
    /// store or the policy file).
    FilesChanged(Vec<std::path::PathBuf>),
    /// A reload finished: what changed (or why it could not be read), and the policy mode in
    /// force after it. The new views and status came before.
    Reloaded {
        /// What to say on the status line.
        said: String,
        /// The policy mode's label.
        mode: String,
    },
    /// The configuration-derived views were rebuilt (after a trust change).
    Info(Box<info::ConfigInfo>),
    /// A server's kept stderr (raw; sanitised on entry), or `None` when it has none.
    Stderr {
        /// The server.
        server: String,
        /// The text.
        text: Option<String>,
    },
    /// A "test connect" finished: what answered, or why it did not.
    TestConnected(Result<String, String>),
    /// A spill was deleted (the message), or why not.
    SpillDeleted(Result<String, String>),
    /// An attached `mcpdeck serve` session's status.
    AgentSnapshot(Box<crate::mcp::control::SessionSnapshot>),
    /// An agent session asks for an approval; the answer goes back over its control socket.
    AgentApproval {
        /// The session's pid.
        pid: u32,
        /// The request.
        request: ApprovalRequest,
    },
    /// An agent session in audit mode ran a tool that changed since its pins, unasked: the
    /// question enforce mode would have put (shown, never answered).
    AgentFlagged {
        /// The session's pid.
        pid: u32,
        /// The request enforce mode would have put.
        request: ApprovalRequest,
    },
    /// An approval settled without this console's answer (answered elsewhere, timed out,
    /// cancelled): withdrawn from the queue, with a word on the status line.
    ApprovalWithdrawn {
        /// Who asked: this console's engine (`None`) or an agent session (its pid).
        agent: Option<u32>,
        /// The request's ticket.
        ticket: u64,
        /// How it settled.
        settled: crate::mcp::pending::Settled<crate::mcp::policy::Decision>,
    },
    /// An agent session's control socket closed.
    AgentGone(u32),
    /// The policy file was read for the policy view (rules sanitised on entry), or why not.
    PolicyRead(Result<super::policy_view::PolicyListing, String>),
    /// A policy file edit ("always allow", removing a rule) finished: what was done, or why not.
    PolicySaved(Result<String, String>),
    /// A server asks the operator for input (answered with [`Effect::AnswerElicit`]).
    Elicit {
        /// Names the waiting reply.
        ticket: u64,
        /// The request, sanitised.
        ask: crate::mcp::client::ElicitationAsk,
    },
    /// A server asks for a model completion a person writes (answered with
    /// [`Effect::AnswerSample`]).
    Sample {
        /// Names the waiting reply.
        ticket: u64,
        /// The request, sanitised.
        ask: crate::mcp::client::SamplingAsk,
    },
    /// Something the engine tells the operator about a server (a task's status, what a
    /// server asked and what was answered). Raw; sanitised on entry.
    ClientNote {
        /// The server.
        server: String,
        /// The note.
        text: String,
    },
    /// An answer for the Hosts view.
    Hosts(super::hosts::HostsMsg),
    /// A sign-in answer (store status, authorization URL, sign-in or sign-out outcome).
    Auth(super::auth::AuthMsg),
    /// The engine was rebuilt (a reload, a save or a trust change): the new configuration
    /// views, and the servers whose definition and state carried over — their connections and
    /// catalogs are as they were, so their panes keep what they listed.
    Rebuilt {
        /// The new views.
        info: Box<info::ConfigInfo>,
        /// The servers the rebuild kept ([`crate::mcp::engine::ReloadPlan::kept`]).
        kept: std::collections::BTreeSet<String>,
    },
    /// A server's request (elicitation or sampling) settled without the operator: the server
    /// withdrew it (cancelled it, or its connection ended). In front, the modal says so and a
    /// late answer is not sent; queued behind, it leaves the queue.
    AskWithdrawn {
        /// The request's ticket.
        ticket: u64,
    },
    /// A spill's whole text was copied (what was copied and how), or why not.
    SpillCopied(Result<String, String>),
}

/// Something the runtime must do for the app.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Run an engine request (an agent's operation, or the operator's own on one server:
    /// calls as tasks, reads by URI, completion, subscriptions, tasks, session controls);
    /// answer with [`Msg::Done`] carrying `id`.
    Engine {
        /// The request's id.
        id: ReqId,
        /// The request.
        request: EngineRequest,
    },
    /// Cancel the engine request `id` (its `Done` still arrives, as `cancelled`).
    Cancel(ReqId),
    /// Read every configuration file, the trust store and the policy file again; rebuild the
    /// servers that changed and answer with [`Msg::Reloaded`] (`asked`: the operator pressed
    /// the reload key, so an unchanged configuration is said too).
    Reload {
        /// The operator asked (not a file watch).
        asked: bool,
    },
    /// Send a fresh [`Msg::Spills`].
    RefreshSpills,
    /// Read a window of a spill file's lines; answer with [`Msg::SpillPage`].
    ReadSpill {
        /// The file.
        path: PathBuf,
        /// Which lines.
        at: super::SpillAt,
    },
    /// Copy sanitised text to the clipboard; answer with [`Msg::Copied`].
    Copy(String),
    /// Grant trust to the project's current definitions; answer with [`Msg::TrustChanged`].
    GrantTrust,
    /// Revoke the project's trust; answer with [`Msg::TrustChanged`].
    RevokeTrust,
    /// Give the terminal back and stop the process until the shell resumes it.
    Suspend,
    /// Read a configuration file for the editor; answer with [`Msg::EditorText`].
    OpenEditor {
        /// The file.
        path: PathBuf,
        /// Its layer.
        layer: crate::mcp::config::Layer,
    },
    /// Save a configuration file atomically with a timestamped backup; answer with
    /// [`Msg::Saved`]. Only emitted when the text has no error diagnostics.
    SaveConfig {
        /// The file.
        path: PathBuf,
        /// The new text.
        text: String,
    },
    /// Attach to live `mcpdeck serve` sessions not attached yet and ask every attached one for
    /// a fresh status; answers arrive as [`Msg::AgentSnapshot`].
    ScanAgents,
    /// Connect once to the edited, unsaved definition of `server` in `text` (trust rules
    /// apply); answer with [`Msg::TestConnected`].
    TestConnect {
        /// The file being edited.
        path: PathBuf,
        /// Its layer.
        layer: crate::mcp::config::Layer,
        /// The buffer.
        text: String,
        /// The server to try (else the buffer's only one).
        server: Option<String>,
    },
    /// Read a server's kept stderr; answer with [`Msg::Stderr`].
    ReadStderr(String),
    /// Delete the spill with this basename; answer with [`Msg::SpillDeleted`].
    DeleteSpill(String),
    /// Answer an approval: the executor holds the sender the asker awaits.
    Answer {
        /// The agent session that asked (its pid), or `None` for this console's engine.
        agent: Option<u32>,
        /// The request's ticket.
        ticket: u64,
        /// The decision.
        decision: Decision,
    },
    /// Add `rule` to the policy file (atomic, backed up), then answer the approval: allowed
    /// for the asker's session when the rule was written, denied when not. Answers with
    /// [`Msg::PolicySaved`].
    AllowAlways {
        /// The agent session that asked (its pid), or `None` for this console's engine.
        agent: Option<u32>,
        /// The request's ticket.
        ticket: u64,
        /// The allow rule for exactly this server and operation.
        rule: String,
        /// The policy file.
        policy: PathBuf,
    },
    /// Read the policy file; answer with [`Msg::PolicyRead`].
    ReadPolicy(PathBuf),
    /// Remove `rule` from the policy file (atomic, backed up); answer with [`Msg::PolicySaved`]
    /// and then [`Msg::PolicyRead`].
    RemoveRule {
        /// The policy file.
        policy: PathBuf,
        /// The rule, exactly as listed.
        rule: String,
    },
    /// Leave the console.
    Quit,
    /// Answer a server's elicitation: the executor holds the sender the engine awaits.
    AnswerElicit {
        /// The request's ticket.
        ticket: u64,
        /// Accept (with content), decline or cancel.
        answer: crate::mcp::client::ElicitAnswer,
    },
    /// Answer a server's sampling request.
    AnswerSample {
        /// The request's ticket.
        ticket: u64,
        /// The operator's reply, or a rejection.
        answer: crate::mcp::client::SamplingAnswer,
    },
    /// Open a URL in the operator's browser (`$BROWSER`, else `xdg-open`); only ever on the
    /// operator's key. Answers with a [`Msg::ClientNote`] for `server`.
    OpenUrl {
        /// The server that asked.
        server: String,
        /// The URL.
        url: String,
    },
    /// A request of the Hosts view (reading other hosts' files, test-connect, import).
    Hosts(super::hosts::HostsEffect),
    /// A sign-in request (store status, sign in, cancel, sign out).
    Auth(super::auth::AuthEffect),
    /// Copy the whole text of a spill file (sanitised) to the clipboard, within the clipboard
    /// caps; over a cap the message names the file instead. Answers with [`Msg::Copied`].
    CopySpill {
        /// The file.
        path: PathBuf,
        /// Its size as last known (the executor checks again).
        size: u64,
    },
}
