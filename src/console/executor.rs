//! Carries out the app's [`Effect`]s. Engine requests run in spawned tasks and come back as
//! [`Msg::Done`] with their id; nothing here blocks the loop on network IO. Saves and trust
//! changes rebuild the engine ([`Engines::rebuild`], off the loop thread; old connections are
//! shut down) so inert project servers become usable without restarting the console.

mod auth;
mod hosts;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::agents::Agents;
use super::approver::ConsoleApprover;
use super::clipboard::Clipboard;
use crate::app::{Effect, Msg, ReqId, info};
use crate::mcp::config::ConfigSet;
use crate::mcp::connection::ServerEvent;
use crate::mcp::engine::{Engine, EngineOptions, Engines};
use crate::mcp::policy::{Approver, Policy};
use crate::mcp::trust::TrustStore;

/// The effect executor and what it needs.
pub struct Executor {
    /// The engine in force and the ones it replaced (rebuilt when the configuration or trust
    /// changes).
    engines: Arc<Engines>,
    tx: mpsc::UnboundedSender<Msg>,
    tokens: HashMap<ReqId, CancellationToken>,
    /// Shared with the blocking task a copy runs on (the system clipboard can block).
    clipboard: Arc<std::sync::Mutex<Clipboard>>,
    /// The last spill the pager indexed (windows of it are read by seeking).
    spill_index: Arc<super::spill_read::IndexCache>,
    trust_path: PathBuf,
    /// The policy engines are built with (read again after the console edits its file).
    policy: super::policy_io::SharedPolicy,
    /// Where saves keep the previous content of a file they replace.
    backups: Option<PathBuf>,
    agents: Agents,
    /// The senders of approvals waiting for the operator.
    replies: super::approver::Replies,
    /// The senders of servers' requests (elicitation, sampling) waiting for the operator.
    asks: super::client::AskReplies,
    /// Reads the configuration again (after a save or before a trust change).
    reload: Option<super::rebuild::SharedReload>,
    /// Where other hosts' files are looked for instead of `$HOME` (tests).
    hosts_home: Option<PathBuf>,
    /// The user's policy file, read again by every reload (once the console watches its files).
    policy_path: Option<PathBuf>,
    /// The watch over every configuration file, the trust store and the policy file.
    watch: Option<crate::mcp::config::watch::FileWatch>,
    /// Sign-ins under way, by server (aborting one closes its loopback listener).
    sign_ins: HashMap<String, tokio::task::AbortHandle>,
}

impl Executor {
    /// Builds the engine over `config`, the trust store at `trust_path` and `policy`, with the
    /// console answering approvals. Call inside a tokio runtime.
    pub fn new(
        config: ConfigSet,
        trust_path: PathBuf,
        policy: Policy,
        tx: mpsc::UnboundedSender<Msg>,
        events: mpsc::Sender<ServerEvent>,
        spill_base: Option<PathBuf>,
    ) -> std::io::Result<Self> {
        let replies = super::approver::Replies::default();
        let asks = super::client::AskReplies::default();
        let policy = Arc::new(std::sync::Mutex::new(policy));
        let options = engine_options(&policy, (&tx, &replies, &asks), events, spill_base);
        let engines = Engines::new(config, trust_path.clone(), options)?;
        Ok(Self {
            policy,
            backups: crate::mcp::backup::backup_dir(),
            engines: Arc::new(engines),
            agents: Agents::new(None, tx.clone(), replies.clone()),
            replies,
            asks,
            reload: None,
            hosts_home: None,
            policy_path: None,
            watch: None,
            sign_ins: HashMap::new(),
            tx,
            tokens: HashMap::new(),
            clipboard: Arc::default(),
            spill_index: Arc::default(),
            trust_path,
        })
    }

    /// The engine in force.
    pub fn engine(&self) -> Arc<Engine> {
        self.engines.current()
    }

