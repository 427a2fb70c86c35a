//! Saving a configuration file, changing trust and rebuilding the engine — all off the loop
//! thread. A blocking task writes the file (or the trust store), reads the configuration again,
//! builds the new engine and derives the console's views; only then does it hand a [`Job`] to
//! the loop, which swaps the engine in (a pointer swap) and tells the app. The old engine's
//! connections close in the background; its spills stay until the console exits.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::sync::mpsc;

use super::Executor;
use super::approver::Replies;
use crate::app::{Msg, info};
use crate::mcp::config::ConfigSet;
use crate::mcp::connection::ServerEvent;
use crate::mcp::policy::Policy;
use crate::mcp::trust::TrustStore;

/// What to tell the app when a rebuild is done: the words, and the message carrying them.
type Answer = (String, fn(Result<String, String>) -> Msg);

/// Work for the loop thread, handed over by a background task: it only swaps state in.
pub type Job = Box<dyn FnOnce(&mut Executor) + Send>;

/// Reads the configuration again (the same files, packaged servers on top).
pub type SharedReload = Arc<dyn Fn() -> Result<ConfigSet, String> + Send + Sync>;

/// What a rebuild needs, cloned from the executor so that it runs on a blocking task.
pub struct Rebuild {
    /// The configuration in force.
    pub config: ConfigSet,
    /// Servers whose definition changed since the console started.
    pub changed: BTreeSet<String>,
    /// The trust store's file.
    pub trust_path: PathBuf,
    /// The policy in force.
    pub policy: Policy,
    /// The app's channel and the approvals' senders (the new engine's approver uses them).
    pub tx: mpsc::UnboundedSender<Msg>,
    /// The approvals waiting for the operator.
    pub replies: Replies,
    /// The servers' requests (elicitation, sampling) waiting for the operator.
    pub asks: super::client::AskReplies,
    /// Where connection events go.
    pub events: mpsc::Sender<ServerEvent>,
    /// Where spills go.
    pub spill_base: Option<PathBuf>,
    /// The loop's job queue.
    pub jobs: mpsc::UnboundedSender<Job>,
    /// Reads the configuration again, when this console can.
    pub reload: Option<SharedReload>,
}

impl Rebuild {
    /// Builds an engine over `config` and hands it to the loop, which then sends the new views,
    /// the status and `answer(said)`. A failed build answers with the error instead.
    fn finish(self, config: ConfigSet, said: String, answer: fn(Result<String, String>) -> Msg) {
        self.finish_then(config, Some((said, answer)));
    }

    /// [`Self::finish`], saying nothing more when `then` is `None`.
    fn finish_then(self, config: ConfigSet, then: Option<Answer>) {
        let mut changed = self.changed;
        changed.extend(crate::mcp::engine::changed_servers(&self.config, &config));
        let engine = super::executor::build_engine(
            &config,
            &self.trust_path,
            &self.policy,
            (&self.tx, &self.replies, &self.asks),
            &self.events,
            self.spill_base,
            &changed,
        );
        let engine = match engine {
            Ok(engine) => engine,
            Err(e) => {
                let e = format!("restarting the engine failed: {e}");
                let _ = self.tx.send(match then {
                    Some((_, answer)) => answer(Err(e)),
                    None => Msg::Saved(Err(e)),
                });
                return;
            }
        };
        let views = info::build(&config, &TrustStore::load(self.trust_path.clone()));
        let tx = self.tx;
        let _ = self.jobs.send(Box::new(move |exec: &mut Executor| {
            exec.adopt(config, changed, engine);
            let _ = tx.send(Msg::Info(Box::new(views)));
            let _ = tx.send(Msg::Status(Box::new(exec.engine.status())));
            if let Some((said, answer)) = then {
                let _ = tx.send(answer(Ok(said)));
            }
        }));
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
        None => rebuild.config.clone(),
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
