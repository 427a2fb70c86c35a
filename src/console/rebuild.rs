//! Saving a configuration file and changing trust, then rebuilding the engine — all off the
//! loop thread. A blocking task writes the file (or the trust store), reads the configuration
//! again and has the engine rebuild itself over it ([`Engines::rebuild`]: the new engine is
//! swapped in, the old one's connections close in the background and its spills stay until the
//! console exits); then it sends the app the new views, the status and what to say. A live
//! reload (a watched file changed, or the reload key) does the same over the files as they are
//! on disk, the policy file included, and rebuilds only what changed.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::sync::mpsc;

use crate::app::{Msg, info};
use crate::mcp::config::ConfigSet;
use crate::mcp::engine::{Engines, ReloadPlan};
use crate::mcp::policy::{Policy, Reread};
use crate::mcp::trust::TrustStore;

/// What to tell the app when a rebuild is done: the words, and the message carrying them.
type Answer = (String, fn(Result<String, String>) -> Msg);

/// Reads the configuration again (the same files, packaged servers on top).
pub type SharedReload = Arc<dyn Fn() -> Result<ConfigSet, String> + Send + Sync>;

/// What a rebuild needs, cloned from the executor so that it runs on a blocking task.
pub struct Rebuild {
    /// The engine in force and the ones it replaced.
    pub engines: Arc<Engines>,
    /// The trust store's file.
    pub trust_path: PathBuf,
    /// The app's channel.
    pub tx: mpsc::UnboundedSender<Msg>,
    /// Reads the configuration again, when this console can.
    pub reload: Option<SharedReload>,
}

impl Rebuild {
    /// Rebuilds the engine over `config`, then sends the new views, the status and
    /// `answer(said)`. A failed build answers with the error instead.
    fn finish(self, config: ConfigSet, said: String, answer: fn(Result<String, String>) -> Msg) {
        self.finish_then(config, Some((said, answer)));
    }

    /// [`Self::finish`], saying nothing more when `then` is `None`.
    fn finish_then(self, config: ConfigSet, then: Option<Answer>) {
        let views = info::build(&config, &TrustStore::load(self.trust_path.clone()));
        match self.engines.rebuild(config) {
            Ok((engine, plan)) => {
                let _ = self.tx.send(Msg::Rebuilt {
                    info: Box::new(views),
                    kept: plan.kept,
                });
                let _ = self.tx.send(Msg::Status(Box::new(engine.status())));
                if let Some((said, answer)) = then {
                    let _ = self.tx.send(answer(Ok(said)));
                }
            }
            Err(e) => {
                let e = format!("restarting the engine failed: {e}");
                let _ = self.tx.send(match then {
                    Some((_, answer)) => answer(Err(e)),
                    None => Msg::Saved(Err(e)),
                });
            }
        }
    }
}

/// Reads the configuration again and rebuilds the engine over it, off the loop thread (after a
/// file was written elsewhere, e.g. an import); `false` when this console cannot read it again.
pub fn reload(rebuild: Rebuild) -> bool {
    let Some(reload) = rebuild.reload.clone() else {
        return false;
    };
    tokio::task::spawn_blocking(move || match reload() {
        Ok(config) => rebuild.finish_then(config, None),
        Err(e) => {
            let _ = rebuild.tx.send(Msg::Saved(Err(format!(
                "reloading the configuration failed: {e}"
            ))));
        }
    });
    true
}

/// Saves `text` to `path` (atomic, mode kept, previous content in `backups`), then reads the
/// configuration again and rebuilds the engine; answers with [`Msg::Saved`].
pub fn save(rebuild: Rebuild, path: PathBuf, text: String, backups: Result<PathBuf, String>) {
    tokio::task::spawn_blocking(move || {
        let saved = backups
            .map_err(|e| format!("not saved: {e}"))
            .and_then(|backups| save_config(&path, &text, &backups));
        let message = match saved {
            Ok(message) => message,
            Err(e) => {
                let _ = rebuild.tx.send(Msg::Saved(Err(e)));
                return;
            }
        };
        let Some(reload) = rebuild.reload.clone() else {
            let said = format!("{message}; restart mcpdeck to apply");
            let _ = rebuild.tx.send(Msg::Saved(Ok(said)));
            return;
        };
        match reload() {
            Ok(config) => {
                let said = format!("{message}; configuration reloaded");
                rebuild.finish(config, said, Msg::Saved);
            }
            Err(e) => {
                let said = format!("{message}; reloading failed ({e}); restart mcpdeck to apply");
                let _ = rebuild.tx.send(Msg::Saved(Ok(said)));
            }
        }
    });
}

