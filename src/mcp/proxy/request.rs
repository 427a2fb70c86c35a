//! Parsing the `mcp` tool's request JSON into exactly one typed shape.
//!
//! The parser is total: any JSON value yields either a [`ProxyRequest`] or a [`RequestError`]
//! whose message names the offending fields, never a panic. It checks shape only (fields, types,
//! combinations, the reference format); whether a server is configured, a tool exists or an
//! argument fits a schema is for the engine. Agent-supplied text quoted in errors is sanitised
//! and capped.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

pub(crate) use super::error::{RequestError, UnknownField};
use super::operation::NormalizedOperation;
use crate::mcp::results::refs::is_resource_reference;
use crate::mcp::sanitize::sanitize_capped;

/// Every field a request may carry.
pub(crate) const KNOWN_FIELDS: [&str; 9] = [
    "server",
    "operation",
    "search",
    "describe",
    "tool",
    "args",
    "resource",
    "prompt",
    "arguments",
];

/// Values `operation` accepts.
pub(crate) const OPERATION_VALUES: [&str; 7] = [
    "status",
    "tools.list",
    "resources.list",
    "resources.read",
    "prompts.list",
    "prompts.get",
    "reconnect",
];

/// Longest accepted `server`, `describe`, `tool` or `prompt` value, in bytes.
pub(crate) const MAX_NAME_BYTES: usize = 1024;
/// Longest accepted `search` query, in bytes.
pub(crate) const MAX_QUERY_BYTES: usize = 1024;
/// How much of an agent-supplied string an error message quotes.
const QUOTE_BYTES: usize = 64;

/// Common misnamings that string distance would not catch.
const ALIASES: [(&str, &str); 10] = [
    ("query", "search"),
    ("q", "search"),
    ("params", "args"),
    ("parameters", "args"),
    ("input", "args"),
    ("uri", "resource"),
    ("name", "tool"),
    ("op", "operation"),
    ("method", "operation"),
    ("serverName", "server"),
];

/// One request to the `mcp` tool, in exactly one shape.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProxyRequest {
    /// `{}` or `{"operation":"status"}`: status of every server; never connects.
    Status,
    /// `{"server":"s"}` or `{"server":"s","operation":"tools.list"}`.
    ToolsList {
        /// The configured server's name.
        server: String,
    },
    /// `{"server":"s","search":"q"}`: at most 20 matches.
    ToolsSearch {
        /// The configured server's name.
        server: String,
        /// The query as given (terms split by the search).
        query: String,
    },
    /// `{"server":"s","describe":"tool"}`: one tool's full definition.
    ToolsDescribe {
        /// The configured server's name.
        server: String,
        /// The tool to describe.
        tool: String,
    },
    /// `{"server":"s","tool":"t","args":{...}}`: call once; `args` defaults to `{}`.
    ToolsCall {
        /// The configured server's name.
        server: String,
        /// The tool to call.
        tool: String,
        /// The call's arguments object.
        args: Map<String, Value>,
    },
    /// `{"server":"s","operation":"resources.list"}`.
    ResourcesList {
        /// The configured server's name.
        server: String,
    },
    /// `{"server":"s","operation":"resources.read","resource":"mcp-resource-…"}`.
    ResourcesRead {
        /// The configured server's name.
        server: String,
        /// The opaque reference from `resources.list`.
        reference: String,
    },
    /// `{"server":"s","operation":"prompts.list"}`.
    PromptsList {
        /// The configured server's name.
        server: String,
    },
    /// `{"server":"s","operation":"prompts.get","prompt":"p","arguments":{...}}`.
    PromptsGet {
        /// The configured server's name.
        server: String,
        /// The prompt to get.
        prompt: String,
        /// String-valued prompt arguments; default empty.
        arguments: BTreeMap<String, String>,
    },
    /// `{"server":"s","operation":"reconnect"}`.
    Reconnect {
        /// The configured server's name.
        server: String,
    },
}

