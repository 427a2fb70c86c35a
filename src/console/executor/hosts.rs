//! The Hosts view's effects, each on a blocking task: reading other hosts' files,
//! test-connecting one host's server through the engine's connection code with the trust rules
//! applied, and importing into mcpdeck's own file through the same planning and atomic write as
//! `mcpdeck hosts import`. Another host's files are only read.

use std::fmt::Write as _;
use std::path::PathBuf;

use super::Executor;
use crate::app::Msg;
use crate::app::hosts::{Answer, HostsEffect, HostsMsg, ImportPreview, ImportTo};
use crate::app::hosts_data;
use crate::mcp::config::{ConfigSet, Layer};
use crate::mcp::hosts::convert::Places;
use crate::mcp::hosts::import::{ImportPlan, plan};
use crate::mcp::hosts::probe::{prepare, try_connect};
use crate::mcp::hosts::{HostEnv, HostId, read, read_all};
use crate::mcp::trust::TrustStore;

impl Executor {
    /// Looks for other hosts' files under `home` (as `$HOME`, with `home/.config` as
    /// `$XDG_CONFIG_HOME`) instead of the process environment's.
    pub fn set_hosts_home(&mut self, home: PathBuf) {
        self.hosts_home = Some(home);
    }

    /// Where other hosts' files are, for this project.
    fn host_env(&self) -> HostEnv {
        let mut env = HostEnv::from_process(&self.engine().config().project_root);
        if let Some(home) = &self.hosts_home {
            env.config_home = Some(home.join(".config"));
            env.home = Some(home.clone());
            env.overrides.clear();
        }
        env
    }

    /// Carries out one of the Hosts view's effects.
    pub(super) fn run_hosts(&mut self, effect: HostsEffect) {
        match effect {
            HostsEffect::Read => self.read_hosts(),
            HostsEffect::Connect {
                host,
                server,
                answers,
            } => self.host_connect(host, &server, &answers),
            HostsEffect::Plan { host, server, to } => {
                let (engine, env, tx) = (self.engine(), self.host_env(), self.tx.clone());
                tokio::task::spawn_blocking(move || {
                    let planned = import_plan(engine.config(), &env, host, &server, to)
                        .map(|plan| ImportPreview::of(&plan, &server, to));
                    let _ = tx.send(Msg::Hosts(HostsMsg::Planned(planned)));
                });
            }
            HostsEffect::Write { preview } => self.host_import(preview),
        }
    }

    fn read_hosts(&self) {
        let config = self.engine().config().clone();
        let env = self.host_env();
        let tx = self.tx.clone();
        tokio::task::spawn_blocking(move || {
            let reports = read_all(&env);
            let data = hosts_data::build(&config, &reports, &env);
            let _ = tx.send(Msg::Hosts(HostsMsg::Data(Box::new(data))));
        });
    }

    /// Reads the host's file and the trust store on a blocking task, then connects.
    fn host_connect(&self, host: HostId, server: &str, answers: &[(String, Answer)]) {
        let (engine, env, tx) = (self.engine(), self.host_env(), self.tx.clone());
        let (trust_path, name, answers) =
            (self.trust_path.clone(), server.to_owned(), answers.to_vec());
        tokio::spawn(async move {
            let prepared = tokio::task::spawn_blocking(move || {
                let trust = TrustStore::load(trust_path).state(engine.config());
                prepare_connect(host, &name, &answers, trust, &env).map(|p| (p, name))
            })
            .await
            .unwrap_or_else(|e| Err(format!("the connection could not be prepared: {e}")));
            let result = match prepared {
                Err(why) => Err(why),
                Ok((prepared, name)) => {
                    let source = prepared.source.clone();
                    match try_connect(prepared).await {
                        Ok(found) => Ok(found.describe(host, &name, &source)),
                        Err(e) => Err(format!("{} `{name}` ({source}): {e}", host.id())),
                    }
                }
            };
            let _ = tx.send(Msg::Hosts(HostsMsg::Connected(result)));
        });
    }

