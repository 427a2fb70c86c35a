//! Progress on a terminal while a one-shot command waits: a spinner line on stderr saying how
//! long it has waited and the server's last progress report (`notifications/progress`), drawn
//! with `indicatif`.
//!
//! It is drawn only when both stdout and stderr are terminals and `MCPDECK_NO_PROGRESS` is not
//! set, never before the command has waited [`DELAY`] (a quick answer draws nothing), and it is
//! erased before anything is printed, so the result's first byte never waits for it (erasing is
//! one short write). Terminal questions (elicitation, approvals) pause it while they ask.

use std::io::IsTerminal as _;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::mcp::connection::{ConnectionEvent, ServerEvent};
use crate::mcp::sanitize::sanitize;

/// How long a command waits before the spinner appears.
pub const DELAY: Duration = Duration::from_millis(250);
/// How often the spinner moves.
const TICK: Duration = Duration::from_millis(100);
/// The longest server message shown, in characters.
const MAX_MESSAGE: usize = 60;

/// The spinner of this process once it is due to show (prompts pause it through [`pause`]).
static SHOWN: Mutex<Option<ProgressBar>> = Mutex::new(None);
/// Questions on the terminal in progress: the spinner stays hidden while any is asked.
static PAUSED: AtomicUsize = AtomicUsize::new(0);

/// Whether progress may be drawn: stdout and stderr are terminals and the user has not turned
/// it off.
pub fn wanted() -> bool {
    std::env::var_os("MCPDECK_NO_PROGRESS").is_none()
        && std::io::stdout().is_terminal()
        && std::io::stderr().is_terminal()
}

/// The spinner of one command; erased when dropped.
#[derive(Debug)]
pub struct Progress {
    bar: ProgressBar,
    ticker: tokio::task::JoinHandle<()>,
}

impl Progress {
    /// Starts the spinner (hidden until [`DELAY`] has passed) with the server's progress
    /// reports from `events`, on the current tokio runtime.
    pub fn start(mut events: tokio::sync::mpsc::Receiver<ServerEvent>) -> Self {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        bar.set_style(
            ProgressStyle::with_template("{spinner} {msg} {elapsed}")
                .unwrap_or_else(|_| ProgressStyle::default_spinner()),
        );
        bar.set_message("waiting for the server…");
        let shown = bar.clone();
        let ticker = tokio::spawn(async move {
            tokio::time::sleep(DELAY).await;
            {
                let mut due = SHOWN.lock().unwrap_or_else(PoisonError::into_inner);
                if PAUSED.load(Ordering::Acquire) == 0 {
                    shown.set_draw_target(ProgressDrawTarget::stderr());
                }
                *due = Some(shown.clone());
            }
            let mut tick = tokio::time::interval(TICK);
            loop {
                tokio::select! {
                    _ = tick.tick() => shown.tick(),
                    event = events.recv() => match event {
                        Some(event) => report(&shown, &event),
                        None => break,
                    },
                }
            }
            // The events have ended (the engine is gone): keep turning until erased.
            loop {
                tick.tick().await;
                shown.tick();
            }
        });
        Self { bar, ticker }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.ticker.abort();
        SHOWN.lock().unwrap_or_else(PoisonError::into_inner).take();
        self.bar.finish_and_clear();
    }
}

/// Shows a progress report on the spinner line.
fn report(bar: &ProgressBar, event: &ServerEvent) {
    let ConnectionEvent::Progress {
        progress,
        total,
        message,
        ..
    } = &event.event
    else {
        return;
    };
    let amount = match total {
        Some(total) => format!("{progress}/{total}"),
        None => format!("{progress}"),
    };
    let message: String = message
        .as_deref()
        .map_or_else(String::new, |m| sanitize(m).replace('\n', " "))
        .chars()
        .take(MAX_MESSAGE)
        .collect();
    let server = sanitize(&event.server).into_owned();
    bar.set_message(
        format!("{server}: {amount} {message}")
            .trim_end()
            .to_owned(),
    );
}

/// Runs `ask` (a question on the terminal) with the spinner erased, and draws it again after.
pub fn pause<T>(ask: impl FnOnce() -> T) -> T {
    {
        let shown = SHOWN.lock().unwrap_or_else(PoisonError::into_inner);
        PAUSED.fetch_add(1, Ordering::AcqRel);
        if let Some(bar) = shown.as_ref() {
            // Leaving the terminal erases the spinner's line.
            bar.set_draw_target(ProgressDrawTarget::hidden());
        }
    }
    let answer = ask();
    let shown = SHOWN.lock().unwrap_or_else(PoisonError::into_inner);
    if PAUSED.fetch_sub(1, Ordering::AcqRel) == 1
        && let Some(bar) = shown.as_ref()
    {
        bar.set_draw_target(ProgressDrawTarget::stderr());
    }
    answer
}