impl ProxyRequest {
    /// The normalized operation this request performs.
    pub fn operation(&self) -> NormalizedOperation {
        match self {
            Self::Status => NormalizedOperation::Status,
            Self::ToolsList { .. } => NormalizedOperation::ToolsList,
            Self::ToolsSearch { .. } => NormalizedOperation::ToolsSearch,
            Self::ToolsDescribe { .. } => NormalizedOperation::ToolsDescribe,
            Self::ToolsCall { tool, .. } => NormalizedOperation::ToolsCall { tool: tool.clone() },
            Self::ResourcesList { .. } => NormalizedOperation::ResourcesList,
            Self::ResourcesRead { .. } => NormalizedOperation::ResourcesRead,
            Self::PromptsList { .. } => NormalizedOperation::PromptsList,
            Self::PromptsGet { prompt, .. } => NormalizedOperation::PromptsGet {
                prompt: prompt.clone(),
            },
            Self::Reconnect { .. } => NormalizedOperation::Reconnect,
        }
    }

    /// The server the request names; `None` only for status.
    pub fn server(&self) -> Option<&str> {
        match self {
            Self::Status => None,
            Self::ToolsList { server }
            | Self::ToolsSearch { server, .. }
            | Self::ToolsDescribe { server, .. }
            | Self::ToolsCall { server, .. }
            | Self::ResourcesList { server }
            | Self::ResourcesRead { server, .. }
            | Self::PromptsList { server }
            | Self::PromptsGet { server, .. }
            | Self::Reconnect { server } => Some(server),
        }
    }

    /// The canonical JSON of this request; [`parse_request`] maps it back to `self`.
    pub fn to_json(&self) -> Value {
        let mut out = Map::new();
        if let Some(server) = self.server() {
            out.insert("server".into(), Value::String(server.to_owned()));
        }
        let mut put = |key: &str, value: Value| {
            out.insert(key.to_owned(), value);
        };
        match self {
            Self::Status | Self::ToolsList { .. } => {}
            Self::ToolsSearch { query, .. } => put("search", query.as_str().into()),
            Self::ToolsDescribe { tool, .. } => put("describe", tool.as_str().into()),
            Self::ToolsCall { tool, args, .. } => {
                put("tool", tool.as_str().into());
                put("args", Value::Object(args.clone()));
            }
            Self::ResourcesList { .. } => put("operation", "resources.list".into()),
            Self::ResourcesRead { reference, .. } => {
                put("operation", "resources.read".into());
                put("resource", reference.as_str().into());
            }
            Self::PromptsList { .. } => put("operation", "prompts.list".into()),
            Self::PromptsGet {
                prompt, arguments, ..
            } => {
                put("operation", "prompts.get".into());
                put("prompt", prompt.as_str().into());
                let args = arguments
                    .iter()
                    .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                    .collect();
                put("arguments", Value::Object(args));
            }
            Self::Reconnect { .. } => put("operation", "reconnect".into()),
        }
        Value::Object(out)
    }
}

/// The JSON type name of a value, for error messages.
pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn quote(text: &str) -> String {
    sanitize_capped(text, QUOTE_BYTES)
}

fn suggest(given: &str, candidates: &[&'static str]) -> Option<&'static str> {
    if let Some((_, to)) = ALIASES.iter().find(|(from, _)| *from == given) {
        return Some(to);
    }
    nearest(given, candidates.iter().copied())
}

/// The candidate most similar to `given` (Jaro-Winkler ≥ 0.8), first on ties.
fn nearest<'c>(given: &str, candidates: impl IntoIterator<Item = &'c str>) -> Option<&'c str> {
    let given = given.to_ascii_lowercase();
    let mut best: Option<(f64, &str)> = None;
    for candidate in candidates {
        let score = strsim::jaro_winkler(&given, &candidate.to_ascii_lowercase());
        if score >= 0.8 && best.is_none_or(|(b, _)| score > b) {
            best = Some((score, candidate));
        }
    }
    best.map(|(_, c)| c)
}

/// Checks that a request's server (None: it names none, like `status`) is one of `configured`;
/// the error lists them (sanitised).
pub(crate) fn check_server<'c>(
    server: Option<&str>,
    configured: impl IntoIterator<Item = &'c str>,
) -> Result<(), RequestError> {
    let Some(server) = server else {
        return Ok(());
    };
    let mut names: Vec<&str> = configured.into_iter().collect();
    if names.contains(&server) {
        return Ok(());
    }
    names.sort_unstable();
    Err(RequestError::UnknownServer {
        given: quote(server),
        suggestion: nearest(server, names.iter().copied()).map(quote),
        configured: names.into_iter().map(quote).collect(),
    })
}

