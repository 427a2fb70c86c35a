//! The `mcp` proxy tool's request side: the closed request schema, parsing a
//! request into one typed shape, and the normalized operation names that policy, approvals,
//! traces and the CLI share. This module only parses and names; it never connects, dispatches or
//! decides policy.

pub(crate) mod error;
pub(crate) mod operation;
pub(crate) mod request;
pub(crate) mod schema;

pub use error::{RequestError, UnknownField};
pub use operation::{NormalizedOperation, ParseOperationError};
pub(crate) use request::check_server;
pub use request::{ProxyRequest, parse_request};
pub(crate) use schema::{TOOL_DESCRIPTION, request_schema};
