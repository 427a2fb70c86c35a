//! Results: converting server content into model-visible text within the
//! bounds, spills for what does not fit or is binary, untrusted-data wrapping, opaque resource
//! references and the secret redactor. Nothing here performs network IO or draws; the engine
//! hands in what the server returned and gets back text plus spill entries.

pub(crate) mod annotations;
pub(crate) mod bounded;
pub(crate) mod content;
pub(crate) mod links;
pub(crate) mod raw;
pub(crate) mod reads;
pub(crate) mod redact;
pub(crate) mod refs;
pub(crate) mod shape;
pub(crate) mod spill;
pub(crate) mod structured;
pub(crate) mod untrusted;

pub use annotations::{BlockAnnotations, ContentAnnotations};
pub(crate) use bounded::BoundedText;
pub use bounded::{MAX_VISIBLE_BYTES, Overflow};
pub use content::ShapeContext;
pub use links::ResourceLinkRef;
pub use raw::{RAW_INLINE_BYTES, RawJson, keep_raw};
pub use reads::{ResultLimit, ShapeError, shape_prompt, shape_resource_read};
pub use redact::{LiveSecrets, Redactor};
pub use refs::RefError;
pub(crate) use refs::{RefKey, ResourceRefs, is_resource_reference};
pub use shape::{MAX_ERROR_TEXT_BYTES, ShapedResult, shape_tool_result};
pub(crate) use spill::default_base;
pub use spill::index::{LINE_CAP, LineIndex, SpillWindow, search as search_spill};
pub use spill::{SpillDir, SpillEntry, SpillWriter, SweepReport, sweep};
pub use structured::OutputVerdict;
