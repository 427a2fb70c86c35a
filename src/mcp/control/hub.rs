//! The serve side of the control socket: a Unix socket `serve-<pid>.sock` (0600) in the 0700
//! runtime directory, accepting only peers of this uid. Attached consoles receive a snapshot on
//! `hello`, then every approval request, and how each settled; the first decision for a ticket
//! wins (its [`Reply`]). A decision for an unknown or settled ticket is ignored and logged to
//! stderr.
//!
//! A console that restarts, or one that has not yet found a new session (consoles look every
//! second), must not turn an approval into a refusal: [`ControlHub::wait_attached`] waits a
//! bounded while for one — up to [`REATTACH_GRACE`] once a console was attached in this run, and
//! up to [`DISCOVERY_GRACE`] after the session started otherwise. While it waits, the session's
//! snapshot counts it (`awaiting_console`), so `mcpdeck approvals` shows it.

use std::collections::HashMap;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use tokio::io::AsyncWriteExt as _;
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::mpsc;

use super::protocol::{FromConsole, MAX_LINE, READ_CHUNK, SessionSnapshot, ToConsole};
use crate::mcp::line_reader::{Line, LineReader};
use crate::mcp::pending::{Reply, Settled};
use crate::mcp::policy::{ApprovalRequest, Decision};

/// How long an approval waits for a console to re-attach once one was attached in this run.
pub(crate) const REATTACH_GRACE: std::time::Duration = std::time::Duration::from_secs(5);
/// How long after a session starts an approval waits for the first console to find it.
pub(crate) const DISCOVERY_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

type SnapshotFn = Box<dyn Fn(Vec<ApprovalRequest>) -> SessionSnapshot + Send + Sync>;

/// Pending approvals and attached consoles of one serve session.
pub struct ControlHub {
    path: PathBuf,
    pending: Mutex<HashMap<u64, (ApprovalRequest, Reply<Decision>)>>,
    consoles: Mutex<Vec<mpsc::Sender<ToConsole>>>,
    snapshot: OnceLock<SnapshotFn>,
    /// Woken whenever a console attaches.
    attach: tokio::sync::Notify,
    /// A console was attached at some point in this run.
    ever_attached: std::sync::atomic::AtomicBool,
    /// When the session started.
    started: tokio::time::Instant,
    /// Operations inside [`ControlHub::wait_attached`] with nobody attached (observers follow
    /// its changes).
    awaiting: tokio::sync::watch::Sender<usize>,
}

