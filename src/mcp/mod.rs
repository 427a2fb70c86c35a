//! The engine: configuration, trust, connections, the `mcp` proxy operations, results and
//! policy. No terminal crate is ever imported below this module (STYLE.md §1).

pub mod config;
pub mod connection;
pub mod sanitize;
pub mod status;
pub mod trust;
