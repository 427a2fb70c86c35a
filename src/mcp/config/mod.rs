//! Configuration: the five files, their precedence, the strict schema, environment references
//! and diagnostics (SPEC.md §2). Loading never writes a file, never resolves a reference and never
//! spawns anything.

pub mod model;
pub mod refs;

pub use model::{
    HttpDef, Layer, ProtocolChoice, ReconnectPolicy, ServerDef, Source, StdioDef, Transport,
};
pub use refs::{MissingEnv, Template};