/// Until when an approval waits for a console: [`REATTACH_GRACE`] from `now` once one was
/// attached in this run (it may be restarting), else until [`DISCOVERY_GRACE`] after the session
/// `started` (consoles look for new sessions every second) — possibly already past.
pub(crate) fn grace_deadline(
    ever_attached: bool,
    started: tokio::time::Instant,
    now: tokio::time::Instant,
) -> tokio::time::Instant {
    if ever_attached {
        now + REATTACH_GRACE
    } else {
        started + DISCOVERY_GRACE
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl ControlHub {
    /// Binds `serve-<pid>.sock` in `dir` and starts accepting consoles.
    pub fn bind(dir: &Path) -> std::io::Result<Arc<Self>> {
        let path = dir.join(format!("serve-{}.sock", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let listener = UnixListener::bind(&path)?;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600))?;
        crate::mcp::engine::cleanup::Cleanup.add_dir(path.clone());
        let hub = Arc::new(Self {
            path,
            pending: Mutex::new(HashMap::new()),
            consoles: Mutex::new(Vec::new()),
            snapshot: OnceLock::new(),
            attach: tokio::sync::Notify::new(),
            ever_attached: std::sync::atomic::AtomicBool::new(false),
            started: tokio::time::Instant::now(),
            awaiting: tokio::sync::watch::Sender::new(0),
        });
        tokio::spawn(accept(listener, Arc::downgrade(&hub)));
        Ok(hub)
    }

    /// The socket's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Sets how snapshots are made (once the engine exists).
    pub fn set_snapshot(&self, f: SnapshotFn) {
        let _ = self.snapshot.set(f);
    }

    fn snapshot(&self) -> Option<SessionSnapshot> {
        let pending = lock(&self.pending)
            .values()
            .map(|(r, _)| r.clone())
            .collect();
        let awaiting = *self.awaiting.borrow();
        self.snapshot.get().map(|f| SessionSnapshot {
            awaiting_console: awaiting,
            ..f(pending)
        })
    }

    /// How many consoles are attached.
    pub fn attached(&self) -> usize {
        let mut consoles = lock(&self.consoles);
        consoles.retain(|c| !c.is_closed());
        consoles.len()
    }

    /// Whether a console is attached, waiting for one up to the grace that applies (see the
    /// module's notes).
    pub async fn wait_attached(&self) -> bool {
        if self.attached() > 0 {
            return true;
        }
        let deadline = grace_deadline(
            self.ever_attached.load(std::sync::atomic::Ordering::SeqCst),
            self.started,
            tokio::time::Instant::now(),
        );
        let _counted = Awaiting::count(&self.awaiting);
        loop {
            let notified = self.attach.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            if self.attached() > 0 {
                return true;
            }
            tokio::select! {
                () = &mut notified => {}
                () = tokio::time::sleep_until(deadline) => return self.attached() > 0,
            }
        }
    }

    /// How many operations wait for a console to attach.
    pub fn awaiting_console(&self) -> usize {
        *self.awaiting.borrow()
    }

    fn on_attach(&self, console: mpsc::Sender<ToConsole>) {
        lock(&self.consoles).push(console);
        self.ever_attached
            .store(true, std::sync::atomic::Ordering::SeqCst);
        self.attach.notify_waiters();
    }

    fn broadcast(&self, message: &ToConsole) {
        let mut consoles = lock(&self.consoles);
        consoles.retain(|c| !c.is_closed());
        for console in consoles.iter() {
            let _ = console.try_send(message.clone());
            #[cfg(test)]
            crate::mcp::pending::hops::count();
        }
    }

    /// Puts a request to the attached consoles; the first decision answers it. Once it settles
    /// (by any face, or by the engine's timeout or cancellation), the consoles are told how.
    pub fn ask(self: &Arc<Self>, request: ApprovalRequest, reply: Reply<Decision>) {
        let ticket = request.ticket;
        lock(&self.pending).insert(ticket, (request.clone(), reply.clone()));
        self.broadcast(&ToConsole::Approval { request });
        let hub = Arc::downgrade(self);
        tokio::spawn(async move {
            let settled = reply.settled().await;
            // This task holds a reply until it settles, so the question cannot be abandoned
            // while it is in the table.
            drop(reply);
            if let Some(hub) = hub.upgrade() {
                hub.resolve(ticket, settled);
            }
        });
    }

    /// Shows the attached consoles an operation that ran unasked in audit mode though its tool
    /// drifted from its pins (consoles attached later do not see it).
    pub fn flag(&self, request: ApprovalRequest) {
        self.broadcast(&ToConsole::Flagged { request });
    }

    /// Forgets a settled ticket and tells the consoles how it settled.
    fn resolve(&self, ticket: u64, settled: Settled<Decision>) {
        lock(&self.pending).remove(&ticket);
        self.broadcast(&ToConsole::Resolved {
            ticket,
            settled: Some(settled),
        });
    }

    fn decide(&self, ticket: u64, decision: Decision) {
        let reply = lock(&self.pending)
            .get(&ticket)
            .map(|(_, reply)| reply.clone());
        let Some(reply) = reply else {
            eprintln!("mcpdeck serve: ignored a decision for unknown or expired ticket {ticket}");
            return;
        };
        if let Err(first) = reply.answer(decision) {
            eprintln!(
                "mcpdeck serve: ignored a decision for ticket {ticket}: it was {}",
                first.withdrawn(|d| d.words().to_owned())
            );
        }
    }
}

/// One operation counted in `awaiting` for as long as it lives (also when its wait is dropped).
struct Awaiting<'a>(&'a tokio::sync::watch::Sender<usize>);

impl<'a> Awaiting<'a> {
    fn count(counter: &'a tokio::sync::watch::Sender<usize>) -> Self {
        counter.send_modify(|n| *n += 1);
        Self(counter)
    }
}

impl Drop for Awaiting<'_> {
    fn drop(&mut self) {
        self.0.send_modify(|n| *n = n.saturating_sub(1));
    }
}

/// Sends `console` a snapshot now and after each change of the count of operations waiting for
/// a console, until the console goes.
async fn observe(hub: Arc<ControlHub>, console: mpsc::Sender<ToConsole>) {
    let mut changes = hub.awaiting.subscribe();
    loop {
        changes.borrow_and_update();
        let Some(snapshot) = hub.snapshot() else {
            return;
        };
        if console
            .send(ToConsole::Snapshot { snapshot })
            .await
            .is_err()
        {
            return;
        }
        if changes.changed().await.is_err() {
            return;
        }
    }
}

