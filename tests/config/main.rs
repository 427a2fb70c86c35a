//! Configuration: the loader's diagnostics (one fixture file per kind), `mcpdeck config`, project
//! trust and the agent hosts' config files. One test binary of the suite (CONTRIBUTING.md names
//! them all and says what goes where); each module below was its own binary before.

#[path = "../common/mod.rs"]
mod common;

mod cli_config;
mod cli_hosts;
mod cli_trust;
mod config_diagnostics;
