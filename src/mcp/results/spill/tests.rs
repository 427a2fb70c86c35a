#![allow(clippy::unwrap_used)]

use std::io::Write as _;

use super::*;

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().permissions().mode() & 0o777
}

/// A pid that belonged to a process this test started and reaped: it is gone.
fn dead_pid() -> u32 {
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

/// Lays out a spill directory as a process that has since died would have left it.
fn dead_dir(parent: &Path, with_lock: bool) -> PathBuf {
    let pid = dead_pid();
    let dir = parent.join(format!("{DIR_PREFIX}{pid}-dead{with_lock}"));
    fs::create_dir(&dir).unwrap();
    if with_lock {
        File::create(dir.join(LOCK_FILE)).unwrap();
    }
    fs::write(dir.join(PID_FILE), format!("{pid}\n")).unwrap();
    fs::write(dir.join("spill-0000.txt"), "leftover").unwrap();
    dir
}

#[test]
fn spills_are_0600_in_a_0700_dir_and_registered() {
    let base = tempfile::tempdir().unwrap();
    let spills = SpillDir::create(base.path()).unwrap();
    assert!(spills.path().starts_with(base.path().join("mcpdeck")));
    assert_eq!(mode(spills.path()), 0o700);
    assert_eq!(mode(&base.path().join("mcpdeck")), 0o700);
    let mut w = spills.create_spill("image/png", "tools.call shot").unwrap();
    for _ in 0..3 {
        w.write_all(b"abcd").unwrap();
    }
    let name = w.basename().to_owned();
    let entry = w.finish().unwrap();
    assert_eq!(entry.basename, name);
    assert!(
        name.starts_with("spill-") && Path::new(&name).extension() == Some("png".as_ref()),
        "{name}"
    );
    assert_eq!(entry.size, 12);
    assert_eq!(fs::read(&entry.path).unwrap(), b"abcdabcdabcd");
    assert_eq!(mode(&entry.path), 0o600);
    assert_eq!(spills.spills(), vec![entry.clone()]);
    assert_eq!(spills.total_bytes(), 12);
    spills.remove(&name).unwrap();
    assert!(!entry.path.exists());
    assert!(spills.spills().is_empty());
}

#[test]
fn unfinished_spills_are_deleted() {
    let base = tempfile::tempdir().unwrap();
    let spills = SpillDir::create(base.path()).unwrap();
    let mut w = spills.create_spill("text/plain", "x").unwrap();
    w.write_all(b"partial").unwrap();
    let path = spills.path().join(w.basename());
    assert!(path.exists());
    drop(w);
    assert!(!path.exists());
    assert!(spills.spills().is_empty());
}

#[test]
fn remove_all_and_drop_remove_everything() {
    let base = tempfile::tempdir().unwrap();
    let spills = SpillDir::create(base.path()).unwrap();
    let a = spills
        .create_spill("text/plain", "x")
        .unwrap()
        .finish()
        .unwrap();
    let b = spills
        .create_spill("text/plain", "y")
        .unwrap()
        .finish()
        .unwrap();
    spills.remove_all().unwrap();
    assert!(!a.path.exists() && !b.path.exists());
    assert!(spills.spills().is_empty());
    let c = spills
        .create_spill("text/plain", "z")
        .unwrap()
        .finish()
        .unwrap();
    let dir = spills.path().to_owned();
    drop(spills);
    assert!(!c.path.exists());
    assert!(!dir.exists());
}

#[test]
fn sweep_removes_dead_and_keeps_live_directories() {
    let base = tempfile::tempdir().unwrap();
    let live = SpillDir::create(base.path()).unwrap();
    let parent = base.path().join("mcpdeck");
    let dead_locked = dead_dir(&parent, true);
    let dead_pid_only = dead_dir(&parent, false);

    // Another live process: its lock is held (flock conflicts across open files).
    let other = parent.join(format!("{DIR_PREFIX}1-other"));
    fs::create_dir(&other).unwrap();
    let held = File::create(other.join(LOCK_FILE)).unwrap();
    flock(&held, FlockOperation::NonBlockingLockExclusive).unwrap();

    // No lock file, but the pid is alive (ours): kept.
    let alive_pid = parent.join(format!("{DIR_PREFIX}{}-nolock", std::process::id()));
    fs::create_dir(&alive_pid).unwrap();
    fs::write(alive_pid.join(PID_FILE), std::process::id().to_string()).unwrap();

    let report = sweep(base.path()).unwrap();
    assert!(!dead_locked.exists(), "dead dir with a free lock is swept");
    assert!(!dead_pid_only.exists(), "dead pid without lock is swept");
    assert!(live.path().exists());
    assert!(other.exists());
    assert!(alive_pid.exists());
    assert_eq!(report.removed.len(), 2, "{report:?}");
    assert_eq!(report.kept.len(), 3, "{report:?}");
    drop(held);
    // Its owner released the lock: now it is dead and goes.
    sweep(base.path()).unwrap();
    assert!(!other.exists());
    assert!(live.path().exists());
}

#[test]
fn create_sweeps_first() {
    let base = tempfile::tempdir().unwrap();
    let parent = parent_dir(base.path()).unwrap();
    let dead = dead_dir(&parent, true);
    let spills = SpillDir::create(base.path()).unwrap();
    assert!(!dead.exists());
    assert!(spills.path().exists());
}

#[test]
fn extensions_follow_mime() {
    assert_eq!(extension("image/png"), "png");
    assert_eq!(extension("text/plain; charset=utf-8"), "txt");
    assert_eq!(extension("application/x-unknown"), "bin");
}
