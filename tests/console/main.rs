//! The console: the headless loop over a real engine, sessions, the client and hosts screens. The
//! tmux end-to-end scripts are in the `cli` binary: these tests run engines in this process, which
//! makes it the child subreaper that would reap tmux's daemonised server. One test binary of the
//! suite (CONTRIBUTING.md names them all and says what goes where); each module below was its own
//! binary before.

#[path = "../common/mod.rs"]
mod common;

mod console_client;
mod console_headless;
mod console_hosts;
mod console_live;
mod console_session;
mod console_tasks;
