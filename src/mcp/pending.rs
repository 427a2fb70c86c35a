//! One pending answer: a question put to whoever can answer it, and the asker waiting for the
//! one way it settles. It serves every question the engine or a face waits on: approvals (the
//! console's modal, consoles and watchers over the control socket, the terminal approver, the
//! agent host's elicitation), a server's elicitation and sampling requests put to the operator,
//! and a sign-in waiting for its browser.
//!
//! [`Pending::new`] makes the asker's half, which carries the ticket and the timeout as data,
//! and the first [`Reply`], which a face keeps and clones (a console and a watcher may both
//! hold one). The first of these settles it, and every other is refused and told how it went:
//! an answer ([`Reply::answer`]), the timeout, the asker's cancellation (or its dropping the
//! wait), or every reply dropped unanswered. A face that did not settle it shows it as
//! *withdrawn* ([`Settled::withdrawn`]), and the asker acts on the answer or on the documented
//! default ([`Settled::or`]).

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

/// How a pending question settled.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "how", content = "answer", rename_all = "snake_case")]
pub enum Settled<T> {
    /// Someone answered.
    Answered(T),
    /// Nobody answered within the question's timeout.
    TimedOut,
    /// The asker gave up (the operation was cancelled, or the engine is stopping).
    Cancelled,
    /// Everyone who could answer went away without answering (a console quit, a session ended).
    Abandoned,
}

impl<T> Settled<T> {
    /// The answer the asker acts on: the one given, else `default` (the documented default of
    /// that kind of question: a denial, a declined form, a rejected sampling request).
    pub fn or(self, default: T) -> T {
        match self {
            Self::Answered(answer) => answer,
            Self::TimedOut | Self::Cancelled | Self::Abandoned => default,
        }
    }

    /// What a face that is still showing the question says about it once it settled without
    /// that face: why it no longer waits, in words (`describe` words an answer).
    pub fn withdrawn(&self, describe: impl FnOnce(&T) -> String) -> String {
        match self {
            Self::Answered(answer) => format!("answered elsewhere: {}", describe(answer)),
            Self::TimedOut => "not answered in time, so refused".to_owned(),
            Self::Cancelled => "withdrawn: the operation was cancelled".to_owned(),
            Self::Abandoned => "withdrawn: nobody was left to answer, so refused".to_owned(),
        }
    }
}

/// The settling rule, pure: the first outcome wins; a later one is refused with the first.
pub fn settle<T: Clone>(
    state: &mut Option<Settled<T>>,
    outcome: Settled<T>,
) -> Result<(), Settled<T>> {
    if let Some(first) = state {
        return Err(first.clone());
    }
    *state = Some(outcome);
    Ok(())
}

type State<T> = Arc<watch::Sender<Option<Settled<T>>>>;

fn settle_shared<T: Clone>(state: &State<T>, outcome: Settled<T>) -> Result<(), Settled<T>> {
    let mut refused = None;
    state.send_if_modified(|s| match settle(s, outcome) {
        Ok(()) => true,
        Err(first) => {
            refused = Some(first);
            false
        }
    });
    #[cfg(test)]
    if refused.is_none() {
        hops::settled();
    }
    refused.map_or(Ok(()), Err)
}

/// The asker's half: the ticket, the timeout, and the wait for the outcome. Dropped before it
/// settles, it is [`Settled::Cancelled`] for every face.
#[derive(Debug)]
pub struct Pending<T: Clone> {
    ticket: u64,
    timeout: Option<Duration>,
    state: State<T>,
}

/// The answering half a face holds; clones answer the same question. When the last one is
/// dropped unanswered, the question is [`Settled::Abandoned`].
#[derive(Debug, Clone)]
pub struct Reply<T: Clone> {
    ticket: u64,
    face: Arc<Face<T>>,
}

#[derive(Debug)]
struct Face<T: Clone> {
    state: State<T>,
}

impl<T: Clone> Drop for Face<T> {
    fn drop(&mut self) {
        let _ = settle_shared(&self.state, Settled::Abandoned);
    }
}

