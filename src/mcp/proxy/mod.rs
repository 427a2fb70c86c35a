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
pub use request::{ProxyRequest, check_server, parse_request};
pub use schema::{TOOL_DESCRIPTION, request_schema};
