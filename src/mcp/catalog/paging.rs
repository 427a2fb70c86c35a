//! Bounded pagination: drives a server's `*/list` pages through a caller-supplied
//! async fetch and refuses a repeated cursor, too many pages or too many entries. A partial
//! catalog is never returned as complete: hitting a bound is an error. This module never talks
//! to a server itself; the fetch closure does.

use std::collections::HashSet;
use std::fmt;

use crate::mcp::sanitize::sanitize_capped;

/// Which catalog is being listed, for error messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CatalogKind {
    /// `tools/list`.
    Tools,
    /// `resources/list`.
    Resources,
    /// `resources/templates/list`.
    ResourceTemplates,
    /// `prompts/list`.
    Prompts,
    /// `skills/list` (the skills extension).
    Skills,
}

impl fmt::Display for CatalogKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Tools => "tools",
            Self::Resources => "resources",
            Self::ResourceTemplates => "resource templates",
            Self::Prompts => "prompts",
            Self::Skills => "skills",
        })
    }
}

/// The bounds of one listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageLimits {
    /// Most pages fetched.
    pub max_pages: usize,
    /// Most entries accepted in total.
    pub max_entries: usize,
}

impl PageLimits {
    /// Tools: 100 pages, 10,000 tools.
    pub const TOOLS: Self = Self {
        max_pages: 100,
        max_entries: 10_000,
    };
    /// Resources and resource templates: 100 pages, 5,000 entries.
    pub const RESOURCES: Self = Self {
        max_pages: 100,
        max_entries: 5_000,
    };
    /// Prompts and skills: 100 pages, 5,000 entries.
    pub const PROMPTS: Self = Self {
        max_pages: 100,
        max_entries: 5_000,
    };

    /// Tasks (`tasks/list`): 100 pages, 10,000 tasks.
    pub const TASKS: Self = Self {
        max_pages: 100,
        max_entries: 10_000,
    };

    /// The documented limits for a catalog kind.
    pub fn for_kind(kind: CatalogKind) -> Self {
        match kind {
            CatalogKind::Tools => Self::TOOLS,
            CatalogKind::Resources | CatalogKind::ResourceTemplates => Self::RESOURCES,
            CatalogKind::Prompts | CatalogKind::Skills => Self::PROMPTS,
        }
    }
}

/// A discovery bound that was hit (error class `limit`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LimitError {
    /// The server returned a cursor it had already returned.
    #[error("{kind} listing stopped: the server repeated cursor `{cursor}` on page {page}")]
    RepeatedCursor {
        /// The catalog.
        kind: CatalogKind,
        /// The repeated cursor (sanitised, capped).
        cursor: String,
        /// The 1-based page that returned it.
        page: usize,
    },
    /// More pages than allowed.
    #[error("{kind} listing stopped: more than {max} pages")]
    TooManyPages {
        /// The catalog.
        kind: CatalogKind,
        /// The page bound.
        max: usize,
    },
    /// More entries than allowed.
    #[error("{kind} listing stopped: more than {max} entries")]
    TooManyEntries {
        /// The catalog.
        kind: CatalogKind,
        /// The entry bound.
        max: usize,
    },
}

/// Why a listing failed.
#[derive(Debug, thiserror::Error)]
pub enum PageError<E> {
    /// A bound was hit.
    #[error(transparent)]
    Limit(LimitError),
    /// The fetch itself failed.
    #[error("{0}")]
    Fetch(E),
}

