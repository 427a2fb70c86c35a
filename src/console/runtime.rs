//! The one-way runtime: a message goes into [`App::update`], the effects that come out go to
//! the [`Executor`], and whatever the executor and the engine answer comes back as messages on
//! the runtime's channels. [`Runtime::step`] is that turn, used by the console's loop and by
//! the headless tests alike, so a test drives exactly what the terminal drives.

use std::time::Instant;

use tokio::sync::mpsc;

use super::Executor;
use crate::app::{App, Effect, Msg};
use crate::mcp::config::ConfigSet;
use crate::mcp::connection::ServerEvent;
use crate::mcp::policy::Policy;

/// What a step asks of the loop that owns the terminal.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Flow {
    /// The app asked to quit.
    pub quit: bool,
    /// The app asked to suspend to the shell (only the terminal's owner can).
    pub suspend: bool,
}

/// The app, its effect executor and the channels their answers arrive on.
pub struct Runtime {
    /// The console state.
    pub app: App,
    /// Carries out effects.
    pub exec: Executor,
    rx: mpsc::UnboundedReceiver<Msg>,
    events: mpsc::Receiver<ServerEvent>,
    /// The engine's status generation: a change becomes a fresh [`Msg::Status`].
    status: tokio::sync::watch::Receiver<u64>,
}

impl Runtime {
    /// Builds the engine over `config` (trust store at `trust_path`, `policy`, spills under
    /// `spill_base` or the default) and an app over its first status. Call inside a tokio
    /// runtime.
    pub fn new(
        config: ConfigSet,
        trust_path: std::path::PathBuf,
        policy: Policy,
        spill_base: Option<std::path::PathBuf>,
    ) -> std::io::Result<Self> {
        let (tx, rx) = mpsc::unbounded_channel::<Msg>();
        let (events_tx, events) = mpsc::channel(1024);
        let mode = policy.mode.label();
        let mut exec = Executor::new(config, trust_path, policy, tx, events_tx, spill_base)?;
        let mut status = exec.status_changes();
        status.mark_unchanged();
        let mut app = App::new(&exec.engine().status(), exec.info(), Instant::now());
        mode.clone_into(&mut app.policy);
        // The Auth lines: which OAuth servers are signed in.
        exec.run(Effect::Auth(crate::app::auth::AuthEffect::Refresh));
        Ok(Self {
            app,
            exec,
            rx,
            events,
            status,
        })
    }

    /// One turn: `msg` goes to the app at time `now`, its effects to the executor.
    pub fn step(&mut self, msg: Msg, now: Instant) -> Flow {
        self.exec.observe(&msg);
        self.app.now = now;
        let mut flow = Flow::default();
        for effect in self.app.update(msg) {
            match effect {
                Effect::Suspend => flow.suspend = true,
                effect => flow.quit |= self.exec.run(effect),
            }
        }
        flow
    }

    /// A message already waiting (from the executor, a connection or a status change), if any.
    pub fn pending(&mut self) -> Option<Msg> {
        if let Some(msg) = self
            .rx
            .try_recv()
            .ok()
            .or_else(|| self.events.try_recv().ok().map(Msg::Event))
        {
            return Some(msg);
        }
        let changed = self.status.has_changed().unwrap_or(false);
        changed.then(|| self.status_now())
    }

    /// The next message from the executor, a connection or the engine's status (`None` once
    /// all are closed). Status is pushed: the engine bumps its generation when a server's state
    /// changes, and many changes before the console looks make one message.
    pub async fn recv(&mut self) -> Option<Msg> {
        let changed = tokio::select! {
            Some(msg) = self.rx.recv() => return Some(msg),
            Some(event) = self.events.recv() => return Some(Msg::Event(event)),
            Ok(()) = self.status.changed() => true,
            else => false,
        };
        changed.then(|| self.status_now())
    }

    /// The status as it is now, marking the generation seen.
    fn status_now(&mut self) -> Msg {
        self.status.mark_unchanged();
        Msg::Status(Box::new(self.exec.engine().status()))
    }

    /// Cancels everything and shuts every engine down.
    pub async fn shutdown(&mut self) {
        self.exec.shutdown().await;
    }
}
