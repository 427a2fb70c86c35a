//! The strict schema of one configuration file.
//!
//! Turns a parsed file into file-level diagnostics and one [`ServerEntry`] per server key. One bad
//! entry never hides the others; an entry with any error has no definition (`def: None`) and is
//! listed as invalid. This module reads no environment and touches no file. It holds the file
//! level (top-level keys, server names, duplicates) and how a definition is shown; one server
//! object is checked in `server_def`, its options in `server_options`.

use std::path::Path;
use std::sync::Arc;

use super::diagnostic::{Diagnostic, Severity, nearest};
use super::fields::Cx;
use super::json::{self, Json, LineIndex, Member, Spanned};
use super::model::{Layer, ServerDef, Source};
use super::outline::{Outline, SpanMember, outline};
use super::raw::RawDef;
use super::server_def::check_server;
use crate::mcp::sandbox::SandboxDef;

/// The top-level field of mcpdeck's user file that sets the sandbox of project servers.
pub(crate) const PROJECT_SANDBOX: &str = "projectSandbox";

/// The fields a server definition may have.
pub(crate) const SERVER_FIELDS: &[&str] = &[
    "command",
    "args",
    "cwd",
    "env",
    "url",
    "headers",
    "oauth",
    "type",
    "lifecycle",
    "requestTimeoutMs",
    "taskTimeoutMs",
    "reconnect",
    "disabled",
    "protocolVersion",
    "roots",
    "sandbox",
];

/// One server key of one file, valid or not.
#[derive(Debug, Clone)]
pub struct ServerEntry {
    /// The server's name as written.
    pub name: String,
    /// Where it was written.
    pub source: Source,
    /// The definition as written (for the trust fingerprint and display), parsed when asked.
    pub raw: RawDef,
    /// The validated definition; `None` when any error was found.
    pub def: Option<ServerDef>,
    /// Everything found wrong with this entry.
    pub diagnostics: Vec<Diagnostic>,
}

/// What one file yielded.
#[derive(Debug, Clone, Default)]
pub struct FileParse {
    /// Problems with the file as a whole (syntax, top level, host format).
    pub diagnostics: Vec<Diagnostic>,
    /// Its server entries, in file order (shared, never copied, once loaded).
    pub entries: Vec<Arc<ServerEntry>>,
    /// The user file's `projectSandbox`: the sandbox of project definitions without one.
    pub project_sandbox: Option<SandboxDef>,
}

/// Parses and validates one file's text.
pub fn parse_file(text: &str, file: &Path, layer: Layer) -> FileParse {
    parse_shared(Arc::from(text), file, layer)
}

/// Parses and validates one file's text, already held where every entry's definition can
/// share it (a file read for loading is never copied).
pub(crate) fn parse_shared(text: Arc<str>, file: &Path, layer: Layer) -> FileParse {
    let shared = match text.strip_prefix('\u{feff}') {
        Some(stripped) => Arc::from(stripped),
        None => text,
    };
    let text = &*shared;
    let index = LineIndex::new(text);
    if let Some(parsed) =
        outline(text).and_then(|outline| parse_outlined(&shared, outline, file, layer, &index))
    {
        return parsed;
    }
    // Not strict JSON, or an unusual shape: the whole tree, which also says what is wrong.
    let mut cx = Cx::new(file, text, &index);
    let root = match json::parse(text) {
        Ok(root) => root,
        Err(err) => {
            if let Some(offset) = toml_table_offset(text) {
                cx.error(
                    "host_format",
                    "",
                    offset,
                    "this is Codex TOML (`[mcp_servers]`), not an MCP JSON config".into(),
                    Some(
                        "convert each `[mcp_servers.NAME]` table into `{\"mcpServers\": {\"NAME\": {...}}}` JSON (command, args, env keep their names)".into(),
                    ),
                );
            } else {
                cx.error(
                    "syntax",
                    "",
                    err.offset,
                    format!("not valid JSON: {}", err.message),
                    None,
                );
            }
            return FileParse {
                diagnostics: cx.take(),
                ..FileParse::default()
            };
        }
    };
    let Json::Object(members) = &root.value else {
        cx.error(
            "top_level",
            "",
            root.start,
            format!(
                "the top level must be an object with `mcpServers`, found {}",
                root.value.type_name()
            ),
            None,
        );
        return FileParse {
            diagnostics: cx.take(),
            ..FileParse::default()
        };
    };
    let mut project_sandbox = None;
    let servers = check_top_level(&mut cx, members, layer, &mut project_sandbox);
    let file_diagnostics = cx.take();
    let entries = servers
        .and_then(|servers| {
            let spans: Vec<SpanMember> = servers
                .iter()
                .map(|m| SpanMember {
                    key: m.key.clone(),
                    key_start: m.key_start,
                    value: m.value.start..m.value.end,
                })
                .collect();
            servers_entries(spans, file, &shared, &index, layer)
        })
        .unwrap_or_default();
    FileParse {
        diagnostics: file_diagnostics,
        entries,
        project_sandbox,
    }
}