    /// Hears every change to what the engine in force reports as status.
    pub fn status_changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.engines.status_changes()
    }

    /// Reads the configuration again with `reload` after the editor saves a file.
    pub fn set_reload(&mut self, reload: super::Reload) {
        self.reload = Some(std::sync::Arc::from(reload));
    }

    /// Watches every configuration layer the engine read or could read (files that do not
    /// exist yet included), the trust store and `policy_path`; a change arrives as
    /// [`Msg::FilesChanged`], and every reload reads `policy_path` again. Says how the files are
    /// watched, or why they are not.
    pub fn watch_files(&mut self, policy_path: PathBuf) -> Result<&'static str, String> {
        let mut files: Vec<PathBuf> = self
            .engine()
            .config()
            .files
            .iter()
            .map(|f| f.path.clone())
            .collect();
        files.push(self.trust_path.clone());
        files.push(policy_path.clone());
        self.policy_path = Some(policy_path);
        let tx = self.tx.clone();
        let watch = crate::mcp::config::watch::FileWatch::start(&files, move |changed| {
            let _ = tx.send(Msg::FilesChanged(changed));
        })
        .map_err(|e| format!("configuration files are not watched ({e}); F5 reloads"))?;
        let how = watch.how();
        self.watch = Some(watch);
        Ok(how)
    }

    /// What a rebuild on a blocking task needs.
    fn rebuild(&self) -> super::rebuild::Rebuild {
        super::rebuild::Rebuild {
            engines: self.engines.clone(),
            trust_path: self.trust_path.clone(),
            tx: self.tx.clone(),
            reload: self.reload.clone(),
        }
    }

    /// Keeps backups of saved files in `dir` instead of `$XDG_STATE_HOME/mcpdeck/backups/`.
    pub fn set_backup_dir(&mut self, dir: PathBuf) {
        self.backups = Some(dir);
    }

    /// Where backups go, or why there is no such place.
    fn backups(&self) -> Result<PathBuf, String> {
        self.backups
            .clone()
            .ok_or_else(|| "no place for a backup: set HOME or XDG_STATE_HOME".to_owned())
    }

    /// Attaches to agent sessions that appeared since the last look.
    pub fn discover_agents(&mut self) {
        self.agents.discover();
    }

    /// Looks for agent sessions in `dir` instead of the runtime directory.
    pub fn set_agents_dir(&mut self, dir: PathBuf) {
        self.agents = Agents::new(Some(dir), self.tx.clone(), self.replies.clone());
    }

    /// The configuration-derived views for the current trust store.
    pub fn info(&self) -> info::ConfigInfo {
        info::build(
            self.engine().config(),
            &TrustStore::load(self.trust_path.clone()),
        )
    }

    /// Bookkeeping before a message reaches the app: a finished request's token is dropped.
    pub fn observe(&mut self, msg: &Msg) {
        if let Msg::Done { id, .. } = msg {
            self.tokens.remove(id);
        }
    }

    /// Carries out one effect; `true` when the console should quit. [`Effect::Suspend`] is
    /// the loop's (it owns the terminal) and is ignored here.
    pub fn run(&mut self, effect: Effect) -> bool {
        match effect {
            Effect::Quit => return true,
            Effect::Answer {
                agent,
                ticket,
                decision,
            } => self.replies.answer(agent, ticket, decision),
            Effect::AnswerElicit { ticket, answer } => self.asks.elicit(ticket, answer),
            Effect::AnswerSample { ticket, answer } => self.asks.sample(ticket, answer),
            Effect::OpenUrl { server, url } => self.open_url(server, url),
            Effect::Suspend => {}
            Effect::ScanAgents => self.agents.scan(),
            Effect::TestConnect {
                path,
                layer,
                text,
                server,
            } => self.test_connect(&path, layer, &text, server.as_deref()),
            Effect::Hosts(effect) => self.run_hosts(effect),
            Effect::Auth(effect) => self.run_auth(effect),
            Effect::ReadStderr(server) => {
                let text = self.engine().stderr(&server);
                let _ = self.tx.send(Msg::Stderr { server, text });
            }
            Effect::Engine { .. } | Effect::Cancel(_) => self.run_engine(effect),
            Effect::DeleteSpill(_)
            | Effect::RefreshSpills
            | Effect::ReadSpill { .. }
            | Effect::OpenEditor { .. }
            | Effect::SaveConfig { .. }
            | Effect::Copy(_)
            | Effect::CopySpill { .. } => self.run_io(effect),
            Effect::AllowAlways { .. } | Effect::ReadPolicy(_) | Effect::RemoveRule { .. } => {
                self.run_policy(effect);
            }
            Effect::Reload { asked } => {
                let policy = self
                    .policy_path
                    .clone()
                    .map(|path| super::rebuild::PolicySource {
                        path,
                        shared: self.policy.clone(),
                    });
                super::rebuild::reload_live(self.rebuild(), policy, asked);
            }
            Effect::GrantTrust | Effect::RevokeTrust => {
                let grant = matches!(effect, Effect::GrantTrust);
                super::rebuild::change_trust(self.rebuild(), grant);
            }
        }
        false
    }

    /// The engine's work: each request (an agent's or the operator's, session controls
    /// included) runs in a spawned task, cancellable by its id.
    fn run_engine(&mut self, effect: Effect) {
        match effect {
            Effect::Engine { id, request } => {
                // The moment of asking is now, on the loop, in the order the operator asked:
                // a disconnect asked for after this request cancels it however the tasks run.
                let asked = self.engine().asked(&request);
                self.spawn(id, move |engine, token| async move {
                    engine.run_asked(&request, asked, &token).await
                });
            }
            Effect::Cancel(id) => {
                if let Some(token) = self.tokens.get(&id) {
                    token.cancel();
                }
            }
            _ => {}
        }
    }

    /// The policy file's effects: an "allow always" rule, a read, a removal; each runs off the
    /// loop thread and answers with a message.
    fn run_policy(&mut self, effect: Effect) {
        match effect {
            Effect::AllowAlways {
                agent,
                ticket,
                rule,
                policy,
            } => super::policy_io::allow_always(
                (self.replies.clone(), self.tx.clone(), self.policy.clone()),
                (agent, ticket),
                rule,
                (policy, self.backups()),
            ),
            Effect::ReadPolicy(path) => super::policy_io::read_later(self.tx.clone(), path),
            Effect::RemoveRule { policy, rule } => super::policy_io::remove(
                (self.tx.clone(), self.policy.clone()),
                rule,
                (policy, self.backups()),
            ),
            _ => {}
        }
    }

    /// Opens `url` in the operator's browser on a blocking task; the outcome reaches the
    /// server's log as a note.
    fn open_url(&self, server: String, url: String) {
        let tx = self.tx.clone();
        tokio::task::spawn_blocking(move || {
            let text = match crate::mcp::opener::open(&url) {
                Ok(how) => format!("the URL was opened with {how}"),
                Err(e) => format!("the URL could not be opened: {e}"),
            };
            let _ = tx.send(Msg::ClientNote { server, text });
        });
    }

    /// Runs `work` on the engine in a spawned task, cancellable as `id`; answers with
    /// [`Msg::Done`].
    fn spawn<F, Fut>(&mut self, id: ReqId, work: F)
    where
        F: FnOnce(Arc<Engine>, CancellationToken) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = crate::mcp::engine::Outcome> + Send + 'static,
    {
        let token = CancellationToken::new();
        self.tokens.insert(id, token.clone());
        let (engine, tx) = (self.engine(), self.tx.clone());
        tokio::spawn(async move {
            let outcome = work(engine, token).await;
            let _ = tx.send(Msg::Done {
                id,
                outcome: Box::new(outcome),
            });
        });
    }

    /// The effects that touch files or the clipboard: reads, writes and the clipboard run on
    /// blocking tasks and answer with messages.
    fn run_io(&mut self, effect: Effect) {
        match effect {
            Effect::DeleteSpill(basename) => {
                let (engines, tx) = (self.engines.clone(), self.tx.clone());
                tokio::task::spawn_blocking(move || {
                    let result = engines
                        .remove_spill(&basename)
                        .map(|()| format!("deleted spill {basename}"))
                        .map_err(|e| format!("cannot delete spill {basename}: {e}"));
                    let _ = tx.send(Msg::SpillDeleted(result));
                });
            }
            Effect::RefreshSpills => {
                let _ = self.tx.send(Msg::Spills(self.engines.spills()));
            }
            Effect::ReadSpill { path, at } => {
                let (tx, cache) = (self.tx.clone(), self.spill_index.clone());
                tokio::task::spawn_blocking(move || {
                    let window = super::spill_read::read_window(&cache, &path, &at);
                    let _ = tx.send(Msg::SpillPage { path, at, window });
                });
            }
            Effect::CopySpill { path, .. } => {
                let (clipboard, tx) = (self.clipboard.clone(), self.tx.clone());
                tokio::task::spawn_blocking(move || {
                    let result = super::spill_read::copy_spill(&clipboard, &path);
                    let _ = tx.send(Msg::SpillCopied(result));
                });
            }
            Effect::OpenEditor { path, layer } => {
                let tx = self.tx.clone();
                tokio::task::spawn_blocking(move || {
                    let text = match std::fs::read_to_string(&path) {
                        Ok(text) => Ok(text),
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
                        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
                    };
                    let _ = tx.send(Msg::EditorText { path, layer, text });
                });
            }
            Effect::SaveConfig { path, text } => {
                super::rebuild::save(self.rebuild(), path, text, self.backups());
            }
            Effect::Copy(text) => {
                let (clipboard, tx) = (self.clipboard.clone(), self.tx.clone());
                tokio::task::spawn_blocking(move || {
                    let result = match clipboard.lock() {
                        Ok(mut clipboard) => clipboard.copy(&text),
                        Err(_) => Err("the clipboard is unavailable".to_owned()),
                    };
                    let _ = tx.send(Msg::Copied(result));
                });
            }
            _ => {}
        }
    }

    /// Connects once to the edited, unsaved definition of `server` (trust rules apply). The
    /// trust store and the buffer are read on a blocking task, the connection made after.
    fn test_connect(
        &mut self,
        path: &Path,
        layer: crate::mcp::config::Layer,
        text: &str,
        server: Option<&str>,
    ) {
        let (engine, trust_path, tx) = (self.engine(), self.trust_path.clone(), self.tx.clone());
        let (path, text, server) = (
            path.to_path_buf(),
            text.to_owned(),
            server.map(str::to_owned),
        );
        tokio::spawn(async move {
            let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
            let found = tokio::task::spawn_blocking(move || {
                let trust = TrustStore::load(trust_path);
                crate::mcp::engine::test_connect::definition(
                    engine.config(),
                    &trust,
                    (&path, layer, &text),
                    server.as_deref(),
                )
            })
            .await
            .unwrap_or_else(|e| Err(format!("test connect failed: {e}")));
            let result = match found {
                Err(e) => Err(e),
                Ok(def) => crate::mcp::engine::test_connect::try_connect(def, &dir).await,
            };
            let _ = tx.send(Msg::TestConnected(result));
        });
    }

    /// Cancels everything and shuts every engine down (children killed, spills removed).
    pub async fn shutdown(&mut self) {
        self.watch = None;
        for token in self.tokens.values() {
            token.cancel();
        }
        self.engines.shutdown().await;
    }
}

