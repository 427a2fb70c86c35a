//! The single producer slot: one active producer call at a time, a time limit, a
//! cancellation grace, and quarantine for producers that ignore cancellation.
//!
//! The slot is taken before a producer thread starts and released by that thread when it
//! exits, so a producer that outlives its call (it ignored the cancel flag past the grace
//! period) keeps the slot: later calls get [`Outcome::Busy`] until it really ends.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

/// Time limits of one producer call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// How long a producer may run.
    pub timeout: Duration,
    /// How long a cancelled or timed-out producer gets to stop.
    pub grace: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(30),
            grace: Duration::from_secs(5),
        }
    }
}

/// How a slot run ended.
#[derive(Debug, PartialEq, Eq)]
pub enum Outcome<T> {
    /// The producer finished in time.
    Done(T),
    /// Another producer holds the slot (running or quarantined).
    Busy,
    /// The time limit passed.
    TimedOut,
    /// The caller cancelled.
    Cancelled,
    /// The producer thread could not start or panicked.
    Failed,
}

/// The slot.
#[derive(Debug, Clone, Default)]
pub struct Slot {
    busy: Arc<AtomicBool>,
}

/// Releases the slot when dropped (by the producer thread, when it ends).
struct Release(Arc<AtomicBool>);

impl Drop for Release {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
    }
}

impl Slot {
    /// A free slot.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether a producer holds the slot.
    pub fn is_busy(&self) -> bool {
        self.busy.load(Ordering::Acquire)
    }

    /// Runs `work` on its own thread if the slot is free. `work` gets a flag that turns true
    /// when it should stop.
    pub async fn run<T, F>(&self, limits: Limits, cancel: &CancellationToken, work: F) -> Outcome<T>
    where
        T: Send + 'static,
        F: FnOnce(&AtomicBool) -> T + Send + 'static,
    {
        if self
            .busy
            .compare_exchange(false, true, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            return Outcome::Busy;
        }
        let release = Release(Arc::clone(&self.busy));
        let stop = Arc::new(AtomicBool::new(false));
        let stop_worker = Arc::clone(&stop);
        let (tx, mut rx) = tokio::sync::oneshot::channel();
        let spawned = std::thread::Builder::new()
            .name("workspace-producer".into())
            .spawn(move || {
                let out = work(&stop_worker);
                // Free the slot before answering, so the caller's next call never races it.
                drop(release);
                let _ = tx.send(out);
            });
        if spawned.is_err() {
            // The closure (and its `Release`) was dropped with the failed spawn.
            return Outcome::Failed;
        }
        let ended = tokio::select! {
            out = &mut rx => return out.map_or(Outcome::Failed, Outcome::Done),
            () = tokio::time::sleep(limits.timeout) => Outcome::TimedOut,
            () = cancel.cancelled() => Outcome::Cancelled,
        };
        stop.store(true, Ordering::Release);
        // Give the producer its grace period; if it ignores the flag it keeps the slot.
        let _ = tokio::time::timeout(limits.grace, rx).await;
        ended
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use std::sync::mpsc;

    fn limits(ms: u64) -> Limits {
        Limits {
            timeout: Duration::from_millis(ms),
            grace: Duration::from_millis(ms),
        }
    }

    #[tokio::test]
    async fn one_producer_at_a_time() {
        let slot = Slot::new();
        let ct = CancellationToken::new();
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let (started_tx, started_rx) = tokio::sync::oneshot::channel();
        let first = {
            let slot = slot.clone();
            let ct = ct.clone();
            tokio::spawn(async move {
                slot.run(Limits::default(), &ct, move |_| {
                    let _ = started_tx.send(());
                    release_rx.recv().ok();
                    1
                })
                .await
            })
        };
        started_rx.await.unwrap();
        assert_eq!(slot.run(Limits::default(), &ct, |_| 2).await, Outcome::Busy);
        release_tx.send(()).unwrap();
        assert_eq!(first.await.unwrap(), Outcome::Done(1));
        assert!(!slot.is_busy());
        assert_eq!(
            slot.run(Limits::default(), &ct, |_| 3).await,
            Outcome::Done(3)
        );
    }

    #[tokio::test]
    async fn a_cooperative_producer_frees_the_slot_after_timeout() {
        let slot = Slot::new();
        let ct = CancellationToken::new();
        let out = slot
            .run(limits(20), &ct, |stop| {
                while !stop.load(Ordering::Acquire) {
                    std::thread::yield_now();
                }
            })
            .await;
        assert_eq!(out, Outcome::TimedOut);
        // The producer saw the flag within the grace period and released the slot before
        // its answer was delivered (which `run` awaited).
        assert!(!slot.is_busy());
    }

    #[tokio::test]
    async fn a_producer_ignoring_cancellation_is_quarantined() {
        let slot = Slot::new();
        let ct = CancellationToken::new();
        let (release_tx, release_rx) = mpsc::channel::<()>();
        let (done_tx, done_rx) = mpsc::channel::<()>();
        ct.cancel();
        let out = slot
            .run(limits(10), &ct, move |_| {
                release_rx.recv().ok();
                drop(done_tx);
            })
            .await;
        assert_eq!(out, Outcome::Cancelled);
        assert!(slot.is_busy());
        let fresh = CancellationToken::new();
        assert_eq!(
            slot.run(Limits::default(), &fresh, |_| 1).await,
            Outcome::Busy
        );
        release_tx.send(()).unwrap();
        // `done_tx` drops when the producer closure ends; the slot is released just before.
        assert!(done_rx.recv().is_err());
        // The release happens after the closure returns; wait for the flag deterministically.
        while slot.is_busy() {
            std::thread::yield_now();
        }
        assert_eq!(
            slot.run(Limits::default(), &fresh, |_| 1).await,
            Outcome::Done(1)
        );
    }
}
