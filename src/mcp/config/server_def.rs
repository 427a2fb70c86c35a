//! One server object of a configuration file: which fields it has, its transport (`type`,
//! `command`/`args`/`cwd`/`env` or `url`/`headers`/`oauth`) and the fields that belong to the
//! other transport. The per-server options (roots, lifecycle, timeout, reconnect, protocol) are
//! checked in `server_options`. Reads no environment and touches no file.

use super::diagnostic::nearest;
use super::fields::{Cx, check_env, check_headers, check_url};
use super::json::{Json, Member, Spanned};
use super::model::{HttpDef, ServerDef, StdioDef, Transport};
use super::oauth::check_oauth;
use super::sandbox_check::check_sandbox;
use super::schema::{SERVER_FIELDS, policy_key};
use super::server_options::{
    check_lifecycle, check_protocol, check_reconnect, check_roots, check_timeout,
};

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
    task_timeout: Option<&'a Spanned>,
    reconnect: Option<&'a Spanned>,
    disabled: Option<&'a Spanned>,
    protocol: Option<&'a Spanned>,
    roots: Option<&'a Spanned>,
    sandbox: Option<&'a Spanned>,
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
            "taskTimeoutMs" => &mut f.task_timeout,
            "reconnect" => &mut f.reconnect,
            "disabled" => &mut f.disabled,
            "protocolVersion" => &mut f.protocol,
            "roots" => &mut f.roots,
            "sandbox" => &mut f.sandbox,
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

pub(super) fn check_server(
    cx: &mut Cx<'_>,
    name: &str,
    path: &str,
    value: &Spanned,
) -> Option<ServerDef> {
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
    let transport = check_transport(cx, path, value.start, &f);
    super::secret_shape::check_server_values(
        cx,
        path,
        [
            ("args", f.args),
            ("env", f.env),
            ("headers", f.headers),
            ("url", f.url),
        ],
    );
    check_lifecycle(cx, path, f.lifecycle);
    let request_timeout_ms = check_timeout(cx, path, f.timeout);
    let task_timeout_ms =
        super::server_options::check_millis(cx, path, "taskTimeoutMs", f.task_timeout);
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
        task_timeout_ms,
        reconnect,
        disabled,
        protocol,
        roots,
    })
}

/// The server's transport: exactly one of `command` (stdio) and `url` (Streamable HTTP), the
/// fields of that transport only, and a `type` that agrees. `start` is where the server object
/// begins (for errors about the object as a whole).
fn check_transport(cx: &mut Cx<'_>, path: &str, start: usize, f: &Fields<'_>) -> Option<Transport> {
    let command = f
        .command
        .and_then(|v| cx.non_empty_field(v, path, "command"));
    let url = f.url.and_then(|v| cx.non_empty_field(v, path, "url"));
    let declared = check_type(cx, path, f.kind);
    match (command, url) {
        (Some(_), Some(_)) => {
            let at = f.url.map_or(start, |v| v.start);
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
            stdio_fields_only(cx, path, f);
            Some(Transport::Stdio(StdioDef {
                command,
                args: check_args(cx, path, f.args),
                cwd: f.cwd.and_then(|v| cx.non_empty_field(v, path, "cwd")),
                env: f.env.map(|v| check_env(cx, path, v)).unwrap_or_default(),
                sandbox: f.sandbox.map(|v| Box::new(check_sandbox(cx, path, v))),
            }))
        }
        (None, Some(url)) => {
            check_declared(cx, path, f.kind, declared, "http");
            http_fields_only(cx, path, f);
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
                oauth: f.oauth.map(|v| Box::new(check_oauth(cx, path, v))),
            }))
        }
        (None, None) => {
            if f.command.is_none() && f.url.is_none() {
                cx.error(
                    "missing_transport",
                    path,
                    start,
                    "the server has neither `command` nor `url`".into(),
                    Some(
                        "add `command` (a stdio server) or `url` (a Streamable HTTP endpoint)"
                            .into(),
                    ),
                );
            }
            None
        }
    }
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
    for (name, field) in [
        ("args", f.args),
        ("cwd", f.cwd),
        ("env", f.env),
        ("sandbox", f.sandbox),
    ] {
        if let Some(v) = field {
            cx.error(
                "wrong_transport_field",
                &format!("{path}.{name}"),
                v.start,
                format!("`{name}` applies to stdio servers, but this is an HTTP server (`url`)"),
                match name {
                    "env" => Some("send credentials to an HTTP server through `headers`".to_owned()),
                    "sandbox" => Some("a sandbox confines a process mcpdeck starts; an HTTP server runs elsewhere".to_owned()),
                    _ => None,
                },
            );
        }
    }
}

fn check_args(cx: &mut Cx<'_>, path: &str, args: Option<&Spanned>) -> Vec<String> {
    let Some(value) = args else {
        return Vec::new();
    };
    let p = format!("{path}.args");
    let mut out = Vec::new();
    for (arg, ip, at) in cx.strings(value, &p) {
        if arg.contains("${") {
            cx.warning(
                "reference_in_args",
                &ip,
                at,
                "references are not expanded in `args`; this argument is passed literally".into(),
                Some("move the value into `env` and let the server read it from there".into()),
            );
        }
        out.push(arg);
    }
    out
}