/// Reads a strict-JSON file from its outline: the top level is checked as a tree (minus the
/// servers), then every server is parsed, checked and turned into an entry on its own, so only
/// one server's tree exists at a time. `None` when a value is refused after all.
fn parse_outlined(
    shared: &Arc<str>,
    outline: Outline,
    file: &Path,
    layer: Layer,
    index: &LineIndex,
) -> Option<FileParse> {
    let text = &**shared;
    let mut cx = Cx::new(file, text, index);
    let mut top = Vec::with_capacity(outline.top.len());
    for member in &outline.top {
        let value = if member.key == "mcpServers" && outline.servers.is_some() {
            // Stands in for the servers, which are read one at a time below.
            Spanned {
                value: Json::Object(Vec::new()),
                start: member.value.start,
                end: member.value.end,
            }
        } else {
            json::parse_span(text, member.value.clone()).ok()?
        };
        top.push(Member {
            key: member.key.clone(),
            key_start: member.key_start,
            value,
        });
    }
    let mut project_sandbox = None;
    let servers = check_top_level(&mut cx, &top, layer, &mut project_sandbox);
    let diagnostics = cx.take();
    let entries = match (servers, outline.servers) {
        (Some(_), Some(spans)) => servers_entries(spans, file, shared, index, layer)?,
        _ => Vec::new(),
    };
    Some(FileParse {
        diagnostics,
        entries,
        project_sandbox,
    })
}

fn toml_table_offset(text: &str) -> Option<usize> {
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if trimmed.starts_with("[mcp_servers") {
            return Some(offset + line.len() - trimmed.len());
        }
        offset += line.len();
    }
    None
}

/// Checks the top level; returns the `mcpServers` members when they can be read. mcpdeck's
/// user file may also hold `projectSandbox` (kept in `project_sandbox`); every other file has
/// exactly `mcpServers`, since other hosts read them too or they belong to a project.
fn check_top_level<'a>(
    cx: &mut Cx<'_>,
    members: &'a [Member],
    layer: Layer,
    project_sandbox: &mut Option<SandboxDef>,
) -> Option<&'a [Member]> {
    cx.duplicates(members, "");
    let mut servers = None;
    for member in members {
        match member.key.as_str() {
            "mcpServers" => servers = Some(member),
            PROJECT_SANDBOX if layer == Layer::User => {
                *project_sandbox = Some(super::sandbox_check::check_project_sandbox(
                    cx,
                    &member.value,
                ));
            }
            PROJECT_SANDBOX => cx.error(
                "unknown_field",
                PROJECT_SANDBOX,
                member.key_start,
                format!(
                    "`{PROJECT_SANDBOX}` belongs in mcpdeck's user file only (here only `mcpServers` is a top-level field)"
                ),
                Some("move it to $XDG_CONFIG_HOME/mcpdeck/mcp.json; to confine one server, give it a `sandbox`".into()),
            ),
            "servers" => cx.error(
                "host_format",
                "servers",
                member.key_start,
                "`servers` is the VS Code `mcp.json` shape, not an MCP JSON config".into(),
                Some("rename `servers` to `mcpServers`; drop `inputs` and write `${NAME}` references for `${input:...}` values".into()),
            ),
            other => {
                let known: &[&str] = if layer == Layer::User {
                    &["mcpServers", PROJECT_SANDBOX]
                } else {
                    &["mcpServers"]
                };
                let suggestion = nearest(other, known)
                    .map(|n| format!("did you mean `{n}`?"))
                    .or_else(|| {
                        policy_key(other).then(|| {
                            "configuration cannot grant trust or change policy; use `mcpdeck trust` or the user policy file".to_owned()
                        })
                    });
                cx.error(
                    "unknown_field",
                    other,
                    member.key_start,
                    if layer == Layer::User {
                        format!("`{other}` is not a top-level field (only `mcpServers` and `{PROJECT_SANDBOX}` are)")
                    } else {
                        format!("`{other}` is not a top-level field (only `mcpServers` is)")
                    },
                    suggestion,
                );
            }
        }
    }
    let Some(servers) = servers else {
        if !members.iter().any(|m| m.key == "servers") {
            cx.error(
                "top_level",
                "",
                0,
                "missing `mcpServers`".into(),
                Some("write `{\"mcpServers\": {\"name\": {\"command\": \"...\"}}}`".into()),
            );
        }
        return None;
    };
    let Json::Object(list) = &servers.value.value else {
        cx.error(
            "type_mismatch",
            "mcpServers",
            servers.value.start,
            format!(
                "`mcpServers` must be an object of named servers, found {}",
                servers.value.value.type_name()
            ),
            None,
        );
        return None;
    };
    Some(list)
}

