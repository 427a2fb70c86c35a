//! Codex CLI: `$CODEX_HOME/config.toml` (default `~/.codex/config.toml`) and a trusted project's
//! `.codex/config.toml`, `[mcp_servers.NAME]` tables. Values are literal (Codex substitutes no
//! variables); environment comes in through `env_vars`, `bearer_token_env_var` and
//! `env_http_headers`. A config Codex cannot parse stops it from starting, so one bad server
//! disables the whole file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::text::{Piece, Text};
use super::tree::parse_toml;
use super::values::{is_secret_key, mask, unpinned};
use super::{HostDef, HostEntry, HostEnv, HostFile, HostTransport, Origin, Scope, Trap};
use crate::mcp::config::Diagnostic;
use crate::mcp::config::diagnostic::nearest;
use crate::mcp::config::fields::{Cx, check_url};
use crate::mcp::config::json::{Json, LineIndex, Member, Spanned};
use crate::mcp::config::load::read_config_text;
use crate::mcp::config::refs::is_var_name;

const STDIO_ONLY: &[&str] = &["command", "args", "env", "env_vars", "cwd"];
const HTTP_ONLY: &[&str] = &[
    "url",
    "bearer_token_env_var",
    "http_headers",
    "env_http_headers",
];
const COMMON: &[&str] = &[
    "startup_timeout_sec",
    "startup_timeout_ms",
    "tool_timeout_sec",
    "enabled",
    "required",
    "enabled_tools",
    "disabled_tools",
    "default_tools_approval_mode",
    "tools",
    "experimental_environment",
    "oauth",
    "scopes",
    "oauth_resource",
];

/// Reads the user and the project configuration.
pub(super) fn read(env: &HostEnv) -> (Vec<HostFile>, Vec<Trap>) {
    let user = env
        .overrides
        .get("CODEX_HOME")
        .cloned()
        .or_else(|| env.home.as_ref().map(|h| h.join(".codex")));
    let mut files = Vec::new();
    if let Some(dir) = user {
        files.push(read_file(Scope::User, dir.join("config.toml")));
    }
    let project = read_file(
        Scope::Project,
        env.project.join(".codex").join("config.toml"),
    );
    let mut traps = Vec::new();
    if !project.entries.is_empty() {
        traps.push(Trap {
            code: "project_trust",
            message: "Codex reads a project's .codex/config.toml only when the project is trusted in Codex".into(),
        });
    }
    files.push(project);
    (files, traps)
}

fn read_file(scope: Scope, path: PathBuf) -> HostFile {
    let mut file = HostFile::absent(scope, path);
    let text = match read_config_text(&file.path) {
        Ok(None) => return file,
        Ok(Some(text)) => text,
        Err(d) => {
            file.present = true;
            file.diagnostics.push(*d);
            file.unusable = true;
            return file;
        }
    };
    file.present = true;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let index = LineIndex::new(text);
    let mut cx = Cx::new(&file.path, text, &index);
    let root = match parse_toml(text) {
        Ok(root) => root,
        Err(err) => {
            let hint = text.trim_start().starts_with('{').then(|| {
                "this looks like JSON; Codex reads TOML: `[mcp_servers.NAME]` tables with `command`, `args`, `env`".to_owned()
            });
            cx.error(
                "syntax",
                "",
                err.offset,
                format!("not valid TOML: {}", err.message.trim()),
                hint,
            );
            file.diagnostics = cx.take();
            file.unusable = true;
            return file;
        }
    };
    let Json::Object(top) = &root.value else {
        return file;
    };
    let Some(servers) = top.iter().find(|m| m.key == "mcp_servers") else {
        return file;
    };
    let Json::Object(members) = &servers.value.value else {
        cx.error(
            "type_mismatch",
            "mcp_servers",
            servers.value.start,
            "`mcp_servers` must be a table".into(),
            None,
        );
        file.diagnostics = cx.take();
        file.unusable = true;
        return file;
    };
    for m in members {
        file.entries.push(entry(scope, &file.path, text, &index, m));
    }
    if file.entries.iter().any(|e| e.def.is_none()) {
        file.unusable = true;
    }
    file
}

/// One `[mcp_servers.NAME]` table, with its own diagnostics; its definition only when it has no
/// error.
fn entry(scope: Scope, file: &Path, text: &str, index: &LineIndex, m: &Member) -> HostEntry {
    let line = index.line(m.key_start);
    let mut cx = Cx::new(file, text, index);
    let path = format!("mcp_servers.{}", m.key);
    let def = server(&mut cx, &path, &m.value);
    let diagnostics = cx.take();
    let valid = !diagnostics.iter().any(Diagnostic::is_error);
    HostEntry {
        name: m.key.clone(),
        origin: Origin {
            scope,
            file: file.to_path_buf(),
            line: Some(line),
        },
        raw: mask(&m.value.value.to_value()),
        def: def.filter(|_| valid),
        diagnostics,
    }
}

fn find<'a>(members: &'a [Member], key: &str) -> Option<&'a Member> {
    members.iter().find(|m| m.key == key)
}