impl<T: Clone> Pending<T> {
    /// A question `ticket` that times out after `timeout` (`None`: it waits until it is
    /// answered, cancelled or abandoned), and its first reply.
    pub fn new(ticket: u64, timeout: Option<Duration>) -> (Self, Reply<T>) {
        let state = Arc::new(watch::Sender::new(None));
        let reply = Reply {
            ticket,
            face: Arc::new(Face {
                state: state.clone(),
            }),
        };
        (
            Self {
                ticket,
                timeout,
                state,
            },
            reply,
        )
    }

    /// The question's ticket.
    pub fn ticket(&self) -> u64 {
        self.ticket
    }

    /// How long it waits for an answer.
    pub fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    /// Waits until it settles: an answer, every reply gone, the timeout, or `cancel`. The
    /// outcome is the one every face sees.
    pub async fn wait(self, cancel: impl Future<Output = ()>) -> Settled<T> {
        let mut seen = self.state.subscribe();
        let outcome = tokio::select! {
            settled = seen.wait_for(Option::is_some) => {
                return settled.ok().and_then(|s| s.clone()).unwrap_or(Settled::Abandoned);
            }
            () = expiry(self.timeout) => Settled::TimedOut,
            () = cancel => Settled::Cancelled,
        };
        match settle_shared(&self.state, outcome.clone()) {
            Ok(()) => outcome,
            // Answered in the same instant: the answer stands.
            Err(first) => first,
        }
    }
}

/// Ends when `timeout` has passed; never without one.
async fn expiry(timeout: Option<Duration>) {
    match timeout {
        Some(timeout) => tokio::time::sleep(timeout).await,
        None => std::future::pending().await,
    }
}

impl<T: Clone> Pending<T> {
    /// Settles it as it settled elsewhere: a face mirroring a question asked in another process
    /// (a watcher following a serve session) withdraws its copy with the other side's outcome.
    pub fn withdraw(self, outcome: Settled<T>) {
        let _ = settle_shared(&self.state, outcome);
    }
}

impl<T: Clone> Drop for Pending<T> {
    fn drop(&mut self) {
        let _ = settle_shared(&self.state, Settled::Cancelled);
    }
}

impl<T: Clone> Reply<T> {
    /// The question's ticket.
    pub fn ticket(&self) -> u64 {
        self.ticket
    }

    /// Answers; refused, with how it settled, when it already has.
    pub fn answer(&self, answer: T) -> Result<(), Settled<T>> {
        settle_shared(&self.face.state, Settled::Answered(answer))
    }

    /// How it settled, if it has.
    pub fn settled_now(&self) -> Option<Settled<T>> {
        self.face.state.borrow().clone()
    }

    /// Waits until it settles (by anyone).
    pub async fn settled(&self) -> Settled<T> {
        let mut seen = self.face.state.subscribe();
        let settled = seen.wait_for(Option::is_some).await;
        settled
            .ok()
            .and_then(|s| s.clone())
            .unwrap_or(Settled::Abandoned)
    }
}

/// A count of the hand-offs (channel sends, socket frames, settlements) on the way from an
/// agent's call to its answer, per thread: a current-thread test runtime counts only its own.
/// A settlement also notes the count so far, so what follows it (the consoles told) is not.
#[cfg(test)]
pub(crate) mod hops {
    use std::cell::Cell;

    thread_local! {
        static HOPS: Cell<usize> = const { Cell::new(0) };
        static AT_SETTLE: Cell<usize> = const { Cell::new(0) };
    }

    /// One more hand-off.
    pub(crate) fn count() {
        HOPS.with(|h| h.set(h.get() + 1));
    }

    /// A question settled: notes the count.
    pub(super) fn settled() {
        count();
        AT_SETTLE.with(|s| s.set(HOPS.with(Cell::get)));
    }

    /// Starts counting again.
    pub(crate) fn reset() {
        HOPS.with(|h| h.set(0));
        AT_SETTLE.with(|s| s.set(0));
    }

