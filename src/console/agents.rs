//! Attachment to live `mcpdeck serve` sessions through their control sockets.
//! Each attached session runs one local task that owns its [`ControlClient`]: it forwards
//! snapshots, approval requests, audit-mode drift flags and resolutions to the app, and sends the operator's decisions
//! and status requests back. The socket carries approval requests, decisions and snapshots only.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use tokio::sync::mpsc;

use super::approver::{Replies, Waiting};

use crate::app::Msg;
use crate::mcp::control::{ControlClient, ToConsole, list_sockets, socket_dir};
use crate::mcp::pending::Settled;
use crate::mcp::policy::approval::Decision;

/// How often the console looks for new serve sessions.
pub const DISCOVERY: std::time::Duration = std::time::Duration::from_secs(1);

/// What the console sends to one session's task.
#[derive(Debug)]
pub(super) enum Command {
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
                Ok(Some(ToConsole::Resolved { ticket, settled })) => {
                    replies.forget(Some(pid), Some(ticket));
                    let _ = tx.send(Msg::ApprovalWithdrawn {
                        agent: Some(pid),
                        ticket,
                        settled: settled.unwrap_or(Settled::Abandoned),
                    });
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
    // Kept before the app hears of it: the answer may come back before `send` returns.
    replies.keep(Some(pid), ticket, Waiting::Agent(commands.clone()));
    if tx.send(Msg::AgentApproval { pid, request }).is_err() {
        replies.forget(Some(pid), Some(ticket));
    }
    #[cfg(test)]
    crate::mcp::pending::hops::count();
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::mcp::control::{ControlHub, SessionSnapshot};
    use crate::mcp::pending::{Pending, Settled, hops};
    use crate::mcp::policy::approval::ApprovalRequest;

    fn request(ticket: u64) -> ApprovalRequest {
        serde_json::from_value(serde_json::json!({
            "ticket": ticket, "server": "fx", "operation": "tools.call echo",
            "effects": ["write"], "toolChanged": false, "serverChanged": false, "timeoutMs": 60000
        }))
        .expect("request")
    }

    /// From the engine asking the serve session's hub to its wait resolving, with the answer
    /// given in the console (`Effect::Answer` reaches `Replies::answer`): the hub tells the
    /// console's socket task, a frame, the app's message, the decision to the socket task, a
    /// frame, the answer — six hand-offs, counted on this test's one thread.
    #[tokio::test]
    async fn an_agent_s_approval_answered_in_the_console_takes_at_most_six_hops() {
        let dir = tempfile::tempdir().expect("dir");
        let hub = ControlHub::bind(dir.path()).expect("bind");
        hub.set_snapshot(Box::new(|pending| SessionSnapshot {
            pid: 4242,
            project: "/p".into(),
            mode: "enforce".to_owned(),
            servers: Vec::new(),
            spills: 0,
            pending,
            awaiting_console: 0,
        }));
        let (tx, mut rx) = mpsc::unbounded_channel();
        let replies = Replies::default();
        let mut agents = Agents::new(Some(dir.path().to_owned()), tx, replies.clone());
        agents.scan();
        let next = async |rx: &mut mpsc::UnboundedReceiver<Msg>| {
            tokio::time::timeout(Duration::from_secs(10), rx.recv())
                .await
                .expect("in time")
                .expect("a message")
        };
        assert!(matches!(next(&mut rx).await, Msg::AgentSnapshot(_)));

        hops::reset();
        let (pending, reply) = Pending::new(1, Some(Duration::from_secs(60)));
        hub.ask(request(1), reply);
        let Msg::AgentApproval { pid, request } = next(&mut rx).await else {
            panic!("not an approval");
        };
        replies.answer(Some(pid), request.ticket, Decision::AllowOnce);
        let settled = pending.wait(std::future::pending()).await;
        assert_eq!(settled, Settled::Answered(Decision::AllowOnce));
        let counted = hops::until_settled();
        assert!(counted <= 6, "{counted} hand-offs");
        assert_eq!(counted, 6, "each hand-off is counted");

        // The console hears how it settled (it had answered, so its queue has no word to say).
        assert!(matches!(
            next(&mut rx).await,
            Msg::ApprovalWithdrawn {
                agent: Some(4242),
                ticket: 1,
                settled: Settled::Answered(Decision::AllowOnce)
            }
        ));
    }
}
