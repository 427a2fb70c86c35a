//! The engine: configuration, trust, connections, the `mcp` proxy operations, results and
//! policy. No terminal crate is ever imported below this module.
//!
//! The public API is what the faces outside this crate (the binary, the integration tests, the
//! benches) build on: the types re-exported here, and the modules declared `pub` below.
//! Everything else is `pub(crate)`; `ARCHITECTURE.md` lists the API.

#![warn(unreachable_pub, unnameable_types)]

pub mod api;
pub(crate) mod auth;
pub(crate) mod backup;
pub(crate) mod canonical;
pub mod catalog;
pub mod client;
pub(crate) mod clock;
pub mod config;
pub mod connection;
pub mod control;
pub mod engine;
pub(crate) mod hosts;
pub mod line_reader;
pub(crate) mod packaged;
pub mod policy;
pub mod proxy;
pub mod results;
pub mod sanitize;
pub mod status;
pub mod trust;

pub use api::OpResult;
pub use config::{ConfigSet, LoadOptions};
pub use engine::{Engine, EngineOptions, OperatorOp, Outcome, Success};
pub use policy::Policy;
pub use proxy::ProxyRequest;
pub use trust::TrustStore;
