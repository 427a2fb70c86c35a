//! Approvals in serve mode answered from outside the agent host, through the real binary: a
//! watcher that attaches after the session started still gets the approval (the session waits
//! for the first discovery), and `mcpdeck approvals --watch` waits for sessions to appear, answers
//! them, outlives them, and stops on Ctrl-C.

use crate::common;

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;

use super::serve_kit::{Agent, WAIT, call, runtime_dir, text, the_socket};
use common::{Sandbox, fixture};
use mcpdeck::mcp::control::{ControlClient, ToConsole};
use mcpdeck::mcp::policy::Decision;
use rmcp::model::CallToolResult;
use serde_json::json;

/// The fixture's stdio server as `fx`, counting its tool calls in `counter`.
fn sandbox() -> (Sandbox, PathBuf) {
    let sb = Sandbox::new();
    let counter = sb.dir.path().join("counter");
    let env = json!({"FIXTURE_COUNTER": counter, "FIXTURE_EVENTS": sb.dir.path().join("events")});
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {"fx": {"command": fixture(), "args": ["stdio"], "env": env}}})
            .to_string(),
    );
    std::fs::create_dir_all(runtime_dir(&sb)).expect("runtime dir");
    (sb, counter)
}

/// `mcpdeck serve --policy enforce` with an agent attached over stdio.
async fn serve(sb: &Sandbox) -> Agent {
    super::serve_kit::serve(sb, &["--policy", "enforce"]).await
}

/// The agent calls `echo` on `fx` (an operation that needs approval in enforce mode).
fn call_echo(agent: &Arc<Agent>) -> tokio::task::JoinHandle<CallToolResult> {
    let agent = agent.clone();
    tokio::spawn(async move { call(&agent, "fx", "echo", json!({"text": "x"})).await })
}

fn calls(counter: &Path) -> usize {
    std::fs::read_to_string(counter).map_or(0, |s| s.lines().count())
}

/// A session nobody watched yet holds an approval for the first discovery: a watcher that
/// attaches after the operation began still gets it, and its answer lets the call run.
#[tokio::test]
async fn a_watcher_attached_after_the_operation_began_still_gets_the_approval() {
    let (sb, counter) = sandbox();
    let agent = Arc::new(serve(&sb).await);
    let socket = the_socket(&sb).await;
    let call = call_echo(&agent);
    // The operation is waiting for a console (seen by observing, without attaching, which
    // would end the wait); only then does the watcher attach.
    let mut observer = ControlClient::observe(&socket).await.expect("observe");
    let waits = tokio::time::timeout(WAIT, async {
        loop {
            match observer.next().await {
                Ok(Some(ToConsole::Snapshot { snapshot })) if snapshot.awaiting_console == 1 => {
                    return true;
                }
                Ok(Some(_)) => {}
                _ => return false,
            }
        }
    })
    .await;
    assert!(
        waits == Ok(true),
        "the operation waits for a console instead of failing closed"
    );
    assert_eq!(calls(&counter), 0);
    let (mut watcher, snapshot) = ControlClient::attach(&socket).await.expect("attach");
    let request = match snapshot.pending.first() {
        Some(request) => request.clone(),
        None => loop {
            match tokio::time::timeout(WAIT, watcher.next()).await {
                Ok(Ok(Some(ToConsole::Approval { request }))) => break request,
                Ok(Ok(Some(_))) => {}
                other => panic!("no approval reached the watcher: {other:?}"),
            }
        },
    };
    assert_eq!(request.operation, "tools.call echo");
    watcher
        .decide(request.ticket, Decision::AllowOnce)
        .await
        .expect("decide");
    let result = tokio::time::timeout(WAIT, call)
        .await
        .expect("in time")
        .expect("joined");
    assert_ne!(result.is_error, Some(true), "{}", text(&result));
    assert_eq!(calls(&counter), 1);
}

/// What a process wrote to its terminal so far, read on its own thread; every read wakes the
/// tests waiting for a text.
#[derive(Clone)]
struct Screen(Arc<tokio::sync::watch::Sender<String>>);

impl Default for Screen {
    fn default() -> Self {
        Self(Arc::new(tokio::sync::watch::Sender::new(String::new())))
    }
}

impl Screen {
    fn follow(&self, mut from: impl std::io::Read + Send + 'static) {
        let text = self.0.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n) = from.read(&mut buf) {
                if n == 0 {
                    return;
                }
                text.send_modify(|t| t.push_str(&String::from_utf8_lossy(&buf[..n])));
            }
        });
    }

    fn text(&self) -> String {
        self.0.borrow().clone()
    }

    /// Waits (at most [`WAIT`]) until the screen shows `needle` `times` times.
    async fn shows(&self, needle: &str, times: usize) {
        let mut seen = self.0.subscribe();
        let shown =
            tokio::time::timeout(WAIT, seen.wait_for(|t| t.matches(needle).count() >= times))
                .await
                .is_ok_and(|r| r.is_ok());
        assert!(
            shown,
            "waited for {times}× {needle:?}; the screen:\n{}",
            self.text()
        );
    }
}

