//! The console runtime: owns the terminal and the engine, runs the
//! one `select!` loop over terminal events, engine results, connection events, signals and — only
//! while something animates — a tick; feeds each message to [`App::update`]; carries out the
//! effects; draws at most once per 16 ms and only when state changed. The terminal is restored
//! on every exit path, then the engine shuts down (children killed, spills removed).

pub mod agents;
pub mod approver;
pub mod clipboard;
pub mod executor;
pub mod terminal;
pub mod test_connect;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crossterm::event::{Event, EventStream};
use futures_util::StreamExt as _;
use tokio::signal::unix::{SignalKind, signal};
use tokio::sync::mpsc;

use crate::app::{App, Msg};
use crate::exit::Exit;
use crate::mcp::config::ConfigSet;
use crate::mcp::policy::Policy;

pub use executor::Executor;

/// The shortest time between two frames.
pub const FRAME: Duration = Duration::from_millis(16);
/// The animation tick (spinner, elapsed time, approval guard).
pub const TICK: Duration = Duration::from_millis(100);

/// Loads the configuration again (the same files, packaged servers on top).
pub type Reload = Box<dyn Fn() -> Result<ConfigSet, String>>;

/// Runs the console until the operator quits or a signal arrives; `reload` reads the
/// configuration again after the editor saves a file.
pub fn run(config: ConfigSet, trust_path: PathBuf, policy_path: &Path, reload: Reload) -> Exit {
    let policy = match Policy::load(policy_path) {
        Ok(policy) => policy,
        Err(e) => {
            eprintln!("mcpdeck: {e}");
            return Exit::Usage;
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("mcpdeck: cannot start the async runtime: {e}");
            return Exit::Usage;
        }
    };
    terminal::install_panic_hook();
    let local = tokio::task::LocalSet::new();
    let result = runtime.block_on(local.run_until(session(
        config,
        trust_path,
        policy,
        policy_path.with_file_name("keys.toml"),
        reload,
    )));
    // Anything still running (a stuck server's task) must not hold the process.
    runtime.shutdown_timeout(Duration::from_secs(2));
    match result {
        Ok(()) => Exit::Ok,
        Err(message) => {
            eprintln!("mcpdeck: {message}");
            Exit::Usage
        }
    }
}

async fn session(
    config: ConfigSet,
    trust_path: PathBuf,
    policy: Policy,
    keys_path: PathBuf,
    reload: Reload,
) -> Result<(), String> {
    let (tx, mut rx) = mpsc::unbounded_channel::<Msg>();
    let (events_tx, mut events_rx) = mpsc::channel(1024);
    let mode = policy.mode.label();
    let mut exec = Executor::new(config, trust_path, policy, tx.clone(), events_tx, None)
        .map_err(|e| format!("cannot create the spill directory: {e}"))?;
    exec.set_reload(reload);
    let mut app = App::new(&exec.engine.status(), exec.info(), Instant::now());
    mode.clone_into(&mut app.policy);
    // User key overrides live beside the policy file: `$XDG_CONFIG_HOME/mcpdeck/keys.toml`.
    if let Ok(text) = std::fs::read_to_string(keys_path) {
        let problems = app.keymap.apply(&text);
        if let Some(first) = problems.first() {
            app.message = Some(crate::mcp::sanitize::sanitize_capped(first, 200));
        }
    }
    // Attach to agents' serve sessions already running: their approvals come here too.
    exec.run(crate::app::Effect::ScanAgents);
    let mut guard = match terminal::TerminalGuard::enter() {
        Ok(g) => g,
        Err(e) => {
            exec.shutdown().await;
            return Err(format!(
                "cannot set up the terminal ({e}); the console needs one — try `mcpdeck status` or `mcpdeck --help`"
            ));
        }
    };
    if let Ok(size) = guard.terminal.size() {
        app.size = (size.width, size.height);
    }
    let signals = (
        signal(SignalKind::terminate()),
        signal(SignalKind::hangup()),
        signal(SignalKind::interrupt()),
    );
    let (Ok(mut term), Ok(mut hup), Ok(mut int)) = signals else {
        drop(guard);
        exec.shutdown().await;
        return Err("cannot install signal handlers".to_owned());
    };
    let mut input = EventStream::new();
    let mut discovery = tokio::time::interval(agents::DISCOVERY);
    discovery.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut dirty = true;
    let mut last_draw: Option<Instant> = None;
    let mut failure = None;
    'main: loop {
        let now = Instant::now();
        let due = last_draw.map_or(now, |t| t + FRAME);
        if dirty && now >= due {
            if let Err(e) = guard.terminal.draw(|f| crate::ui::render(&app, f)) {
                failure = Some(format!("drawing failed: {e}"));
                break;
            }
            dirty = false;
            last_draw = Some(now);
        }
        let wake = if dirty {
            Some(due.max(now))
        } else if app.animating() {
            Some(now + TICK)
        } else {
            None
        };
        let sleep = async {
            match wake {
                Some(at) => tokio::time::sleep_until(at.into()).await,
                None => std::future::pending().await,
            }
        };
        let msg = tokio::select! {
            event = input.next() => match event {
                Some(Ok(event)) => match to_msg(event) {
                    Some(msg) => msg,
                    None => continue,
                },
                Some(Err(e)) => {
                    failure = Some(format!("reading the terminal failed: {e}"));
                    break;
                }
                None => break,
            },
            Some(msg) = rx.recv() => msg,
            Some(event) = events_rx.recv() => Msg::Event(event),
            () = sleep => {
                if !app.animating() {
                    // Woken only to draw a deferred frame.
                    continue;
                }
                Msg::Tick
            }
            _ = discovery.tick() => {
                // New sessions' snapshots arrive as messages; nothing to draw until then.
                exec.discover_agents();
                continue;
            }
            _ = term.recv() => break,
            _ = hup.recv() => break,
            _ = int.recv() => break,
        };
        let mut next = Some(msg);
        // Handle this message and everything else already queued before drawing once.
        while let Some(msg) = next.take() {
            let tick = matches!(msg, Msg::Tick);
            exec.observe(&msg);
            app.now = Instant::now();
            let effects = app.update(msg);
            if tick {
                app.update(Msg::Status(Box::new(exec.engine.status())));
            }
            for effect in effects {
                if effect == crate::app::Effect::Suspend {
                    if let Err(e) = terminal::suspend(&mut guard) {
                        failure = Some(format!("resuming the terminal failed: {e}"));
                        break 'main;
                    }
                    continue;
                }
                if exec.run(effect) {
                    break 'main;
                }
            }
            next = rx
                .try_recv()
                .ok()
                .or_else(|| events_rx.try_recv().ok().map(Msg::Event));
        }
        dirty = true;
    }
    drop(guard);
    exec.shutdown().await;
    failure.map_or(Ok(()), Err)
}

/// A terminal event as an app message (`None` for events the app ignores).
fn to_msg(event: Event) -> Option<Msg> {
    match event {
        Event::Key(key) => Some(Msg::Key(key)),
        Event::Paste(text) => Some(Msg::Paste(text)),
        Event::Mouse(mouse) => Some(Msg::Mouse(mouse)),
        Event::Resize(w, h) => Some(Msg::Resize(w, h)),
        Event::FocusGained | Event::FocusLost => None,
    }
}
