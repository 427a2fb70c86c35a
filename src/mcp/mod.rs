//! The engine: configuration, trust, connections, the `mcp` proxy operations, results and
//! policy. No terminal crate is ever imported below this module.
//!
//! The public API is what the faces outside this crate (the binary, the integration tests, the
//! benches) build on: the types re-exported here, and what each `pub` module below re-exports
//! from its own files (`pub use`). Every file below a module is `pub(crate)`, so a deep path such
//! as `connection::stdio::MINIMAL_ENV` is not part of the API; `connection::MINIMAL_ENV` is.
//! `unreachable_pub` catches a `pub` item nobody outside can reach, and `unnameable_types` a
//! type the API hands out without re-exporting it. `ARCHITECTURE.md` lists the API.

#![warn(unreachable_pub, unnameable_types)]

pub mod api;
pub mod arguments;
pub(crate) mod auth;
pub(crate) mod backup;
pub mod bench;
pub(crate) mod canonical;
pub mod catalog;
pub mod client;
pub(crate) mod clock;
pub mod config;
pub mod connection;
pub mod control;
pub mod cost;
pub mod engine;
// The hosts' and packaged servers' types appear in the console's, the CLI's and the workspace
// server's own public items; they are named there, through `crate::mcp`, not by outside crates.
#[allow(unnameable_types)]
pub(crate) mod hosts;
pub mod line_reader;
pub mod line_transport;
pub mod lint;
pub mod opener;
#[allow(unnameable_types)]
pub(crate) mod packaged;
pub mod pending;
pub mod pins;
pub mod policy;
pub mod proxy;
pub mod results;
pub mod sandbox;
pub mod sanitize;
pub mod scan;
pub mod server_stdio;
pub mod status;
pub mod status_row;
pub mod trust;

pub use api::OpResult;
pub use config::{ConfigSet, LoadOptions};
pub use engine::{Engine, EngineOptions, EngineRequest, OperatorOp, Outcome, Success};
pub use policy::Policy;
pub use proxy::ProxyRequest;
pub use trust::TrustStore;
