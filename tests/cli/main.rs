//! The `mcpdeck` binary run through `assert_cmd`: operations, results, policy, packaged servers,
//! OAuth sign-in and the keychain, help and docs, the README sync guard, and the console end-to-end
//! in tmux (here, not in `console`: no test in this binary runs an engine in its own process, so
//! nothing reaps tmux's daemonised server). One test binary of the suite (CONTRIBUTING.md names
//! them all and says what goes where); each module below was its own binary before.

#[path = "../common/mod.rs"]
mod common;

mod auth_tokens_unseen;
mod cli_auth;
mod cli_auth_headless;
mod cli_auth_request;
mod cli_client;
mod cli_docs;
mod cli_help;
mod cli_keychain;
mod cli_lint;
mod cli_ops;
mod cli_packaged;
mod cli_pins;
mod cli_policy;
mod cli_results;
mod cli_scan;
mod console_tmux;
mod readme_sync;
