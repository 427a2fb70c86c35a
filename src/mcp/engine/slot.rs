//! One configured server's place in the engine: its definition, its live connection (at most
//! one), the catalogs cached for that connection's generation, and the facts status reports.
//!
//! Connecting and reconnecting are serialised by a per-server gate, so concurrent callers share
//! one attempt series instead of racing. Catalog caches belong to one connection generation and
//! are dropped by `list_changed` notifications and by reconnects; a listing holds its cache's
//! lock, so at most one re-list per catalog is ever in flight. Nothing here re-sends a request.
//!
//! An operator's disconnect starts a new epoch ([`Ticket`]): every request asked for before it
//! is cancelled (a connect attempt it started among them), and one that reaches [`Slot::ensure`]
//! after it fails as disconnected by the operator rather than connecting the server again. A
//! request asked for after the disconnect connects as usual.

use crate::mcp::connection::ErrorClass;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};

use tokio_util::sync::CancellationToken;

use super::face::{ClientFace, ConnectContext};
use super::live::{Catalog, Live, close_live};
use super::outcome::Failure;
use crate::mcp::catalog::PinSet;
use crate::mcp::clock::now_rfc3339;
use crate::mcp::config::{ServerDef, ServerEntry};
use crate::mcp::connection::retry::connect_series_client;
use crate::mcp::results::ResourceRefs;
use crate::mcp::sanitize::sanitize_capped;
use crate::mcp::status::{LastError, RuntimeStatus, ServerState};

#[path = "slot_epoch.rs"]
mod epoch;
pub(super) use epoch::Ticket;

/// Facts kept for status.
#[derive(Debug, Default)]
struct Facts {
    state: Option<ServerState>,
    runtime: RuntimeStatus,
    generation: u64,
    failure: Option<Failure>,
}

/// One configured server.
pub(super) struct Slot {
    /// The configured name.
    pub name: String,
    /// The effective entry (its `def` is `None` when invalid).
    pub entry: Arc<ServerEntry>,
    /// The state before any connection (`disconnected`, `disabled`, `invalid`, `inert`).
    pub static_state: ServerState,
    /// Who the server is for its pins (name and defining layer or project).
    pub pin_key: crate::mcp::pins::ServerKey,
    /// The directory a relative `cwd` resolves against.
    pub file_dir: PathBuf,
    gate: tokio::sync::Mutex<()>,
    live: RwLock<Option<Arc<Live>>>,
    facts: Mutex<Facts>,
    approvals: Mutex<Approvals>,
    /// The roots for this session, once a face asked for them (kept across reconnects).
    roots: std::sync::OnceLock<(
        crate::mcp::client::SharedRoots,
        crate::mcp::client::OfferedRoots,
    )>,
    /// The log level the operator asked for this session (asked again on reconnect).
    log_level: Mutex<Option<String>>,
    /// Told of every change to the facts status reports (see [`FactsMut`]).
    changes: StatusChanges,
    /// The operator's disconnects so far (the epoch), and the token the requests asked for
    /// since the last one run under ([`Ticket`]).
    operator: Mutex<(u64, CancellationToken)>,
}

/// The engine's status generation: bumped after every change to what status reports, so a face
/// that subscribes ([`tokio::sync::watch::Sender::subscribe`]) hears of a connect, a failure or
/// a disconnect when it happens, and asks for nothing on a timer.
pub type StatusChanges = tokio::sync::watch::Sender<u64>;

/// The facts, locked for a change: dropping it bumps the status generation.
struct FactsMut<'a> {
    facts: std::sync::MutexGuard<'a, Facts>,
    changes: &'a StatusChanges,
}

impl std::ops::Deref for FactsMut<'_> {
    type Target = Facts;
    fn deref(&self) -> &Facts {
        &self.facts
    }
}

impl std::ops::DerefMut for FactsMut<'_> {
    fn deref_mut(&mut self) -> &mut Facts {
        &mut self.facts
    }
}

