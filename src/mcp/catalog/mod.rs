//! Catalogs: bounded discovery over pages, compact summaries, name flags,
//! deterministic search, `describe`, tool pinning and skills' verification. Pure functions over `rmcp::model` values:
//! nothing here talks to a server (the paging driver awaits a fetch the caller supplies), and
//! every server string is sanitised before it leaves.

pub(crate) mod describe;
pub(crate) mod paging;
pub(crate) mod pin;
pub(crate) mod search;
pub(crate) mod skills;
pub(crate) mod summary;
pub(crate) mod tools;
pub(crate) mod uri_template;
mod yaml;

pub use describe::ToolDescription;
pub use paging::{CatalogKind, LimitError, PageError, PageLimits, collect_pages};
pub(crate) use pin::PinSet;
pub use search::MatchRank;
pub use skills::{SkillFile, SkillFileRead, SkillList, SkillRead, SkillSummary};
pub use summary::{
    NameFlag, PromptArgumentSummary, PromptSummary, ResourceSummary, ToolSummary, first_line,
};
pub(crate) use summary::{check_prompt_arguments, summarize_prompt, summarize_resources};
pub use tools::{ListedTool, ToolCatalog};
pub use uri_template::VarValue;
