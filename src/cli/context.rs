//! What every command starts from: the layered configuration (with the packaged servers on
//! top) and the trust store, and what the console needs from the command line.

use std::path::PathBuf;

use super::{Cli, Exit, client_tty, output};
use crate::mcp::config::{ConfigSet, LoadOptions, load::config_home};
use crate::mcp::trust::TrustStore;

/// What every command starts from: the loaded configuration and trust store.
pub struct Context {
    /// Every configuration file and the effective servers.
    pub config: ConfigSet,
    /// The trust store.
    pub trust: TrustStore,
    /// `$XDG_CONFIG_HOME` (where the policy file lives).
    pub config_home: PathBuf,
    /// `--login`: sign in inline when a server asks for it.
    pub login: bool,
    /// `--root`, `--elicit`, `--sampling-reply`.
    pub client: client_tty::ClientFlags,
}

/// Loads every configuration file for `cwd` and `extra` files, with the packaged servers on
/// top (the demo one too when `demo` or when no file defines a server).
pub(super) fn load_config(
    cwd: Option<&std::path::Path>,
    extra: Vec<PathBuf>,
    demo: bool,
) -> Result<(ConfigSet, LoadOptions), String> {
    let options = LoadOptions::from_env(cwd, extra)
        .map_err(|e| format!("cannot read the current directory: {e}"))?;
    let config = ConfigSet::load(&options).map_err(|e| e.to_string())?;
    let root = options
        .project_dir
        .canonicalize()
        .unwrap_or_else(|_| options.project_dir.clone());
    let registry =
        crate::workspace::packaged::registry_for_project(&root).map_err(|e| e.to_string())?;
    Ok((registry.layer_onto(config, demo), options))
}

impl Context {
    pub(super) fn load(cli: &Cli) -> Result<Self, String> {
        let (config, options) = load_config(cli.cwd.as_deref(), cli.config.clone(), cli.demo)?;
        let home = options
            .config_home
            .or_else(config_home)
            .ok_or("no home directory: set HOME or XDG_CONFIG_HOME")?;
        let trust = TrustStore::load(TrustStore::default_path(&home));
        Ok(Self {
            config,
            trust,
            config_home: home,
            login: cli.login,
            client: cli.client.clone(),
        })
    }
}

/// What the console needs from the command line: the loaded configuration, where trust and
/// policy live, and how to read the configuration again after its editor saves a file.
pub struct ConsoleSetup {
    /// The layered configuration.
    pub config: ConfigSet,
    /// The trust store's file.
    pub trust_path: PathBuf,
    /// The policy file (`keys.toml` lives beside it).
    pub policy_path: PathBuf,
    /// Loads the same files again.
    pub reload: Box<dyn Fn() -> Result<ConfigSet, String> + Send + Sync>,
}

/// Loads what the console needs for `cli` (run without a command); on failure the error is
/// printed and the exit code returned.
pub fn console_setup(cli: &Cli) -> Result<ConsoleSetup, Exit> {
    let cx = Context::load(cli).map_err(|message| {
        output::print_error(&message);
        Exit::Usage
    })?;
    let (cwd, extra, demo) = (cli.cwd.clone(), cli.config.clone(), cli.demo);
    Ok(ConsoleSetup {
        trust_path: cx.trust.path().to_path_buf(),
        policy_path: crate::mcp::policy::Policy::default_path(&cx.config_home),
        config: cx.config,
        reload: Box::new(move || {
            load_config(cwd.as_deref(), extra.clone(), demo).map(|(config, _)| config)
        }),
    })
}