impl Drop for ControlHub {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
        crate::mcp::engine::cleanup::Cleanup.remove_dir(&self.path);
    }
}

async fn accept(listener: UnixListener, hub: std::sync::Weak<ControlHub>) {
    let me = rustix::process::getuid().as_raw();
    while let Ok((stream, _)) = listener.accept().await {
        let Some(hub) = hub.upgrade() else { return };
        let same_user = stream.peer_cred().is_ok_and(|c| c.uid() == me);
        if !same_user {
            eprintln!("mcpdeck serve: refused a control connection from another user");
            continue;
        }
        tokio::spawn(session(stream, hub));
    }
}

async fn session(stream: UnixStream, hub: Arc<ControlHub>) {
    let (read, mut write) = stream.into_split();
    let (tx, mut rx) = mpsc::channel::<ToConsole>(256);
    let writer = tokio::spawn(async move {
        while let Some(message) = rx.recv().await {
            let Ok(mut line) = serde_json::to_vec(&message) else {
                continue;
            };
            line.push(b'\n');
            if write.write_all(&line).await.is_err() {
                return;
            }
            #[cfg(test)]
            crate::mcp::pending::hops::count();
        }
    });
    // A bounded reader: a same-user client that never sends a newline costs at most one line
    // limit, and its connection is closed.
    let mut reader = LineReader::new(read, MAX_LINE, READ_CHUNK);
    let mut line = Vec::new();
    let mut attached = false;
    let mut observer: Option<tokio::task::JoinHandle<()>> = None;
    while let Ok(Some(Line::Complete)) = reader.read_line(&mut line).await {
        let Ok(message) = serde_json::from_slice::<FromConsole>(&line) else {
            eprintln!("mcpdeck serve: ignored a malformed control message");
            continue;
        };
        match message {
            FromConsole::Hello | FromConsole::Status => {
                if !attached && matches!(message, FromConsole::Hello) {
                    hub.on_attach(tx.clone());
                    attached = true;
                }
                if let Some(snapshot) = hub.snapshot() {
                    let _ = tx.send(ToConsole::Snapshot { snapshot }).await;
                }
            }
            FromConsole::Observe => {
                if observer.is_none() {
                    observer = Some(tokio::spawn(observe(hub.clone(), tx.clone())));
                }
            }
            FromConsole::Decide { ticket, decision } => hub.decide(ticket, decision),
        }
    }
    if let Some(observer) = observer {
        observer.abort();
    }
    // Detached: forget this console now, so waiting for one does not count it.
    if attached {
        lock(&hub.consoles).retain(|c| !c.same_channel(&tx));
    }
    drop(tx);
    let _ = writer.await;
}

#[cfg(test)]
mod tests {
    use tokio::io::AsyncReadExt as _;

    use super::*;
    use crate::mcp::control::ControlClient;
    use futures_util::FutureExt as _;

    fn hub(dir: &Path) -> Arc<ControlHub> {
        let hub = ControlHub::bind(dir).expect("bind");
        hub.set_snapshot(Box::new(|pending| SessionSnapshot {
            pid: std::process::id(),
            project: PathBuf::from("/p"),
            mode: "enforce".to_owned(),
            servers: Vec::new(),
            spills: 0,
            pending,
            awaiting_console: 0,
        }));
        hub
    }

    async fn until(mut cond: impl FnMut() -> bool) {
        tokio::time::timeout(std::time::Duration::from_secs(10), async {
            while !cond() {
                tokio::task::yield_now().await;
            }
        })
        .await
        .expect("condition reached");
    }

    #[tokio::test]
    async fn approvals_wait_for_a_console_to_find_or_rejoin_the_session() {
        let dir = tempfile::tempdir().expect("dir");
        let hub = hub(dir.path());
        // A new session: nobody attached yet, so it waits (for the first discovery).
        let waiting = hub.wait_attached();
        tokio::pin!(waiting);
        assert!(waiting.as_mut().now_or_never().is_none(), "it waits");
        let (console, _) = ControlClient::attach(hub.path()).await.expect("attach");
        assert!(waiting.await, "the console that arrived counts");

        // The console leaves; a later approval waits for it to come back.
        drop(console);
        until(|| hub.attached() == 0).await;
        let waiting = hub.wait_attached();
        tokio::pin!(waiting);
        assert!(waiting.as_mut().now_or_never().is_none(), "it waits again");
        let (_again, _) = ControlClient::attach(hub.path()).await.expect("re-attach");
        assert!(waiting.await);
    }