/// The options of every engine the console builds: the console answers approvals and servers'
/// requests (roots, sampling, elicitation, tasks), hears every connection's events and traffic,
/// and applies the policy as it is when the engine is built.
fn engine_options(
    policy: &super::policy_io::SharedPolicy,
    (tx, replies, asks): (
        &mpsc::UnboundedSender<Msg>,
        &super::approver::Replies,
        &super::client::AskReplies,
    ),
    events: mpsc::Sender<ServerEvent>,
    spill_base: Option<PathBuf>,
) -> Box<crate::mcp::engine::OptionsFactory> {
    let (policy, tx, replies, asks) = (policy.clone(), tx.clone(), replies.clone(), asks.clone());
    Box::new(move || {
        let approver: Arc<dyn Approver> =
            Arc::new(ConsoleApprover::new(tx.clone(), replies.clone()));
        let client: Arc<dyn crate::mcp::client::ClientRequests> =
            Arc::new(super::client::ConsoleClient::new(tx.clone(), asks.clone()));
        EngineOptions {
            policy: policy
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .clone(),
            approver: Some(approver),
            spill_base: spill_base.clone(),
            events: Some(events.clone()),
            traffic: true,
            client: Some(client),
            pins: crate::mcp::pins::PinStore::user(),
            listen_lists: true,
            ..EngineOptions::default()
        }
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn save_keeps_the_mode_and_backs_up_outside_the_project() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().expect("tempdir");
        let project = dir.path().join("proj");
        let state = dir.path().join("state").join("mcpdeck").join("backups");
        std::fs::create_dir_all(&project).expect("mkdir");
        let path = project.join(".mcp.json");
        std::fs::write(&path, "old").expect("write");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).expect("chmod");
        let message = super::super::rebuild::save_config(&path, "new", &state).expect("save");
        assert!(message.contains("backup"), "{message}");
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "new");
        let mode = std::fs::metadata(&path).expect("meta").permissions().mode() & 0o777;
        assert_eq!(mode, 0o640, "the file keeps its mode");
        let beside: Vec<_> = std::fs::read_dir(&project)
            .expect("dir")
            .filter_map(Result::ok)
            .map(|e| e.file_name())
            .collect();
        assert_eq!(beside, [".mcp.json"], "nothing is left next to the file");
        let backups: Vec<_> = std::fs::read_dir(&state)
            .expect("backups")
            .filter_map(Result::ok)
            .collect();
        assert_eq!(backups.len(), 1);
        assert_eq!(
            std::fs::read_to_string(backups[0].path()).expect("read"),
            "old"
        );
        let fresh = project.join("new.json");
        super::super::rebuild::save_config(&fresh, "{}", &state).expect("save new");
        let mode = std::fs::metadata(&fresh)
            .expect("meta")
            .permissions()
            .mode()
            & 0o777;
        assert_eq!(mode, 0o600, "a new file is private");
    }
}