/// `approvals --watch` started before any session: it waits for one, answers its approval on
/// the terminal, keeps running when the session ends and finds the next one, and Ctrl-C stops
/// it with exit 0.
#[tokio::test]
async fn approvals_watch_waits_for_sessions_and_runs_until_ctrl_c() {
    if !common::peers::script() {
        return;
    }
    let (sb, counter) = sandbox();
    // `exec`: Ctrl-C reaches mcpdeck itself, not a shell around it.
    let command = format!("exec {} approvals --watch", env!("CARGO_BIN_EXE_mcpdeck"));
    let mut watcher = std::process::Command::new("script")
        .args(["-qfec", &command, "/dev/null"])
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", sb.dir.path())
        .env("XDG_CONFIG_HOME", &sb.home)
        .env("XDG_RUNTIME_DIR", runtime_dir(&sb))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("script runs");
    let mut keys = watcher.stdin.take().expect("stdin");
    let screen = Screen::default();
    screen.follow(watcher.stdout.take().expect("stdout"));
    // Killed on every path out of the test, a failed assertion's included.
    let mut watcher = Reaped(Some(watcher));
    screen.shows("watching for approvals", 1).await;
    assert!(watcher.running(), "no session is no reason to stop");

    for round in 1..=2 {
        let agent = Arc::new(serve(&sb).await);
        screen.shows("serve pid", round).await;
        let call = call_echo(&agent);
        screen
            .shows("approve `tools.call echo` on `fx`", round)
            .await;
        keys.write_all(b"y\n").expect("answer");
        keys.flush().expect("flush");
        let result = tokio::time::timeout(WAIT, call)
            .await
            .expect("in time")
            .expect("joined");
        assert_ne!(result.is_error, Some(true), "{}", text(&result));
        assert_eq!(calls(&counter), round);
        // The session ends; the watcher says so and keeps watching for the next one.
        Arc::into_inner(agent)
            .expect("the only handle")
            .cancel()
            .await
            .expect("agent closes");
        screen.shows("ended", round).await;
        assert!(watcher.running(), "{}", screen.text());
    }

    // Ctrl-C, typed on its terminal.
    keys.write_all(&[0x03]).expect("ctrl-c");
    keys.flush().expect("flush");
    let mut watcher = watcher.0.take().expect("running");
    let status = tokio::task::spawn_blocking(move || watcher.wait())
        .await
        .expect("joined")
        .expect("exits");
    assert_eq!(status.code(), Some(0), "{}", screen.text());
}

/// Stops a watcher the test did not stop itself (it failed before Ctrl-C): killing `script`
/// closes the watcher's terminal, which ends it.
struct Reaped(Option<std::process::Child>);

impl Reaped {
    /// Whether the watcher is still running.
    fn running(&mut self) -> bool {
        self.0
            .as_mut()
            .is_some_and(|c| c.try_wait().expect("status").is_none())
    }
}

impl Drop for Reaped {
    fn drop(&mut self) {
        if let Some(mut child) = self.0.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A question `approvals --watch` is showing that another console answers first is withdrawn at
/// once on the watcher's terminal, saying how it was answered; a `y` typed after that answers
/// nothing (and says so), and the next question is asked and answered as usual.
#[tokio::test]
async fn approvals_watch_says_at_once_when_a_console_answered_first() {
    if !common::peers::script() {
        return;
    }
    let (sb, counter) = sandbox();
    let command = format!("exec {} approvals --watch", env!("CARGO_BIN_EXE_mcpdeck"));
    let mut watcher = std::process::Command::new("script")
        .args(["-qfec", &command, "/dev/null"])
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", sb.dir.path())
        .env("XDG_CONFIG_HOME", &sb.home)
        .env("XDG_RUNTIME_DIR", runtime_dir(&sb))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("script runs");
    let mut keys = watcher.stdin.take().expect("stdin");
    let screen = Screen::default();
    screen.follow(watcher.stdout.take().expect("stdout"));
    let mut watcher = Reaped(Some(watcher));
    screen.shows("watching for approvals", 1).await;

    let agent = Arc::new(serve(&sb).await);
    screen.shows("serve pid", 1).await;
    let socket = the_socket(&sb).await;
    let (mut console, _) = ControlClient::attach(&socket).await.expect("attach");
    let call = call_echo(&agent);
    screen.shows("approve `tools.call echo` on `fx`", 1).await;
    let request = loop {
        match tokio::time::timeout(WAIT, console.next()).await {
            Ok(Ok(Some(ToConsole::Approval { request }))) => break request,
            Ok(Ok(Some(_))) => {}
            other => panic!("no approval reached the console: {other:?}"),
        }
    };
    // The other console denies it while the watcher still asks.
    console
        .decide(request.ticket, Decision::Deny)
        .await
        .expect("decide");
    let result = tokio::time::timeout(WAIT, call)
        .await
        .expect("in time")
        .expect("joined");
    assert_eq!(result.is_error, Some(true), "{}", text(&result));
    screen
        .shows(
            "`tools.call echo` on `fx` was answered elsewhere: denied",
            1,
        )
        .await;
    // A late `y` answers nothing.
    keys.write_all(b"y\n").expect("answer");
    keys.flush().expect("flush");
    screen.shows("`y` ignored: no question is open", 1).await;
    assert_eq!(calls(&counter), 0);

    // The next question is the watcher's to answer.
    let call = call_echo(&agent);
    screen.shows("approve `tools.call echo` on `fx`", 2).await;
    keys.write_all(b"y\n").expect("answer");
    keys.flush().expect("flush");
    let result = tokio::time::timeout(WAIT, call)
        .await
        .expect("in time")
        .expect("joined");
    assert_ne!(result.is_error, Some(true), "{}", text(&result));
    assert_eq!(calls(&counter), 1);

    keys.write_all(&[0x03]).expect("ctrl-c");
    keys.flush().expect("flush");
    let mut watcher = watcher.0.take().expect("running");
    let status = tokio::task::spawn_blocking(move || watcher.wait())
        .await
        .expect("joined")
        .expect("exits");
    assert_eq!(status.code(), Some(0), "{}", screen.text());
}
