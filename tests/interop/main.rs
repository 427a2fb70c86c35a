//! Interoperability with other implementations: the npm reference servers through the CLI, the
//! client side and the connection layer. One test binary of the suite (CONTRIBUTING.md names them
//! all and says what goes where); each module below was its own binary before.

#[path = "../common/mod.rs"]
mod common;
#[path = "../connection_support/mod.rs"]
mod connection_support;

mod conformance_auth;
mod conformance_harness;
mod connection_interop;
mod interop_cli;
mod interop_client;
mod interop_sandbox;
mod modern_python;
mod tasks_python;
