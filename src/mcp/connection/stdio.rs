//! The stdio transport: one owned child process per server.
//!
//! Owns the `tokio::process::Child` instead of rmcp's `TokioChildProcess`, because only the owner
//! gets the exit status, its own process group and a group-wide kill. The child starts with a
//! cleared environment plus the minimal set and the configured additions, in its own process
//! group, with stderr drained into a bounded ring and stdout passed through the frame filter.
//! A supervisor task waits for the child; shutdown is close stdin → ≤2 s → SIGTERM the group →
//! ≤2 s → SIGKILL the group → reap, and the group is always sent SIGKILL at the end so no
//! grandchild outlives the connection. Dropping a [`StdioProcess`] SIGKILLs the group at once.

use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rustix::process::{Pid, Signal, kill_process_group};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::{oneshot, watch};
use tokio::task::JoinHandle;

use super::error::{ConnectError, ErrorClass, Redactor};
use super::events::{ConnectionEvent, EventSink};
use super::faults::Faults;
use super::frames::{FrameStats, channel, pump, transport};
use super::stderr_ring::{SharedRing, StderrRing, drain};
use crate::mcp::sandbox::{self, Profile};

/// Variables passed through from mcpdeck's own environment.
pub const MINIMAL_ENV: &[&str] = &[
    "HOME",
    "LOGNAME",
    "PATH",
    "SHELL",
    "TERM",
    "USER",
    "LANG",
    "LC_ALL",
    "TMPDIR",
    "XDG_RUNTIME_DIR",
];

/// How long each shutdown step waits for the child to exit.
pub(crate) const SHUTDOWN_STEP: Duration = Duration::from_secs(2);

/// Lines of stderr kept in an `exited` error.
pub(crate) const STDERR_TAIL_LINES: usize = 20;

/// The rmcp transport over the decoded stdout and the child's stdin.
pub(crate) type StdioTransport =
    crate::mcp::line_transport::LineTransport<rmcp::service::RoleClient, ChildStdin>;

/// How the child ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExitInfo {
    /// The status as text (`exit status: 3`, `signal: 9 (SIGKILL)`).
    pub status: String,
    /// The exit code, when it exited normally.
    pub code: Option<i32>,
    /// The last lines of stderr, sanitised.
    pub stderr_tail: Vec<String>,
    /// Whether it exited before mcpdeck asked it to.
    pub on_its_own: bool,
}

impl ExitInfo {
    /// The `exited` error for this exit.
    pub fn to_error(&self) -> ConnectError {
        let mut message = format!("the server process exited ({})", self.status);
        if !self.stderr_tail.is_empty() {
            message.push_str("; last stderr lines:\n");
            message.push_str(&self.stderr_tail.join("\n"));
        }
        ConnectError::new(
            ErrorClass::Exited {
                status: self.status.clone(),
                stderr_tail: self.stderr_tail.clone(),
            },
            message,
        )
    }
}

/// What a stdio spawn needs, already resolved. Its `Debug` shows env keys, never values.
pub(crate) struct SpawnSpec {
    /// The program.
    pub command: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Its working directory.
    pub cwd: Option<PathBuf>,
    /// Resolved `env` additions (values may be secrets: never log them).
    pub env: Vec<(String, String)>,
    /// Removes those secrets from stderr text before it is shown (a server may print them).
    pub redactor: Redactor,
    /// The sandbox it starts in, through mcpdeck's launcher mode; `None`: unconfined.
    pub sandbox: Option<Profile>,
}

impl std::fmt::Debug for SpawnSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SpawnSpec")
            .field("command", &self.command)
            .field("args", &self.args)
            .field("cwd", &self.cwd)
            .field("sandbox", &self.sandbox)
            .field(
                "env_keys",
                &self.env.iter().map(|(k, _)| k).collect::<Vec<_>>(),
            )
            .finish_non_exhaustive()
    }
}

/// A running stdio server process and its supervisor.
#[derive(Debug)]
pub struct StdioProcess {
    pid: u32,
    pgid: Option<Pid>,
    ring: SharedRing,
    /// The stderr byte total, updated after each read of the pipe.
    stderr_written: watch::Receiver<u64>,
    stats: Arc<FrameStats>,
    exit_rx: watch::Receiver<Option<ExitInfo>>,
    shutdown_tx: Option<oneshot::Sender<()>>,
    supervisor: Option<JoinHandle<()>>,
    /// Set before mcpdeck closes stdin, so an exit on EOF is not reported as unprompted.
    closing: Arc<AtomicBool>,
    redactor: Redactor,
}

