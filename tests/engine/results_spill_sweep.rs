//! The startup sweep against a real second process: a spill directory whose lock another live
//! process holds is kept; once that process has exited, the same directory is swept. The other
//! process is util-linux `flock(1)`, which reports on stdout once it holds the lock, so the test
//! synchronises on that line, never on time.
#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use mcpdeck::mcp::results::{SpillDir, sweep};

#[test]
fn a_live_process_keeps_its_directory_and_a_dead_one_loses_it() {
    let base = tempfile::tempdir().unwrap();
    // Our own directory creates the `mcpdeck` parent and must survive every sweep.
    let ours = SpillDir::create(base.path()).unwrap();
    let parent = base.path().join("mcpdeck");
    let theirs = parent.join("spill-999999-other");
    std::fs::create_dir(&theirs).unwrap();
    let lock = theirs.join("lock");
    std::fs::File::create(&lock).unwrap();
    std::fs::write(theirs.join("spill-aaaa.txt"), "their data").unwrap();

    let mut child = Command::new("flock")
        .arg("--exclusive")
        .arg(&lock)
        .args(["-c", "echo locked; cat >/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("util-linux flock(1) is needed for this test");
    std::fs::write(theirs.join("pid"), child.id().to_string()).unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line.trim(), "locked");

    let report = sweep(base.path()).unwrap();
    assert!(theirs.exists(), "a live owner's directory is kept");
    assert!(report.kept.contains(&theirs));
    assert!(ours.path().exists());

    // End the other process: closing its stdin ends `cat`, then flock releases and exits.
    child.stdin.take().unwrap().flush().unwrap();
    let status = child.wait().unwrap();
    assert!(status.success());

    let report = sweep(base.path()).unwrap();
    assert!(!theirs.exists(), "a dead owner's directory is swept");
    assert!(report.removed.contains(&theirs));
    assert!(ours.path().exists(), "never our own");
}
