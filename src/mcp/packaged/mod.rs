//! Packaged servers and tool facades: servers compiled into mcpdeck and registered
//! in-process, never from a file or a peer.
//!
//! A [`PackagedRegistry`] holds descriptors ([`PackagedServer`]: an executable with immutable
//! arguments and an explicit environment; [`PackagedSelfServer`]: the running mcpdeck binary with
//! a fixed subcommand) and [`ToolFacade`]s (one fixed tool over one packaged server, a closed
//! schema per operation). It turns its servers into configuration entries of
//! [`Layer::Packaged`](crate::mcp::config::Layer::Packaged) that win name collisions with files,
//! and maps a validated facade call to exactly one `(server, remote tool, arguments)`. This module
//! never connects, never spawns and never reads a file.

mod descriptor;
mod facade;
mod registry;
#[cfg(test)]
mod tests;

#[cfg(test)]
pub(crate) use descriptor::{PACKAGED_SOURCE, PackagedDescriptor, PackagedServer};
pub(crate) use descriptor::{PackagedSelfServer, Presence};
#[cfg(test)]
pub(crate) use facade::FacadeCall;
pub(crate) use facade::{FacadeOperation, ToolFacade};
pub(crate) use registry::{PackagedError, PackagedRegistry};

/// The name of the built-in demo server.
pub(crate) const DEMO_SERVER: &str = "demo";

/// The built-in demo server: `mcpdeck demo-server` (see [`crate::demo`]).
pub(crate) fn demo_server() -> PackagedSelfServer {
    PackagedSelfServer {
        name: DEMO_SERVER.to_owned(),
        subcommand_args: vec!["demo-server".to_owned()],
        sandbox: None,
    }
}
