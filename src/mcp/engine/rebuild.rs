//! The engine of a long-lived face (the console), rebuilt when its configuration or trust
//! changes. [`Engines::rebuild`] builds a new engine over the configuration read again, swaps it
//! in and retires the old one. Only the servers the reload changed start again
//! ([`ReloadPlan`]): a server whose definition and state are as they were keeps its slot —
//! connection, catalogs, session approvals — in the new engine; the old engine's other
//! connections close in the background (children killed), and its spills stay readable and
//! deletable until [`Engines::shutdown`]. Servers whose definition changed since the first
//! engine are remembered across rebuilds, so their approval requests keep saying so. Every
//! engine bumps one status generation ([`Engines::status_changes`]) the console listens to.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use super::{Engine, EngineOptions, ReloadPlan, StatusChanges, changed_servers};
use crate::mcp::config::ConfigSet;
use crate::mcp::results::SpillEntry;
use crate::mcp::trust::TrustStore;

/// Makes the options of each new engine (the face's approver and client, its event channel,
/// the policy as it is now). [`Engines`] fills in which servers changed.
pub(crate) type OptionsFactory = dyn Fn() -> EngineOptions + Send + Sync;

/// The engine in force and the ones it replaced. Every method takes `&self`; share it behind
/// an `Arc`.
pub struct Engines {
    trust_path: PathBuf,
    options: Box<OptionsFactory>,
    state: Mutex<State>,
    /// Serialises rebuilds: each compares against the configuration the previous one adopted.
    rebuilding: Mutex<()>,
    /// The status generation every engine built here bumps.
    status_changes: StatusChanges,
}

struct State {
    current: Arc<Engine>,
    /// Replaced engines: connections closed, spills kept until shutdown.
    retired: Vec<Arc<Engine>>,
    /// Servers whose definition changed since the first engine.
    changed: BTreeSet<String>,
}

impl Engines {
    /// Builds the first engine over `config`, the trust store at `trust_path` and the options
    /// `options` makes. Call inside a tokio runtime.
    pub fn new(
        config: ConfigSet,
        trust_path: PathBuf,
        options: Box<OptionsFactory>,
    ) -> std::io::Result<Self> {
        let status_changes = StatusChanges::new(0);
        let first = EngineOptions {
            status_changes: Some(status_changes.clone()),
            ..options()
        };
        let engine = Engine::new(config, TrustStore::load(trust_path.clone()), first)?;
        Ok(Self {
            status_changes,
            trust_path,
            options,
            state: Mutex::new(State {
                current: Arc::new(engine),
                retired: Vec::new(),
                changed: BTreeSet::new(),
            }),
            rebuilding: Mutex::new(()),
        })
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The engine in force.
    pub fn current(&self) -> Arc<Engine> {
        self.state().current.clone()
    }

    /// Hears every change to what the engine in force reports as status (a connect, a crash,
    /// a disconnect, a rebuild), whichever engine is in force.
    pub fn status_changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.status_changes.subscribe()
    }

    /// Servers whose definition changed since the first engine.
    pub fn changed(&self) -> BTreeSet<String> {
        self.state().changed.clone()
    }

    /// Builds an engine over `config` (the trust store read again), swaps it in and retires
    /// the engine it replaces, whose connections close in the background. It reads files and
    /// sweeps spill directories: call it off a face's loop thread, inside a tokio runtime (a
    /// `spawn_blocking` task is). The servers the plan keeps carry over as they are. On failure
    /// the engine in force stays.
    pub fn rebuild(&self, config: ConfigSet) -> std::io::Result<(Arc<Engine>, ReloadPlan)> {
        let _one = self
            .rebuilding
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let current = self.current();
        let mut changed = self.changed();
        changed.extend(changed_servers(current.config(), &config));
        let mut options = (self.options)();
        options.changed_servers.clone_from(&changed);
        options.status_changes = Some(self.status_changes.clone());
        let trust = TrustStore::load(self.trust_path.clone());
        let plan = ReloadPlan::new(
            (current.config(), current.trust_state()),
            (&config, trust.state(&config)),
        );
        let kept = plan
            .kept
            .iter()
            .filter_map(|name| Some((name.clone(), current.slots.get(name)?.clone())))
            .collect();
        let engine = Arc::new(Engine::keeping(config, trust, options, kept)?);
        let old = {
            let mut state = self.state();
            state.changed = changed;
            let old = std::mem::replace(&mut state.current, engine.clone());
            state.retired.push(old.clone());
            old
        };
        let kept = plan.kept.clone();
        tokio::spawn(async move { old.close_all_but(&kept).await });
        engine.status_changed();
        Ok((engine, plan))
    }

    /// Every spill of every engine of this session, the current engine's first.
    pub fn spills(&self) -> Vec<SpillEntry> {
        let state = self.state();
        std::iter::once(&state.current)
            .chain(&state.retired)
            .flat_map(|engine| engine.spills())
            .collect()
    }