/// Starts the server. Returns the process handle and the transport to hand to rmcp.
pub(crate) fn spawn(
    spec: &SpawnSpec,
    sink: EventSink,
    faults: Arc<Faults>,
) -> Result<(StdioProcess, StdioTransport), ConnectError> {
    let mut cmd = program(spec)?;
    cmd.env_clear();
    for name in MINIMAL_ENV {
        if let Some(value) = std::env::var_os(name) {
            cmd.env(name, value);
        }
    }
    cmd.envs(spec.env.iter().map(|(k, v)| (k.as_str(), v.as_str())));
    if let Some(cwd) = &spec.cwd {
        cmd.current_dir(cwd);
    }
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let mut child = cmd.spawn().map_err(|e| spawn_error(&spec.command, &e))?;
    let pid = child.id().unwrap_or(0);
    faults.set_server_pid(pid);
    let pgid = i32::try_from(pid).ok().and_then(Pid::from_raw);
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        if let Some(pgid) = pgid {
            let _ = kill_process_group(pgid, Signal::KILL);
        }
        return Err(ConnectError::new(
            ErrorClass::SpawnFailed {
                os_error: "Other".into(),
            },
            "the child's standard streams could not be captured",
        ));
    };

    let ring: SharedRing = Arc::new(Mutex::new(StderrRing::default()));
    let stats = Arc::new(FrameStats::default());
    let (written_tx, stderr_written) = watch::channel(0);
    let stderr_task = tokio::spawn(drain(stderr, ring.clone(), written_tx));
    let (frames_tx, frames_rx) = channel();
    let frames_tx_weak = frames_tx.downgrade();
    let pump_task = tokio::spawn(pump(stdout, frames_tx, stats.clone(), faults.clone()));
    let (exit_tx, exit_rx) = watch::channel(None);
    let (shutdown_tx, shutdown_rx) = oneshot::channel();
    let closing = Arc::new(AtomicBool::new(false));
    let supervisor = tokio::spawn(supervise(Supervised {
        child,
        pgid,
        ring: ring.clone(),
        stats: stats.clone(),
        stderr_task,
        pump_task,
        shutdown_rx,
        exit_tx,
        sink,
        closing: closing.clone(),
        redactor: spec.redactor.clone(),
    }));
    let transport = transport((frames_rx, frames_tx_weak), stdin, faults);
    Ok((
        StdioProcess {
            pid,
            pgid,
            ring,
            stderr_written,
            stats,
            exit_rx,
            shutdown_tx: Some(shutdown_tx),
            supervisor: Some(supervisor),
            closing,
            redactor: spec.redactor.clone(),
        },
        transport,
    ))
}

/// The program that starts the server: itself, or mcpdeck's launcher confining it first.
fn program(spec: &SpawnSpec) -> Result<Command, ConnectError> {
    Ok(match &spec.sandbox {
        None => {
            let mut cmd = Command::new(&spec.command);
            cmd.args(&spec.args);
            cmd
        }
        Some(profile) => {
            let (launcher, args) = sandbox::launcher::wrap(profile, &spec.command, &spec.args)
                .map_err(|e| {
                    ConnectError::new(
                        ErrorClass::SandboxRefused {
                            rule: "setup".into(),
                            kernel_abi: sandbox::abi(),
                        },
                        e,
                    )
                })?;
            let mut cmd = Command::new(launcher);
            cmd.args(args);
            cmd
        }
    })
}

fn spawn_error(command: &str, e: &std::io::Error) -> ConnectError {
    // The class keeps the stable kind name for machines; the message says it in words.
    let kind = format!("{:?}", e.kind());
    let said = match e.kind() {
        std::io::ErrorKind::NotFound => {
            "not found; is it installed and on PATH (or is `cwd` missing)?".to_owned()
        }
        std::io::ErrorKind::PermissionDenied => "permission denied; is it executable?".to_owned(),
        other => other.to_string(),
    };
    ConnectError::new(
        ErrorClass::SpawnFailed { os_error: kind },
        format!(
            "could not start `{}`: {said}",
            crate::mcp::sanitize::sanitize_capped(command, 256)
        ),
    )
}

impl StdioProcess {
    /// The child's pid (also its process group id).
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The kept stderr, sanitised, with this connection's secrets redacted.
    pub fn stderr_text(&self) -> String {
        let text = self.ring.lock().map(|r| r.text()).unwrap_or_default();
        self.redactor.redact(&text).into_owned()
    }

    /// Bytes kept in the stderr ring (≤ 64 KiB) and bytes written in total.
    pub fn stderr_sizes(&self) -> (usize, u64) {
        self.ring
            .lock()
            .map(|r| (r.len(), r.total_bytes()))
            .unwrap_or_default()
    }

    /// The bytes written to stderr in total, as a watch that changes after each read of the
    /// pipe (for waiting on stderr output without polling).
    pub fn stderr_written(&self) -> watch::Receiver<u64> {
        self.stderr_written.clone()
    }

    /// Stdout lines skipped because they were not JSON.
    pub fn non_json_lines(&self) -> u64 {
        self.stats.non_json_lines.load(Ordering::Relaxed)
    }

    /// Whether a frame over 16 MiB closed the stream.
    pub fn frame_limit_hit(&self) -> bool {
        self.stats.oversized.load(Ordering::SeqCst)
    }

    /// How the child ended, if it has.
    pub fn exit_info(&self) -> Option<ExitInfo> {
        self.exit_rx.borrow().clone()
    }

