//! Attachment to live `mcpdeck serve` sessions through their control sockets.
//! Each attached session runs one local task that owns its [`ControlClient`]: it forwards
//! snapshots, approval requests, audit-mode drift flags and resolutions to the app, and sends the operator's decisions
//! and status requests back. The socket carries approval requests, decisions and snapshots only.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use tokio::sync::{mpsc, oneshot};

use super::approver::Replies;

use crate::app::Msg;
use crate::mcp::control::{ControlClient, ToConsole, list_sockets, socket_dir};
use crate::mcp::policy::approval::Decision;

/// How often the console looks for new serve sessions.
pub const DISCOVERY: std::time::Duration = std::time::Duration::from_secs(1);

/// What the console sends to one session's task.
enum Command {
    /// Answer request `ticket`.
    Decide(u64, Decision),
    /// Ask for a fresh snapshot.
    Status,
}

/// The attached sessions, by socket path.
pub struct Agents {
    dir: Option<PathBuf>,
    attached: HashMap<PathBuf, mpsc::UnboundedSender<Command>>,
    tx: mpsc::UnboundedSender<Msg>,
    replies: Replies,
}

impl Agents {
    /// Sessions are looked for in `dir` (default: the runtime directory serve publishes in).
    pub fn new(dir: Option<PathBuf>, tx: mpsc::UnboundedSender<Msg>, replies: Replies) -> Self {
        Self {
            dir,
            attached: HashMap::new(),
            tx,
            replies,
        }
    }

    /// Attaches to every session not attached yet and asks the others for a fresh status.
    /// Call inside a tokio runtime.
    pub fn scan(&mut self) {
        self.attach_new(true);
    }

    /// Attaches to sessions that appeared since the last look (the console looks every
    /// [`DISCOVERY`] so that an agent's first approval finds it attached).
    pub fn discover(&mut self) {
        self.attach_new(false);
    }

    fn attach_new(&mut self, refresh: bool) {
        let dir = match &self.dir {
            Some(dir) => dir.clone(),
            None => match socket_dir() {
                Ok(dir) => dir,
                Err(_) => return,
            },
        };
        self.attached.retain(|_, commands| !commands.is_closed());
        for path in list_sockets(&dir) {
            if let Some(commands) = self.attached.get(&path) {
                if refresh {
                    let _ = commands.send(Command::Status);
                }
                continue;
            }
            let (commands, rx) = mpsc::unbounded_channel();
            self.attached.insert(path.clone(), commands.clone());
            let tx = self.tx.clone();
            let replies = self.replies.clone();
            tokio::spawn(async move {
                session(&path, tx, commands, rx, replies).await;
            });
        }
    }
}

/// One session: attach, then relay both ways until the socket closes or the console goes.
async fn session(
    path: &Path,
    tx: mpsc::UnboundedSender<Msg>,
    commands: mpsc::UnboundedSender<Command>,
    mut rx: mpsc::UnboundedReceiver<Command>,
    replies: Replies,
) {
    let Ok((mut client, snapshot)) = ControlClient::attach(path).await else {
        // A stale socket (the session died without removing it): nothing to show.
        return;
    };
    let pid = snapshot.pid;
    for request in snapshot.pending.clone() {
        ask(pid, request, &tx, &commands, &replies);
    }
    if tx.send(Msg::AgentSnapshot(Box::new(snapshot))).is_err() {
        return;
    }
    loop {
        tokio::select! {
            message = client.next() => match message {
                Ok(Some(ToConsole::Snapshot { snapshot })) => {
                    let _ = tx.send(Msg::AgentSnapshot(Box::new(snapshot)));
                }
                Ok(Some(ToConsole::Approval { request })) => {
                    ask(pid, request, &tx, &commands, &replies);
                }
                Ok(Some(ToConsole::Flagged { request })) => {
                    let _ = tx.send(Msg::AgentFlagged { pid, request });
                }
                Ok(Some(ToConsole::Resolved { ticket })) => {
                    replies.forget(Some(pid), Some(ticket));
                    let _ = tx.send(Msg::AgentResolved { pid, ticket });
                    let _ = client.request_status().await;
                }
                Ok(None) | Err(_) => break,
            },
            command = rx.recv() => {
                let sent = match command {
                    Some(Command::Decide(ticket, decision)) => client.decide(ticket, decision).await,
                    Some(Command::Status) => client.request_status().await,
                    None => break,
                };
                if sent.is_err() {
                    break;
                }
            }
        }
    }
    replies.forget(Some(pid), None);
    let _ = tx.send(Msg::AgentGone(pid));
}

/// Puts `request` in front of the operator; the answer goes back through `commands`.
fn ask(
    pid: u32,
    request: crate::mcp::policy::approval::ApprovalRequest,
    tx: &mpsc::UnboundedSender<Msg>,
    commands: &mpsc::UnboundedSender<Command>,
    replies: &Replies,
) {
    let ticket = request.ticket;
    let (reply, answer) = oneshot::channel();
    // Kept before the app hears of it: the answer may come back before `send` returns.
    replies.keep(Some(pid), ticket, reply);
    if tx.send(Msg::AgentApproval { pid, request }).is_err() {
        replies.forget(Some(pid), Some(ticket));
    }
    let commands = commands.clone();
    tokio::spawn(async move {
        // Dropped unanswered (resolved elsewhere, or the console quit): nothing to send.
        if let Ok(decision) = answer.await {
            let _ = commands.send(Command::Decide(ticket, decision));
        }
    });
}