    /// Plans the import again, writes it when it still matches the preview the operator saw,
    /// reloads the configuration and reads the hosts again, all on a blocking task.
    fn host_import(&self, preview: ImportPreview) {
        let (engine, env, tx) = (self.engine(), self.host_env(), self.tx.clone());
        let (backups, rebuild) = (self.backups(), self.rebuild());
        tokio::task::spawn_blocking(move || {
            let config = engine.config();
            let result = import_plan(config, &env, preview.host, &preview.server, preview.to)
                .and_then(|plan| {
                    if ImportPreview::of(&plan, &preview.server, preview.to) != preview {
                        return Err("the files changed since the preview; nothing written — \
                                    import again to see the new preview"
                            .to_owned());
                    }
                    plan.write(&backups?)
                })
                .map(|backup| imported(&preview, backup, super::super::rebuild::reload(rebuild)));
            let _ = tx.send(Msg::Hosts(HostsMsg::Imported(result)));
            let data = hosts_data::build(config, &read_all(&env), &env);
            let _ = tx.send(Msg::Hosts(HostsMsg::Data(Box::new(data))));
        });
    }
}

/// What an import that wrote `preview` says: where, the backup, and whether it was reloaded.
fn imported(preview: &ImportPreview, backup: Option<PathBuf>, reloaded: bool) -> String {
    let mut done = format!("imported `{}` into {}", preview.server, preview.path);
    if let Some(b) = backup {
        let _ = write!(done, "; backup at {}", b.display());
    }
    if preview.to == ImportTo::Project {
        done.push_str("; project servers stay inert until the project is trusted");
    }
    if reloaded {
        done.push_str("; configuration reloaded");
    } else {
        done.push_str("; restart mcpdeck to use it");
    }
    done
}

/// Reads `server` of `host` afresh and prepares its connection with the operator's `answers`
/// and the project's `trust`; a refusal in words.
fn prepare_connect(
    host: HostId,
    server: &str,
    answers: &[(String, Answer)],
    trust: crate::mcp::trust::TrustState,
    env: &HostEnv,
) -> Result<crate::mcp::hosts::probe::Prepared, String> {
    let report = read(host, env);
    let Some(effective) = report.server(server) else {
        return Err(format!("{} no longer defines `{server}`", host.name()));
    };
    let places = Places {
        project: &env.project,
        home: env.home.as_deref(),
    };
    let mut answer = |id: &str| {
        answers
            .iter()
            .find(|(k, _)| k == id)
            .map(|(_, Answer(v))| v.clone())
            .filter(|v| !v.is_empty())
    };
    prepare(host, effective, trust, &places, &mut answer).map_err(|mut refusal| {
        if refusal.class == crate::mcp::connection::ErrorClass::Untrusted {
            refusal
                .message
                .push_str(" (here: the trust view, then a typed y)");
        }
        refusal.message
    })
}

/// mcpdeck's file an import writes to, and its layer.
fn target(config: &ConfigSet, to: ImportTo) -> Result<(PathBuf, Layer), String> {
    let layer = match to {
        ImportTo::User => Layer::User,
        ImportTo::Project => Layer::ProjectDeck,
    };
    config
        .files
        .iter()
        .find(|f| f.layer == layer)
        .map(|f| (f.path.clone(), layer))
        .ok_or_else(|| {
            "mcpdeck has no user configuration directory here ($XDG_CONFIG_HOME or $HOME)"
                .to_owned()
        })
}

/// Plans importing `server` of `host`, reading the host's files afresh.
fn import_plan(
    config: &ConfigSet,
    env: &HostEnv,
    host: HostId,
    server: &str,
    to: ImportTo,
) -> Result<ImportPlan, String> {
    let report = read(host, env);
    let places = Places {
        project: &env.project,
        home: env.home.as_deref(),
    };
    let (path, layer) = target(config, to)?;
    plan(&report, &[server.to_owned()], (&path, layer), &places).map_err(|e| e.message)
}
