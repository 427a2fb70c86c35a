//! The engine façade the console, the CLI and serve mode all use.
//!
//! Holds the configuration, the trust state, one [`Slot`] per configured server, this process's
//! spill directory and the resource-reference key. [`Engine::run`] runs one [`EngineRequest`]
//! (an agent's or the operator's) and returns an [`Outcome`]; it connects lazily, never fans out
//! across servers and never replays a request. Connection notifications are pumped here: `list_changed` drops
//! the stale catalog and an unprompted exit marks the server failed; every event is then
//! forwarded to the optional subscriber (the console). Nothing here knows about terminals.
//!
//! Where the rest is: `request` (the request and what policy judges it as), `requests` (the entry
//! point: authorise, run, trace), `gate` (the policy and approvals), `dispatch` (connecting a
//! server and routing a request to its operation),
//! `ops` (the agents' operations), `operator` (the operator's own), `slot`, `live` and `face`
//! (one server, its connection, what connecting needs), `session` (roots, log level,
//! disconnect), `rebuild` (the engine a face rebuilds when its configuration or trust changes).

mod approve;
mod changed;
pub(crate) mod cleanup;
mod definitions;
mod direct;
mod dispatch;
pub(crate) mod envelope;
mod face;
mod gate;
mod gate_step;
mod live;
mod operator;
mod ops;
pub(crate) mod outcome;
pub(crate) mod probe;
mod rebuild;
mod request;
mod requests;
mod session;
mod slot;
pub(crate) mod test_connect;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

pub(crate) use approve::MAX_ARGUMENT_BYTES;
pub use changed::{ReloadPlan, changed_servers};
pub use envelope::{Envelope, EnvelopeResult, Hint, KeptFile};
pub(crate) use face::ClientFace;
use live::Catalog;
pub use operator::{CallArgs, CompletionTarget, OperatorOp};
pub use outcome::{Failure, Outcome, Success};
pub use probe::Probe;
pub use rebuild::Engines;
pub(crate) use rebuild::OptionsFactory;
pub use request::EngineRequest;
pub use requests::{Asked, CallOptions};
use slot::Slot;
pub use slot::StatusChanges;

use crate::mcp::config::ConfigSet;
use crate::mcp::connection::{ConnectionEvent, ServerEvent};
use crate::mcp::policy::{Approver, Mode, Policy, Trace, TraceRecord};
use crate::mcp::results::{RefKey, SpillDir, SpillEntry};
use crate::mcp::status::{StatusReport, report, static_state, var_is_set};
use crate::mcp::trust::TrustStore;

/// Looks up an environment variable (for references, at connect time only).
pub type Lookup = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// How to build an engine.
#[derive(Default)]
pub struct EngineOptions {
    /// The policy (default: audit, no rules).
    pub policy: Policy,
    /// Who answers approval requests in enforce mode (None: they fail closed).
    pub approver: Option<Arc<dyn Approver>>,
    /// How long an approval may stay pending (default 120 s); then it is a denial.
    pub approval_timeout: Option<std::time::Duration>,
    /// Where the per-process spill directory is created (default: `$XDG_RUNTIME_DIR`, else the
    /// temp dir).
    pub spill_base: Option<PathBuf>,
    /// Receives every connection notification after the engine has acted on it.
    pub events: Option<mpsc::Sender<ServerEvent>>,
    /// Environment lookup for references (default: the process environment).
    pub lookup: Option<Lookup>,
    /// Also forward every connection's JSON-RPC traffic to `events` (the console's Log tab).
    pub traffic: bool,
    /// Servers whose definition changed during this session (a reloaded configuration):
    /// their approval requests say so.
    pub changed_servers: std::collections::BTreeSet<String>,
    /// Who answers servers' roots, sampling and elicitation requests (the console, the CLI).
    /// None (serve mode): mcpdeck declares none of them and refuses them with -32601.
    pub client: Option<Arc<dyn crate::mcp::client::ClientRequests>>,
    /// Roots that replace every server's own (the CLI's `--root`).
    pub roots: Option<Vec<PathBuf>>,
    /// Ask servers that declare `logging` for this level (the CLI's `--log-level`).
    pub log_level: Option<String>,
    /// Results keep the server's characters (only secrets redacted); the owner escapes or
    /// sanitises when it prints. The CLI sets this so `--json` and `--output` carry the data
    /// exactly; the console and serve mode leave it off.
    pub keep_data: bool,
    /// How long a task is followed, for every server (the CLI's `--task-timeout`); `None`: each
    /// definition's `taskTimeoutMs`, else ten minutes.
    pub task_timeout: Option<std::time::Duration>,
    /// Where pins across restarts are kept (the console, the CLI and serve set the user's
    /// store); None keeps only the in-session pins.
    pub pins: Option<crate::mcp::pins::PinStore>,
    /// Bumped after every change to what [`Engine::status`] reports (the console subscribes;
    /// default: a generation nobody hears).
    pub status_changes: Option<StatusChanges>,
    /// On 2026-07-28 sessions, listen for the list changes each server declares (the console
    /// and serve mode, which keep catalogs across requests; a one-shot command does not).
    pub listen_lists: bool,
}

