//! The reader the JSON hosts share: one [`Rules`] value per host says where its servers live,
//! which fields it knows, how it picks a transport and what it does with a bad entry. Positions
//! and codes are those of `mcpdeck config check`.

use std::path::{Path, PathBuf};

use super::text::Text;
use super::values::{mask, unpinned};
use super::{HostDef, HostEntry, HostFile, HostId, HostTransport, Origin, Scope};
use crate::mcp::config::Diagnostic;
use crate::mcp::config::diagnostic::nearest;
use crate::mcp::config::fields::{Cx, check_url};
use crate::mcp::config::json::{self, Json, LineIndex, Member, Spanned};
use crate::mcp::config::load::read_config_text;

/// When a host insists on a `type` field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum TypeRule {
    /// `type` is optional; the host infers the transport.
    Optional,
    /// `type` is required for URL servers (stdio is the default).
    ForUrl,
    /// `type` is required for every server.
    Always,
}

/// One JSON host's rules.
#[derive(Debug, Clone, Copy)]
pub(super) struct Rules {
    /// The host.
    pub host: HostId,
    /// The key holding the servers object.
    pub servers_key: &'static str,
    /// Whether the host accepts comments and trailing commas.
    pub jsonc: bool,
    /// Fields the host knows besides command/args/env/cwd/headers/type and the URL keys.
    pub extra_fields: &'static [&'static str],
    /// Keys that hold an endpoint, in preference order.
    pub url_keys: &'static [&'static str],
    /// A URL key that means SSE when no `type` says otherwise (Gemini's `url`).
    pub sse_url_key: Option<&'static str>,
    /// When `type` is required.
    pub type_rule: TypeRule,
    /// A warning when the host treats SSE as deprecated (`None`: supported as is).
    pub sse_note: Option<&'static str>,
    /// Whether the host supports `cwd`.
    pub cwd: bool,
    /// The boolean key that switches a server off, if any.
    pub disabled_key: Option<&'static str>,
    /// Whether one invalid entry makes the host ignore the whole file.
    pub invalid_disables_file: bool,
}

/// Reads one file (or, with `section`, the object at that key path inside it).
pub(super) fn read_json(
    rules: &Rules,
    scope: Scope,
    path: PathBuf,
    section: &[&str],
    project: &Path,
) -> HostFile {
    let mut file = HostFile::absent(scope, path);
    // Borrowed by the collectors while `file` fills in.
    let path = file.path.clone();
    let text = match read_config_text(&path) {
        Ok(None) => return file,
        Ok(Some(text)) => text,
        Err(d) => {
            file.present = true;
            if section.is_empty() {
                file.diagnostics.push(*d);
            }
            return file;
        }
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let index = LineIndex::new(text);
    let mut cx = Cx::new(&path, text, &index);
    // A section is read from a file that is also read whole (Claude Code's local scope lives
    // in `~/.claude.json`): the whole read reports the file's faults, once.
    let top = match top_object(rules, &mut cx, text) {
        Ok(top) => top,
        Err(Unreadable { unusable }) => {
            file.present = true;
            if section.is_empty() {
                file.diagnostics = cx.take();
                file.unusable = unusable;
            }
            return file;
        }
    };
    let Some(object) = section_of(&top, section) else {
        return file;
    };
    file.present = true;
    let inputs = input_ids(object);
    let here = Here {
        rules,
        file: &path,
        text,
        index: &index,
        inputs: &inputs,
        project,
    };
    here.servers(&mut cx, &mut file, object, section);
    file
}

/// A file whose top level could not be read; the reason is in the [`Cx`].
struct Unreadable {
    /// The host ignores the whole file (a syntax error), not just finds nothing in it.
    unusable: bool,
}

/// Parses `text` (as JSONC when the host accepts comments) and returns its top-level object.
fn top_object(rules: &Rules, cx: &mut Cx<'_>, text: &str) -> Result<Vec<Member>, Unreadable> {
    let parsed = if rules.jsonc {
        json::parse_jsonc(text)
    } else {
        json::parse(text)
    };
    let root = match parsed {
        Ok(root) => root,
        Err(err) => {
            let hint = (!rules.jsonc && text.contains("//")).then(|| {
                format!(
                    "{} reads this file as strict JSON: comments and trailing commas are errors",
                    rules.host.name()
                )
            });
            cx.error(
                "syntax",
                "",
                err.offset,
                format!("not valid JSON: {}", err.message),
                hint,
            );
            return Err(Unreadable { unusable: true });
        }
    };
    match root.value {
        Json::Object(members) => Ok(members),
        other => {
            cx.error(
                "top_level",
                "",
                root.start,
                format!(
                    "the top level must be an object, found {}",
                    other.type_name()
                ),
                None,
            );
            Err(Unreadable { unusable: false })
        }
    }
}

/// The object at the key path `section` (the last of repeated keys wins); `None` when a key is
/// missing or not an object.
fn section_of<'a>(top: &'a [Member], section: &[&str]) -> Option<&'a [Member]> {
    let mut object = top;
    for key in section {
        let Json::Object(inner) = &object.iter().rev().find(|m| m.key == *key)?.value.value else {
            return None;
        };
        object = inner.as_slice();
    }
    Some(object)
}