impl Drop for FactsMut<'_> {
    fn drop(&mut self) {
        self.changes.send_modify(|generation| *generation += 1);
    }
}

/// Session approvals and tool pins of one server.
#[derive(Default)]
struct Approvals {
    /// Normalized operations allowed for the rest of the session.
    session: std::collections::HashSet<String>,
    /// The first-seen definition of every tool listed in this session.
    pins: PinSet,
    /// Tools whose definition changed since first listed (in this session, or since their
    /// pins across restarts).
    changed: std::collections::HashSet<String>,
    /// The latest drift of the tools against their pins across restarts.
    drift: crate::mcp::pins::Drift,
}

impl Slot {
    /// A slot for `entry` in `static_state`.
    pub(super) fn new(
        entry: Arc<ServerEntry>,
        static_state: ServerState,
        project_root: &std::path::Path,
        changes: StatusChanges,
    ) -> Self {
        let file_dir = entry
            .source
            .file
            .parent()
            .map_or_else(|| PathBuf::from("."), PathBuf::from);
        Self {
            name: entry.name.clone(),
            pin_key: crate::mcp::pins::ServerKey::of(&entry, project_root),
            entry,
            static_state,
            file_dir,
            gate: tokio::sync::Mutex::new(()),
            live: RwLock::new(None),
            facts: Mutex::new(Facts::default()),
            approvals: Mutex::new(Approvals::default()),
            roots: std::sync::OnceLock::new(),
            log_level: Mutex::new(None),
            changes,
            operator: Mutex::new((0, CancellationToken::new())),
        }
    }

    /// Remembers the log level the operator asked for, so a new connection asks it again.
    pub(super) fn remember_log_level(&self, level: &str) {
        *self
            .log_level
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(level.to_owned());
    }

    fn session_side(&self, face: &ClientFace) -> crate::mcp::client::ClientSide {
        let mut side = face.side_for(self.session_roots(face));
        let asked = self
            .log_level
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone();
        if asked.is_some() {
            side.log_level = asked;
        }
        side
    }

    /// This session's roots: the face's choice for this definition at first, then whatever
    /// the operator made of them.
    pub(super) fn session_roots(&self, face: &ClientFace) -> crate::mcp::client::SharedRoots {
        self.offered_roots(face).0.clone()
    }

    /// This session's roots and the decision they started from (made once, before the first
    /// connection, by [`ClientFace::roots_for`]).
    pub(super) fn offered_roots(
        &self,
        face: &ClientFace,
    ) -> &(
        crate::mcp::client::SharedRoots,
        crate::mcp::client::OfferedRoots,
    ) {
        self.roots.get_or_init(|| {
            // The definition as written, whether or not it may start now (an inert server is
            // shown the roots it would be offered).
            let offered = face.roots_for(&self.file_dir, self.entry.def.as_ref());
            (
                crate::mcp::client::SharedRoots::new(offered.roots.clone()),
                offered,
            )
        })
    }

