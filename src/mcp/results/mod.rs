//! Results (SPEC.md §5.4–§5.5): converting server content into model-visible text within the
//! bounds, spills for what does not fit or is binary, untrusted-data wrapping, opaque resource
//! references and the secret redactor. Nothing here performs network IO or draws; the engine
//! hands in what the server returned and gets back text plus spill entries.

pub mod redact;
pub mod refs;
pub mod spill;

pub use redact::Redactor;
pub use refs::{RefError, RefKey, ResourceRefs, is_resource_reference};
pub use spill::{SpillDir, SpillEntry, SpillWriter, SweepReport, default_base, sweep};
