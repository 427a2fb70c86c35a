//! Conversion between a host's definitions and mcpdeck's: import (host → mcpdeck JSON, checked
//! by mcpdeck's own schema so literal credentials are refused), the comparable form of a
//! mcpdeck definition, and the definition a test-connect runs (variables resolved the way the
//! host would). Export lives in `export`. Nothing here writes a file.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Map, Value, json};

use super::text::{Piece, Text, describe};
use super::{HostDef, HostTransport};
use crate::mcp::config::refs::{Part, Template};
use crate::mcp::config::schema::parse_file;
use crate::mcp::config::{
    HttpDef, Layer, ProtocolChoice, ReconnectPolicy, ServerDef, StdioDef, Transport,
};

/// What the host-defined variables stand for here.
#[derive(Debug, Clone)]
pub(crate) struct Places<'a> {
    /// The project root (`${workspaceFolder}`).
    pub project: &'a Path,
    /// The home directory (`${userHome}`).
    pub home: Option<&'a Path>,
}

impl Places<'_> {
    fn builtin(&self, name: &str) -> Option<String> {
        match name {
            "workspaceFolder" => Some(self.project.display().to_string()),
            "workspaceFolderBasename" => self
                .project
                .file_name()
                .map(|n| n.to_string_lossy().into_owned()),
            "userHome" => self.home.map(|h| h.display().to_string()),
            "pathSeparator" | "/" => Some(std::path::MAIN_SEPARATOR.to_string()),
            _ => None,
        }
    }
}

/// mcpdeck's definition in the neutral form (its references become environment variables).
pub(crate) fn from_deck(def: &ServerDef) -> HostDef {
    let text = |t: &Template| {
        Text(
            t.parts()
                .iter()
                .map(|p| match p {
                    Part::Literal(s) => Piece::Lit(s.clone()),
                    Part::Var(n) => Piece::Env(n.clone()),
                })
                .collect(),
        )
        .normalised()
    };
    let transport = match &def.transport {
        Transport::Stdio(s) => HostTransport::Stdio {
            command: Text::lit(&s.command),
            args: s.args.iter().map(|a| Text::lit(a)).collect(),
            cwd: s.cwd.as_deref().map(Text::lit),
            env: s.env.iter().map(|(k, v)| (k.clone(), text(v))).collect(),
        },
        Transport::Http(h) => HostTransport::Http {
            url: Text::lit(&h.url),
            headers: h
                .headers
                .iter()
                .map(|(k, v)| (k.clone(), text(v)))
                .collect(),
            sse: false,
        },
    };
    HostDef {
        transport,
        disabled: def.disabled,
        // Compared by transport and fields only (`diff`); exports write no `sandbox`.
        sandbox: None,
    }
}

/// The definition with host-defined variables (`${workspaceFolder}`, …) replaced by what they
/// stand for here and every string normalised, so equal meanings compare equal.
pub(crate) fn settled(def: &HostDef, places: &Places<'_>) -> HostDef {
    let fix = |t: &Text| {
        Text(
            t.0.iter()
                .map(|p| match p {
                    Piece::Builtin(n) => places.builtin(n).map_or_else(|| p.clone(), Piece::Lit),
                    other => other.clone(),
                })
                .collect(),
        )
        .normalised()
    };
    let transport = match &def.transport {
        HostTransport::Stdio {
            command,
            args,
            cwd,
            env,
        } => HostTransport::Stdio {
            command: fix(command),
            args: args.iter().map(fix).collect(),
            cwd: cwd.as_ref().map(fix),
            env: env.iter().map(|(k, v)| (k.clone(), fix(v))).collect(),
        },
        HostTransport::Http { url, headers, sse } => HostTransport::Http {
            url: fix(url),
            headers: headers.iter().map(|(k, v)| (k.clone(), fix(v))).collect(),
            sse: *sse,
        },
    };
    HostDef {
        transport,
        disabled: def.disabled,
        sandbox: def.sandbox.clone(),
    }
}

