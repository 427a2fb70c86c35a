//! Configuration: the five files, their precedence, the strict schema, environment references
//! and diagnostics. Loading never writes a file, never resolves a reference and never
//! spawns anything.

pub(crate) mod diagnostic;
pub(crate) mod fields;
pub(crate) mod json;
pub(crate) mod json_schema;
mod last_good;
pub(crate) mod load;
pub(crate) mod model;
pub(crate) mod oauth;
mod outline;
pub(crate) mod raw;
pub(crate) mod refs;
mod sandbox_check;
pub(crate) mod schema;
pub(crate) mod secret_shape;
mod server_def;
mod server_options;
mod span_tree;
pub mod watch;

pub use diagnostic::{Counts, Diagnostic, Severity};
pub use load::{ConfigFile, ConfigSet, Effective, LoadError, LoadOptions, read_file};
pub use model::{
    HttpDef, Layer, ProtocolChoice, ReconnectPolicy, ServerDef, Source, StdioDef, Transport,
};
pub use oauth::{Grant, OAuthDef};
pub use raw::RawDef;
pub use refs::{MissingEnv, Part, RefError, Resolved, Template};
pub(crate) use sandbox_check::{SANDBOX_FIELDS, sandbox_summary};
pub use schema::{FileParse, ServerEntry, parse_file};
