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
pub(crate) fn find() -> Vec<Pid> {
    let me = getpid().as_raw_nonzero().get();
    let Some((_, my_group, my_session)) = stat("self") else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name();
            let name = name.to_str()?;
            let pid: i32 = name.parse().ok()?;
            let (ppid, group, session) = stat(name)?;
            let escaped = session != my_session || (group != pid && group != my_group);
            (ppid == me && escaped)
                .then(|| Pid::from_raw(pid))
                .flatten()
        })
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
