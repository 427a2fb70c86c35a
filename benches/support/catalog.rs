//! A synthetic 10,000-tool catalog shaped like real servers: `service_verb_object` names
//! (20 services × 25 verbs × 20 objects), a title on every other tool and one- or two-sentence
//! descriptions drawn from a small vocabulary, so common words hit thousands of tools.

use std::sync::Arc;

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
pub fn tools() -> Vec<Tool> {
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
