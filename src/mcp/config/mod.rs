//! Configuration: the five files, their precedence, the strict schema, environment references
//! and diagnostics. Loading never writes a file, never resolves a reference and never
//! spawns anything.

pub mod diagnostic;
pub mod fields;
pub mod json;
pub mod json_schema;
pub mod load;
pub mod model;
pub mod oauth;
mod outline;
pub mod raw;
pub mod refs;
pub mod schema;
mod server_def;
mod server_options;

pub use diagnostic::{Counts, Diagnostic, Severity};
pub use load::{ConfigFile, ConfigSet, Effective, LoadError, LoadOptions};
pub use model::{
    HttpDef, Layer, ProtocolChoice, ReconnectPolicy, ServerDef, Source, StdioDef, Transport,
};
pub use oauth::OAuthDef;
pub use raw::RawDef;
pub use refs::{MissingEnv, Template};
pub use schema::ServerEntry;