pub(super) fn policy_key(key: &str) -> bool {
    matches!(
        key.to_ascii_lowercase().as_str(),
        "trust"
            | "trusted"
            | "approve"
            | "approved"
            | "autoapprove"
            | "alwaysallow"
            | "mode"
            | "policy"
            | "allow"
            | "deny"
    )
}

/// One entry per server member, each value parsed from its span, checked and dropped before
/// the next; each entry takes its member's key as its name. `None` when a value does not parse
/// on its own (never for a span of a strict-JSON file).
fn servers_entries(
    servers: Vec<SpanMember>,
    file: &Path,
    shared: &Arc<str>,
    index: &LineIndex,
    layer: Layer,
) -> Option<Vec<Arc<ServerEntry>>> {
    let text = &**shared;
    let shared_file: Arc<Path> = Arc::from(file);
    let repeated = repeated_keys(&servers);
    let mut entries = Vec::with_capacity(servers.len());
    for (member, repeated) in servers.into_iter().zip(repeated) {
        let value = super::span_tree::parse_strict_span(text, member.value.clone())
            .or_else(|| json::parse_span(text, member.value.clone()).ok())?;
        let mut cx = Cx::new(file, text, index);
        let path = format!("mcpServers.{}", member.key);
        if repeated {
            cx.error(
                "duplicate_key",
                &path,
                member.key_start,
                format!(
                    "server `{}` is defined more than once in this file",
                    member.key
                ),
                Some("keep one definition; JSON parsers disagree on which one wins".into()),
            );
        }
        check_name(&mut cx, &member.key, &path, member.key_start);
        let def = check_server(&mut cx, &member.key, &path, &value);
        let diagnostics = cx.take();
        let valid = !diagnostics.iter().any(Diagnostic::is_error);
        let line = index.line(member.key_start);
        entries.push(Arc::new(ServerEntry {
            name: member.key,
            source: Source {
                layer,
                file: Arc::clone(&shared_file),
                line: Some(line),
            },
            raw: RawDef::slice(Arc::clone(shared), member.value),
            def: if valid { def } else { None },
            diagnostics,
        }));
    }
    Some(entries)
}

/// For each member, whether another member of the list has the same key. The map of keys is
/// dropped before any entry is built, so it never adds to the most the load holds at once; its
/// hash is seeded per process (the names come from the file).
fn repeated_keys(members: &[SpanMember]) -> Vec<bool> {
    use std::collections::hash_map::{Entry, HashMap};
    let mut first: HashMap<&str, usize, foldhash::fast::RandomState> =
        HashMap::with_capacity_and_hasher(members.len(), foldhash::fast::RandomState::default());
    let mut repeated = vec![false; members.len()];
    for (i, member) in members.iter().enumerate() {
        match first.entry(member.key.as_str()) {
            Entry::Occupied(seen) => {
                repeated[*seen.get()] = true;
                repeated[i] = true;
            }
            Entry::Vacant(slot) => {
                slot.insert(i);
            }
        }
    }
    repeated
}