/// Fetches every page through `fetch(cursor)` within `limits`, returning the whole catalog or
/// an error; never a partial catalog. An empty next cursor ends the listing, as no cursor does.
pub async fn collect_pages<T, E, F, Fut>(
    kind: CatalogKind,
    limits: PageLimits,
    mut fetch: F,
) -> Result<Vec<T>, PageError<E>>
where
    F: FnMut(Option<String>) -> Fut,
    Fut: Future<Output = Result<(Vec<T>, Option<String>), E>>,
{
    let mut seen: HashSet<String> = HashSet::new();
    let mut items = Vec::new();
    let mut cursor = None;
    for page in 1..=limits.max_pages {
        let (batch, next) = fetch(cursor.take()).await.map_err(PageError::Fetch)?;
        if items.len() + batch.len() > limits.max_entries {
            return Err(PageError::Limit(LimitError::TooManyEntries {
                kind,
                max: limits.max_entries,
            }));
        }
        items.extend(batch);
        match next {
            None => return Ok(items),
            Some(next) if next.is_empty() => return Ok(items),
            Some(next) if seen.contains(&next) => {
                return Err(PageError::Limit(LimitError::RepeatedCursor {
                    kind,
                    cursor: sanitize_capped(&next, 64),
                    page,
                }));
            }
            Some(next) => {
                seen.insert(next.clone());
                cursor = Some(next);
            }
        }
    }
    Err(PageError::Limit(LimitError::TooManyPages {
        kind,
        max: limits.max_pages,
    }))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    type Page = (Vec<u32>, Option<String>);
    type Outcome = Result<Vec<u32>, PageError<String>>;

    /// Runs the driver over scripted pages; returns the result and the cursors requested.
    fn run(limits: PageLimits, pages: impl Fn(usize) -> Page) -> (Outcome, Vec<Option<String>>) {
        let mut requested = Vec::new();
        let mut n = 0;
        let fut = collect_pages(CatalogKind::Tools, limits, |cursor| {
            requested.push(cursor);
            let page = pages(n);
            n += 1;
            std::future::ready(Ok::<_, String>(page))
        });
        let result = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(fut);
        (result, requested)
    }

    fn limit(result: Outcome) -> LimitError {
        match result {
            Err(PageError::Limit(e)) => e,
            other => panic!("expected a limit error, got {other:?}"),
        }
    }

    #[test]
    fn follows_cursors_to_the_end() {
        let (result, requested) = run(PageLimits::TOOLS, |n| {
            let next = (n < 2).then(|| format!("c{n}"));
            (vec![u32::try_from(n).unwrap()], next)
        });
        assert_eq!(result.unwrap(), vec![0, 1, 2]);
        assert_eq!(
            requested,
            vec![None, Some("c0".to_owned()), Some("c1".to_owned())]
        );
    }

    #[test]
    fn repeated_cursor_is_refused() {
        let (result, requested) = run(PageLimits::TOOLS, |n| {
            (vec![1], Some(if n == 0 { "a" } else { "b" }.to_owned()))
        });
        let err = limit(result);
        assert_eq!(
            err,
            LimitError::RepeatedCursor {
                kind: CatalogKind::Tools,
                cursor: "b".into(),
                page: 3
            }
        );
        assert!(err.to_string().contains("repeated cursor"));
        assert_eq!(requested.len(), 3);
    }

    #[test]
    fn endless_cursors_stop_at_the_page_bound() {
        let (result, requested) = run(PageLimits::TOOLS, |n| (vec![], Some(format!("c{n}"))));
        let err = limit(result);
        assert_eq!(
            err,
            LimitError::TooManyPages {
                kind: CatalogKind::Tools,
                max: 100
            }
        );
        assert!(err.to_string().contains("more than 100 pages"));
        assert_eq!(requested.len(), 100);
    }

    #[test]
    fn too_many_entries_is_refused_and_the_bound_itself_is_fine() {
        let page = |size: u32, pages: usize| {
            move |n: usize| {
                (
                    (0..size).collect(),
                    (n + 1 < pages).then(|| format!("c{n}")),
                )
            }
        };
        let (result, _) = run(PageLimits::TOOLS, page(100, 100));
        assert_eq!(result.unwrap().len(), 10_000);
        let (result, _) = run(PageLimits::RESOURCES, page(2_501, 2));
        let err = limit(result);
        assert_eq!(
            err,
            LimitError::TooManyEntries {
                kind: CatalogKind::Tools,
                max: 5_000
            }
        );
        assert!(err.to_string().contains("more than 5000 entries"));
        assert_eq!(
            PageLimits::for_kind(CatalogKind::Prompts),
            PageLimits::PROMPTS
        );
    }

    #[test]
    fn fetch_errors_pass_through() {
        let fut = collect_pages(CatalogKind::Prompts, PageLimits::PROMPTS, |_| {
            std::future::ready(Err::<(Vec<u32>, Option<String>), _>("boom".to_owned()))
        });
        let result = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(fut);
        assert!(matches!(result, Err(PageError::Fetch(e)) if e == "boom"));
    }
}