fn server(cx: &mut Cx<'_>, path: &str, value: &Spanned) -> Option<HostDef> {
    let Json::Object(members) = &value.value else {
        cx.error(
            "type_mismatch",
            path,
            value.start,
            "a server must be a table".into(),
            None,
        );
        return None;
    };
    check_keys(cx, path, members);
    let command = find(members, "command");
    let url = find(members, "url");
    let stdio = transport_choice(cx, path, value.start, members)?;
    let disabled = find(members, "enabled")
        .and_then(|m| cx.boolean(&m.value, &format!("{path}.enabled")))
        .is_some_and(|enabled| !enabled);
    let transport = if stdio {
        stdio_transport(cx, path, command?, members)?
    } else {
        http_transport(cx, path, url?, members)?
    };
    let sandbox = find(members, "sandbox").and_then(|m| super::sandbox_field::carried(false, m));
    Some(HostDef {
        transport,
        disabled,
        sandbox,
    })
}

/// Refuses an inline `bearer_token`, reports mcpdeck's `sandbox` (which Codex ignores) and warns
/// about keys Codex does not know.
fn check_keys(cx: &mut Cx<'_>, path: &str, members: &[Member]) {
    for m in members {
        let key = m.key.as_str();
        if key == "bearer_token" {
            cx.error(
                "literal_secret",
                &format!("{path}.bearer_token"),
                m.key_start,
                "Codex rejects an inline `bearer_token`; the token would sit in the file".into(),
                Some("export the token and write `bearer_token_env_var = \"VAR\"`".into()),
            );
        } else if key == "sandbox" {
            // Codex has no per-server `sandbox`: it would start the server unconfined.
            super::sandbox_field::report(cx, super::HostId::Codex, false, path, m);
        } else if !STDIO_ONLY.contains(&key) && !HTTP_ONLY.contains(&key) && !COMMON.contains(&key)
        {
            let known: Vec<&str> = STDIO_ONLY
                .iter()
                .chain(HTTP_ONLY)
                .chain(COMMON)
                .copied()
                .collect();
            cx.warning(
                "unknown_field",
                &format!("{path}.{key}"),
                m.key_start,
                format!("`{key}` is not a Codex MCP server key; Codex ignores it"),
                nearest(key, &known).map(|n| format!("did you mean `{n}`?")),
            );
        }
    }
}

/// Whether the server is stdio (`command`) or Streamable HTTP (`url`): exactly one of the two,
/// and no key of the other transport. `None` after an error.
fn transport_choice(cx: &mut Cx<'_>, path: &str, start: usize, members: &[Member]) -> Option<bool> {
    let (stdio, other_keys) = match (find(members, "command"), find(members, "url")) {
        (Some(_), Some(u)) => {
            cx.error(
                "transport_conflict",
                path,
                u.key_start,
                "both `command` and `url` are given; Codex refuses the server".into(),
                None,
            );
            return None;
        }
        (None, None) => {
            cx.error(
                "missing_transport",
                path,
                start,
                "no `command` and no `url`: Codex refuses the server (invalid transport)".into(),
                None,
            );
            return None;
        }
        (Some(_), None) => (true, HTTP_ONLY),
        (None, Some(_)) => (false, STDIO_ONLY),
    };
    let kind = if stdio { "stdio" } else { "Streamable HTTP" };
    for m in members
        .iter()
        .filter(|m| other_keys.contains(&m.key.as_str()))
    {
        cx.error(
            "wrong_transport_field",
            &format!("{path}.{}", m.key),
            m.key_start,
            format!(
                "`{}` does not apply to a {kind} server; Codex refuses the mix",
                m.key
            ),
            None,
        );
    }
    Some(stdio)
}

/// A stdio server: literal `command`, `args`, `cwd` and `env`, plus the variables `env_vars`
/// passes through.
fn stdio_transport(
    cx: &mut Cx<'_>,
    path: &str,
    command: &Member,
    members: &[Member],
) -> Option<HostTransport> {
    let text = cx.non_empty_string(&command.value, &format!("{path}.command"))?;
    let args = strings(cx, &format!("{path}.args"), find(members, "args"));
    unpinned(cx, path, &text, &args, command.value.start);
    let mut env = literal_map(cx, &format!("{path}.env"), find(members, "env"), false);
    for name in env_vars(cx, &format!("{path}.env_vars"), find(members, "env_vars")) {
        env.insert(name.clone(), Text(vec![Piece::Env(name)]));
    }
    Some(HostTransport::Stdio {
        command: Text::lit(&text),
        args: args.iter().map(|a| Text::lit(a)).collect(),
        cwd: find(members, "cwd")
            .and_then(|m| cx.string(&m.value, &format!("{path}.cwd")))
            .map(|c| Text::lit(&c)),
        env,
    })
}