/// The typed fields of a request, after unknown-field and type checks.
#[derive(Default)]
struct Fields<'a> {
    server: Option<&'a str>,
    operation: Option<&'a str>,
    search: Option<&'a str>,
    describe: Option<&'a str>,
    tool: Option<&'a str>,
    args: Option<&'a Map<String, Value>>,
    resource: Option<&'a str>,
    prompt: Option<&'a str>,
    arguments: Option<&'a Map<String, Value>>,
}

fn string_field<'a>(
    obj: &'a Map<String, Value>,
    field: &'static str,
    max: usize,
) -> Result<Option<&'a str>, RequestError> {
    match obj.get(field) {
        None => Ok(None),
        Some(Value::String(s)) if s.is_empty() => Err(RequestError::Empty { field }),
        Some(Value::String(s)) if s.len() > max => Err(RequestError::TooLong { field, max }),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(RequestError::WrongType {
            field,
            expected: "a string",
            found: json_type(other),
        }),
    }
}

fn object_field<'a>(
    obj: &'a Map<String, Value>,
    field: &'static str,
) -> Result<Option<&'a Map<String, Value>>, RequestError> {
    match obj.get(field) {
        None => Ok(None),
        Some(Value::Object(map)) => Ok(Some(map)),
        Some(other) => Err(RequestError::WrongType {
            field,
            expected: "an object",
            found: json_type(other),
        }),
    }
}

fn typed_fields(obj: &Map<String, Value>) -> Result<Fields<'_>, RequestError> {
    let unknown: Vec<UnknownField> = obj
        .keys()
        .filter(|k| !KNOWN_FIELDS.contains(&k.as_str()))
        .map(|k| UnknownField {
            name: quote(k),
            suggestion: suggest(k, &KNOWN_FIELDS),
        })
        .collect();
    if !unknown.is_empty() {
        return Err(RequestError::UnknownFields(unknown));
    }
    Ok(Fields {
        server: string_field(obj, "server", MAX_NAME_BYTES)?,
        operation: string_field(obj, "operation", MAX_NAME_BYTES)?,
        search: string_field(obj, "search", MAX_QUERY_BYTES)?,
        describe: string_field(obj, "describe", MAX_NAME_BYTES)?,
        tool: string_field(obj, "tool", MAX_NAME_BYTES)?,
        args: object_field(obj, "args")?,
        resource: string_field(obj, "resource", MAX_NAME_BYTES)?,
        prompt: string_field(obj, "prompt", MAX_NAME_BYTES)?,
        arguments: object_field(obj, "arguments")?,
    })
}

/// Parses one `mcp` tool request. Total: never panics, whatever the JSON.
pub fn parse_request(value: &Value) -> Result<ProxyRequest, RequestError> {
    let Value::Object(obj) = value else {
        return Err(RequestError::NotAnObject {
            found: json_type(value),
        });
    };
    let fields = typed_fields(obj)?;
    fields.one_selector()?;
    let operation = match fields.operation {
        None => None,
        Some(value) => Some(operation_value(value)?),
    };
    check_misplaced(&fields, operation)?;

    if let Some(query) = fields.search {
        return Ok(ProxyRequest::ToolsSearch {
            server: fields.server("tools.search")?,
            query: query.to_owned(),
        });
    }
    if let Some(tool) = fields.describe {
        return Ok(ProxyRequest::ToolsDescribe {
            server: fields.server("tools.describe")?,
            tool: tool.to_owned(),
        });
    }
    if let Some(tool) = fields.tool {
        return Ok(ProxyRequest::ToolsCall {
            server: fields.server("tools.call")?,
            tool: tool.to_owned(),
            args: fields.args.cloned().unwrap_or_default(),
        });
    }
    let Some(operation) = operation else {
        return Ok(match fields.server {
            Some(server) => ProxyRequest::ToolsList {
                server: server.to_owned(),
            },
            None => ProxyRequest::Status,
        });
    };
    fields.operation_request(operation)
}