    fn facts(&self) -> std::sync::MutexGuard<'_, Facts> {
        self.facts
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The facts, for a change that status shows (told to subscribers when dropped).
    fn facts_mut(&self) -> FactsMut<'_> {
        FactsMut {
            facts: self.facts(),
            changes: &self.changes,
        }
    }

    fn approvals(&self) -> std::sync::MutexGuard<'_, Approvals> {
        self.approvals
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Whether `operation` was allowed for the session.
    pub(super) fn session_approved(&self, operation: &str) -> bool {
        self.approvals().session.contains(operation)
    }

    /// Allows `operation` for the rest of the session.
    pub(super) fn approve_session(&self, operation: String) {
        self.approvals().session.insert(operation);
    }

    /// Whether `tool`'s definition changed since it was first listed in this session.
    pub(super) fn tool_changed(&self, tool: &str) -> bool {
        self.approvals().changed.contains(tool)
    }

    /// Pins newly listed tools; a tool whose definition changed — since it was first listed
    /// in this session, or (`persisted`) since its pins across restarts — is flagged and its
    /// session approval dropped.
    pub(super) fn observe_tools(
        &self,
        catalog: &crate::mcp::catalog::ToolCatalog,
        persisted: Option<crate::mcp::pins::Drift>,
    ) {
        let mut approvals = self.approvals();
        let mut changed = approvals.pins.observe(catalog.pins());
        if let Some(drift) = persisted {
            changed.extend(drift.tools());
            approvals.drift = drift;
        }
        for name in changed {
            approvals.session.remove(&format!("tools.call {name}"));
            approvals.changed.insert(name);
        }
    }

    /// How `tool` drifted from its pins across restarts, if it did.
    pub(super) fn tool_drift(&self, tool: &str) -> Option<crate::mcp::pins::Change> {
        self.approvals()
            .drift
            .changes
            .iter()
            .find(|c| c.kind == crate::mcp::scan::Kind::Tool && c.name == tool)
            .cloned()
    }

    /// The current connection, if any.
    pub(super) fn live(&self) -> Option<Arc<Live>> {
        self.live
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    fn set_live(&self, live: Option<Arc<Live>>) -> Option<Arc<Live>> {
        let mut guard = self
            .live
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        std::mem::replace(&mut *guard, live)
    }

    /// The state status shows now.
    pub(super) fn state(&self) -> ServerState {
        self.facts().state.unwrap_or(self.static_state)
    }

    /// The facts status shows now.
    pub(super) fn runtime(&self) -> RuntimeStatus {
        self.facts().runtime.clone()
    }

    /// Why the definition cannot connect at all, if it cannot.
    fn refusal(&self) -> Option<Failure> {
        match self.static_state {
            ServerState::Invalid => Some(Failure::new(
                ErrorClass::InvalidConfig,
                format!(
                    "server `{}` has configuration errors and never connects; run `mcpdeck config check`",
                    self.name
                ),
            )),
            ServerState::Inert => Some(Failure::new(
                ErrorClass::Untrusted,
                format!(
                    "server `{}` is defined by the project, which is not trusted (or changed since); review it with `mcpdeck trust`",
                    self.name
                ),
            )),
            ServerState::Disabled => Some(Failure::new(
                ErrorClass::Disabled,
                format!("server `{}` is disabled in its configuration", self.name),
            )),
            _ => None,
        }
    }

    fn def(&self) -> Result<&ServerDef, Failure> {
        if let Some(refusal) = self.refusal() {
            return Err(refusal);
        }
        self.entry.def.as_ref().ok_or_else(|| {
            Failure::new(
                ErrorClass::InvalidConfig,
                format!("server `{}` has no valid definition", self.name),
            )
        })
    }

    /// Records a failure for status and returns it.
    pub(super) fn record_failure(&self, failure: Failure) -> Failure {
        let mut facts = self.facts_mut();
        facts.state = Some(ServerState::Failed);
        facts.runtime.last_error = Some(LastError {
            class: failure.class.name().to_owned(),
            message: failure.message.clone(),
            at: now_rfc3339(),
        });
        facts.failure = Some(failure.clone());
        failure
    }

    /// Records catalog sizes for status.
    pub(super) fn record_sizes(
        &self,
        tools: Option<usize>,
        resources: Option<usize>,
        prompts: Option<usize>,
    ) {
        let mut facts = self.facts_mut();
        let rt = &mut facts.runtime;
        rt.tools = tools.or(rt.tools);
        rt.resources = resources.or(rt.resources);
        rt.prompts = prompts.or(rt.prompts);
    }

    /// Drops a connection that died on its own: status shows the failure, and the next
    /// operation reconnects only when the definition asks for automatic reconnects.
    fn retire_dead(&self, live: &Arc<Live>) -> Option<Failure> {
        let conn = live.conn.try_read().ok()?;
        if conn.is_alive() {
            return None;
        }
        let failure = conn
            .process()
            .and_then(crate::mcp::connection::StdioProcess::exit_info)
            .map_or_else(
                || {
                    Failure::new(
                        ErrorClass::Exited {
                            status: "unknown".to_owned(),
                            stderr_tail: Vec::new(),
                        },
                        "the connection closed".to_owned(),
                    )
                },
                |exit| Failure::from_connect(&exit.to_error()),
            );
        drop(conn);
        let current = self.live();
        if current.as_ref().is_some_and(|c| Arc::ptr_eq(c, live)) {
            self.set_live(None);
        }
        Some(self.record_failure(failure))
    }

    /// The live connection, connecting first when needed.
    /// A request asked for in `epoch` ([`Ticket`]) fails instead once the operator has
    /// disconnected the server since.
    pub(super) async fn ensure(
        &self,
        ctx: &ConnectContext<'_>,
        cancel: &CancellationToken,
        epoch: u64,
    ) -> Result<Arc<Live>, Failure> {
        let def = self.def()?;
        if self.disconnected_since(epoch) {
            return Err(self.disconnected_failure());
        }
        if let Some(live) = self.live() {
            match self.retire_dead(&live) {
                None => return Ok(live),
                Some(failure) if !def.reconnect.automatic => return Err(with_hint(failure)),
                Some(_) => {}
            }
        } else if let Some(failure) = self.facts().failure.clone()
            && !def.reconnect.automatic
            // A server waiting for sign-in is tried again: the operator may have signed in
            // since (from the CLI or the console), and the stored tokens are read at connect.
            && !matches!(failure.class, ErrorClass::AuthRequired { .. })
        {
            return Err(with_hint(failure));
        }
        let _gate = self.gate.lock().await;
        if self.disconnected_since(epoch) {
            return Err(self.disconnected_failure());
        }
        if let Some(live) = self.live() {
            return Ok(live);
        }
        self.connect_locked(def, ctx, cancel, epoch).await
    }

    /// Closes the current connection (if any) and makes one fresh attempt series. Concurrent
    /// reconnects coalesce: a caller that waited for another's reconnect uses its result.
    /// Like [`Slot::ensure`], a reconnect asked for before the operator's disconnect fails.
    pub(super) async fn reconnect(
        &self,
        ctx: &ConnectContext<'_>,
        cancel: &CancellationToken,
        epoch: u64,
    ) -> Result<Arc<Live>, Failure> {
        let def = self.def()?;
        let seen_generation = self.facts().generation;
        let _gate = self.gate.lock().await;
        if self.disconnected_since(epoch) {
            return Err(self.disconnected_failure());
        }
        if self.facts().generation != seen_generation
            && let Some(live) = self.live()
        {
            return Ok(live);
        }
        if let Some(old) = self.set_live(None) {
            close_live(&old, ctx.cleanup).await;
        }
        self.connect_locked(def, ctx, cancel, epoch).await
    }

    /// Connects (the caller holds the gate). When the operator disconnects meanwhile, the
    /// attempt (cancelled with the request's ticket) is not recorded as a failure, and a
    /// connection that was made all the same is closed at once.
    async fn connect_locked(
        &self,
        def: &ServerDef,
        ctx: &ConnectContext<'_>,
        cancel: &CancellationToken,
        epoch: u64,
    ) -> Result<Arc<Live>, Failure> {
        self.facts_mut().state = Some(ServerState::Connecting);
        let lookup = |name: &str| (ctx.lookup)(name);
        let result = connect_series_client(
            def,
            &self.file_dir,
            &lookup,
            (Some(ctx.events.clone()), ctx.traffic),
            def.reconnect,
            cancel,
            ctx.client.map(|face| self.session_side(face)),
        )
        .await;
        if self.disconnected_since(epoch) {
            if let Ok(mut conn) = result {
                conn.close().await;
            }
            let mut facts = self.facts_mut();
            if facts.state == Some(ServerState::Connecting) {
                facts.state = Some(ServerState::Disconnected);
            }
            return Err(self.disconnected_failure());
        }
        let conn = match result {
            Ok(conn) => conn,
            Err(e) => return Err(self.record_failure(Failure::from_connect(&e))),
        };
        Ok(self.connected(conn, ctx))
    }

    /// Makes `conn` the server's live connection: a new generation, and status facts from it.
    fn connected(
        &self,
        conn: crate::mcp::connection::Connection,
        ctx: &ConnectContext<'_>,
    ) -> Arc<Live> {
        let pgid = conn
            .process()
            .map(crate::mcp::connection::StdioProcess::pid);
        if let Some(pgid) = pgid {
            ctx.cleanup.add_group(pgid);
        }
        let mut facts = self.facts_mut();
        facts.generation += 1;
        facts.state = Some(ServerState::Connected);
        facts.failure = None;
        let identity = conn.identity();
        let rt = &mut facts.runtime;
        rt.connect_count += 1;
        rt.protocol_version = Some(identity.protocol_version.clone());
        rt.server_name = identity.name.as_deref().map(|n| sanitize_capped(n, 128));
        rt.server_version = identity.version.as_deref().map(|v| sanitize_capped(v, 64));
        rt.tools = None;
        rt.resources = None;
        rt.prompts = None;
        rt.skills = identity.capabilities.supports_skills();
        let live = Arc::new(Live {
            redactor: conn.redactor().clone(),
            conn: tokio::sync::RwLock::new(conn),
            generation: facts.generation,
            tools: tokio::sync::Mutex::new(None),
            resources: tokio::sync::Mutex::new(None),
            prompts: tokio::sync::Mutex::new(None),
            refs: Mutex::new(ResourceRefs::new(ctx.ref_key.clone(), self.name.clone())),
            pgid,
            closing: CancellationToken::new(),
        });
        drop(facts);
        self.set_live(Some(live.clone()));
        if ctx.listen_lists {
            let listening = live.clone();
            tokio::spawn(async move { listening.conn.read().await.follow_list_changes().await });
        }
        live
    }

    /// Drops the catalog a `list_changed` notification made stale.
    pub(super) fn invalidate(&self, which: Catalog) {
        let Some(live) = self.live() else { return };
        // A listing in progress holds the lock; its result is already stale, so clear after it.
        tokio::spawn(async move {
            match which {
                Catalog::Tools => *live.tools.lock().await = None,
                Catalog::Resources => *live.resources.lock().await = None,
                Catalog::Prompts => *live.prompts.lock().await = None,
            }
        });
    }

    /// Marks the connection dead after its process exited on its own.
    pub(super) fn on_exited(&self) {
        if let Some(live) = self.live() {
            self.retire_dead(&live);
        }
    }

    /// Closes the connection, if any (shutdown).
    pub(super) async fn close(&self, cleanup: &super::cleanup::Cleanup) {
        let _gate = self.gate.lock().await;
        if let Some(live) = self.set_live(None) {
            close_live(&live, cleanup).await;
            let mut facts = self.facts_mut();
            if facts.state == Some(ServerState::Connected) {
                facts.state = Some(ServerState::Disconnected);
            }
            // The catalog sizes were this connection's.
            facts.runtime.tools = None;
            facts.runtime.resources = None;
            facts.runtime.prompts = None;
        }
    }
}

fn with_hint(mut failure: Failure) -> Failure {
    if !failure.message.contains("reconnect") {
        failure.message.push_str(
            "; the server is not reconnected automatically: run the `reconnect` operation",
        );
    }
    failure
}

#[cfg(test)]
#[path = "slot_tests.rs"]
mod tests;
