//! The console runtime: owns the terminal and the [`Runtime`] (app, executor, engine), runs the
//! one `select!` loop over terminal events, engine results, connection events, signals and — only
//! while something animates — a tick; hands each message to [`Runtime::step`] (the same turn the
//! headless tests drive); draws only when state changed, as soon as what woke it has been handled
//! (at most twice per 16 ms, see `pacing`). The terminal is restored
//! on every exit path, then the engine shuts down (children killed, spills removed).

pub mod agents;
pub mod approver;
pub mod binary;
pub mod client;
pub mod clipboard;
pub mod executor;
pub mod pacing;
pub mod policy_io;
pub mod rebuild;
pub mod runtime;
pub mod spill_read;
pub mod terminal;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crossterm::event::{Event, EventStream};
use futures_util::StreamExt as _;
use tokio::signal::unix::{SignalKind, signal};

use crate::app::Msg;
use crate::exit::Exit;
use crate::mcp::config::ConfigSet;
use crate::mcp::policy::Policy;

pub use executor::Executor;
pub use runtime::{Flow, Runtime};

pub use pacing::FRAME;
/// The animation tick (spinner, elapsed time, approval guard).
pub const TICK: Duration = Duration::from_millis(100);

/// Loads the configuration again (the same files, packaged servers on top).
pub type Reload = Box<dyn Fn() -> Result<ConfigSet, String> + Send + Sync>;

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
    let result = runtime.block_on(session(
        config,
        trust_path,
        policy,
        policy_path.to_path_buf(),
        reload,
    ));
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
    policy_path: PathBuf,
    reload: Reload,
) -> Result<(), String> {
    let mut rt = Runtime::new(config, trust_path, policy, None)
        .map_err(|e| format!("cannot create the spill directory: {e}"))?;
    rt.exec.set_reload(reload);
    // Every configuration layer, the trust store and the policy file: a change reloads.
    if let Err(e) = rt.exec.watch_files(policy_path.clone()) {
        rt.app.message = Some(e);
    }
    let keys_path = policy_path.with_file_name("keys.toml");
    // "Always allow" and the policy view edit the user's policy file.
    rt.app.policy_path = Some(policy_path);
    // User key overrides live beside the policy file: `$XDG_CONFIG_HOME/mcpdeck/keys.toml`.
    if let Ok(text) = std::fs::read_to_string(keys_path) {
        let problems = rt.app.keymap.apply(&text);
        if let Some(first) = problems.first() {
            rt.app.message = Some(crate::mcp::sanitize::sanitize_capped(first, 200));
        }
    }
    // Colours by role: the embedded theme, a user's `theme.toml` beside the policy file, and
    // `NO_COLOR` (any non-empty value) over both.
    let theme_path = rt
        .app
        .policy_path
        .as_ref()
        .map(|p| p.with_file_name("theme.toml"));
    let user_theme = theme_path.and_then(|p| std::fs::read_to_string(p).ok());
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let (theme, problems) = crate::ui::theme::Theme::load(user_theme.as_deref(), no_color);
    crate::ui::theme::install(theme);
    if let Some(first) = problems.first()
        && rt.app.message.is_none()
    {
        rt.app.message = Some(crate::mcp::sanitize::sanitize_capped(first, 200));
    }
    // Attach to agents' serve sessions already running: their approvals come here too.
    rt.exec.run(crate::app::Effect::ScanAgents);
    let mut guard = match terminal::TerminalGuard::enter() {
        Ok(g) => g,
        Err(e) => {
            rt.shutdown().await;
            return Err(format!(
                "cannot set up the terminal ({e}); the console needs one — try `mcpdeck status` or `mcpdeck --help`"
            ));
        }
    };
    if let Ok(size) = guard.terminal.size() {
        rt.app.size = (size.width, size.height);
    }
    let result = run_loop(&mut rt, &mut guard).await;
    drop(guard);
    rt.shutdown().await;
    result
}

/// Why the loop woke up.
enum Wake {
    /// A message for the app.
    Msg(Msg),
    /// Only to draw a deferred frame (or nothing to do).
    Idle,
    /// Time to look for new agent sessions.
    Discover,
    /// A signal or the end of input: leave.
    Stop,
    /// Reading the terminal failed.
    Failed(String),
}

/// The loop: draw when due, wait for the next thing, step the runtime over it and over
/// everything already queued behind it, then draw once.
async fn run_loop(rt: &mut Runtime, guard: &mut terminal::TerminalGuard) -> Result<(), String> {
    let signals = (
        signal(SignalKind::terminate()),
        signal(SignalKind::hangup()),
        signal(SignalKind::interrupt()),
    );
    let (Ok(mut term), Ok(mut hup), Ok(mut int)) = signals else {
        return Err("cannot install signal handlers".to_owned());
    };
    let mut input = EventStream::new();
    let mut discovery = tokio::time::interval(agents::DISCOVERY);
    discovery.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut dirty = true;
    let mut pacing = pacing::Pacing::default();
    loop {
        let now = Instant::now();
        let due = pacing.due(now);
        if dirty && now >= due {
            guard
                .terminal
                .draw(|f| crate::ui::render(&rt.app, f))
                .map_err(|e| format!("drawing failed: {e}"))?;
            dirty = false;
            pacing.drew(now);
        }
        let wake = if dirty {
            Some(due.max(now))
        } else if rt.app.animating() {
            Some(now + TICK)
        } else {
            None
        };
        let animating = rt.app.animating();
        let woke = tokio::select! {
            event = input.next() => match event {
                Some(Ok(event)) => to_msg(event).map_or(Wake::Idle, Wake::Msg),
                Some(Err(e)) => Wake::Failed(format!("reading the terminal failed: {e}")),
                None => Wake::Stop,
            },
            Some(msg) = rt.recv() => Wake::Msg(msg),
            () = sleep_until(wake) => if animating { Wake::Msg(Msg::Tick) } else { Wake::Idle },
            _ = discovery.tick() => Wake::Discover,
            _ = term.recv() => Wake::Stop,
            _ = hup.recv() => Wake::Stop,
            _ = int.recv() => Wake::Stop,
        };
        let msg = match woke {
            Wake::Msg(msg) => msg,
            // New sessions' snapshots arrive as messages; nothing to draw until then.
            Wake::Discover => {
                rt.exec.discover_agents();
                continue;
            }
            Wake::Idle => continue,
            Wake::Stop => return Ok(()),
            Wake::Failed(e) => return Err(e),
        };
        // Handle this message and everything else already queued before drawing once.
        let mut next = Some(msg);
        while let Some(msg) = next.take() {
            let flow = rt.step(msg, Instant::now());
            if flow.suspend {
                terminal::suspend(guard)
                    .map_err(|e| format!("resuming the terminal failed: {e}"))?;
            }
            if flow.quit {
                return Ok(());
            }
            next = rt.pending();
        }
        dirty = true;
    }
}

/// Sleeps until `at`, or forever.
async fn sleep_until(at: Option<Instant>) {
    match at {
        Some(at) => tokio::time::sleep_until(at.into()).await,
        None => std::future::pending().await,
    }
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
