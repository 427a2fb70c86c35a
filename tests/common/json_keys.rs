//! Key spelling in mcpdeck's JSON output: every key of its own is camelCase, as in MCP.

use serde_json::Value;

/// Every object key in `value`, at any depth, that is not camelCase (a leading `_`, as in MCP's
/// `_meta`, is allowed), as `path.key`.
pub fn not_camel_case(value: &Value) -> Vec<String> {
    let mut found = Vec::new();
    walk(value, "$", &mut found);
    found
}

fn walk(value: &Value, path: &str, found: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                let at = format!("{path}.{key}");
                if !is_camel_case(key) {
                    found.push(at.clone());
                }
                walk(inner, &at, found);
            }
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                walk(item, &format!("{path}[{i}]"), found);
            }
        }
        _ => {}
    }
}

fn is_camel_case(key: &str) -> bool {
    let bare = key.strip_prefix('_').unwrap_or(key);
    bare.starts_with(|c: char| c.is_ascii_lowercase())
        && bare.chars().all(|c| c.is_ascii_alphanumeric())
}
