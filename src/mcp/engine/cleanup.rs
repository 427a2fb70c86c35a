//! Last-resort cleanup for exit paths that skip orderly shutdown (a panic, a fatal signal).
//!
//! The engine registers every spill directory and every stdio process group here while they
//! exist; [`emergency`] removes the directories and SIGKILLs the groups. Orderly shutdown
//! (closing connections, removing spills) unregisters them first, so this only acts on what
//! would otherwise be left behind. Process-global on purpose: a panic hook has no engine handle.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::Mutex;

#[derive(Default)]
struct Registry {
    dirs: BTreeSet<PathBuf>,
    groups: BTreeSet<u32>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    dirs: BTreeSet::new(),
    groups: BTreeSet::new(),
});

fn registry() -> std::sync::MutexGuard<'static, Registry> {
    REGISTRY
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A handle to the process-wide cleanup registry.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Cleanup;

// A handle: the methods take it so that callers name the registry they register with.
#[allow(clippy::unused_self)]
impl Cleanup {
    /// Registers a directory (or a file, such as a socket) to remove on an abnormal exit.
    pub(crate) fn add_dir(self, dir: PathBuf) {
        registry().dirs.insert(dir);
    }

    /// Forgets a directory (it was removed in order).
    pub(crate) fn remove_dir(self, dir: &PathBuf) {
        registry().dirs.remove(dir);
    }

    /// Registers a process group to kill on an abnormal exit.
    pub(crate) fn add_group(self, pgid: u32) {
        registry().groups.insert(pgid);
    }

    /// Forgets a process group (it was shut down in order).
    pub(crate) fn remove_group(self, pgid: u32) {
        registry().groups.remove(&pgid);
    }
}

/// Kills every registered process group and removes every registered directory. Safe to call
/// more than once and from a panic hook or signal path.
pub(crate) fn emergency() {
    let (dirs, groups) = {
        let mut r = registry();
        (std::mem::take(&mut r.dirs), std::mem::take(&mut r.groups))
    };
    for pgid in groups {
        kill_group(pgid);
    }
    for path in dirs {
        if path.is_dir() {
            let _ = std::fs::remove_dir_all(path);
        } else {
            let _ = std::fs::remove_file(path);
        }
    }
}

/// SIGKILLs the process group `pgid` (nothing when there is no such group).
pub(crate) fn kill_group(pgid: u32) {
    let Ok(raw) = i32::try_from(pgid) else {
        return;
    };
    if let Some(pid) = rustix::process::Pid::from_raw(raw) {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

/// Installs a panic hook that runs [`emergency`] before the previous hook.
pub(crate) fn install_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        emergency();
        previous(info);
    }));
}
