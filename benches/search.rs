//! Search over a 10,000-tool catalog (SPEC.md §12: ≤ 1 ms per query).
//!
//! The catalog is synthetic but shaped like real servers: `service_verb_object` names
//! (20 services × 25 verbs × 20 objects), a title on every other tool and one- or two-sentence
//! descriptions drawn from a small vocabulary, so common words hit thousands of tools. Queries
//! cover the ranks of SPEC.md §5.3 and the expensive cases: an exact name, a name prefix, a
//! multi-term query, a word in most descriptions, and a query matching nothing.

#[path = "support/mod.rs"]
mod support;

use std::hint::black_box;
use std::sync::Arc;

use criterion::{BatchSize, Criterion};
use mcpdeck::mcp::catalog::ToolCatalog;
use rmcp::model::{JsonObject, Tool};
use serde_json::json;

const SERVICES: [&str; 20] = [
    "github",
    "gitlab",
    "jira",
    "linear",
    "slack",
    "notion",
    "confluence",
    "sentry",
    "datadog",
    "stripe",
    "shopify",
    "salesforce",
    "zendesk",
    "hubspot",
    "figma",
    "vercel",
    "aws",
    "gcp",
    "postgres",
    "redis",
];
const VERBS: [&str; 25] = [
    "list", "get", "create", "update", "delete", "search", "archive", "restore", "assign",
    "comment", "label", "merge", "close", "reopen", "export", "import", "sync", "watch", "unwatch",
    "pin", "unpin", "move", "copy", "lock", "unlock",
];
const OBJECTS: [&str; 20] = [
    "issue",
    "pull_request",
    "branch",
    "commit",
    "release",
    "project",
    "board",
    "ticket",
    "channel",
    "message",
    "page",
    "document",
    "alert",
    "dashboard",
    "invoice",
    "customer",
    "order",
    "deployment",
    "bucket",
    "table",
];
const PHRASES: [&str; 8] = [
    "Requires a token with write access to the workspace.",
    "Results are paginated; pass the cursor from the previous call to continue.",
    "Returns the updated record as JSON, including its identifier and timestamps.",
    "Only the repository owner or an administrator may do this.",
    "Fails with a not-found error when the identifier does not exist.",
    "Use the search tool first to find the identifier you need.",
    "This operation is rate limited to thirty requests per minute.",
    "Respects the retention policy configured for the organisation.",
];

fn schema() -> Arc<JsonObject> {
    let serde_json::Value::Object(map) = json!({
        "type": "object",
        "properties": {"id": {"type": "string"}, "limit": {"type": "integer"}},
        "required": ["id"]
    }) else {
        unreachable!("a JSON object literal")
    };
    Arc::new(map)
}

/// 10,000 distinct tools, deterministic.
fn tools() -> Vec<Tool> {
    let schema = schema();
    let mut tools = Vec::with_capacity(10_000);
    for (s, service) in SERVICES.iter().enumerate() {
        for (v, verb) in VERBS.iter().enumerate() {
            for (o, object) in OBJECTS.iter().enumerate() {
                let n = s * 500 + v * 20 + o;
                let name = format!("{service}_{verb}_{object}");
                let thing = object.replace('_', " ");
                let description = format!(
                    "{} a {thing} in {service}. {} {}",
                    capitalise(verb),
                    PHRASES[n % PHRASES.len()],
                    PHRASES[(n / 7) % PHRASES.len()],
                );
                let mut tool = Tool::new(name, description, schema.clone());
                if n % 2 == 0 {
                    tool = tool.with_title(format!("{} {thing} ({service})", capitalise(verb)));
                }
                tools.push(tool);
            }
        }
    }
    tools
}

fn capitalise(word: &str) -> String {
    let mut chars = word.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_uppercase().chain(chars).collect()
    })
}

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
