//! The console's answers to a server's own requests (elicitation, sampling). A request reaches
//! the app as plain data (`Msg::Elicit`, `Msg::Sample`) with a ticket; its [`Reply`] stays
//! here, in [`AskReplies`], until the app's `Effect::AnswerElicit` or `Effect::AnswerSample`
//! names it, and the engine waits on the other half (a [`Pending`] without a timeout: the
//! server's request has its own). Nothing is answered without the operator: when the console
//! is gone the replies are dropped and the engine sends `cancel` (elicitation) or a rejection
//! (sampling). Engine notes (task status, what a server asked) become `Msg::ClientNote`.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::mpsc;

use crate::app::Msg;
use crate::mcp::client::{
    Answer, ClientRequests, ElicitAnswer, ElicitationAsk, SamplingAnswer, SamplingAsk,
};
use crate::mcp::pending::{Pending, Reply, Settled};

/// A reply the engine waits on.
#[derive(Debug)]
enum Waiting {
    Elicit(Reply<ElicitAnswer>),
    Sample(Reply<SamplingAnswer>),
}

/// The replies to server requests waiting for the operator, by ticket.
#[derive(Debug, Clone, Default)]
pub struct AskReplies(Arc<Mutex<HashMap<u64, Waiting>>>);

impl AskReplies {
    fn keep(&self, ticket: u64, reply: Waiting) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(ticket, reply);
    }

    fn take(&self, ticket: u64) -> Option<Waiting> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&ticket)
    }

    /// Sends the operator's answer to the elicitation `ticket`, if it still waits.
    pub fn elicit(&self, ticket: u64, answer: ElicitAnswer) {
        if let Some(Waiting::Elicit(reply)) = self.take(ticket) {
            let _ = reply.answer(answer);
        }
    }

    /// Sends the operator's answer to the sampling request `ticket`, if it still waits.
    pub fn sample(&self, ticket: u64, answer: SamplingAnswer) {
        if let Some(Waiting::Sample(reply)) = self.take(ticket) {
            let _ = reply.answer(answer);
        }
    }
}

/// Forwards a server's requests to the app and keeps the replies.
#[derive(Debug)]
pub struct ConsoleClient {
    tx: mpsc::UnboundedSender<Msg>,
    replies: AskReplies,
    tickets: AtomicU64,
}

impl ConsoleClient {
    /// A broker sending asks on `tx`, keeping replies in `replies`.
    pub fn new(tx: mpsc::UnboundedSender<Msg>, replies: AskReplies) -> Self {
        Self {
            tx,
            replies,
            tickets: AtomicU64::new(1),
        }
    }

    fn ticket(&self) -> u64 {
        self.tickets.fetch_add(1, Ordering::Relaxed)
    }

    /// Tells the app when the request `ticket` settles without the operator (the server
    /// withdrew it: its handler was dropped), so the modal says so and sends nothing.
    fn watch<T: Clone + Send + Sync + 'static>(&self, ticket: u64, reply: Reply<T>) {
        let (tx, replies) = (self.tx.clone(), self.replies.clone());
        tokio::spawn(async move {
            let settled = reply.settled().await;
            drop(reply);
            if !matches!(settled, Settled::Answered(_)) {
                replies.take(ticket);
                let _ = tx.send(Msg::AskWithdrawn { ticket });
            }
        });
    }
}

impl ClientRequests for ConsoleClient {
    fn elicit(&self, ask: ElicitationAsk) -> Answer<ElicitAnswer> {
        let ticket = self.ticket();
        let (pending, reply) = Pending::new(ticket, None);
        // Kept before the app hears of it: the answer may come back on another thread first.
        self.replies.keep(ticket, Waiting::Elicit(reply.clone()));
        if self.tx.send(Msg::Elicit { ticket, ask }).is_err() {
            self.replies.take(ticket);
        } else {
            self.watch(ticket, reply);
        }
        Box::pin(async move {
            let settled = pending.wait(std::future::pending()).await;
            settled.or(ElicitAnswer::Cancel)
        })
    }

    fn sample(&self, ask: SamplingAsk) -> Answer<SamplingAnswer> {
        let ticket = self.ticket();
        let (pending, reply) = Pending::new(ticket, None);
        self.replies.keep(ticket, Waiting::Sample(reply.clone()));
        if self.tx.send(Msg::Sample { ticket, ask }).is_err() {
            self.replies.take(ticket);
        } else {
            self.watch(ticket, reply);
        }
        Box::pin(async move {
            let settled = pending.wait(std::future::pending()).await;
            settled.or(SamplingAnswer::Reject)
        })
    }

    fn note(&self, server: &str, text: &str) {
        let _ = self.tx.send(Msg::ClientNote {
            server: server.to_owned(),
            text: text.to_owned(),
        });
    }
}