/// The fields that differ between two settled definitions (`transport`, `args[1]`, `env.X`).
pub(crate) fn diff(a: &HostDef, b: &HostDef) -> Vec<String> {
    let mut out = Vec::new();
    if a.transport.kind() != b.transport.kind() {
        out.push("transport".to_owned());
    }
    let fa: BTreeMap<String, &Text> = a.transport.fields().into_iter().collect();
    let fb: BTreeMap<String, &Text> = b.transport.fields().into_iter().collect();
    let mut keys: Vec<&String> = fa.keys().chain(fb.keys()).collect();
    keys.sort();
    keys.dedup();
    for key in keys {
        if fa.get(key) != fb.get(key) {
            out.push(key.clone());
        }
    }
    if a.disabled != b.disabled {
        out.push("disabled".to_owned());
    }
    out
}

/// `args` as a JSON array, each converted with its field path (`args[2]`); `None` when there
/// are none (the field is then left out).
pub(super) fn array_of(
    args: &[Text],
    mut convert: impl FnMut(&Text, &str) -> Value,
) -> Option<Value> {
    (!args.is_empty()).then(|| {
        let items = args.iter().enumerate();
        Value::Array(
            items
                .map(|(i, a)| convert(a, &format!("args[{i}]")))
                .collect(),
        )
    })
}

/// `env` or `headers` as a JSON object, each value converted with its field path
/// (`env.KEY`); `None` when empty (the field is then left out).
pub(super) fn object_of(
    map: &BTreeMap<String, Text>,
    field: &str,
    mut convert: impl FnMut(&Text, &str) -> Value,
) -> Option<Value> {
    (!map.is_empty()).then(|| {
        let items = map.iter();
        Value::Object(
            items
                .map(|(k, v)| (k.clone(), convert(v, &format!("{field}.{k}"))))
                .collect(),
        )
    })
}

/// A host string as one literal mcpdeck value (command, args, cwd, url take no references).
fn literal(text: &Text, field: &str, places: &Places<'_>) -> Result<String, String> {
    let mut out = String::new();
    for piece in &text.0 {
        match piece {
            Piece::Lit(s) => out.push_str(s),
            Piece::Builtin(n) if places.builtin(n).is_some() => {
                out.push_str(&places.builtin(n).unwrap_or_default());
            }
            other => {
                return Err(format!(
                    "`{field}` uses {}; mcpdeck takes only literal text there (references are allowed in env and headers)",
                    describe(other)
                ));
            }
        }
    }
    Ok(out)
}

/// A host string as an mcpdeck template (env values, header values).
fn template(text: &Text, field: &str, places: &Places<'_>) -> Result<String, String> {
    let mut parts = Vec::new();
    for piece in &text.0 {
        parts.push(match piece {
            Piece::Lit(s) => Part::Literal(s.clone()),
            Piece::Env(n) => Part::Var(n.clone()),
            Piece::Builtin(n) if places.builtin(n).is_some() => {
                Part::Literal(places.builtin(n).unwrap_or_default())
            }
            Piece::EnvDefault(n, _) => {
                return Err(format!(
                    "`{field}` uses `${{{n}:-…}}`; mcpdeck has no defaults: write `${{{n}}}` and export {n}"
                ));
            }
            Piece::Input(id) => {
                return Err(format!(
                    "`{field}` prompts for input `{id}`; mcpdeck reads credentials from the environment: export one and write `${{VAR}}`"
                ));
            }
            other => {
                return Err(format!("`{field}` uses {}, which mcpdeck cannot express", describe(other)));
            }
        });
    }
    Template::from_parts(parts)
        .map(|t| t.source().to_owned())
        .map_err(|e| format!("`{field}`: {e}"))
}