    #[test]
    fn a_console_seen_in_this_run_gets_the_longer_grace_from_now() {
        let started = tokio::time::Instant::now();
        let later = started + std::time::Duration::from_secs(60);
        // Never attached: the first discovery's grace counts from the start, so a minute in
        // there is nothing left to wait for.
        assert_eq!(
            grace_deadline(false, started, started),
            started + DISCOVERY_GRACE
        );
        assert_eq!(
            grace_deadline(false, started, later),
            started + DISCOVERY_GRACE
        );
        // Attached once: whenever it left, an approval waits the re-attach grace from now.
        assert_eq!(grace_deadline(true, started, later), later + REATTACH_GRACE);
        assert_eq!(REATTACH_GRACE, std::time::Duration::from_secs(5));
        assert_eq!(DISCOVERY_GRACE, std::time::Duration::from_secs(2));
    }

    #[tokio::test]
    async fn a_waiting_approval_is_counted_in_the_snapshot_until_a_console_comes() {
        let dir = tempfile::tempdir().expect("dir");
        let hub = hub(dir.path());
        let waiting = hub.wait_attached();
        tokio::pin!(waiting);
        assert!(waiting.as_mut().now_or_never().is_none());
        assert_eq!(hub.awaiting_console(), 1);
        assert_eq!(hub.snapshot().expect("snapshot").awaiting_console, 1);
        let (_console, _) = ControlClient::attach(hub.path()).await.expect("attach");
        assert!(waiting.await);
        assert_eq!(hub.awaiting_console(), 0);
    }

    /// The next snapshot an observer is sent, within a bound.
    async fn observed(observer: &mut ControlClient) -> SessionSnapshot {
        match tokio::time::timeout(std::time::Duration::from_secs(10), observer.next()).await {
            Ok(Ok(Some(ToConsole::Snapshot { snapshot }))) => snapshot,
            other => panic!("no snapshot: {other:?}"),
        }
    }

    #[tokio::test]
    async fn an_observer_is_told_each_change_of_the_wait_without_ending_it() {
        let dir = tempfile::tempdir().expect("dir");
        let hub = hub(dir.path());
        let mut observer = ControlClient::observe(hub.path()).await.expect("observe");
        assert_eq!(observed(&mut observer).await.awaiting_console, 0);
        let waiting = hub.wait_attached();
        tokio::pin!(waiting);
        assert!(waiting.as_mut().now_or_never().is_none());
        assert_eq!(observed(&mut observer).await.awaiting_console, 1);
        // Observing is not attaching: the wait goes on until a console comes.
        assert_eq!(hub.attached(), 0);
        assert!(waiting.as_mut().now_or_never().is_none(), "still waiting");
        let (_console, _) = ControlClient::attach(hub.path()).await.expect("attach");
        assert!(waiting.await);
        assert_eq!(observed(&mut observer).await.awaiting_console, 0);
    }

    // Paused time: the wait ends exactly at the grace (nothing else here has a timer).
    #[tokio::test(start_paused = true)]
    async fn nobody_coming_is_a_bounded_wait() {
        let dir = tempfile::tempdir().expect("dir");
        let hub = hub(dir.path());
        let started = tokio::time::Instant::now();
        assert!(!hub.wait_attached().await);
        assert_eq!(started.elapsed(), DISCOVERY_GRACE);
    }

    #[tokio::test]
    async fn a_line_over_the_limit_closes_the_connection() {
        let dir = tempfile::tempdir().expect("dir");
        let hub = ControlHub::bind(dir.path()).expect("binds");
        let stream = UnixStream::connect(hub.path()).await.expect("connects");
        let (mut read, mut write) = stream.into_split();
        // Keep writing without a newline; the hub must hang up rather than keep buffering.
        let writer = tokio::spawn(async move {
            let chunk = vec![b'x'; 16 * 1024];
            let mut sent = 0usize;
            while write.write_all(&chunk).await.is_ok() {
                sent += chunk.len();
            }
            sent
        });
        let mut rest = Vec::new();
        // Ends (EOF or reset) only when the hub closes the connection.
        let _ = read.read_to_end(&mut rest).await;
        assert!(rest.is_empty());
        let sent = writer.await.expect("writer");
        // The hub reads one line limit (plus socket buffers) before closing.
        assert!(sent >= MAX_LINE, "closed after {sent} bytes");
        assert!(sent < 64 * MAX_LINE, "kept reading {sent} bytes");
    }
}
