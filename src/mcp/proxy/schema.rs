//! The closed JSON Schema (2020-12) of the `mcp` tool's input (SPEC.md §5.1), for serve mode's
//! tool listing and for validating requests up front. It describes fields and types only; which
//! combinations form a valid shape is enforced by [`super::parse_request`].

use serde_json::{Value, json};

use super::request::{MAX_NAME_BYTES, MAX_QUERY_BYTES, OPERATION_VALUES};

/// The request schema: an object with `additionalProperties: false`.
pub fn request_schema() -> Value {
    let name = |description: &str| {
        json!({"type": "string", "minLength": 1, "maxLength": MAX_NAME_BYTES,
               "description": description})
    };
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "server": name("A configured server's name. Omit for status."),
            "operation": {
                "type": "string",
                "enum": OPERATION_VALUES,
                "description": "An operation other than search, describe and call."
            },
            "search": {
                "type": "string", "minLength": 1, "maxLength": MAX_QUERY_BYTES,
                "description": "Search the server's tools (at most 20 matches)."
            },
            "describe": name("A tool whose full schemas to return."),
            "tool": name("A tool to call once, with `args`."),
            "args": {
                "type": "object",
                "description": "The tool call's arguments (default {})."
            },
            "resource": {
                "type": "string",
                "pattern": "^mcp-resource-[0-9a-f]{32}$",
                "description": "A reference from resources.list, for resources.read."
            },
            "prompt": name("A prompt to get, for prompts.get."),
            "arguments": {
                "type": "object",
                "additionalProperties": {"type": "string"},
                "description": "String arguments for prompts.get."
            }
        }
    })
}
