//! Catalogs: bounded discovery over pages, compact summaries, name flags,
//! deterministic search, `describe` and tool pinning. Pure functions over `rmcp::model` values:
//! nothing here talks to a server (the paging driver awaits a fetch the caller supplies), and
//! every server string is sanitised before it leaves.

pub mod describe;
pub mod paging;
pub mod pin;
pub mod search;
pub mod summary;
pub mod tools;
pub mod uri_template;

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
