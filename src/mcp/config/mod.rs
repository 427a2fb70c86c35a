//! Configuration: the five files, their precedence, the strict schema, environment references
//! and diagnostics. Loading never writes a file, never resolves a reference and never
//! spawns anything.

pub(crate) mod diagnostic;
pub(crate) mod fields;
pub(crate) mod json;
pub(crate) mod json_schema;
pub(crate) mod load;
pub(crate) mod model;
pub(crate) mod oauth;
mod outline;
pub(crate) mod raw;
pub(crate) mod refs;
pub(crate) mod save;
pub(crate) mod schema;
mod server_def;
mod server_options;

pub(crate) use diagnostic::Counts;
pub use diagnostic::{Diagnostic, Severity};
pub(crate) use load::Effective;
pub use load::{ConfigSet, LoadOptions, read_file};
pub(crate) use model::Source;
pub use model::{HttpDef, Layer, ProtocolChoice, ReconnectPolicy, ServerDef, StdioDef, Transport};
pub(crate) use oauth::OAuthDef;
pub use refs::{MissingEnv, Part, RefError, Template};
pub(crate) use schema::ServerEntry;
pub use schema::parse_file;