fn input_ids(object: &[Member]) -> Vec<String> {
    let Some(Json::Array(items)) = object
        .iter()
        .find(|m| m.key == "inputs")
        .map(|m| &m.value.value)
    else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(|i| match &i.value {
            Json::Object(members) => members.iter().find(|m| m.key == "id").and_then(|m| match &m
                .value
                .value
            {
                Json::String(s) => Some(s.clone()),
                _ => None,
            }),
            _ => None,
        })
        .collect()
}

/// What reading one file needs at hand (its values are read in `values`).
pub(super) struct Here<'a> {
    pub(super) rules: &'a Rules,
    pub(super) file: &'a Path,
    pub(super) text: &'a str,
    pub(super) index: &'a LineIndex,
    pub(super) inputs: &'a [String],
    pub(super) project: &'a Path,
}

/// The fields of one server object.
#[derive(Default)]
struct Fields<'a> {
    command: Option<&'a Spanned>,
    args: Option<&'a Spanned>,
    env: Option<&'a Spanned>,
    cwd: Option<&'a Spanned>,
    headers: Option<&'a Spanned>,
    kind: Option<&'a Spanned>,
    url: Option<(&'static str, &'a Spanned)>,
    disabled: Option<&'a Spanned>,
    /// mcpdeck's `sandbox` block, as an import carries it.
    sandbox: Option<serde_json::Value>,
    start: usize,
}

