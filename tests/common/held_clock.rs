//! Paused time that moves only when the test moves it, for tests whose subject is time (a
//! request timeout, a shutdown grace, a backoff, an approval wait) while a real child process or
//! socket does its I/O.
//!
//! Every timer in the engine reads tokio's clock, so `#[tokio::test(start_paused = true)]`
//! injects the test's clock into all of them. Paused alone, though, the runtime jumps the clock
//! to the next timer whenever it has nothing to run — also while it waits for a child's answer —
//! so a handshake or request timeout would fire before the child could answer. A [`Held`] clock
//! does not jump: tokio does not auto-advance while a blocking task runs (its documentation of
//! `time::pause`, "Preventing auto-advance"), and the hold is such a task. Time then moves only
//! by [`Held::finishes_at`] and [`Held::advance`], by exactly what the test says.
//!
//! Real time still bounds the test: after [`REAL_LIMIT`] the hold lets go, the clock jumps again,
//! every bounded wait in the test reaches its bound, and [`Held::finishes_at`] fails, naming the
//! hold. Bounded waits written for real time (`fs_wait::until_changed`) work unchanged.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// The longest a test holds the clock, in real time.
pub const REAL_LIMIT: Duration = Duration::from_secs(60);

/// How much before a deadline a future must still be pending.
const JUST_BEFORE: Duration = Duration::from_millis(1);

/// Scheduler turns given to ready tasks before time moves (see [`settle`]).
const SETTLE_TURNS: usize = 64;

/// Holds paused time still until dropped (or [`REAL_LIMIT`] passes).
pub struct Held {
    stop: Option<std::sync::mpsc::Sender<()>>,
    expired: Arc<AtomicBool>,
}

impl Held {
    /// Holds the clock. The test must run with paused time (`start_paused = true`).
    pub fn new() -> Self {
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let expired = Arc::new(AtomicBool::new(false));
        let flag = expired.clone();
        // Dropping `stop` ends the task at once; the limit ends it otherwise.
        drop(tokio::task::spawn_blocking(move || {
            if let Err(std::sync::mpsc::RecvTimeoutError::Timeout) =
                stopped.recv_timeout(REAL_LIMIT)
            {
                flag.store(true, Ordering::SeqCst);
            }
        }));
        Self {
            stop: Some(stop),
            expired,
        }
    }

    /// Moves the clock on by `by`, then lets the tasks that it woke run.
    pub async fn advance(&self, by: Duration) {
        tokio::time::advance(by).await;
        settle().await;
    }

    /// Fails the test if the hold let go (a real wait took [`REAL_LIMIT`]): what the test
    /// waited for came only once the clock was free to jump.
    pub fn check(&self) {
        assert!(
            !self.expired.load(Ordering::SeqCst),
            "the hold let go after {REAL_LIMIT:?} of real time"
        );
    }

    /// Lets `fut` (polled first) and the tasks it woke run, then moves the clock on by `by`,
    /// still polling `fut`; returns its output if it finished meanwhile.
    pub async fn advance_beside<F: Future + Unpin>(
        &self,
        fut: &mut F,
        by: Duration,
    ) -> Option<F::Output> {
        tokio::select! {
            biased;
            out = fut => Some(out),
            () = async {
                settle().await;
                self.advance(by).await;
            } => None,
        }
    }

    /// Drives `fut` through held time: it must still be pending just before `at` from now, and
    /// finish once `at` is reached (while time stays at `at`). Returns its output. The tasks
    /// that are ready run first (see [`settle`]), so a timer they are about to start counts
    /// from now.
    pub async fn finishes_at<F: Future>(&self, fut: F, at: Duration) -> F::Output {
        let mut fut = std::pin::pin!(fut);
        if self
            .advance_beside(&mut fut, at.saturating_sub(JUST_BEFORE))
            .await
            .is_some()
        {
            panic!("finished before {at:?} of paused time had passed");
        }
        tokio::time::advance(at.min(JUST_BEFORE)).await;
        let out = fut.await;
        assert!(
            !self.expired.load(Ordering::SeqCst),
            "did not finish at {at:?} of paused time (the hold let go after {REAL_LIMIT:?} real)"
        );
        out
    }
}

impl Drop for Held {
    fn drop(&mut self) {
        self.stop.take();
    }
}

/// Lets every ready task run for a bounded number of scheduler turns: the engine's own steps
/// between an event the test saw and the timer it starts next, none of which waits on I/O.
pub async fn settle() {
    for _ in 0..SETTLE_TURNS {
        tokio::task::yield_now().await;
    }
}
