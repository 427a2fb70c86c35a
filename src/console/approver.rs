//! The console's [`Approver`] and the replies it leaves with the executor. A request reaches
//! the app as plain data (`Msg::Approval`); the `oneshot` sender the engine awaits stays here,
//! in [`Replies`], until the app's `Effect::Answer` names it. When the console is gone the
//! senders are dropped and the engine sees a denial.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::{mpsc, oneshot};

use crate::app::Msg;
use crate::mcp::policy::approval::{ApprovalRequest, Approver, Decision};

/// Who asked: this console's engine (`None`) or an attached agent session (its pid).
pub type Asker = Option<u32>;

type Waiting = HashMap<(Asker, u64), oneshot::Sender<Decision>>;

/// The senders of approvals waiting for an answer, by (asker, ticket).
#[derive(Debug, Clone, Default)]
pub struct Replies(Arc<Mutex<Waiting>>);

impl Replies {
    /// Keeps `reply` until [`Self::answer`] names it.
    pub fn keep(&self, asker: Asker, ticket: u64, reply: oneshot::Sender<Decision>) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert((asker, ticket), reply);
    }

    /// Sends `decision` to the request, if it still waits.
    pub fn answer(&self, asker: Asker, ticket: u64, decision: Decision) {
        let reply = self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&(asker, ticket));
        if let Some(reply) = reply {
            let _ = reply.send(decision);
        }
    }

    /// Drops the request unanswered (answered elsewhere, or its session ended).
    pub fn forget(&self, asker: Asker, ticket: Option<u64>) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|(a, t), _| !(*a == asker && ticket.is_none_or(|x| x == *t)));
    }
}

/// Forwards the engine's approval requests to the app.
#[derive(Debug, Clone)]
pub struct ConsoleApprover {
    tx: mpsc::UnboundedSender<Msg>,
    replies: Replies,
}

impl ConsoleApprover {
    /// An approver sending requests on `tx`, keeping replies in `replies`.
    pub fn new(tx: mpsc::UnboundedSender<Msg>, replies: Replies) -> Self {
        Self { tx, replies }
    }
}

impl Approver for ConsoleApprover {
    fn ask(&self, request: ApprovalRequest) -> oneshot::Receiver<Decision> {
        let (reply, answer) = oneshot::channel();
        let ticket = request.ticket;
        // Kept before the app hears of it: the answer may come back (on another thread) before
        // `send` returns.
        self.replies.keep(None, ticket, reply);
        if self.tx.send(Msg::Approval(request)).is_err() {
            // No console: the sender is dropped, a denial.
            self.replies.forget(None, Some(ticket));
        }
        answer
    }
}
