//! Search over a 10,000-tool catalog (the bar: at most 1 ms per query).
//!
//! The catalog is synthetic but shaped like real servers (`support/catalog.rs`). Queries
//! cover every rank of the search (see `mcp::catalog::search`) and the expensive cases: an exact name, a name prefix, a
//! multi-term query, a word in most descriptions, and a query matching nothing.

#[path = "support/mod.rs"]
mod support;

use criterion::{BatchSize, Criterion};
use mcpdeck::mcp::catalog::ToolCatalog;
use std::hint::black_box;
use support::catalog::tools;

fn bench_search(c: &mut Criterion) {
    let tools = tools();
    let catalog = ToolCatalog::new(1, tools.clone());
    assert_eq!(catalog.len(), 10_000);
    let queries = [
        ("exact_name", "jira_assign_ticket"),
        ("name_prefix", "github_create"),
        ("multi_term", "create pull request github"),
        ("common_word", "identifier"),
        ("no_match", "kubernetes"),
    ];
    let mut group = c.benchmark_group("search_10k_tools");
    for (label, query) in queries {
        group.bench_function(label, |b| b.iter(|| catalog.search(black_box(query)).len()));
    }
    group.finish();
    // Building the catalog (summaries, flags, index) happens once per listing; shown for scale.
    c.bench_function("build_catalog_10k_tools", |b| {
        b.iter_batched(
            || tools.clone(),
            |tools| ToolCatalog::new(1, tools).len(),
            BatchSize::LargeInput,
        );
    });
}

fn main() {
    let mut c = support::criterion();
    bench_search(&mut c);
    c.final_summary();
}
