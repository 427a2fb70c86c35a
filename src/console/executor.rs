//! Carries out the app's [`Effect`]s. Engine requests run in spawned tasks and come back as
//! [`Msg::Done`] with their id; nothing here blocks the loop on network IO. Trust changes
//! rebuild the engine from the same configuration (old connections are shut down) so inert
//! project servers become usable without restarting the console.

mod auth;
mod hosts;

use std::collections::HashMap;
use std::io::{Read as _, Seek as _, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::agents::Agents;
use super::approver::ConsoleApprover;
use super::clipboard::Clipboard;
use crate::app::{Effect, Msg, PAGER_WINDOW, ReqId, info};
use crate::mcp::config::ConfigSet;
use crate::mcp::connection::ServerEvent;
use crate::mcp::engine::{Engine, EngineOptions};
use crate::mcp::policy::{Approver, Policy};
use crate::mcp::trust::TrustStore;

/// The effect executor and what it needs.
pub struct Executor {
    /// The engine (replaced when trust changes).
    pub engine: Arc<Engine>,
    tx: mpsc::UnboundedSender<Msg>,
    tokens: HashMap<ReqId, CancellationToken>,
    /// Shared with the blocking task a copy runs on (the system clipboard can block).
    clipboard: Arc<std::sync::Mutex<Clipboard>>,
    config: ConfigSet,
    trust_path: PathBuf,
    events: mpsc::Sender<ServerEvent>,
    spill_base: Option<PathBuf>,
    policy: Policy,
    agents: Agents,
    /// The senders of approvals waiting for the operator.
    replies: super::approver::Replies,
    /// The senders of servers' requests (elicitation, sampling) waiting for the operator.
    asks: super::client::AskReplies,
    /// Reads the configuration again (after a save or before a trust change).
    reload: Option<super::Reload>,
    /// Engines replaced this session: their connections are closed, their spills kept until
    /// the console exits.
    retired: Vec<Arc<Engine>>,
    /// Servers whose definition changed since the console started.
    changed: std::collections::BTreeSet<String>,
    /// Where other hosts' files are looked for instead of `$HOME` (tests).
    hosts_home: Option<PathBuf>,
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
        let engine = build_engine(
            &config,
            &trust_path,
            &policy,
            (&tx, &replies, &asks),
            &events,
            spill_base.clone(),
            &std::collections::BTreeSet::new(),
        )?;
        Ok(Self {
            policy,
            engine: Arc::new(engine),
            agents: Agents::new(None, tx.clone(), replies.clone()),
            replies,
            asks,
            reload: None,
            retired: Vec::new(),
            changed: std::collections::BTreeSet::new(),
            hosts_home: None,
            sign_ins: HashMap::new(),
            tx,
            tokens: HashMap::new(),
            clipboard: Arc::default(),
            config,
            trust_path,
            events,
            spill_base,
        })
    }

    /// Reads the configuration again with `reload` after the editor saves a file.
    pub fn set_reload(&mut self, reload: super::Reload) {
        self.reload = Some(reload);
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
        info::build(&self.config, &TrustStore::load(self.trust_path.clone()))
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
            Effect::OpenUrl { server, url } => {
                let tx = self.tx.clone();
                tokio::task::spawn_blocking(move || {
                    let text = match super::browser::open(&url) {
                        Ok(how) => format!("the URL was opened with {how}"),
                        Err(e) => format!("the URL could not be opened: {e}"),
                    };
                    let _ = tx.send(Msg::ClientNote { server, text });
                });
            }
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
                let text = self.engine.stderr(&server);
                let _ = self.tx.send(Msg::Stderr { server, text });
            }
            Effect::Execute { id, request } => {
                let token = CancellationToken::new();
                self.tokens.insert(id, token.clone());
                let engine = self.engine.clone();
                let tx = self.tx.clone();
                tokio::spawn(async move {
                    let outcome = engine.execute(&request, &token).await;
                    let _ = tx.send(Msg::Done {
                        id,
                        outcome: Box::new(outcome),
                    });
                });
            }
            Effect::CallTask {
                id,
                server,
                tool,
                args,
            } => {
                let build = move |_: Option<&serde_json::Value>| Ok(args.clone());
                self.spawn(id, move |engine, token| async move {
                    engine
                        .call_typed_as(&server, &tool, &build, true, &token)
                        .await
                });
            }
            Effect::Operate { id, server, op } => {
                self.spawn(id, move |engine, token| async move {
                    engine.operate(&server, &op, &token).await
                });
            }
            Effect::Cancel(id) => {
                if let Some(token) = self.tokens.get(&id) {
                    token.cancel();
                }
            }
            Effect::RefreshStatus => {
                let _ = self.tx.send(Msg::Status(Box::new(self.engine.status())));
            }
            Effect::DeleteSpill(_)
            | Effect::RefreshSpills
            | Effect::ReadSpill { .. }
            | Effect::OpenEditor { .. }
            | Effect::SaveConfig { .. }
            | Effect::Copy(_) => self.run_io(effect),
            Effect::GrantTrust | Effect::RevokeTrust => {
                let grant = matches!(effect, Effect::GrantTrust);
                let result = self.change_trust(grant);
                let _ = self.tx.send(Msg::Info(Box::new(self.info())));
                let _ = self.tx.send(Msg::TrustChanged(result));
            }
        }
        false
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
        let (engine, tx) = (self.engine.clone(), self.tx.clone());
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
                let owner = std::iter::once(&self.engine)
                    .chain(&self.retired)
                    .find(|e| e.spills().iter().any(|s| s.basename == basename));
                let result = owner
                    .map_or_else(
                        || Err(std::io::Error::from(std::io::ErrorKind::NotFound)),
                        |e| e.remove_spill(&basename),
                    )
                    .map(|()| format!("deleted spill {basename}"))
                    .map_err(|e| format!("cannot delete spill {basename}: {e}"));
                let _ = self.tx.send(Msg::SpillDeleted(result));
            }
            Effect::RefreshSpills => {
                let mut spills = self.engine.spills();
                spills.extend(self.retired.iter().flat_map(|e| e.spills()));
                let _ = self.tx.send(Msg::Spills(spills));
            }
            Effect::ReadSpill { path, offset } => {
                let tx = self.tx.clone();
                tokio::task::spawn_blocking(move || {
                    let (size, text) = match read_window(&path, offset) {
                        Ok((size, text)) => (size, Ok(text)),
                        Err(e) => (0, Err(format!("reading the spill failed: {e}"))),
                    };
                    let _ = tx.send(Msg::SpillPage {
                        path,
                        offset,
                        size,
                        text,
                    });
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
                let saved = save_config(&path, &text).map(|m| match self.reload_config() {
                    Ok(true) => format!("{m}; configuration reloaded"),
                    Ok(false) => format!("{m}; restart mcpdeck to apply"),
                    Err(e) => format!("{m}; reloading failed ({e}); restart mcpdeck to apply"),
                });
                let _ = self.tx.send(Msg::Saved(saved));
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

    /// Connects once to the edited, unsaved definition of `server` (trust rules apply).
    fn test_connect(
        &mut self,
        path: &Path,
        layer: crate::mcp::config::Layer,
        text: &str,
        server: Option<&str>,
    ) {
        let trust = TrustStore::load(self.trust_path.clone());
        let found =
            super::test_connect::definition(&self.config, &trust, (path, layer, text), server);
        let tx = self.tx.clone();
        match found {
            Err(e) => {
                let _ = tx.send(Msg::TestConnected(Err(e)));
            }
            Ok(def) => {
                let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
                tokio::spawn(async move {
                    let result = super::test_connect::try_connect(def, &dir).await;
                    let _ = tx.send(Msg::TestConnected(result));
                });
            }
        }
    }

    /// Reads the configuration again and restarts the engine over it; `false` when this
    /// executor cannot reload.
    fn reload_config(&mut self) -> Result<bool, String> {
        let Some(reload) = &self.reload else {
            return Ok(false);
        };
        let config = reload()?;
        self.changed.extend(changed_servers(&self.config, &config));
        self.config = config;
        self.replace_engine()?;
        let _ = self.tx.send(Msg::Info(Box::new(self.info())));
        let _ = self.tx.send(Msg::Status(Box::new(self.engine.status())));
        Ok(true)
    }

    /// A new engine over the current configuration and trust store; the old one's connections
    /// close and its spills stay until exit.
    fn replace_engine(&mut self) -> Result<(), String> {
        let engine = build_engine(
            &self.config,
            &self.trust_path,
            &self.policy,
            (&self.tx, &self.replies, &self.asks),
            &self.events,
            self.spill_base.clone(),
            &self.changed,
        )
        .map_err(|e| format!("restarting the engine failed: {e}"))?;
        let old = std::mem::replace(&mut self.engine, Arc::new(engine));
        let closing = old.clone();
        tokio::spawn(async move { closing.close_connections().await });
        self.retired.push(old);
        Ok(())
    }

    fn change_trust(&mut self, grant: bool) -> Result<String, String> {
        // Trust what is on disk now, not what was read at start.
        if let Some(reload) = &self.reload {
            let config = reload()?;
            self.changed.extend(changed_servers(&self.config, &config));
            self.config = config;
        }
        let mut store = TrustStore::load(self.trust_path.clone());
        let message = if grant {
            store.grant(&self.config).map_err(|e| e.to_string())?;
            "project trusted".to_owned()
        } else {
            match store.revoke(&self.config.project_root) {
                Ok(true) => "trust revoked".to_owned(),
                Ok(false) => "the project was not trusted".to_owned(),
                Err(e) => return Err(e.to_string()),
            }
        };
        self.replace_engine()?;
        Ok(message)
    }

    /// Cancels everything and shuts every engine down (children killed, spills removed).
    pub async fn shutdown(&mut self) {
        for token in self.tokens.values() {
            token.cancel();
        }
        self.engine.shutdown().await;
        for engine in self.retired.drain(..) {
            engine.shutdown().await;
        }
    }
}

fn build_engine(
    config: &ConfigSet,
    trust_path: &Path,
    policy: &Policy,
    (tx, replies, asks): (
        &mpsc::UnboundedSender<Msg>,
        &super::approver::Replies,
        &super::client::AskReplies,
    ),
    events: &mpsc::Sender<ServerEvent>,
    spill_base: Option<PathBuf>,
    changed: &std::collections::BTreeSet<String>,
) -> std::io::Result<Engine> {
    let approver: Arc<dyn Approver> = Arc::new(ConsoleApprover::new(tx.clone(), replies.clone()));
    // The console declares roots, sampling, elicitation and tasks: the operator answers.
    let client: Arc<dyn crate::mcp::client::ClientRequests> =
        Arc::new(super::client::ConsoleClient::new(tx.clone(), asks.clone()));
    Engine::new(
        config.clone(),
        TrustStore::load(trust_path.to_path_buf()),
        EngineOptions {
            policy: policy.clone(),
            approver: Some(approver),
            spill_base,
            events: Some(events.clone()),
            traffic: true,
            changed_servers: changed.clone(),
            client: Some(client),
            ..EngineOptions::default()
        },
    )
}

/// The names whose effective definition differs between `old` and `new` (or that only `new`
/// has).
fn changed_servers(old: &ConfigSet, new: &ConfigSet) -> Vec<String> {
    new.servers
        .iter()
        .filter(|n| {
            !old.servers
                .iter()
                .any(|o| o.entry.name == n.entry.name && o.entry.raw == n.entry.raw)
        })
        .map(|n| n.entry.name.clone())
        .collect()
}

/// Reads one pager window: the file's size and up to [`PAGER_WINDOW`] bytes from `offset`.
fn read_window(path: &Path, offset: u64) -> std::io::Result<(u64, String)> {
    let mut file = std::fs::File::open(path)?;
    let size = file.metadata()?.len();
    file.seek(SeekFrom::Start(offset.min(size)))?;
    let mut buf = Vec::new();
    file.take(PAGER_WINDOW).read_to_end(&mut buf)?;
    // A binary spill (an image) is described, never shown as bytes.
    if offset == 0
        && let Some(description) = super::binary::describe(&buf, size)
    {
        return Ok((size, description));
    }
    Ok((size, String::from_utf8_lossy(&buf).into_owned()))
}

/// Writes `text` to `path` atomically (a temp file in the same directory, then rename), after
/// copying the previous content to `<name>.bak-<UTC timestamp>`.
fn save_config(path: &Path, text: &str) -> Result<String, String> {
    Ok(
        match crate::mcp::config::save::save_with_backup(path, text)? {
            Some(b) => format!("saved; backup at {}", b.display()),
            None => "saved".to_owned(),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_servers_are_the_edited_and_the_added() {
        use crate::mcp::config::Layer;
        use crate::mcp::config::load::read_file;
        let dir = tempfile::tempdir().expect("tempdir");
        let config = |text: &str| {
            let file = dir.path().join("mcp.json");
            std::fs::write(&file, text).expect("write");
            ConfigSet::from_files(
                dir.path().to_path_buf(),
                vec![read_file(Layer::User, file, true)],
            )
        };
        let old = config(r#"{"mcpServers": {"a": {"command": "x"}, "b": {"command": "y"}}}"#);
        let new = config(
            r#"{"mcpServers": {"a": {"command": "x"}, "b": {"command": "z"}, "c": {"command": "w"}}}"#,
        );
        assert_eq!(changed_servers(&old, &new), ["b", "c"]);
        assert!(changed_servers(&new, &new).is_empty());
    }

    #[test]
    fn save_backs_up_and_replaces() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("mcp.json");
        std::fs::write(&path, "old").expect("write");
        let message = save_config(&path, "new").expect("save");
        assert!(message.contains("backup"));
        assert_eq!(std::fs::read_to_string(&path).expect("read"), "new");
        let backups: Vec<_> = std::fs::read_dir(dir.path())
            .expect("dir")
            .filter_map(Result::ok)
            .filter(|e| e.file_name().to_string_lossy().starts_with("mcp.json.bak-"))
            .collect();
        assert_eq!(backups.len(), 1);
        assert_eq!(
            std::fs::read_to_string(backups[0].path()).expect("read"),
            "old"
        );
    }
}