/// A Streamable HTTP server: the `url`, literal `http_headers`, headers from variables
/// (`env_http_headers`) and `Authorization: Bearer` from `bearer_token_env_var`.
fn http_transport(
    cx: &mut Cx<'_>,
    path: &str,
    url: &Member,
    members: &[Member],
) -> Option<HostTransport> {
    let p = format!("{path}.url");
    let text = cx.non_empty_string(&url.value, &p)?;
    check_url(cx, &p, url.value.start, &text);
    let mut headers = literal_map(
        cx,
        &format!("{path}.http_headers"),
        find(members, "http_headers"),
        true,
    );
    if let Some(m) = find(members, "env_http_headers") {
        let p = format!("{path}.env_http_headers");
        for (name, var) in var_map(cx, &p, &m.value) {
            headers.insert(name, Text(vec![Piece::Env(var)]));
        }
    }
    if let Some(m) = find(members, "bearer_token_env_var") {
        let p = format!("{path}.bearer_token_env_var");
        if let Some(var) = cx.non_empty_string(&m.value, &p) {
            headers.insert(
                "Authorization".into(),
                Text(vec![Piece::Lit("Bearer ".into()), Piece::Env(var)]),
            );
        }
    }
    Some(HostTransport::Http {
        url: Text::lit(&text),
        headers,
        sse: false,
    })
}

fn strings(cx: &mut Cx<'_>, path: &str, member: Option<&Member>) -> Vec<String> {
    let Some(m) = member else {
        return Vec::new();
    };
    let Json::Array(items) = &m.value.value else {
        cx.error(
            "type_mismatch",
            path,
            m.value.start,
            "must be an array of strings".into(),
            None,
        );
        return Vec::new();
    };
    items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| cx.string(item, &format!("{path}[{i}]")))
        .collect()
}

fn env_vars(cx: &mut Cx<'_>, path: &str, member: Option<&Member>) -> Vec<String> {
    let Some(m) = member else {
        return Vec::new();
    };
    let Json::Array(items) = &m.value.value else {
        cx.error(
            "type_mismatch",
            path,
            m.value.start,
            "`env_vars` must be an array of variable names".into(),
            None,
        );
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let p = format!("{path}[{i}]");
        let name = match &item.value {
            Json::String(s) => Some(s.clone()),
            Json::Object(fields) => fields
                .iter()
                .find(|f| f.key == "name")
                .and_then(|f| cx.string(&f.value, &format!("{p}.name"))),
            other => {
                cx.error(
                    "type_mismatch",
                    &p,
                    item.start,
                    format!(
                        "an `env_vars` entry must be a name, found {}",
                        other.type_name()
                    ),
                    None,
                );
                None
            }
        };
        match name {
            Some(n) if is_var_name(&n) => out.push(n),
            Some(n) => cx.error(
                "invalid_name",
                &p,
                item.start,
                format!("`{n}` is not a variable name"),
                None,
            ),
            None => {}
        }
    }
    out
}

/// Reads a table of literal strings (`env`, `http_headers`). Codex takes both literally by
/// design (it expands no variables there), so a credential-shaped key is a warning — the value
/// is a plain-text secret in the file — and the server still loads.
fn literal_map(
    cx: &mut Cx<'_>,
    path: &str,
    member: Option<&Member>,
    headers: bool,
) -> BTreeMap<String, Text> {
    let mut out = BTreeMap::new();
    let Some(m) = member else {
        return out;
    };
    let Json::Object(items) = &m.value.value else {
        cx.error(
            "type_mismatch",
            path,
            m.value.start,
            "must be a table of strings".into(),
            None,
        );
        return out;
    };
    for item in items {
        let p = format!("{path}.{}", item.key);
        let Some(value) = cx.string(&item.value, &p) else {
            continue;
        };
        if is_secret_key(&item.key, headers) && !value.is_empty() {
            let var = item.key.to_ascii_uppercase().replace('-', "_");
            let suggestion = if !headers {
                format!("remove it from `env`, export {var} and add `env_vars = [\"{var}\"]`")
            } else if item.key.eq_ignore_ascii_case("authorization") {
                format!("export the token and write `bearer_token_env_var = \"{var}\"`")
            } else {
                format!(
                    "export it and write `env_http_headers = {{ \"{}\" = \"{var}\" }}`",
                    item.key
                )
            };
            cx.warning(
                "literal_secret",
                &p,
                item.key_start,
                format!(
                    "literal credential in `{}`; Codex takes it as written (it expands no \
                     variables here), so the secret itself sits in the file",
                    item.key
                ),
                Some(suggestion),
            );
        }
        out.insert(item.key.clone(), Text::lit(&value));
    }
    out
}

fn var_map(cx: &mut Cx<'_>, path: &str, value: &Spanned) -> Vec<(String, String)> {
    let Json::Object(items) = &value.value else {
        cx.error(
            "type_mismatch",
            path,
            value.start,
            "must be a table of header name = variable name".into(),
            None,
        );
        return Vec::new();
    };
    let mut out = Vec::new();
    for item in items {
        let p = format!("{path}.{}", item.key);
        if let Some(var) = cx.string(&item.value, &p) {
            if is_var_name(&var) {
                out.push((item.key.clone(), var));
            } else {
                cx.error(
                    "invalid_name",
                    &p,
                    item.value.start,
                    format!("`{var}` is not a variable name (the value names the variable holding the header)"),
                    None,
                );
            }
        }
    }
    out
}
