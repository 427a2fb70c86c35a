//! Processes that left a server's process group and outlived the server.
//!
//! A stdio server runs in its own process group, which shutdown signals as a whole. A descendant
//! that called `setsid` (or moved to another group) escapes that signal, and when the server
//! exits it would be re-parented to init and live on. So mcpdeck makes itself a child subreaper
//! (Linux `PR_SET_CHILD_SUBREAPER`): such orphans are re-parented to mcpdeck instead, and
//! [`reap`] SIGKILLs and reaps them at shutdown. Only children that are not mcpdeck's own
//! servers are touched: a server is in mcpdeck's session and leads its own group; an orphan
//! left the session or the group it was started in.

use std::time::{Duration, Instant};

use rustix::process::{Pid, Signal, WaitOptions, getpid, kill_process, waitpid};

/// Makes this process the subreaper of its descendants (once; Linux only, else a no-op).
pub(crate) fn adopt() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        #[cfg(target_os = "linux")]
        let _ = rustix::process::set_child_subreaper(Some(getpid()));
    });
}

/// `(ppid, pgrp, session)` of a process, from `/proc/PID/stat`.
fn stat(pid: &str) -> Option<(i32, i32, i32)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // pid (comm) state ppid pgrp session ...; comm may hold spaces and parentheses.
    let after = &text[text.rfind(')')? + 1..];
    let mut fields = after.split_whitespace().skip(1);
    let mut next = || fields.next()?.parse::<i32>().ok();
    Some((next()?, next()?, next()?))
}

/// This process's children that escaped their server's process group or session.
///
/// Only this process's own children are looked at (the kernel's `children` list of each of its
/// threads, which includes the orphans re-parented to it as subreaper), so the cost grows with
/// mcpdeck's children, not with the host's process count. A kernel without that list
/// (`CONFIG_PROC_CHILDREN` off) falls back to reading every process's `stat`.
pub(crate) fn find() -> Vec<Pid> {
    let me = getpid().as_raw_nonzero().get();
    let Some((_, my_group, my_session)) = stat("self") else {
        return Vec::new();
    };
    let candidates = own_children().unwrap_or_else(every_process);
    candidates
        .into_iter()
        .filter_map(|pid| {
            let (ppid, group, session) = stat(&pid.to_string())?;
            let escaped = session != my_session || (group != pid && group != my_group);
            (ppid == me && escaped)
                .then(|| Pid::from_raw(pid))
                .flatten()
        })
        .collect()
}

/// The pids in `/proc/self/task/*/children`; `None` when the kernel does not provide them.
fn own_children() -> Option<Vec<i32>> {
    let mut pids = Vec::new();
    let mut any = false;
    for task in std::fs::read_dir("/proc/self/task").ok()?.flatten() {
        let Ok(text) = std::fs::read_to_string(task.path().join("children")) else {
            continue;
        };
        any = true;
        pids.extend(
            text.split_whitespace()
                .filter_map(|p| p.parse::<i32>().ok()),
        );
    }
    pids.sort_unstable();
    pids.dedup();
    any.then_some(pids)
}

/// Every pid under `/proc`.
fn every_process() -> Vec<i32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse().ok())
        .collect()
}

/// SIGKILLs and reaps every orphan found; returns how many. Waits at most ~2 s in total.
pub(crate) fn reap() -> usize {
    let orphans = find();
    for pid in &orphans {
        let _ = kill_process(*pid, Signal::KILL);
    }
    let deadline = Instant::now() + Duration::from_secs(2);
    let mut waiting = orphans.clone();
    while !waiting.is_empty() && Instant::now() < deadline {
        waiting.retain(|pid| matches!(waitpid(Some(*pid), WaitOptions::NOHANG), Ok(None)));
        if !waiting.is_empty() {
            std::thread::sleep(Duration::from_millis(10));
        }
    }
    orphans.len()
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    use super::own_children;

    #[test]
    fn own_children_lists_a_spawned_child() {
        let mut child = std::process::Command::new("sleep")
            .arg("30")
            .spawn()
            .expect("spawn sleep");
        let pid = i32::try_from(child.id()).expect("pid fits i32");
        let listed = own_children().expect("the kernel lists children");
        let _ = child.kill();
        let _ = child.wait();
        assert!(listed.contains(&pid), "{pid} not in {listed:?}");
    }
}