/// Whether `name` is a valid server name: `[A-Za-z0-9][A-Za-z0-9._-]*`, 1–64 characters.
pub(crate) fn is_valid_server_name(name: &str) -> bool {
    let mut chars = name.chars();
    name.len() <= 64
        && chars.next().is_some_and(|c| c.is_ascii_alphanumeric())
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

fn check_name(cx: &mut Cx<'_>, name: &str, path: &str, offset: usize) {
    if !is_valid_server_name(name) {
        cx.error(
            "invalid_name",
            path,
            offset,
            format!("server name `{name}` must be 1–64 characters of [A-Za-z0-9._-], starting with a letter or digit"),
            None,
        );
    }
}
impl Diagnostic {
    /// A file-level error with no position (unreadable, too large, missing).
    pub fn file_error(file: &Path, code: &'static str, message: String) -> Self {
        Self {
            severity: Severity::Error,
            code,
            file: file.to_path_buf(),
            path: String::new(),
            line: None,
            column: None,
            message,
            suggestion: None,
        }
    }
}

/// Shown instead of a literal secret found where only a reference is allowed.
pub(crate) const REDACTED_LITERAL: &str = "«literal secret hidden»";

/// Whether a value under `key` (in `env`, `headers` or anywhere in a config file) is a
/// credential: a credential-shaped name, or a header that carries one.
pub(crate) fn is_secret_key(key: &str) -> bool {
    super::refs::is_credential_name(key)
        || matches!(
            key.to_ascii_lowercase().as_str(),
            "authorization" | "cookie" | "proxy-authorization"
        )
}

/// Whether a string is written literally (holds no `${…}` reference).
pub(crate) fn is_literal_value(value: &str) -> bool {
    super::refs::Template::parse(value).map_or(true, |t| !t.has_reference())
}

/// `text` with its URL password and credential-shaped query values replaced by `hidden`, or
/// `None` when it is not a URL or holds neither.
pub(crate) fn displayable_url(text: &str) -> Option<String> {
    displayable_url_with(text, "hidden")
}

/// [`displayable_url`] with `hidden` (URL-safe) written for each hidden value.
pub(crate) fn displayable_url_with(text: &str, hidden: &str) -> Option<String> {
    use super::refs::is_credential_name;
    let mut url = url::Url::parse(text).ok()?;
    let mut changed = false;
    if url.password().is_some() {
        let _ = url.set_password(Some(hidden));
        changed = true;
    }
    let pairs: Vec<(String, String)> = url
        .query_pairs()
        .map(|(k, v)| {
            if is_credential_name(&k) || k.eq_ignore_ascii_case("key") {
                changed = true;
                (k.into_owned(), hidden.to_owned())
            } else {
                (k.into_owned(), v.into_owned())
            }
        })
        .collect();
    if !changed {
        return None;
    }
    if !pairs.is_empty() {
        url.query_pairs_mut().clear().extend_pairs(pairs);
    }
    Some(url.to_string())
}

/// Something that reads as a server definition as written: a parsed value or an entry's
/// [`RawDef`].
pub(crate) trait Definition {
    /// The definition as a JSON value.
    fn definition(&self) -> serde_json::Value;
}

impl Definition for serde_json::Value {
    fn definition(&self) -> serde_json::Value {
        self.clone()
    }
}

impl Definition for RawDef {
    fn definition(&self) -> serde_json::Value {
        self.value()
    }
}

/// A server definition as written, safe to display: literal values of credential-shaped `env`
/// keys and credential headers, URL passwords and credential-shaped query values are hidden.
/// References (`${NAME}`) are kept, since they are names, not values.
pub(crate) fn displayable(raw: &(impl Definition + ?Sized)) -> serde_json::Value {
    let mut value = raw.definition();
    let Some(object) = value.as_object_mut() else {
        return value;
    };
    for field in ["env", "headers"] {
        let Some(map) = object.get_mut(field).and_then(|m| m.as_object_mut()) else {
            continue;
        };
        for (key, v) in map.iter_mut() {
            let literal = v.as_str().is_some_and(is_literal_value);
            if is_secret_key(key) && literal {
                *v = serde_json::Value::String(REDACTED_LITERAL.to_owned());
            }
        }
    }
    if let Some(url_value) = object.get_mut("url")
        && let Some(shown) = url_value.as_str().and_then(displayable_url)
    {
        *url_value = serde_json::Value::String(shown);
    }
    value
}
