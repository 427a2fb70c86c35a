//! Export: a mcpdeck definition as a snippet in another host's format (JSON for most hosts, a
//! TOML table for Codex), with notes on what that host will treat differently. Nothing here
//! writes a file.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{Map, Value, json};

use super::convert::{array_of, from_deck, object_of};
use super::text::{Piece, Syntax, Text};
use super::{HostDef, HostId, HostTransport};
use crate::mcp::config::{ProtocolChoice, ReconnectPolicy, ServerDef, Transport};

/// The mcpdeck-only fields `def` sets that no host's format carries, by their name in
/// mcpdeck's file. Fields left at their default lose nothing and are not listed.
pub(crate) fn dropped_fields(def: &ServerDef) -> Vec<&'static str> {
    let mut dropped = Vec::new();
    if def.request_timeout_ms.is_some() {
        dropped.push("requestTimeoutMs");
    }
    if def.task_timeout_ms.is_some() {
        dropped.push("taskTimeoutMs");
    }
    if def.reconnect != ReconnectPolicy::default() {
        dropped.push("reconnect");
    }
    if def.protocol != ProtocolChoice::default() {
        dropped.push("protocolVersion");
    }
    if def.roots.is_some() {
        dropped.push("roots");
    }
    if matches!(&def.transport, Transport::Http(h) if h.oauth.is_some()) {
        dropped.push("oauth");
    }
    dropped
}

/// One note per field of `def` that the snippet for `host` leaves out.
fn dropped_notes(def: &ServerDef, host: HostId) -> Vec<String> {
    dropped_fields(def)
        .into_iter()
        .map(|field| {
            format!(
                "`{field}` is not carried: {}'s format has no field for it",
                host.name()
            )
        })
        .collect()
}

/// A snippet of `def` in `host`'s format, plus notes on what the host will treat differently.
pub(crate) fn export(def: &ServerDef, host: HostId) -> Result<(String, Vec<String>), Vec<String>> {
    let neutral = from_deck(def);
    if host == HostId::Codex {
        return codex_snippet(&def.name, &neutral).map(|(snippet, mut notes)| {
            notes.extend(dropped_notes(def, host));
            (snippet, notes)
        });
    }
    let json = JsonServer {
        host,
        problems: RefCell::new(Vec::new()),
    };
    let mut notes = dropped_notes(def, host);
    let mut server = match &neutral.transport {
        HostTransport::Stdio {
            command,
            args,
            cwd,
            env,
        } => json.stdio(command, args, cwd.as_ref(), env),
        HostTransport::Http { url, headers, .. } => json.http(url, headers),
    };
    if neutral.disabled {
        if host == HostId::Windsurf {
            server.insert("disabled".into(), json!(true));
        } else {
            notes.push(format!(
                "the server is disabled in mcpdeck; {} has no `disabled` field, so it would start",
                host.name()
            ));
        }
    }
    let problems = json.problems.into_inner();
    if !problems.is_empty() {
        return Err(problems);
    }
    let key = if host == HostId::VsCode {
        "servers"
    } else {
        "mcpServers"
    };
    let doc = json!({ key: { def.name.clone(): Value::Object(server) } });
    let text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    if host.syntax() == Syntax::Claude {
        notes.push(
            "for the project scope, put it in .mcp.json (or run `claude mcp add-json`)".into(),
        );
    }
    Ok((text + "\n", notes))
}

/// One server's object for a JSON host, collecting what the host cannot express.
struct JsonServer {
    host: HostId,
    problems: RefCell<Vec<String>>,
}

impl JsonServer {
    /// `t` in the host's variable syntax; `null` (and a problem) when it has none for it.
    fn render(&self, t: &Text, field: &str) -> Value {
        match t.render(self.host.syntax()) {
            Ok(s) => Value::String(s),
            Err(e) => {
                self.problems.borrow_mut().push(format!("`{field}`: {e}"));
                Value::Null
            }
        }
    }

    fn stdio(
        &self,
        command: &Text,
        args: &[Text],
        cwd: Option<&Text>,
        env: &BTreeMap<String, Text>,
    ) -> Map<String, Value> {
        let host = self.host;
        let render = |t: &Text, field: &str| self.render(t, field);
        let mut server = Map::new();
        if matches!(host, HostId::ClaudeCode | HostId::VsCode) {
            server.insert("type".into(), json!("stdio"));
        }
        server.insert("command".into(), render(command, "command"));
        if let Some(args) = array_of(args, render) {
            server.insert("args".into(), args);
        }
        if let Some(cwd) = cwd {
            if matches!(host, HostId::VsCode | HostId::Gemini) {
                server.insert("cwd".into(), render(cwd, "cwd"));
            } else {
                self.problems.borrow_mut().push(format!(
                    "`cwd`: {} has no working-directory setting",
                    host.name()
                ));
            }
        }
        if let Some(env) = object_of(env, "env", render) {
            server.insert("env".into(), env);
        }
        server
    }

