//! `key=value` arguments for `mcpdeck prompt` (every value a string) and a call's `--meta`
//! entries. A call's own `key=value` words are typed by the engine, from the tool's input schema
//! (`mcp::arguments`).

use serde_json::{Map, Value};

/// The `--meta` entries of a call: `key=value` (a string) or `key:=JSON`, each key once (the
/// engine's one parser, which the console's form uses too).
pub fn meta_entries(raw: &[String]) -> Result<Map<String, Value>, String> {
    crate::mcp::engine::CallOptions::parse_meta(raw).map_err(|e| format!("--meta: {e}"))
}

fn checked_key(key: &str) -> Result<String, String> {
    if key.is_empty() {
        Err("an argument name is empty".to_owned())
    } else {
        Ok(key.to_owned())
    }
}

/// Parses prompt arguments: every value is a string.
pub fn prompt_arguments(
    raw: &[String],
) -> Result<std::collections::BTreeMap<String, String>, String> {
    let mut out = std::collections::BTreeMap::new();
    for arg in raw {
        let Some((key, value)) = arg.split_once('=') else {
            return Err(format!("`{arg}` is not key=value"));
        };
        if out.insert(checked_key(key)?, value.to_owned()).is_some() {
            return Err(format!("argument `{key}` is given twice"));
        }
    }
    Ok(out)
}
