//! Waiting for a process to end, woken by its pidfd: the kernel makes a pidfd readable when its
//! process exits, whether or not the process is our child (a server's grandchild, a process
//! group's members), so no test polls `/proc` for it.

use std::os::fd::OwnedFd;
use std::time::Duration;

/// A pidfd for `pid`, or `None` when no such process exists (it has already been reaped).
fn pidfd(pid: u32) -> Option<OwnedFd> {
    let pid = i32::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)?;
    rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::NONBLOCK).ok()
}

/// Waits until process `pid` has exited, at most `limit` of real time; returns whether it did.
/// A zombie counts as exited. The wait blocks a thread of the runtime's blocking pool (tokio's
/// `AsyncFd` registration is `unsafe`), which also keeps a paused clock from jumping meanwhile.
pub async fn ended_within(pid: u32, limit: Duration) -> bool {
    tokio::task::spawn_blocking(move || gone_within(pid, limit))
        .await
        .expect("the wait ran")
}

/// [`ended_within`] for a test without a runtime: blocks the thread.
pub fn gone_within(pid: u32, limit: Duration) -> bool {
    let Some(fd) = pidfd(pid) else {
        return true;
    };
    let timeout = rustix::event::Timespec::try_from(limit).expect("a bounded wait");
    let mut fds = [rustix::event::PollFd::new(
        &fd,
        rustix::event::PollFlags::IN,
    )];
    loop {
        match rustix::event::poll(&mut fds, Some(&timeout)) {
            Ok(n) => return n > 0,
            // A signal interrupted the wait: wait again (at most `limit` more, still bounded).
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => panic!("poll on a pidfd: {e}"),
        }
    }
}
