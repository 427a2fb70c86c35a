//! Waiting for a condition on files, woken by inotify (the `notify` crate) rather than a poll.

use std::path::Path;
use std::time::Duration;

use notify::{RecursiveMode, Watcher};

/// Waits until `cond` holds, at most `limit`, re-checking it whenever anything under `root`
/// (recursively; `root` or its nearest existing ancestor) changes, and once more at the end.
/// The watch is in place before the first check, so a change after that check wakes the wait.
/// A file made inside a directory created after the watch began can land before notify watches
/// that directory; the event of its creation still wakes a re-check, and the final check at the
/// bound catches anything missed.
pub async fn until_changed(root: &Path, limit: Duration, mut cond: impl FnMut() -> bool) -> bool {
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let _watcher = watch(root, move |event| {
        let _ = tx.send(event);
    });
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        if cond() {
            return true;
        }
        match tokio::time::timeout_at(deadline, rx.recv()).await {
            Ok(Some(_)) => {}
            Ok(None) | Err(_) => return cond(),
        }
    }
}

/// [`until_changed`] for a test without a runtime: blocks the thread.
pub fn until_changed_blocking(
    root: &Path,
    limit: Duration,
    mut cond: impl FnMut() -> bool,
) -> bool {
    let (tx, rx) = std::sync::mpsc::channel();
    let _watcher = watch(root, tx);
    let deadline = std::time::Instant::now() + limit;
    loop {
        if cond() {
            return true;
        }
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() || rx.recv_timeout(left).is_err() {
            return cond();
        }
    }
}

/// A recursive watch of `root`, or of its nearest existing ancestor, sending to `handler`.
fn watch(root: &Path, handler: impl notify::EventHandler) -> notify::RecommendedWatcher {
    let mut watcher = notify::recommended_watcher(handler).expect("an inotify watcher");
    let watched = root
        .ancestors()
        .find(|p| p.exists())
        .expect("an existing ancestor");
    watcher
        .watch(watched, RecursiveMode::Recursive)
        .expect("watches the directory");
    watcher
}
