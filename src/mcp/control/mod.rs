//! The control socket between `mcpdeck serve` sessions and consoles: status
//! snapshots and approval requests/decisions only, never tool arguments or results.

pub(crate) mod client;
pub(crate) mod hub;
pub(crate) mod protocol;

pub(crate) use client::socket_dir;
pub use client::{ControlClient, list_sockets};
pub use hub::ControlHub;
pub use protocol::{FromConsole, ServerSnapshot, SessionSnapshot, ToConsole};