/// Grants (or revokes) trust in the project's definitions as they are on disk now, then
/// rebuilds the engine; answers with [`Msg::TrustChanged`].
pub fn change_trust(rebuild: Rebuild, grant: bool) {
    tokio::task::spawn_blocking(move || {
        let changed = trust_on_disk(&rebuild, grant);
        match changed {
            Ok((config, said)) => rebuild.finish(config, said, Msg::TrustChanged),
            Err(e) => {
                let _ = rebuild.tx.send(Msg::TrustChanged(Err(e)));
            }
        }
    });
}

/// The configuration as it is on disk now (trust what is there, not what was read at start),
/// with trust granted or revoked, and what to say.
fn trust_on_disk(rebuild: &Rebuild, grant: bool) -> Result<(ConfigSet, String), String> {
    let config = match &rebuild.reload {
        Some(reload) => reload()?,
        None => rebuild.engines.current().config().clone(),
    };
    let mut store = TrustStore::load(rebuild.trust_path.clone());
    let said = if grant {
        store.grant(&config).map_err(|e| e.to_string())?;
        "project trusted".to_owned()
    } else {
        match store.revoke(&config.project_root) {
            Ok(true) => "trust revoked".to_owned(),
            Ok(false) => "the project was not trusted".to_owned(),
            Err(e) => return Err(e.to_string()),
        }
    };
    Ok((config, said))
}

/// Writes `text` to `path` atomically (a temp file in the same directory, then rename), keeping
/// the file's mode (a new file is 0600: it may hold credentials), after copying the previous
/// content into `backups` — out of the project, where git and the workspace search would see it.
pub fn save_config(path: &Path, text: &str, backups: &Path) -> Result<String, String> {
    let saved = crate::mcp::backup::save(path, text, backups, 0o600)
        .map_err(|e| format!("not saved: {e}"))?;
    Ok(match saved.backup {
        Some(b) => format!("saved; backup at {}", b.display()),
        None => "saved".to_owned(),
    })
}

/// What a live reload reads besides the configuration: the policy file and the executor's copy
/// of the policy (which every engine it builds starts from).
pub struct PolicySource {
    /// The user's policy file.
    pub path: PathBuf,
    /// The executor's policy.
    pub shared: super::policy_io::SharedPolicy,
}

/// Reads every configuration file, the trust store and the policy file again, exactly as at
/// start-up, off the loop thread; rebuilds the engine only when something changed, and then
/// only the servers the reload changed start again. A file that no longer parses keeps its last
/// good servers, and says why. Answers with [`Msg::Reloaded`] after the new views and status —
/// unless nothing changed and the operator did not ask (`asked`: the reload key).
pub fn reload_live(rebuild: Rebuild, policy: Option<PolicySource>, asked: bool) {
    tokio::task::spawn_blocking(move || {
        let current = rebuild.engines.current();
        let mut notes = Vec::new();
        // The policy first: a rule the console shows is the rule enforced.
        if let Some(source) = &policy {
            match Policy::reread(&source.path, &current.policy(), None) {
                Reread::Unchanged => {}
                Reread::Changed(read) => {
                    notes.push(format!("policy: {}", read.summary()));
                    current.set_policy(read.clone());
                    *source
                        .shared
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner) = read;
                }
                Reread::Failed(e) => notes.push(format!("{e}; the policy in force stays")),
            }
        }
        let mode = current.mode().label().to_owned();
        let say = |said: String| {
            let _ = rebuild.tx.send(Msg::Reloaded {
                said,
                mode: mode.clone(),
            });
        };
        let read = match &rebuild.reload {
            Some(reload) => reload(),
            None => Err("this console cannot read its configuration again".to_owned()),
        };
        let config = match read {
            Ok(config) => config,
            Err(e) => {
                notes.push(format!(
                    "reloading failed ({e}); the servers in force keep running"
                ));
                say(notes.join("; "));
                return;
            }
        };
        let (config, kept) = config.keep_last_good(current.config());
        let trust = TrustStore::load(rebuild.trust_path.clone());
        let plan = ReloadPlan::new(
            (current.config(), current.trust_state()),
            (&config, trust.state(&config)),
        );
        if plan.is_empty() {
            if asked && notes.is_empty() {
                notes.push("configuration reloaded: nothing changed".to_owned());
            }
            if !notes.is_empty() {
                say(notes.join("; "));
            }
            return;
        }
        let views = info::build(&config, &trust);
        let old = current.config().clone();
        match rebuild.engines.rebuild(config) {
            Ok((engine, plan)) => {
                let mut said = vec![plan.summary(&old, engine.config())];
                if !kept.is_empty() {
                    said.push("its last good servers keep running".to_owned());
                }
                said.append(&mut notes);
                said.retain(|s| !s.is_empty());
                let _ = rebuild.tx.send(Msg::Rebuilt {
                    info: Box::new(views),
                    kept: plan.kept,
                });
                let _ = rebuild.tx.send(Msg::Status(Box::new(engine.status())));
                say(said.join("; "));
            }
            Err(e) => {
                notes.insert(0, format!("restarting the engine failed: {e}"));
                say(notes.join("; "));
            }
        }
    });
}