    /// Deletes one spill by basename, from whichever engine spilled it.
    pub fn remove_spill(&self, basename: &str) -> std::io::Result<()> {
        let owner = {
            let state = self.state();
            std::iter::once(&state.current)
                .chain(&state.retired)
                .find(|e| e.spills().iter().any(|s| s.basename == basename))
                .cloned()
        };
        owner.map_or_else(
            || Err(std::io::Error::from(std::io::ErrorKind::NotFound)),
            |engine| engine.remove_spill(basename),
        )
    }

    /// Shuts every engine down: connections closed, children killed, spills removed.
    pub async fn shutdown(&self) {
        let (current, retired) = {
            let mut state = self.state();
            (state.current.clone(), std::mem::take(&mut state.retired))
        };
        current.shutdown().await;
        for engine in retired {
            engine.shutdown().await;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::*;
    use crate::mcp::config::Layer;
    use crate::mcp::config::load::read_file;

    fn config(dir: &std::path::Path, text: &str) -> ConfigSet {
        let file = dir.join("mcp.json");
        std::fs::write(&file, text).expect("write");
        ConfigSet::from_files(dir.to_path_buf(), vec![read_file(Layer::User, file, true)])
    }

    fn spill(engine: &Engine) -> String {
        let mut writer = engine
            .spills
            .create_spill("text/plain", "test")
            .expect("spill");
        writer.write_all(b"kept").expect("write");
        writer.finish().expect("finish").basename
    }

    #[tokio::test]
    async fn a_rebuild_swaps_the_engine_keeps_old_spills_and_remembers_changes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let options_base = dir.path().join("spills");
        std::fs::create_dir(&options_base).expect("mkdir");
        let engines = Engines::new(
            config(dir.path(), r#"{"mcpServers": {"a": {"command": "x"}}}"#),
            dir.path().join("trust.json"),
            Box::new(move || EngineOptions {
                spill_base: Some(options_base.clone()),
                ..EngineOptions::default()
            }),
        )
        .expect("engines");
        let first = engines.current();
        let old_spill = spill(&first);
        let edited = r#"{"mcpServers": {"a": {"command": "y"}, "b": {"command": "z"}}}"#;
        let (second, _) = engines
            .rebuild(config(dir.path(), edited))
            .expect("rebuild");
        assert!(Arc::ptr_eq(&second, &engines.current()), "swapped in");
        assert!(!Arc::ptr_eq(&first, &second));
        assert_eq!(second.config().servers.len(), 2);
        assert_eq!(
            engines.changed().into_iter().collect::<Vec<_>>(),
            ["a", "b"]
        );
        assert_eq!(
            second.changed_servers,
            engines.changed(),
            "the new engine knows"
        );
        // A rebuild over the same files still remembers what changed since the start.
        let (third, plan) = engines
            .rebuild(config(dir.path(), edited))
            .expect("rebuild");
        assert!(plan.is_empty(), "nothing changed this time: {plan:?}");
        assert!(
            Arc::ptr_eq(&second.slots["a"], &third.slots["a"]),
            "an unchanged server keeps its slot"
        );
        assert_eq!(third.changed_servers.len(), 2);
        let new_spill = spill(&third);
        let listed = engines.spills();
        let names: Vec<&str> = listed.iter().map(|s| s.basename.as_str()).collect();
        assert_eq!(
            names,
            [new_spill.as_str(), old_spill.as_str()],
            "current first"
        );
        assert!(listed.iter().all(|s| s.path.is_file()));
        engines
            .remove_spill(&old_spill)
            .expect("the old engine's spill");
        assert!(
            !listed[1].path.exists(),
            "deleted from the old engine's directory"
        );
        assert!(engines.remove_spill(&old_spill).is_err(), "gone");
        engines.shutdown().await;
        assert!(!listed[0].path.exists(), "shutdown removes every spill");
        assert!(engines.spills().is_empty());
    }

    #[tokio::test]
    async fn a_failed_rebuild_keeps_the_engine_in_force() {
        let dir = tempfile::tempdir().expect("tempdir");
        // The spill base is a file: no new engine can make its spill directory there.
        let blocker = dir.path().join("not-a-dir");
        let options_base = dir.path().join("spills");
        std::fs::create_dir(&options_base).expect("mkdir");
        let first_build = std::sync::atomic::AtomicBool::new(true);
        let (good, bad) = (options_base, blocker.join("spills"));
        let engines = Engines::new(
            config(dir.path(), r#"{"mcpServers": {"a": {"command": "x"}}}"#),
            dir.path().join("trust.json"),
            Box::new(move || EngineOptions {
                spill_base: Some(
                    if first_build.swap(false, std::sync::atomic::Ordering::Relaxed) {
                        good.clone()
                    } else {
                        bad.clone()
                    },
                ),
                ..EngineOptions::default()
            }),
        )
        .expect("engines");
        std::fs::write(&blocker, "file").expect("write");
        let first = engines.current();
        let edited = config(dir.path(), r#"{"mcpServers": {"b": {"command": "y"}}}"#);
        assert!(engines.rebuild(edited).is_err());
        assert!(Arc::ptr_eq(&first, &engines.current()), "still in force");
        assert!(engines.changed().is_empty(), "nothing adopted");
        engines.shutdown().await;
    }
}