/// Converts a host definition into mcpdeck's JSON for `name`, checked by mcpdeck's schema as a
/// `layer` file at `target`. Every reason it cannot be imported is returned (never a value).
pub(crate) fn to_deck(
    def: &HostDef,
    name: &str,
    places: &Places<'_>,
    target: &Path,
    layer: Layer,
) -> Result<Value, Vec<String>> {
    let mut problems = Vec::new();
    let mut take = |r: Result<String, String>| match r {
        Ok(s) => Some(s),
        Err(e) => {
            problems.push(e);
            None
        }
    };
    let mut out = Map::new();
    match &def.transport {
        HostTransport::Stdio {
            command,
            args,
            cwd,
            env,
        } => {
            out.insert(
                "command".into(),
                json!(take(literal(command, "command", places))),
            );
            if let Some(args) = array_of(args, |a, f| json!(take(literal(a, f, places)))) {
                out.insert("args".into(), args);
            }
            if let Some(cwd) = cwd {
                out.insert("cwd".into(), json!(take(literal(cwd, "cwd", places))));
            }
            if let Some(env) = object_of(env, "env", |v, f| json!(take(template(v, f, places)))) {
                out.insert("env".into(), env);
            }
        }
        HostTransport::Http { url, headers, sse } => {
            if *sse {
                take(Err("the host reaches it over SSE; mcpdeck speaks Streamable HTTP only (use the server's Streamable HTTP endpoint)".into()));
            }
            out.insert("url".into(), json!(take(literal(url, "url", places))));
            let headers = object_of(headers, "headers", |v, f| {
                json!(take(template(v, f, places)))
            });
            if let Some(headers) = headers {
                out.insert("headers".into(), headers);
            }
        }
    }
    if def.disabled {
        out.insert("disabled".into(), Value::Bool(true));
    }
    if let Some(sandbox) = &def.sandbox {
        out.insert("sandbox".into(), sandbox.clone());
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    let value = Value::Object(out);
    let doc = json!({"mcpServers": {name: value}}).to_string();
    let parsed = parse_file(&doc, target, layer);
    let errors: Vec<String> = parsed
        .diagnostics
        .iter()
        .chain(parsed.entries.iter().flat_map(|e| e.diagnostics.iter()))
        .filter(|d| d.is_error())
        .map(|d| match &d.suggestion {
            Some(s) => format!("{}: {} ({s})", d.path, d.message),
            None => format!("{}: {}", d.path, d.message),
        })
        .collect();
    if errors.is_empty() {
        Ok(value)
    } else {
        Err(errors)
    }
}

/// A host definition ready for mcpdeck's engine: variables resolved the way the host would
/// (`${input:…}` answers come from `answer`; environment variables stay references that the
/// connection resolves through the returned extra lookup, so no value is kept in the definition
/// text).
pub(crate) fn connect_def(
    def: &HostDef,
    name: &str,
    places: &Places<'_>,
    answer: &mut dyn FnMut(&str) -> Option<String>,
) -> Result<(ServerDef, BTreeMap<String, String>), String> {
    let mut resolver = Resolver {
        places,
        answer,
        answers: BTreeMap::new(),
    };
    let mut extra: BTreeMap<String, String> = BTreeMap::new();
    let transport = engine_transport(&def.transport, &mut resolver, &mut extra)?;
    Ok((
        ServerDef {
            name: name.to_owned(),
            transport,
            request_timeout_ms: None,
            task_timeout_ms: None,
            reconnect: ReconnectPolicy::default(),
            disabled: false,
            protocol: ProtocolChoice::default(),
            roots: None,
        },
        extra,
    ))
}

/// Resolves host text to its value the way the host would when it starts the server:
/// environment variables from this process, built-ins from the places, and each `${input:…}`
/// asked once.
struct Resolver<'a, 'p> {
    places: &'a Places<'p>,
    answer: &'a mut dyn FnMut(&str) -> Option<String>,
    /// The inputs answered so far, by id.
    answers: BTreeMap<String, String>,
}

impl Resolver<'_, '_> {
    fn ask(&mut self, id: &str) -> Result<String, String> {
        if let Some(v) = self.answers.get(id) {
            return Ok(v.clone());
        }
        let v = (self.answer)(id).ok_or_else(|| format!("no value given for input `{id}`"))?;
        self.answers.insert(id.to_owned(), v.clone());
        Ok(v)
    }

    /// `t` as one string; `field` names it in errors.
    fn flat(&mut self, t: &Text, field: &str) -> Result<String, String> {
        let env = |n: &str| std::env::var(n).ok().filter(|v| !v.is_empty());
        let mut out = String::new();
        for piece in &t.0 {
            match piece {
                Piece::Lit(s) => out.push_str(s),
                Piece::Env(n) => out.push_str(
                    &env(n).ok_or_else(|| format!("`{field}` needs `{n}`, which is not set"))?,
                ),
                Piece::EnvDefault(n, d) => out.push_str(&env(n).unwrap_or_else(|| d.clone())),
                Piece::Input(id) => out.push_str(&self.ask(id)?),
                Piece::Builtin(n) => out.push_str(
                    &self
                        .places
                        .builtin(n)
                        .ok_or_else(|| format!("`{field}`: `${{{n}}}` has no value here"))?,
                ),
                Piece::File(_) => {
                    return Err(format!(
                        "`{field}` reads a file (`${{file:…}}`); test-connect does not read it"
                    ));
                }
            }
        }
        Ok(out)
    }
}

/// The engine's transport for a host transport: plain values resolved now, `env` and `headers`
/// as templates (see [`templated`]).
fn engine_transport(
    transport: &HostTransport,
    resolver: &mut Resolver<'_, '_>,
    extra: &mut BTreeMap<String, String>,
) -> Result<Transport, String> {
    let mut flat = |t: &Text, field: &str| resolver.flat(t, field);
    Ok(match transport {
        HostTransport::Stdio {
            command,
            args,
            cwd,
            env,
        } => {
            let command = flat(command, "command")?;
            let args = args
                .iter()
                .enumerate()
                .map(|(i, a)| flat(a, &format!("args[{i}]")))
                .collect::<Result<Vec<_>, _>>()?;
            let cwd = cwd.as_ref().map(|c| flat(c, "cwd")).transpose()?;
            Transport::Stdio(StdioDef {
                command,
                args,
                cwd,
                env: templates(env, "env", &mut flat, extra)?,
                sandbox: None,
            })
        }
        HostTransport::Http { url, headers, sse } => {
            if *sse {
                return Err(
                    "the host reaches this server over SSE; mcpdeck speaks Streamable HTTP only"
                        .into(),
                );
            }
            Transport::Http(HttpDef {
                url: flat(url, "url")?,
                headers: templates(headers, "headers", &mut flat, extra)?,
                oauth: None,
            })
        }
    })
}

/// Every value of `env` or `headers` as a template (see [`templated`]).
fn templates(
    map: &BTreeMap<String, Text>,
    field: &str,
    flat: &mut dyn FnMut(&Text, &str) -> Result<String, String>,
    extra: &mut BTreeMap<String, String>,
) -> Result<BTreeMap<String, Template>, String> {
    map.iter()
        .map(|(k, v)| {
            Ok((
                k.clone(),
                templated(v, &format!("{field}.{k}"), flat, extra)?,
            ))
        })
        .collect()
}

/// An env or header value as a template: environment variables stay references; everything
/// else resolved now goes in as a hidden variable (so the value is redacted like a secret).
fn templated(
    text: &Text,
    field: &str,
    flat: &mut dyn FnMut(&Text, &str) -> Result<String, String>,
    extra: &mut BTreeMap<String, String>,
) -> Result<Template, String> {
    let mut parts = Vec::new();
    for piece in &text.0 {
        match piece {
            Piece::Lit(s) => parts.push(Part::Literal(s.clone())),
            Piece::Env(n) => parts.push(Part::Var(n.clone())),
            other => {
                let value = flat(&Text(vec![other.clone()]), field)?;
                let key = format!("MCPDECK_HOST_VALUE_{}", extra.len());
                extra.insert(key.clone(), value);
                parts.push(Part::Var(key));
            }
        }
    }
    Template::from_parts(parts).map_err(|e| format!("`{field}`: {e}"))
}