    /// The hand-offs counted from the last reset to the last settlement.
    pub(crate) fn until_settled() -> usize {
        AT_SETTLE.with(Cell::get)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_outcome_wins_and_a_later_one_is_told_it() {
        let mut state = None;
        assert_eq!(settle(&mut state, Settled::Answered(1)), Ok(()));
        assert_eq!(
            settle(&mut state, Settled::TimedOut),
            Err(Settled::Answered(1))
        );
        assert_eq!(
            settle(&mut state, Settled::Answered(2)),
            Err(Settled::Answered(1))
        );
        assert_eq!(state, Some(Settled::Answered(1)));
    }

    #[test]
    fn anything_but_an_answer_is_the_default() {
        assert_eq!(Settled::Answered("yes").or("no"), "yes");
        for s in [Settled::TimedOut, Settled::Cancelled, Settled::Abandoned] {
            assert_eq!(s.or("no"), "no");
        }
        assert_eq!(
            Settled::Answered(false).withdrawn(|a| if *a { "allowed" } else { "denied" }.into()),
            "answered elsewhere: denied"
        );
    }

    #[test]
    fn a_second_face_is_refused_with_the_first_answer() {
        let (pending, console) = Pending::<&str>::new(7, Some(Duration::from_secs(1)));
        let watcher = console.clone();
        assert_eq!(console.answer("deny"), Ok(()));
        assert_eq!(watcher.answer("allow"), Err(Settled::Answered("deny")));
        assert_eq!(watcher.settled_now(), Some(Settled::Answered("deny")));
        assert_eq!(pending.ticket(), 7);
        drop(pending);
        // Settled before the asker went: the answer stays.
        assert_eq!(console.settled_now(), Some(Settled::Answered("deny")));
    }

    #[test]
    fn a_mirrored_question_is_withdrawn_with_the_other_side_s_outcome() {
        let (pending, reply) = Pending::<u8>::new(6, None);
        pending.withdraw(Settled::TimedOut);
        assert_eq!(reply.settled_now(), Some(Settled::TimedOut));
        assert_eq!(reply.answer(1), Err(Settled::TimedOut));
    }

    #[test]
    fn every_reply_dropped_is_abandoned_and_the_asker_dropped_is_cancelled() {
        let (pending, reply) = Pending::<u8>::new(1, Some(Duration::from_secs(1)));
        let other = reply.clone();
        drop(reply);
        assert_eq!(other.settled_now(), None, "one face is left");
        drop(other);
        assert_eq!(*pending.state.borrow(), Some(Settled::Abandoned));

        let (pending, reply) = Pending::<u8>::new(2, Some(Duration::from_secs(1)));
        drop(pending);
        assert_eq!(reply.settled_now(), Some(Settled::Cancelled));
        assert_eq!(reply.answer(1), Err(Settled::Cancelled));
    }

    // Paused time: nothing here sleeps for real, and the timeout is exact.
    #[tokio::test(start_paused = true)]
    async fn unanswered_it_times_out_exactly_and_every_face_sees_it() {
        let (pending, reply) = Pending::<u8>::new(3, Some(Duration::from_secs(120)));
        let started = tokio::time::Instant::now();
        let outcome = pending.wait(std::future::pending()).await;
        assert_eq!(outcome, Settled::TimedOut);
        assert_eq!(started.elapsed(), Duration::from_secs(120));
        assert_eq!(reply.settled().await, Settled::TimedOut);
        assert_eq!(reply.answer(1), Err(Settled::TimedOut));
    }

    #[tokio::test(start_paused = true)]
    async fn an_answer_or_a_cancellation_ends_the_wait_at_once() {
        let (pending, reply) = Pending::<u8>::new(4, Some(Duration::from_secs(120)));
        let face = reply.clone();
        let started = tokio::time::Instant::now();
        let (outcome, ()) = tokio::join!(pending.wait(std::future::pending()), async move {
            face.answer(9).expect("first");
        });
        assert_eq!(outcome, Settled::Answered(9));
        assert_eq!(started.elapsed(), Duration::ZERO);

        let (pending, reply) = Pending::<u8>::new(5, Some(Duration::from_secs(120)));
        let outcome = pending.wait(std::future::ready(())).await;
        assert_eq!(outcome, Settled::Cancelled);
        assert_eq!(reply.settled().await, Settled::Cancelled);
    }
}
