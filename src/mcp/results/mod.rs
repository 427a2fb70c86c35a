//! Results: converting server content into model-visible text within the
//! bounds, spills for what does not fit or is binary, untrusted-data wrapping, opaque resource
//! references and the secret redactor. Nothing here performs network IO or draws; the engine
//! hands in what the server returned and gets back text plus spill entries.

pub(crate) mod bounded;
pub(crate) mod content;
pub(crate) mod links;
pub(crate) mod reads;
pub(crate) mod redact;
pub(crate) mod refs;
pub(crate) mod shape;
pub(crate) mod spill;
pub(crate) mod structured;
pub(crate) mod untrusted;

pub use bounded::{
    BoundedOutput, BoundedText, MAX_VISIBLE_BYTES, MAX_VISIBLE_LINES, Overflow, PREVIEW_BYTES,
    PREVIEW_LINES,
};
pub use content::{MediaKind, ShapeContext, is_textual, uri_origin};
pub use reads::{
    MAX_PROMPT_MESSAGES, MAX_RESPONSE_BYTES, ResultLimit, ShapeError, shape_prompt,
    shape_resource_read,
};
pub use redact::Redactor;
pub use refs::{RefError, RefKey, ResourceRefs, is_resource_reference};
pub use shape::{MAX_ERROR_TEXT_BYTES, ShapedResult, shape_tool_result};
pub use spill::{SpillDir, SpillEntry, SpillWriter, SweepReport, default_base, sweep};
pub use structured::{OutputVerdict, check_output};
pub use untrusted::{DataKind, escape_markers, wrap_untrusted};
