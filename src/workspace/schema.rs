//! The four tools' closed input schemas (JSON Schema 2020-12) with every limit the tools enforce,
//! and argument validation against them.
//!
//! The `workspace` property is an `enum` of the bound aliases, so an unknown alias is invalid
//! arguments like any other out-of-range value. Validation happens here, before any producer
//! runs; producers may then rely on every bound.

use serde_json::{Value, json};

/// `workspace_find`.
pub const FIND: &str = "workspace_find";
/// `workspace_query`.
pub const QUERY: &str = "workspace_query";
/// `workspace_check`.
pub const CHECK: &str = "workspace_check";
/// `workspace_capsule`.
pub const CAPSULE: &str = "workspace_capsule";
/// Every tool, in listing order.
pub const TOOLS: [&str; 4] = [FIND, QUERY, CHECK, CAPSULE];

/// `question`/`text` length in characters.
pub const MAX_TEXT_CHARS: u64 = 4096;
/// Default `limit`.
pub const DEFAULT_LIMIT: u64 = 8;
/// Default `budget` (words).
pub const DEFAULT_BUDGET: u64 = 1200;
/// Default `snippet_chars`.
pub const DEFAULT_SNIPPET: u64 = 160;
/// Default `max_claims`.
pub const DEFAULT_CLAIMS: u64 = 24;

/// The tools' descriptions, in [`TOOLS`] order.
pub const DESCRIPTIONS: [&str; 4] = [
    "Find the passages of a bound workspace that answer a question: BM25 over heading/paragraph \
     chunks of admitted files, whole passages ranked best first until the word budget is used. \
     Each passage has its workspace-relative path, line range, score and text.",
    "Query a bound workspace's typed graph: nodes are admitted files with a kind (markdown, rust, \
     json, toml, yaml, python, typescript, javascript, shell, text, mcp-config), edges are \
     relative links and includes. Filter by type, path glob/prefix and edge (links_to:PATH, \
     linked_from:PATH); each match has path, kind, line and a snippet. `*` matches every node.",
    "Validate a bound workspace without repairing anything: MCP config files with mcpdeck's own \
     config diagnostics, JSON/TOML/YAML syntax, broken relative Markdown links; `strict` adds \
     warnings for unpinned npx packages and literal credentials in config files.",
    "Build a privacy-projected task capsule for a question: one-sentence claims from the most \
     relevant passages with path, line range and the SHA-256 of each source passage (never the \
     passage), the workspace fingerprint and the capsule's integrity hash.",
];

fn workspace(aliases: &[String]) -> Value {
    json!({"type": "string", "enum": aliases, "description": "The workspace alias."})
}

fn text(description: &str) -> Value {
    json!({"type": "string", "minLength": 1, "maxLength": MAX_TEXT_CHARS, "description": description})
}

fn list(max_chars: u64, item: Value, description: &str) -> Value {
    let mut item = item;
    if let Some(o) = item.as_object_mut() {
        o.insert("maxLength".into(), json!(max_chars));
        o.entry("type").or_insert(json!("string"));
        o.entry("minLength").or_insert(json!(1));
    }
    json!({"type": "array", "items": item, "maxItems": 16, "uniqueItems": true,
        "description": description})
}

fn closed(properties: &Value, required: &[&str]) -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

/// The properties (field schemas) of `tool`'s input, for facades; `None` for an unknown tool.
pub fn fields(tool: &str, aliases: &[String]) -> Option<Value> {
    let limit = json!({"type": "integer", "minimum": 1, "maximum": 20, "default": DEFAULT_LIMIT,
        "description": "How many results at most."});
    Some(match tool {
        FIND => json!({
            "workspace": workspace(aliases),
            "question": text("What to find, in words."),
            "limit": limit,
            "budget": {"type": "integer", "minimum": 64, "maximum": 4000,
                "default": DEFAULT_BUDGET, "description": "Word budget for the passages."},
        }),
        QUERY => json!({
            "workspace": workspace(aliases),
            "text": text("Words to match in paths and lines; `*` matches every node."),
            "limit": limit,
            "type_filters": list(128, json!({"enum": super::graph::KINDS}), "Only these kinds."),
            "path_filters": list(512, json!({}), "Only paths under these prefixes or matching these globs."),
            "edge_filters": list(256, json!({"pattern": "^(links_to|linked_from):.+$"}),
                "`links_to:PATH` or `linked_from:PATH` (all must hold)."),
            "snippet_chars": {"type": "integer", "minimum": 0, "maximum": 1000,
                "default": DEFAULT_SNIPPET, "description": "Snippet length in characters."},
            "explain": {"type": "boolean", "default": false,
                "description": "Say why each node matched."},
        }),
        CHECK => json!({
            "workspace": workspace(aliases),
            "paths": {"type": "array", "maxItems": 200, "uniqueItems": true,
                "items": {"type": "string", "minLength": 1, "maxLength": 512},
                "description": "Only these workspace-relative files (default: every admitted file)."},
            "strict": {"type": "boolean", "default": false,
                "description": "Add warnings: unpinned npx packages, literal credentials."},
        }),
        CAPSULE => json!({
            "workspace": workspace(aliases),
            "question": text("The task or question the capsule is for."),
            "max_claims": {"type": "integer", "minimum": 0, "maximum": 24,
                "default": DEFAULT_CLAIMS, "description": "How many claims at most."},
        }),
        _ => return None,
    })
}

/// The required fields of `tool`.
pub fn required(tool: &str) -> &'static [&'static str] {
    match tool {
        FIND | CAPSULE => &["workspace", "question"],
        QUERY => &["workspace", "text"],
        _ => &["workspace"],
    }
}

/// `tool`'s closed input schema.
pub fn input_schema(tool: &str, aliases: &[String]) -> Option<Value> {
    fields(tool, aliases).map(|f| closed(&f, required(tool)))
}

/// Compiled validators for the four tools.
pub struct Validators {
    compiled: Vec<(&'static str, jsonschema::Validator)>,
}

impl std::fmt::Debug for Validators {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Validators").finish_non_exhaustive()
    }
}

impl Validators {
    /// Compiles every tool's schema for these aliases.
    pub fn new(aliases: &[String]) -> Result<Self, String> {
        let mut compiled = Vec::new();
        for tool in TOOLS {
            let schema = input_schema(tool, aliases).ok_or("unknown tool")?;
            let v = jsonschema::draft202012::new(&schema).map_err(|e| e.to_string())?;
            compiled.push((tool, v));
        }
        Ok(Self { compiled })
    }

    /// Every violation of `tool`'s schema by `args` (at most eight), empty when valid.
    pub fn check(&self, tool: &str, args: &Value) -> Vec<String> {
        let Some((_, v)) = self.compiled.iter().find(|(t, _)| *t == tool) else {
            return vec!["unknown tool".into()];
        };
        v.iter_errors(args)
            .take(8)
            .map(|e| {
                let path = e.instance_path().to_string();
                let path = if path.is_empty() {
                    "/".to_owned()
                } else {
                    path
                };
                format!("{path}: {}", e.masked())
            })
            .collect()
    }
}