impl Here<'_> {
    /// Reads the servers object of `object` into `file`'s entries.
    fn servers(&self, cx: &mut Cx<'_>, file: &mut HostFile, object: &[Member], section: &[&str]) {
        let rules = self.rules;
        let Some(servers) = object.iter().rev().find(|m| m.key == rules.servers_key) else {
            return;
        };
        let prefix = if section.is_empty() {
            rules.servers_key.to_owned()
        } else {
            format!("{}.{}", section.join("."), rules.servers_key)
        };
        let Json::Object(members) = &servers.value.value else {
            cx.error(
                "type_mismatch",
                &prefix,
                servers.value.start,
                format!(
                    "`{}` must be an object, found {}",
                    rules.servers_key,
                    servers.value.value.type_name()
                ),
                None,
            );
            file.diagnostics = cx.take();
            return;
        };
        cx.duplicates(members, &prefix);
        file.diagnostics = cx.take();
        for m in members {
            file.entries.push(self.entry(file.scope, m, &prefix));
        }
        if rules.invalid_disables_file && file.entries.iter().any(|e| e.def.is_none()) {
            file.unusable = true;
        }
    }

    fn entry(&self, scope: Scope, m: &Member, prefix: &str) -> HostEntry {
        let line = self.index.line(m.key_start);
        let mut cx = Cx::new(self.file, self.text, self.index);
        let path = format!("{prefix}.{}", m.key);
        let def = self.server(&mut cx, &path, &m.value);
        let diagnostics = cx.take();
        let valid = !diagnostics.iter().any(Diagnostic::is_error);
        HostEntry {
            name: m.key.clone(),
            origin: Origin {
                scope,
                file: self.file.to_path_buf(),
                line: Some(line),
            },
            raw: mask(&m.value.value.to_value()),
            def: def.filter(|_| valid),
            diagnostics,
        }
    }

    fn server(&self, cx: &mut Cx<'_>, path: &str, value: &Spanned) -> Option<HostDef> {
        let Json::Object(members) = &value.value else {
            cx.error(
                "type_mismatch",
                path,
                value.start,
                format!(
                    "a server must be an object, found {}",
                    value.value.type_name()
                ),
                None,
            );
            return None;
        };
        cx.duplicates(members, path);
        let f = self.fields(cx, path, value.start, members);
        let kind = f.kind.and_then(|k| cx.string(k, &format!("{path}.type")));
        let sse = self.transport_kind(cx, path, &f, kind.as_deref())?;
        let disabled = f
            .disabled
            .and_then(|d| {
                let key = self.rules.disabled_key.unwrap_or("");
                cx.boolean(d, &format!("{path}.{key}"))
            })
            .unwrap_or(false);
        let transport = match (f.command, f.url) {
            (Some(command), None) => self.stdio(cx, path, command, &f)?,
            (None, Some((key, url))) => {
                let p = format!("{path}.{key}");
                let text = cx.non_empty_string(url, &p)?;
                let url_text = self.text(cx, &p, url.start, &text);
                if let Some(literal) = url_text.literal() {
                    check_url(cx, &p, url.start, &literal);
                }
                let headers = self.map(cx, &format!("{path}.headers"), f.headers);
                HostTransport::Http {
                    url: url_text,
                    headers,
                    sse,
                }
            }
            _ => return None,
        };
        Some(HostDef {
            transport,
            disabled,
            sandbox: f.sandbox,
        })
    }

    /// Sorts a server object's members into [`Fields`], reporting a second URL key and the
    /// fields the host does not know.
    fn fields<'a>(
        &self,
        cx: &mut Cx<'_>,
        path: &str,
        start: usize,
        members: &'a [Member],
    ) -> Fields<'a> {
        let rules = self.rules;
        let mut f = Fields {
            start,
            ..Fields::default()
        };
        for m in members {
            let key = m.key.as_str();
            let v = &m.value;
            match key {
                "command" => f.command = Some(v),
                "args" => f.args = Some(v),
                "env" => f.env = Some(v),
                "cwd" if rules.cwd => f.cwd = Some(v),
                "headers" => f.headers = Some(v),
                "type" => f.kind = Some(v),
                k if rules.url_keys.contains(&k) => {
                    if let Some((other, _)) = f.url {
                        let host = rules.host.name();
                        cx.error(
                            "transport_conflict",
                            &format!("{path}.{k}"),
                            m.key_start,
                            format!("both `{other}` and `{k}` are given; {host} uses one endpoint"),
                            None,
                        );
                    } else {
                        f.url = rules.url_keys.iter().find(|u| **u == k).map(|u| (*u, v));
                    }
                }
                k if Some(k) == rules.disabled_key => f.disabled = Some(v),
                "sandbox" => {
                    let own = rules.extra_fields.contains(&"sandbox");
                    super::sandbox_field::report(cx, rules.host, own, path, m);
                    f.sandbox = super::sandbox_field::carried(own, m);
                }
                k if rules.extra_fields.contains(&k) => {}
                other => self.unknown_field(cx, path, other, m.key_start),
            }
        }
        f
    }

    /// Warns about a field the host ignores, suggesting the nearest one it knows.
    fn unknown_field(&self, cx: &mut Cx<'_>, path: &str, field: &str, at: usize) {
        let rules = self.rules;
        let host = rules.host.name();
        let mut known: Vec<&str> = vec!["command", "args", "env", "headers", "type"];
        known.extend(rules.url_keys);
        known.extend(rules.extra_fields);
        if rules.cwd {
            known.push("cwd");
        }
        cx.warning(
            "unknown_field",
            &format!("{path}.{field}"),
            at,
            format!("`{field}` is not a {host} server field; {host} ignores it"),
            nearest(field, &known).map(|n| format!("did you mean `{n}`?")),
        );
    }

    /// The stdio transport of a server with a `command`.
    fn stdio(
        &self,
        cx: &mut Cx<'_>,
        path: &str,
        command: &Spanned,
        f: &Fields<'_>,
    ) -> Option<HostTransport> {
        let command_path = format!("{path}.command");
        let command_text = cx.non_empty_string(command, &command_path)?;
        let args = self.args(cx, path, f.args);
        let cwd = f.cwd.and_then(|c| {
            let cwd_path = format!("{path}.cwd");
            let value = cx.string(c, &cwd_path)?;
            Some(self.text(cx, &cwd_path, c.start, &value))
        });
        let env = self.map(cx, &format!("{path}.env"), f.env);
        let command_value = self.text(cx, &command_path, command.start, &command_text);
        let args_plain: Vec<String> = args.iter().filter_map(Text::literal).collect();
        unpinned(cx, path, &command_text, &args_plain, command.start);
        Some(HostTransport::Stdio {
            command: command_value,
            args,
            cwd,
            env,
        })
    }

    /// Checks the transport choice; returns whether it is SSE.
    fn transport_kind(
        &self,
        cx: &mut Cx<'_>,
        path: &str,
        f: &Fields<'_>,
        kind: Option<&str>,
    ) -> Option<bool> {
        self.one_transport(cx, path, f)?;
        let host = self.rules.host.name();
        let at = f.kind.map_or(0, |k| k.start);
        let is_url = f.url.is_some();
        let sse = match kind {
            Some("stdio") if is_url => {
                cx.error(
                    "transport_conflict",
                    &format!("{path}.type"),
                    at,
                    "`type` is `stdio` but the server has a URL".into(),
                    None,
                );
                return None;
            }
            Some("http" | "streamable-http" | "streamableHttp" | "sse") if !is_url => {
                cx.error(
                    "transport_conflict",
                    &format!("{path}.type"),
                    at,
                    format!(
                        "`type` is `{}` but the server has a `command`",
                        kind.unwrap_or("")
                    ),
                    None,
                );
                return None;
            }
            Some("stdio" | "http" | "streamable-http" | "streamableHttp") => false,
            Some("sse") => true,
            Some(other) => {
                cx.error(
                    "invalid_value",
                    &format!("{path}.type"),
                    at,
                    format!("{host} does not know the transport `{other}`"),
                    nearest(other, &["stdio", "http", "sse"])
                        .map(|n| format!("did you mean `{n}`?")),
                );
                return None;
            }
            None => self.untyped_sse(cx, path, f)?,
        };
        if sse && let Some(note) = self.rules.sse_note {
            cx.warning(
                "sse_deprecated",
                path,
                at,
                format!("{host} {note}"),
                Some("use the Streamable HTTP transport if the server offers it".into()),
            );
        }
        Some(sse)
    }

    /// Checks that the server has exactly one of `command` and a URL key.
    fn one_transport(&self, cx: &mut Cx<'_>, path: &str, f: &Fields<'_>) -> Option<()> {
        match (f.command, f.url) {
            (Some(c), Some((key, _))) => {
                cx.error(
                    "transport_conflict",
                    path,
                    c.start,
                    format!(
                        "both `command` and `{key}` are given; a server is either stdio or remote"
                    ),
                    None,
                );
                None
            }
            (None, None) => {
                let keys = self
                    .rules
                    .url_keys
                    .iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(" or ");
                let host = self.rules.host.name();
                cx.error(
                    "missing_transport",
                    path,
                    f.start,
                    format!("no `command` and no {keys}: {host} cannot start or reach this server"),
                    None,
                );
                None
            }
            _ => Some(()),
        }
    }

    /// A server without `type`: refused where the host requires one, else SSE only when its
    /// URL sits under the host's SSE key.
    fn untyped_sse(&self, cx: &mut Cx<'_>, path: &str, f: &Fields<'_>) -> Option<bool> {
        let rules = self.rules;
        let is_url = f.url.is_some();
        let required = match rules.type_rule {
            TypeRule::Optional => false,
            TypeRule::ForUrl => is_url,
            TypeRule::Always => true,
        };
        if required {
            let want = if is_url { "http" } else { "stdio" };
            cx.error(
                "missing_type",
                path,
                f.start,
                format!("{} requires `type` here", rules.host.name()),
                Some(format!("add `\"type\": \"{want}\"`")),
            );
            return None;
        }
        Some(f.url.is_some_and(|(key, _)| Some(key) == rules.sse_url_key))
    }
}
