//! The engine driven directly (no CLI): stdio and Streamable HTTP connections against
//! `mcpdeck-fixture`, the engine façade and its client operations, result shaping and spills, error
//! messages in words, and the property tests. One test binary of the suite (CONTRIBUTING.md names
//! them all and says what goes where); each module below was its own binary before.

#[path = "../common/mod.rs"]
mod common;
#[path = "../connection_support/mod.rs"]
mod connection_support;

mod connection_http;
mod connection_stdio;
mod engine;
mod engine_client_ops;
mod messages_in_words;
mod policy_table;
mod props;
mod raw_frames;
mod results_shape;
mod results_spill_sweep;
mod scan_measure;
