//! Catalogs: bounded discovery over pages, compact summaries, name flags,
//! deterministic search, `describe` and tool pinning. Pure functions over `rmcp::model` values:
//! nothing here talks to a server (the paging driver awaits a fetch the caller supplies), and
//! every server string is sanitised before it leaves.

pub(crate) mod describe;
pub(crate) mod paging;
pub(crate) mod pin;
pub(crate) mod search;
pub(crate) mod summary;
pub(crate) mod tools;
pub(crate) mod uri_template;

pub use describe::{ToolDescription, describe_tool, sanitize_json};
pub use paging::{CatalogKind, LimitError, PageError, PageLimits, collect_pages};
pub use pin::{PinSet, ToolPin, canonical_json, pin_tool};
pub use search::{MAX_SEARCH_RESULTS, MatchRank, SearchHit, ToolIndex, query_terms};
pub use summary::{
    NameFlag, PromptArgumentError, PromptArgumentSummary, PromptSummary, ResourceSummary,
    SUMMARY_DESCRIPTION_CHARS, ToolSummary, check_prompt_arguments, first_line, is_valid_tool_name,
    name_flags, summarize_prompt, summarize_resource, summarize_resources, summarize_tools,
};
pub use tools::ToolCatalog;
