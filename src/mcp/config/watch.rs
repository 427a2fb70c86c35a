//! Hearing configuration files change: the console's layers, the trust store and the policy file,
//! and serve's policy file. Each file's directory is watched (not the file: editors replace files
//! by renaming over them, and a file that does not exist yet has no inode to watch); a directory
//! that does not exist yet is watched through its nearest existing ancestor and watched itself
//! once it appears. Events are debounced, so an editor's burst of writes and renames is one
//! change. Linux uses inotify; where no notification is available the files are polled.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Mutex, PoisonError};

use std::time::Duration;

use notify::{EventKind, RecursiveMode, Watcher as _};

/// How long the files must be quiet before a change is reported.
pub const DEBOUNCE: Duration = Duration::from_millis(150);
/// How often files are polled where no notification is available.
const POLL: Duration = Duration::from_secs(1);

/// Watches a set of files until dropped; `on_change` hears which of them changed.
pub struct FileWatch {
    /// Held, not read: dropping it drops the only sender, which ends the debounce thread.
    _watcher: Arc<Mutex<Box<dyn notify::Watcher + Send>>>,
    /// Polling rather than notification (said in the README and by `how`).
    polling: bool,
}

impl FileWatch {
    /// Starts watching `files`; `on_change` runs on the watch's own thread with the files that
    /// changed, at most once per quiet [`DEBOUNCE`]. Fails only when neither notification nor
    /// polling can start.
    pub fn start(
        files: &[PathBuf],
        on_change: impl Fn(Vec<PathBuf>) + Send + 'static,
    ) -> notify::Result<Self> {
        let (tx, rx) = mpsc::channel::<notify::Result<notify::Event>>();
        let (watcher, polling) = new_watcher(tx)?;
        let watcher = Arc::new(Mutex::new(watcher));
        let targets: BTreeSet<PathBuf> = files.iter().map(|f| absolute(f)).collect();
        let mut armed = BTreeSet::new();
        arm(&watcher, &targets, &mut armed);
        let weak = Arc::downgrade(&watcher);
        std::thread::Builder::new()
            .name("mcpdeck-config-watch".to_owned())
            .spawn(move || {
                // Ends when the watch is dropped: the watcher holds the only sender.
                while let Ok(first) = rx.recv() {
                    let mut events = vec![first];
                    while let Ok(next) = rx.recv_timeout(DEBOUNCE) {
                        events.push(next);
                    }
                    let Some(watcher) = weak.upgrade() else { break };
                    // A directory on the way to a file may have appeared.
                    arm(&watcher, &targets, &mut armed);
                    drop(watcher);
                    let changed = changed_targets(&events, &targets);
                    if !changed.is_empty() {
                        on_change(changed);
                    }
                }
            })
            .map_err(notify::Error::io)?;
        Ok(Self {
            _watcher: watcher,
            polling,
        })
    }

    /// How the files are watched, for the operator.
    pub fn how(&self) -> &'static str {
        if self.polling {
            "polled every second"
        } else {
            "notified"
        }
    }
}

/// The platform's notification watcher, else a polling one.
fn new_watcher(
    tx: mpsc::Sender<notify::Result<notify::Event>>,
) -> notify::Result<(Box<dyn notify::Watcher + Send>, bool)> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let notify_tx = tx.clone();
        if let Ok(w) = notify::INotifyWatcher::new(
            move |e| {
                let _ = notify_tx.send(e);
            },
            notify::Config::default(),
        ) {
            return Ok((Box::new(w), false));
        }
    }
    let poll = notify::PollWatcher::new(
        move |e| {
            let _ = tx.send(e);
        },
        notify::Config::default()
            .with_poll_interval(POLL)
            .with_compare_contents(true),
    )?;
    Ok((Box::new(poll), true))
}

/// `path` made absolute against the working directory (watch events carry absolute paths).
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Watches, for every target, its directory when it exists, else its nearest existing
/// ancestor; `armed` holds what is watched already.
fn arm(
    watcher: &Mutex<Box<dyn notify::Watcher + Send>>,
    targets: &BTreeSet<PathBuf>,
    armed: &mut BTreeSet<PathBuf>,
) {
    let mut watcher = watcher.lock().unwrap_or_else(PoisonError::into_inner);
    for target in targets {
        let Some(dir) = target.ancestors().skip(1).find(|d| d.is_dir()) else {
            continue;
        };
        if armed.contains(dir) {
            continue;
        }
        if watcher.watch(dir, RecursiveMode::NonRecursive).is_ok() {
            armed.insert(dir.to_path_buf());
        }
    }
}

/// The targets that `events` touched: the file itself, or a directory on the way to it (a
/// directory created or renamed into place brings its files with it).
fn changed_targets(
    events: &[notify::Result<notify::Event>],
    targets: &BTreeSet<PathBuf>,
) -> Vec<PathBuf> {
    let mut changed = BTreeSet::new();
    for event in events.iter().flatten() {
        if matches!(event.kind, EventKind::Access(_)) {
            continue;
        }
        for path in &event.paths {
            for target in targets {
                if target.starts_with(path) {
                    changed.insert(target.clone());
                }
            }
        }
    }
    changed.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Starts a watch on `files` whose changes arrive on the returned channel.
    fn watching(files: &[PathBuf]) -> (FileWatch, mpsc::Receiver<Vec<PathBuf>>) {
        let (tx, rx) = mpsc::channel();
        let watch = FileWatch::start(files, move |changed| {
            let _ = tx.send(changed);
        })
        .expect("watch");
        (watch, rx)
    }

    /// The next change reported, within a bound.
    fn next(rx: &mpsc::Receiver<Vec<PathBuf>>) -> Vec<PathBuf> {
        rx.recv_timeout(Duration::from_secs(10))
            .expect("a change within 10 s")
    }

    #[test]
    fn a_file_that_does_not_exist_yet_is_heard_when_written_in_a_new_directory() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        let deep = root.join(".mcpdeck").join("mcp.json");
        let plain = root.join(".mcp.json");
        let (_watch, rx) = watching(&[deep.clone(), plain.clone()]);
        std::fs::write(&plain, "{}").expect("write");
        assert_eq!(next(&rx), std::slice::from_ref(&plain));
        std::fs::create_dir(root.join(".mcpdeck")).expect("mkdir");
        // The directory alone touches the path to `deep`: heard (there is nothing to read yet).
        assert_eq!(next(&rx), std::slice::from_ref(&deep));
        std::fs::write(&deep, "{}").expect("write");
        assert_eq!(next(&rx), [deep], "the new directory is watched itself");
    }

    #[test]
    fn an_editors_rename_over_the_file_is_one_change_and_other_files_are_ignored() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().canonicalize().expect("canonical");
        let file = root.join("policy.toml");
        std::fs::write(&file, "old").expect("write");
        let (watch, rx) = watching(std::slice::from_ref(&file));
        assert_eq!(watch.how(), "notified");
        std::fs::write(root.join("unrelated"), "x").expect("write");
        let swap = root.join(".policy.toml.swp");
        std::fs::write(&swap, "new").expect("write");
        std::fs::rename(&swap, &file).expect("rename");
        assert_eq!(next(&rx), [file]);
        assert!(
            rx.recv_timeout(DEBOUNCE * 4).is_err(),
            "one burst, one report; the unrelated file is not one"
        );
    }
}