impl Fields<'_> {
    /// At most one of `operation`, `search`, `describe` and `tool` says what to do.
    fn one_selector(&self) -> Result<(), RequestError> {
        let selectors: Vec<&'static str> = [
            ("operation", self.operation.is_some()),
            ("search", self.search.is_some()),
            ("describe", self.describe.is_some()),
            ("tool", self.tool.is_some()),
        ]
        .into_iter()
        .filter_map(|(name, present)| present.then_some(name))
        .collect();
        if selectors.len() > 1 {
            return Err(RequestError::Conflict(selectors));
        }
        Ok(())
    }

    /// The `server` that `operation` needs.
    fn server(&self, operation: &'static str) -> Result<String, RequestError> {
        self.server.map(str::to_owned).ok_or(RequestError::Missing {
            field: "server",
            operation,
        })
    }

    /// The request for an `operation` value (one of [`OPERATION_VALUES`]).
    fn operation_request(&self, operation: &'static str) -> Result<ProxyRequest, RequestError> {
        match operation {
            "status" => {
                if self.server.is_some() {
                    return Err(RequestError::Conflict(vec!["operation", "server"]));
                }
                Ok(ProxyRequest::Status)
            }
            "tools.list" => Ok(ProxyRequest::ToolsList {
                server: self.server(operation)?,
            }),
            "resources.list" => Ok(ProxyRequest::ResourcesList {
                server: self.server(operation)?,
            }),
            "resources.read" => {
                let server = self.server(operation)?;
                let Some(reference) = self.resource else {
                    return Err(RequestError::Missing {
                        field: "resource",
                        operation,
                    });
                };
                if !is_resource_reference(reference) {
                    return Err(RequestError::BadReference);
                }
                Ok(ProxyRequest::ResourcesRead {
                    server,
                    reference: reference.to_owned(),
                })
            }
            "prompts.list" => Ok(ProxyRequest::PromptsList {
                server: self.server(operation)?,
            }),
            "prompts.get" => {
                let server = self.server(operation)?;
                let Some(prompt) = self.prompt else {
                    return Err(RequestError::Missing {
                        field: "prompt",
                        operation,
                    });
                };
                Ok(ProxyRequest::PromptsGet {
                    server,
                    prompt: prompt.to_owned(),
                    arguments: string_arguments(self.arguments)?,
                })
            }
            _ => Ok(ProxyRequest::Reconnect {
                server: self.server("reconnect")?,
            }),
        }
    }
}

/// Maps an `operation` value to its static name, or says why it is not one.
fn operation_value(value: &str) -> Result<&'static str, RequestError> {
    if let Some(op) = OPERATION_VALUES.iter().find(|op| **op == value) {
        return Ok(op);
    }
    let via_field = [
        ("tools.search", "search"),
        ("tools.describe", "describe"),
        ("tools.call", "tool"),
    ];
    if let Some((operation, field)) = via_field.iter().find(|(op, _)| *op == value) {
        return Err(RequestError::OperationViaField { operation, field });
    }
    Err(RequestError::UnknownOperation {
        value: quote(value),
        suggestion: suggest(value, &OPERATION_VALUES),
    })
}

/// Refuses fields that belong to a shape other than the one selected.
fn check_misplaced(fields: &Fields<'_>, operation: Option<&str>) -> Result<(), RequestError> {
    if fields.args.is_some() && fields.tool.is_none() {
        return Err(RequestError::Misplaced {
            field: "args",
            belongs_with: "`tool`",
        });
    }
    if fields.resource.is_some() && operation != Some("resources.read") {
        return Err(RequestError::Misplaced {
            field: "resource",
            belongs_with: "`operation` \"resources.read\"",
        });
    }
    for (field, present) in [
        ("prompt", fields.prompt.is_some()),
        ("arguments", fields.arguments.is_some()),
    ] {
        if present && operation != Some("prompts.get") {
            return Err(RequestError::Misplaced {
                field,
                belongs_with: "`operation` \"prompts.get\"",
            });
        }
    }
    Ok(())
}

fn string_arguments(
    arguments: Option<&Map<String, Value>>,
) -> Result<BTreeMap<String, String>, RequestError> {
    let mut out = BTreeMap::new();
    for (name, value) in arguments.into_iter().flatten() {
        let Value::String(text) = value else {
            return Err(RequestError::ArgumentNotString {
                name: quote(name),
                found: json_type(value),
            });
        };
        out.insert(name.clone(), text.clone());
    }
    Ok(out)
}

#[cfg(test)]
mod tests;