    fn http(&self, url: &Text, headers: &BTreeMap<String, Text>) -> Map<String, Value> {
        let host = self.host;
        let render = |t: &Text, field: &str| self.render(t, field);
        let mut server = Map::new();
        if matches!(host, HostId::ClaudeCode | HostId::VsCode) {
            server.insert("type".into(), json!("http"));
        }
        let key = match host {
            HostId::Gemini => "httpUrl",
            HostId::Windsurf => "serverUrl",
            _ => "url",
        };
        server.insert(key.into(), render(url, "url"));
        if let Some(headers) = object_of(headers, "headers", render) {
            server.insert("headers".into(), headers);
        }
        server
    }
}

fn toml_string(s: &str) -> String {
    serde_json::to_string(s)
        .unwrap_or_default()
        .replace("\\/", "/")
}

fn toml_key(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        s.to_owned()
    } else {
        toml_string(s)
    }
}

fn codex_snippet(name: &str, def: &HostDef) -> Result<(String, Vec<String>), Vec<String>> {
    let mut toml = CodexTable {
        head: format!("[mcp_servers.{}]\n", toml_key(name)),
        tables: String::new(),
        problems: Vec::new(),
    };
    match &def.transport {
        HostTransport::Stdio {
            command,
            args,
            cwd,
            env,
        } => toml.stdio(name, command, args, cwd.as_ref(), env),
        HostTransport::Http { url, headers, .. } => toml.http(url, headers),
    }
    if def.disabled {
        toml.head.push_str("enabled = false\n");
    }
    if toml.problems.is_empty() {
        Ok((toml.head + &toml.tables, Vec::new()))
    } else {
        Err(toml.problems)
    }
}

/// A Codex `[mcp_servers.NAME]` table being written.
struct CodexTable {
    /// The table's own keys.
    head: String,
    /// Sub-tables that follow it (`[mcp_servers.NAME.env]`).
    tables: String,
    /// What Codex cannot express.
    problems: Vec<String>,
}

impl CodexTable {
    fn stdio(
        &mut self,
        name: &str,
        command: &Text,
        args: &[Text],
        cwd: Option<&Text>,
        env: &BTreeMap<String, Text>,
    ) {
        let head = &mut self.head;
        let lit = |t: &Text| t.literal().unwrap_or_default();
        let _ = writeln!(head, "command = {}", toml_string(&lit(command)));
        if !args.is_empty() {
            let items: Vec<String> = args.iter().map(|a| toml_string(&lit(a))).collect();
            let _ = writeln!(head, "args = [{}]", items.join(", "));
        }
        if let Some(cwd) = cwd {
            let _ = writeln!(head, "cwd = {}", toml_string(&lit(cwd)));
        }
        let mut forwarded = Vec::new();
        let mut literal_env = Vec::new();
        for (k, v) in env {
            match v.0.as_slice() {
                [Piece::Env(var)] if var == k => forwarded.push(toml_string(k)),
                _ => match v.literal() {
                    Some(l) => literal_env.push(format!("{} = {}", toml_key(k), toml_string(&l))),
                    None => self.problems.push(format!(
                        "`env.{k}`: Codex forwards a variable only under its own name (`env_vars`) and expands nothing else"
                    )),
                },
            }
        }
        if !forwarded.is_empty() {
            let _ = writeln!(head, "env_vars = [{}]", forwarded.join(", "));
        }
        if !literal_env.is_empty() {
            let _ = writeln!(self.tables, "\n[mcp_servers.{}.env]", toml_key(name));
            for line in literal_env {
                let _ = writeln!(self.tables, "{line}");
            }
        }
    }

    fn http(&mut self, url: &Text, headers: &BTreeMap<String, Text>) {
        let head = &mut self.head;
        let _ = writeln!(
            head,
            "url = {}",
            toml_string(&url.literal().unwrap_or_default())
        );
        let mut literal_headers = Vec::new();
        let mut env_headers = Vec::new();
        for (k, v) in headers {
            match v.0.as_slice() {
                [Piece::Lit(bearer), Piece::Env(var)]
                    if bearer == "Bearer " && k.eq_ignore_ascii_case("authorization") =>
                {
                    let _ = writeln!(head, "bearer_token_env_var = {}", toml_string(var));
                }
                [Piece::Env(var)] => {
                    env_headers.push(format!("{} = {}", toml_key(k), toml_string(var)));
                }
                _ => match v.literal() {
                    Some(l) => {
                        literal_headers.push(format!("{} = {}", toml_key(k), toml_string(&l)));
                    }
                    None => self.problems.push(format!(
                        "`headers.{k}`: Codex takes a header either literal or wholly from one variable"
                    )),
                },
            }
        }
        if !literal_headers.is_empty() {
            let _ = writeln!(head, "http_headers = {{ {} }}", literal_headers.join(", "));
        }
        if !env_headers.is_empty() {
            let _ = writeln!(head, "env_http_headers = {{ {} }}", env_headers.join(", "));
        }
    }
}
