//! The strict schema of one configuration file.
//!
//! Turns a parsed file into file-level diagnostics and one [`ServerEntry`] per server key. One bad
//! entry never hides the others; an entry with any error has no definition (`def: None`) and is
//! listed as invalid. This module reads no environment and touches no file.

use std::collections::HashMap;
use std::path::Path;

use super::diagnostic::{Diagnostic, Severity, nearest};
use super::fields::{Cx, check_env, check_headers, check_url};
use super::json::{self, Json, LineIndex, Member, Spanned};
use super::model::{
    HttpDef, Layer, ProtocolChoice, ReconnectPolicy, ServerDef, Source, StdioDef, Transport,
};
use super::oauth::check_oauth;

/// The fields a server definition may have.
pub const SERVER_FIELDS: &[&str] = &[
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
    "reconnect",
    "disabled",
    "protocolVersion",
    "roots",
];

/// Largest accepted `requestTimeoutMs` (one day).
const MAX_TIMEOUT_MS: i64 = 86_400_000;

/// One server key of one file, valid or not.
#[derive(Debug, Clone)]
pub struct ServerEntry {
    /// The server's name as written.
    pub name: String,
    /// Where it was written.
    pub source: Source,
    /// The definition as written (for the trust fingerprint and display).
    pub raw: serde_json::Value,
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
    /// Its server entries, in file order.
    pub entries: Vec<ServerEntry>,
}

/// Parses and validates one file's text.
pub fn parse_file(text: &str, file: &Path, layer: Layer) -> FileParse {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let index = LineIndex::new(text);
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
                entries: Vec::new(),
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
            entries: Vec::new(),
        };
    };
    let servers = check_top_level(&mut cx, members);
    let file_diagnostics = cx.take();
    let entries = servers.map_or_else(Vec::new, |servers| {
        servers_entries(servers, file, text, &index, layer)
    });
    FileParse {
        diagnostics: file_diagnostics,
        entries,
    }
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