/// The engine. Cheap to share behind an `Arc`; every method takes `&self`.
pub struct Engine {
    config: ConfigSet,
    trust: TrustStore,
    /// The project's trust over `config` when the engine was built.
    trust_state: crate::mcp::trust::TrustState,
    slots: Arc<BTreeMap<String, Arc<Slot>>>,
    spills: SpillDir,
    ref_key: RefKey,
    lookup: Lookup,
    events_tx: mpsc::Sender<ServerEvent>,
    traffic: bool,
    changed_servers: std::collections::BTreeSet<String>,
    keep_data: bool,
    task_timeout: Option<std::time::Duration>,
    pins: Option<crate::mcp::pins::PinStore>,
    status_changes: StatusChanges,
    shutdown: CancellationToken,
    cleanup: cleanup::Cleanup,
    /// The policy in force (replaced whole when its file is read again).
    policy: std::sync::RwLock<Arc<Policy>>,
    approver: Option<Arc<dyn Approver>>,
    approval_timeout: std::time::Duration,
    tickets: std::sync::atomic::AtomicU64,
    trace: Trace,
    client: Option<ClientFace>,
    listen_lists: bool,
}

/// How many connection events may queue before new ones are counted as dropped.
const EVENT_QUEUE: usize = 1024;

impl Engine {
    /// Builds the engine: sweeps spill directories of dead processes, creates this process's
    /// own, and starts the notification pump. Must be called inside a tokio runtime.
    pub fn new(
        config: ConfigSet,
        trust: TrustStore,
        options: EngineOptions,
    ) -> std::io::Result<Self> {
        Self::keeping(config, trust, options, BTreeMap::new())
    }

    /// [`Engine::new`], with the slots of `kept` (servers whose definition and state a reload
    /// left as they were) taken over as they are: connection, catalogs, session approvals.
    fn keeping(
        config: ConfigSet,
        trust: TrustStore,
        options: EngineOptions,
        mut kept: BTreeMap<String, Arc<Slot>>,
    ) -> std::io::Result<Self> {
        crate::mcp::connection::orphans::adopt();
        let base = options
            .spill_base
            .unwrap_or_else(crate::mcp::results::default_base);
        let _ = crate::mcp::results::sweep(&base);
        let spills = SpillDir::create(&base)?;
        let cleanup = cleanup::Cleanup;
        cleanup.add_dir(spills.path().to_path_buf());
        let state = trust.state(&config);
        let status_changes = options
            .status_changes
            .unwrap_or_else(|| StatusChanges::new(0));
        let slots: BTreeMap<String, Arc<Slot>> = config
            .servers
            .iter()
            .map(|server| {
                if let Some(slot) = kept.remove(&server.entry.name) {
                    return (server.entry.name.clone(), slot);
                }
                let slot = Slot::new(
                    server.entry.clone(),
                    static_state(server, state),
                    &config.project_root,
                    status_changes.clone(),
                );
                (server.entry.name.clone(), Arc::new(slot))
            })
            .collect();
        let slots = Arc::new(slots);
        let (events_tx, events_rx) = mpsc::channel(EVENT_QUEUE);
        // Traffic is only worth recording when someone receives it.
        let traffic = options.traffic && options.events.is_some();
        tokio::spawn(pump(events_rx, slots.clone(), options.events));
        let lookup = options
            .lookup
            .unwrap_or_else(|| Arc::new(|name: &str| std::env::var(name).ok()));
        let client = options.client.map(|requests| ClientFace {
            requests,
            roots_override: options.roots,
            project_root: config.project_root.clone(),
            log_level: options.log_level,
        });
        Ok(Self {
            config,
            trust,
            trust_state: state,
            slots,
            spills,
            ref_key: RefKey::random()?,
            lookup,
            events_tx,
            traffic,
            changed_servers: options.changed_servers,
            keep_data: options.keep_data,
            task_timeout: options.task_timeout,
            pins: options.pins,
            status_changes,
            shutdown: CancellationToken::new(),
            cleanup,
            policy: std::sync::RwLock::new(Arc::new(options.policy)),
            approver: options.approver,
            approval_timeout: options
                .approval_timeout
                .unwrap_or(crate::mcp::policy::DEFAULT_APPROVAL_TIMEOUT),
            tickets: std::sync::atomic::AtomicU64::new(1),
            trace: Trace::default(),
            client,
            listen_lists: options.listen_lists,
        })
    }

