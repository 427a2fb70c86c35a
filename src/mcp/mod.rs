//! The engine: configuration, trust, connections, the `mcp` proxy operations, results and
//! policy. No terminal crate is ever imported below this module.

pub mod api;
pub mod auth;
pub mod backup;
pub mod canonical;
pub mod catalog;
pub mod client;
pub mod clock;
pub mod config;
pub mod connection;
pub mod control;
pub mod engine;
pub mod hosts;
pub mod line_reader;
pub mod packaged;
pub mod policy;
pub mod proxy;
pub mod results;
pub mod sanitize;
pub mod status;
pub mod trust;