/// Checks the top level; returns the `mcpServers` members when they can be read.
fn check_top_level<'a>(cx: &mut Cx<'_>, members: &'a [Member]) -> Option<&'a [Member]> {
    cx.duplicates(members, "");
    let mut servers = None;
    for member in members {
        match member.key.as_str() {
            "mcpServers" => servers = Some(member),
            "servers" => cx.error(
                "host_format",
                "servers",
                member.key_start,
                "`servers` is the VS Code `mcp.json` shape, not an MCP JSON config".into(),
                Some("rename `servers` to `mcpServers`; drop `inputs` and write `${NAME}` references for `${input:...}` values".into()),
            ),
            other => {
                let suggestion = nearest(other, &["mcpServers"])
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
                    format!("`{other}` is not a top-level field (only `mcpServers` is)"),
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

fn policy_key(key: &str) -> bool {
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

fn servers_entries(
    servers: &[Member],
    file: &Path,
    text: &str,
    index: &LineIndex,
    layer: Layer,
) -> Vec<ServerEntry> {
    let mut occurrences: HashMap<&str, usize> = HashMap::with_capacity(servers.len());
    for member in servers {
        *occurrences.entry(member.key.as_str()).or_default() += 1;
    }
    servers
        .iter()
        .map(|member| {
            let mut cx = Cx::new(file, text, index);
            let path = format!("mcpServers.{}", member.key);
            if occurrences.get(member.key.as_str()).copied().unwrap_or(0) > 1 {
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
            let def = check_server(&mut cx, &member.key, &path, &member.value);
            let diagnostics = cx.take();
            let valid = !diagnostics.iter().any(Diagnostic::is_error);
            let (line, _) = index.locate(text, member.key_start);
            ServerEntry {
                name: member.key.clone(),
                source: Source {
                    layer,
                    file: file.to_path_buf(),
                    line: Some(line),
                },
                raw: member.value.value.to_value(),
                def: if valid { def } else { None },
                diagnostics,
            }
        })
        .collect()
}

/// Whether `name` is a valid server name: `[A-Za-z0-9][A-Za-z0-9._-]*`, 1–64 characters.
pub fn is_valid_server_name(name: &str) -> bool {
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

/// The fields of one server object, each with its value if present.
#[derive(Default)]
struct Fields<'a> {
    command: Option<&'a Spanned>,
    args: Option<&'a Spanned>,
    cwd: Option<&'a Spanned>,
    env: Option<&'a Spanned>,
    url: Option<&'a Spanned>,
    headers: Option<&'a Spanned>,
    oauth: Option<&'a Spanned>,
    kind: Option<&'a Spanned>,
    lifecycle: Option<&'a Spanned>,
    timeout: Option<&'a Spanned>,
    reconnect: Option<&'a Spanned>,
    disabled: Option<&'a Spanned>,
    protocol: Option<&'a Spanned>,
    roots: Option<&'a Spanned>,
}

fn collect_fields<'a>(cx: &mut Cx<'_>, path: &str, members: &'a [Member]) -> Fields<'a> {
    cx.duplicates(members, path);
    let mut f = Fields::default();
    for m in members {
        let slot = match m.key.as_str() {
            "command" => &mut f.command,
            "args" => &mut f.args,
            "cwd" => &mut f.cwd,
            "env" => &mut f.env,
            "url" => &mut f.url,
            "headers" => &mut f.headers,
            "oauth" => &mut f.oauth,
            "type" => &mut f.kind,
            "lifecycle" => &mut f.lifecycle,
            "requestTimeoutMs" => &mut f.timeout,
            "reconnect" => &mut f.reconnect,
            "disabled" => &mut f.disabled,
            "protocolVersion" => &mut f.protocol,
            "roots" => &mut f.roots,
            other => {
                unknown_server_field(cx, path, m, other);
                continue;
            }
        };
        *slot = Some(&m.value);
    }
    f
}

fn unknown_server_field(cx: &mut Cx<'_>, path: &str, m: &Member, key: &str) {
    let alias = match key {
        "serverUrl" | "httpUrl" | "endpoint" | "uri" => Some("url"),
        "transport" => Some("type"),
        "timeout" | "requestTimeout" | "timeoutMs" => Some("requestTimeoutMs"),
        "environment" | "envVars" => Some("env"),
        "arguments" => Some("args"),
        "workingDirectory" | "workdir" => Some("cwd"),
        _ => None,
    };
    let suggestion = alias
        .or_else(|| nearest(key, SERVER_FIELDS))
        .map(|n| format!("`{key}` is not a field; did you mean `{n}`?"))
        .or_else(|| {
            policy_key(key).then(|| {
                "configuration cannot grant trust or change policy; use `mcpdeck trust` or the user policy file".to_owned()
            })
        });
    cx.error(
        "unknown_field",
        &format!("{path}.{key}"),
        m.key_start,
        format!("unknown server field `{key}`"),
        suggestion,
    );
}

fn check_server(cx: &mut Cx<'_>, name: &str, path: &str, value: &Spanned) -> Option<ServerDef> {
    let Json::Object(members) = &value.value else {
        cx.error(
            "type_mismatch",
            path,
            value.start,
            format!(
                "a server definition must be an object, found {}",
                value.value.type_name()
            ),
            None,
        );
        return None;
    };
    let f = collect_fields(cx, path, members);
    let command = f
        .command
        .and_then(|v| cx.non_empty_string(v, &format!("{path}.command")));
    let url = f
        .url
        .and_then(|v| cx.non_empty_string(v, &format!("{path}.url")));
    let declared = check_type(cx, path, f.kind);
    let transport = match (command, url) {
        (Some(_), Some(_)) => {
            let at = f.url.map_or(value.start, |v| v.start);
            cx.error(
                "transport_conflict",
                path,
                at,
                "`command` and `url` are mutually exclusive".into(),
                Some(
                    "keep `command` for a stdio server or `url` for a Streamable HTTP server"
                        .into(),
                ),
            );
            None
        }
        (Some(command), None) => {
            check_declared(cx, path, f.kind, declared, "stdio");
            stdio_fields_only(cx, path, &f);
            Some(Transport::Stdio(StdioDef {
                command,
                args: check_args(cx, path, f.args),
                cwd: f
                    .cwd
                    .and_then(|v| cx.non_empty_string(v, &format!("{path}.cwd"))),
                env: f.env.map(|v| check_env(cx, path, v)).unwrap_or_default(),
            }))
        }
        (None, Some(url)) => {
            check_declared(cx, path, f.kind, declared, "http");
            http_fields_only(cx, path, &f);
            check_url(
                cx,
                &format!("{path}.url"),
                f.url.map_or(0, |v| v.start),
                &url,
            );
            Some(Transport::Http(HttpDef {
                url,
                headers: f
                    .headers
                    .map(|v| check_headers(cx, path, v))
                    .unwrap_or_default(),
                oauth: f.oauth.map(|v| check_oauth(cx, path, v)),
            }))
        }
        (None, None) => {
            if f.command.is_none() && f.url.is_none() {
                cx.error(
                    "missing_transport",
                    path,
                    value.start,
                    "the server has neither `command` nor `url`".into(),
                    Some(
                        "add `command` (a stdio server) or `url` (a Streamable HTTP endpoint)"
                            .into(),
                    ),
                );
            }
            None
        }
    };
    check_lifecycle(cx, path, f.lifecycle);
    let request_timeout_ms = check_timeout(cx, path, f.timeout);
    let reconnect = f
        .reconnect
        .map(|v| check_reconnect(cx, path, v))
        .unwrap_or_default();
    let disabled = f
        .disabled
        .and_then(|v| cx.boolean(v, &format!("{path}.disabled")))
        .unwrap_or(false);
    let protocol = check_protocol(cx, path, f.protocol);
    let roots = f.roots.map(|v| check_roots(cx, path, v));
    Some(ServerDef {
        name: name.to_owned(),
        transport: transport?,
        request_timeout_ms,
        reconnect,
        disabled,
        protocol,
        roots,
    })
}

/// `roots`: an array of non-empty paths (relative ones resolve against the file's directory).
fn check_roots(cx: &mut Cx<'_>, path: &str, value: &Spanned) -> Vec<String> {
    let p = format!("{path}.roots");
    let Json::Array(items) = &value.value else {
        cx.error(
            "type_mismatch",
            &p,
            value.start,
            format!(
                "`roots` must be an array of directory paths, found {}",
                value.value.type_name()
            ),
            Some("write e.g. `\"roots\": [\".\", \"../shared\"]`, or `[]` for none".into()),
        );
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let ip = format!("{p}[{i}]");
        if let Some(root) = cx.non_empty_string(item, &ip) {
            if root.contains('\0') {
                cx.error(
                    "invalid_root",
                    &ip,
                    item.start,
                    "a root path must not contain NUL".into(),
                    None,
                );
                continue;
            }
            if root.contains("://") {
                cx.error(
                    "invalid_root",
                    &ip,
                    item.start,
                    "a root is a directory path, not a URI".into(),
                    Some("write the path; mcpdeck sends it as a `file://` URI".into()),
                );
                continue;
            }
            out.push(root);
        }
    }
    out
}

fn check_type(cx: &mut Cx<'_>, path: &str, kind: Option<&Spanned>) -> Option<&'static str> {
    let value = kind?;
    let p = format!("{path}.type");
    let text = cx.string(value, &p)?;
    match text.as_str() {
        "stdio" => Some("stdio"),
        "http" | "streamable-http" | "streamableHttp" => Some("http"),
        "sse" => {
            cx.error(
                "sse_unsupported",
                &p,
                value.start,
                "`sse` transport is not supported (legacy HTTP+SSE was replaced by Streamable HTTP)".into(),
                Some("use the server's Streamable HTTP endpoint (often `/mcp`) with `\"type\": \"http\"`".into()),
            );
            None
        }
        other => {
            cx.error(
                "invalid_value",
                &p,
                value.start,
                format!("`type` must be `stdio`, `http` or `streamable-http`, not `{other}`"),
                nearest(other, &["stdio", "http", "streamable-http"])
                    .map(|n| format!("did you mean `{n}`?")),
            );
            None
        }
    }
}

fn check_declared(
    cx: &mut Cx<'_>,
    path: &str,
    kind: Option<&Spanned>,
    declared: Option<&'static str>,
    actual: &'static str,
) {
    if let (Some(value), Some(declared)) = (kind, declared)
        && declared != actual
    {
        let field = if actual == "stdio" { "command" } else { "url" };
        cx.error(
            "type_mismatch",
            &format!("{path}.type"),
            value.start,
            format!("`type` says `{declared}` but the server has `{field}`"),
            Some(format!("set `\"type\": \"{actual}\"` or remove `type`")),
        );
    }
}

fn stdio_fields_only(cx: &mut Cx<'_>, path: &str, f: &Fields<'_>) {
    if let Some(v) = f.headers {
        cx.error(
            "wrong_transport_field",
            &format!("{path}.headers"),
            v.start,
            "`headers` applies to HTTP servers, but this is a stdio server (`command`)".into(),
            Some("pass credentials to a stdio server through `env`".into()),
        );
    }
    if let Some(v) = f.oauth {
        cx.error(
            "wrong_transport_field",
            &format!("{path}.oauth"),
            v.start,
            "`oauth` applies to HTTP servers, but this is a stdio server (`command`)".into(),
            None,
        );
    }
}

fn http_fields_only(cx: &mut Cx<'_>, path: &str, f: &Fields<'_>) {
    for (name, field) in [("args", f.args), ("cwd", f.cwd), ("env", f.env)] {
        if let Some(v) = field {
            cx.error(
                "wrong_transport_field",
                &format!("{path}.{name}"),
                v.start,
                format!("`{name}` applies to stdio servers, but this is an HTTP server (`url`)"),
                (name == "env")
                    .then(|| "send credentials to an HTTP server through `headers`".to_owned()),
            );
        }
    }
}

fn check_args(cx: &mut Cx<'_>, path: &str, args: Option<&Spanned>) -> Vec<String> {
    let Some(value) = args else {
        return Vec::new();
    };
    let p = format!("{path}.args");
    let Json::Array(items) = &value.value else {
        cx.error(
            "type_mismatch",
            &p,
            value.start,
            format!(
                "`args` must be an array of strings, found {}",
                value.value.type_name()
            ),
            None,
        );
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let ip = format!("{p}[{i}]");
        if let Some(arg) = cx.string(item, &ip) {
            if arg.contains("${") {
                cx.warning(
                    "reference_in_args",
                    &ip,
                    item.start,
                    "references are not expanded in `args`; this argument is passed literally"
                        .into(),
                    Some("move the value into `env` and let the server read it from there".into()),
                );
            }
            out.push(arg);
        }
    }
    out
}

fn check_lifecycle(cx: &mut Cx<'_>, path: &str, lifecycle: Option<&Spanned>) {
    let Some(value) = lifecycle else { return };
    let p = format!("{path}.lifecycle");
    if let Some(text) = cx.string(value, &p)
        && text != "lazy"
    {
        cx.error(
            "invalid_value",
            &p,
            value.start,
            format!("`lifecycle` accepts only `lazy` (connections are always lazy), not `{text}`"),
            Some("remove `lifecycle`".into()),
        );
    }
}

fn check_timeout(cx: &mut Cx<'_>, path: &str, timeout: Option<&Spanned>) -> Option<u64> {
    let value = timeout?;
    let p = format!("{path}.requestTimeoutMs");
    let Json::Number(n) = &value.value else {
        cx.error(
            "type_mismatch",
            &p,
            value.start,
            format!(
                "`requestTimeoutMs` must be an integer, found {}",
                value.value.type_name()
            ),
            None,
        );
        return None;
    };
    let Some(ms) = n.as_i64() else {
        cx.error(
            "invalid_value",
            &p,
            value.start,
            format!("`requestTimeoutMs` must be a whole number of milliseconds, not `{n}`"),
            None,
        );
        return None;
    };
    if ms > MAX_TIMEOUT_MS {
        cx.error(
            "out_of_range",
            &p,
            value.start,
            format!("`requestTimeoutMs` {ms} is over one day ({MAX_TIMEOUT_MS})"),
            None,
        );
        return None;
    }
    u64::try_from(ms).ok().filter(|ms| *ms > 0)
}

fn check_reconnect(cx: &mut Cx<'_>, path: &str, value: &Spanned) -> ReconnectPolicy {
    let p = format!("{path}.reconnect");
    let mut policy = ReconnectPolicy::default();
    let Json::Object(members) = &value.value else {
        cx.error(
            "type_mismatch",
            &p,
            value.start,
            format!(
                "`reconnect` must be an object, found {}",
                value.value.type_name()
            ),
            None,
        );
        return policy;
    };
    cx.duplicates(members, &p);
    for m in members {
        let mp = format!("{p}.{}", m.key);
        match m.key.as_str() {
            "automatic" => {
                if let Some(b) = cx.boolean(&m.value, &mp) {
                    policy.automatic = b;
                }
            }
            "maxAttempts" => {
                if let Some(n) = cx.integer_in(&m.value, &mp, 1, 3) {
                    policy.max_attempts = u8::try_from(n).unwrap_or(1);
                }
            }
            "baseDelayMs" => {
                if let Some(n) = cx.integer_in(&m.value, &mp, 100, 500) {
                    policy.base_delay_ms = u16::try_from(n).unwrap_or(200);
                }
            }
            other => cx.error(
                "unknown_field",
                &mp,
                m.key_start,
                format!("unknown `reconnect` field `{other}`"),
                nearest(other, &["automatic", "maxAttempts", "baseDelayMs"])
                    .map(|n| format!("did you mean `{n}`?")),
            ),
        }
    }
    policy
}

fn check_protocol(cx: &mut Cx<'_>, path: &str, protocol: Option<&Spanned>) -> ProtocolChoice {
    let Some(value) = protocol else {
        return ProtocolChoice::default();
    };
    let p = format!("{path}.protocolVersion");
    match cx.string(value, &p).as_deref() {
        Some("legacy") | None => ProtocolChoice::Legacy,
        Some("auto") => ProtocolChoice::Auto,
        Some("2026-07-28") => ProtocolChoice::Modern,
        Some(other) => {
            let suggestion = if other.starts_with("202") {
                "use `legacy` (the initialize handshake offering 2025-11-25), `auto`, or `2026-07-28`"
            } else {
                "use `legacy`, `auto` or `2026-07-28`"
            };
            cx.error(
                "invalid_value",
                &p,
                value.start,
                format!("unknown `protocolVersion` `{other}`"),
                Some(suggestion.into()),
            );
            ProtocolChoice::Legacy
        }
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
pub const REDACTED_LITERAL: &str = "«literal secret hidden»";

/// Whether a value under `key` (in `env`, `headers` or anywhere in a config file) is a
/// credential: a credential-shaped name, or a header that carries one.
pub fn is_secret_key(key: &str) -> bool {
    super::refs::is_credential_name(key)
        || matches!(
            key.to_ascii_lowercase().as_str(),
            "authorization" | "cookie" | "proxy-authorization"
        )
}

/// Whether a string is written literally (holds no `${…}` reference).
pub fn is_literal_value(value: &str) -> bool {
    super::refs::Template::parse(value).map_or(true, |t| !t.has_reference())
}

/// `text` with its URL password and credential-shaped query values replaced by `hidden`, or
/// `None` when it is not a URL or holds neither.
pub fn displayable_url(text: &str) -> Option<String> {
    use super::refs::is_credential_name;
    let mut url = url::Url::parse(text).ok()?;
    let mut changed = false;
    if url.password().is_some() {
        let _ = url.set_password(Some("hidden"));
        changed = true;
    }
    let pairs: Vec<(String, String)> = url
        .query_pairs()
        .map(|(k, v)| {
            if is_credential_name(&k) || k.eq_ignore_ascii_case("key") {
                changed = true;
                (k.into_owned(), "hidden".to_owned())
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

/// A server definition as written, safe to display: literal values of credential-shaped `env`
/// keys and credential headers, URL passwords and credential-shaped query values are hidden.
/// References (`${NAME}`) are kept, since they are names, not values.
pub fn displayable(raw: &serde_json::Value) -> serde_json::Value {
    let mut value = raw.clone();
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
