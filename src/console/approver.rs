//! The console's [`Approver`] and the replies it leaves with the executor. A request reaches
//! the app as plain data (`Msg::Approval`); its [`Reply`] stays here, in [`Replies`], until the
//! app's `Effect::Answer` names it. An agent session's request keeps, instead, the way back to
//! its session's task, which sends the decision over the control socket. When a request of
//! this console's engine settles without the operator (it timed out, or its operation was
//! cancelled), the app hears `Msg::ApprovalWithdrawn`; when the console is gone the replies are
//! dropped and the engine sees a denial.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::mpsc;

use super::agents::Command;
use crate::app::Msg;
use crate::mcp::pending::{Reply, Settled};
use crate::mcp::policy::approval::{ApprovalRequest, Approver, Decision};

/// Who asked: this console's engine (`None`) or an attached agent session (its pid).
pub type Asker = Option<u32>;

/// Where an answer goes.
#[derive(Debug)]
pub(super) enum Waiting {
    /// To this console's engine.
    Here(Reply<Decision>),
    /// To an agent session's task, which sends it over the socket.
    Agent(mpsc::UnboundedSender<Command>),
}

/// The requests waiting for an answer, by (asker, ticket).
#[derive(Debug, Clone, Default)]
pub struct Replies(Arc<Mutex<HashMap<(Asker, u64), Waiting>>>);

impl Replies {
    /// Keeps `waiting` until [`Self::answer`] names it.
    pub(super) fn keep(&self, asker: Asker, ticket: u64, waiting: Waiting) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert((asker, ticket), waiting);
    }

    /// Sends `decision` to the request, if it still waits.
    pub fn answer(&self, asker: Asker, ticket: u64, decision: Decision) {
        let waiting = self
            .0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&(asker, ticket));
        match waiting {
            // Settled already: the app was (or is being) told it was withdrawn.
            Some(Waiting::Here(reply)) => drop(reply.answer(decision)),
            Some(Waiting::Agent(commands)) => {
                let _ = commands.send(Command::Decide(ticket, decision));
                #[cfg(test)]
                crate::mcp::pending::hops::count();
            }
            None => {}
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
    fn ask(&self, request: ApprovalRequest, reply: Reply<Decision>) {
        let ticket = request.ticket;
        let watch = reply.clone();
        // Kept before the app hears of it: the answer may come back (on another thread) before
        // `send` returns.
        self.replies.keep(None, ticket, Waiting::Here(reply));
        if self.tx.send(Msg::Approval(request)).is_err() {
            // No console: the replies are dropped, a denial.
            self.replies.forget(None, Some(ticket));
            return;
        }
        let (tx, replies) = (self.tx.clone(), self.replies.clone());
        tokio::spawn(async move {
            let settled = watch.settled().await;
            drop(watch);
            replies.forget(None, Some(ticket));
            // The operator's own answer needs no word; anything else withdraws the question.
            if !matches!(settled, Settled::Answered(_)) {
                let _ = tx.send(Msg::ApprovalWithdrawn {
                    agent: None,
                    ticket,
                    settled,
                });
            }
        });
    }
}