    /// The configuration the engine was built from.
    pub fn config(&self) -> &ConfigSet {
        &self.config
    }

    /// The project's trust over [`Engine::config`] when the engine was built.
    pub fn trust_state(&self) -> crate::mcp::trust::TrustState {
        self.trust_state
    }

    /// The status report with live facts (never connects).
    pub fn status(&self) -> StatusReport {
        let mut status = report(&self.config, &self.trust, &var_is_set);
        for server in &mut status.servers {
            if let Some(slot) = self.slots.get(&server.name) {
                server.state = slot.state();
                server.runtime = slot.runtime();
                // This face's roots (its `--root` included), as the server is offered them.
                if let Some(face) = &self.client
                    && server.roots.is_some()
                {
                    let (shared, offered) = slot.offered_roots(face);
                    server.roots = Some(crate::mcp::client::roots::roots_line(
                        &shared.get(),
                        &self.config.project_root,
                    ));
                    server.roots_notes = offered.shown_notes();
                }
            }
        }
        status
    }

    /// Tells the status subscribers that what [`Engine::status`] reports changed.
    pub(crate) fn status_changed(&self) {
        self.status_changes
            .send_modify(|generation| *generation += 1);
    }

    /// Every spill of this process.
    pub fn spills(&self) -> Vec<SpillEntry> {
        self.spills.spills()
    }

    /// Deletes one spill of this process by basename (the operator's "delete").
    pub fn remove_spill(&self, basename: &str) -> std::io::Result<()> {
        self.spills.remove(basename)
    }

    /// The kept stderr of `server`'s live stdio process (sanitised, secrets redacted); `None`
    /// when it is not connected over stdio or its connection is being replaced.
    pub fn stderr(&self, server: &str) -> Option<String> {
        let live = self.slots.get(server)?.live()?;
        let conn = live.conn.try_read().ok()?;
        conn.process()
            .map(crate::mcp::connection::StdioProcess::stderr_text)
    }

    /// The spill directory's full path (for the operator; never model-visible).
    pub fn spill_dir(&self) -> PathBuf {
        self.spills.path().to_path_buf()
    }

    /// The policy mode.
    pub fn mode(&self) -> Mode {
        self.policy().mode
    }

    /// The policy in force.
    pub fn policy(&self) -> Arc<Policy> {
        self.policy
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Puts `policy` in force for every request decided from now on (its file was read again).
    pub fn set_policy(&self, policy: Policy) {
        *self
            .policy
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Arc::new(policy);
    }

    /// The session trace (metadata only).
    pub fn trace(&self) -> Vec<TraceRecord> {
        self.trace.records()
    }

    /// Closes the connections of every server but `kept` (which a rebuilt engine took over),
    /// keeping the spills: for an engine replaced by one rebuilt over a reloaded configuration.
    /// Requests in flight go on; those on a closed connection fail with it.
    pub(crate) async fn close_all_but(&self, kept: &std::collections::BTreeSet<String>) {
        for (name, slot) in self.slots.iter() {
            if !kept.contains(name) {
                slot.close(&self.cleanup).await;
            }
        }
    }

    /// Cancels everything in flight, closes every connection (killing stdio process groups)
    /// and removes every spill. Idempotent.
    pub async fn shutdown(&self) {
        self.shutdown.cancel();
        for slot in self.slots.values() {
            slot.close(&self.cleanup).await;
        }
        let _ = self.spills.remove_all();
        self.cleanup.remove_dir(&self.spills.path().to_path_buf());
        // Descendants that escaped their server's process group were re-parented to us.
        let _ = tokio::task::spawn_blocking(crate::mcp::connection::orphans::reap).await;
    }
}

/// Acts on connection notifications, then forwards them.
async fn pump(
    mut rx: mpsc::Receiver<ServerEvent>,
    slots: Arc<BTreeMap<String, Arc<Slot>>>,
    forward: Option<mpsc::Sender<ServerEvent>>,
) {
    while let Some(event) = rx.recv().await {
        if let Some(slot) = slots.get(&*event.server) {
            match &event.event {
                ConnectionEvent::ToolListChanged => slot.invalidate(Catalog::Tools),
                ConnectionEvent::ResourceListChanged => slot.invalidate(Catalog::Resources),
                ConnectionEvent::PromptListChanged => slot.invalidate(Catalog::Prompts),
                ConnectionEvent::Exited { .. } => slot.on_exited(),
                _ => {}
            }
        }
        if let Some(tx) = &forward {
            let _ = tx.try_send(event);
        }
    }
}
