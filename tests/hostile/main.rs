//! Hostile servers, clients and inputs: frames, messages, streams, processes, memory, secrets,
//! hostile configuration files, and the fuzzing generators. One test binary of the suite
//! (CONTRIBUTING.md names them all and says what goes where); each module below was its own binary
//! before.

#[path = "../common/mod.rs"]
mod common;
#[path = "../connection_support/mod.rs"]
mod connection_support;

mod config_hostile;
mod connection_hostile;
mod fuzz;
mod hostile_auto;
mod hostile_cli;
mod hostile_frames;
mod hostile_memory;
mod hostile_messages;
mod hostile_processes;
mod hostile_secrets;
mod hostile_streams;