    /// The error that explains a closed stream: `limit` for an oversized frame, else `exited`
    /// once the supervisor has seen the exit (waiting at most `grace` for it).
    pub async fn closed_reason(&self, grace: Duration) -> Option<ConnectError> {
        if self.frame_limit_hit() {
            return Some(frame_limit_error());
        }
        let mut rx = self.exit_rx.clone();
        let waited = tokio::time::timeout(grace, rx.wait_for(Option::is_some)).await;
        if self.frame_limit_hit() {
            return Some(frame_limit_error());
        }
        match waited {
            Ok(Ok(info)) => info.as_ref().map(ExitInfo::to_error),
            _ => None,
        }
    }

    /// Marks the process as being closed by mcpdeck; call before closing stdin.
    pub fn begin_close(&self) {
        self.closing.store(true, Ordering::SeqCst);
    }

    /// Runs the shutdown sequence (the caller closes rmcp, and so stdin, first) and waits for it.
    pub async fn shutdown(&mut self) -> Option<ExitInfo> {
        self.begin_close();
        if let Some(tx) = self.shutdown_tx.take() {
            let _ = tx.send(());
        }
        if let Some(task) = self.supervisor.take() {
            let _ = task.await;
        }
        self.exit_info()
    }
}

impl Drop for StdioProcess {
    fn drop(&mut self) {
        // Dropped without shutdown(): take the whole group down now; the supervisor reaps.
        self.closing.store(true, Ordering::SeqCst);
        if self.supervisor.is_some()
            && self.exit_rx.borrow().is_none()
            && let Some(pgid) = self.pgid
        {
            let _ = kill_process_group(pgid, Signal::KILL);
        }
    }
}

/// The `limit` error for an oversized stdout frame.
pub(crate) fn frame_limit_error() -> ConnectError {
    ConnectError::new(
        ErrorClass::Limit {
            bound: "stdout frame 16 MiB".into(),
        },
        "the server wrote a stdout line longer than 16 MiB; the connection was closed",
    )
}

struct Supervised {
    child: Child,
    pgid: Option<Pid>,
    ring: SharedRing,
    stats: Arc<FrameStats>,
    stderr_task: JoinHandle<()>,
    pump_task: JoinHandle<()>,
    shutdown_rx: oneshot::Receiver<()>,
    exit_tx: watch::Sender<Option<ExitInfo>>,
    sink: EventSink,
    closing: Arc<AtomicBool>,
    redactor: Redactor,
}

/// Kills the process group when dropped, so even a cancelled supervisor leaves no process.
struct GroupKill(Option<Pid>);

impl Drop for GroupKill {
    fn drop(&mut self) {
        if let Some(pgid) = self.0 {
            let _ = kill_process_group(pgid, Signal::KILL);
        }
    }
}

async fn supervise(mut s: Supervised) {
    let group = GroupKill(s.pgid);
    let mut pump_done = false;
    let (status, on_its_own) = loop {
        tokio::select! {
            status = s.child.wait() => break (status, !s.closing.load(Ordering::SeqCst)),
            _ = &mut s.shutdown_rx => break (graceful(&mut s.child, s.pgid).await, false),
            _ = &mut s.pump_task, if !pump_done => {
                pump_done = true;
                if s.stats.oversized.load(Ordering::SeqCst) {
                    break (graceful(&mut s.child, s.pgid).await, false);
                }
            }
        }
    };
    // Grandchildren may still hold the group: always finish them.
    drop(group);
    // Let stderr reach EOF so the tail is complete (bounded: a grandchild may hold the pipe).
    let _ = tokio::time::timeout(Duration::from_millis(500), &mut s.stderr_task).await;
    s.stderr_task.abort();
    let tail = s
        .ring
        .lock()
        .map(|r| r.tail_lines(STDERR_TAIL_LINES))
        .unwrap_or_default()
        .iter()
        .map(|line| s.redactor.redact(line).into_owned())
        .collect();
    let (status_text, code) = describe(status.as_ref().ok());
    if on_its_own {
        s.sink.emit(ConnectionEvent::Exited {
            status: status_text.clone(),
        });
    }
    let _ = s.exit_tx.send(Some(ExitInfo {
        status: status_text,
        code,
        stderr_tail: tail,
        on_its_own,
    }));
}

async fn graceful(child: &mut Child, pgid: Option<Pid>) -> std::io::Result<ExitStatus> {
    if let Ok(status) = tokio::time::timeout(SHUTDOWN_STEP, child.wait()).await {
        return status;
    }
    if let Some(pgid) = pgid {
        let _ = kill_process_group(pgid, Signal::TERM);
    }
    if let Ok(status) = tokio::time::timeout(SHUTDOWN_STEP, child.wait()).await {
        return status;
    }
    if let Some(pgid) = pgid {
        let _ = kill_process_group(pgid, Signal::KILL);
    }
    child.wait().await
}

fn describe(status: Option<&ExitStatus>) -> (String, Option<i32>) {
    match status {
        Some(status) => (status.to_string(), status.code()),
        None => ("unknown (wait failed)".to_owned(), None),
    }
}
