//! The values of a host's server entry: `args`, the `env` and `headers` maps and each string
//! as a [`Text`] with its variables (in the host's own syntax), and how a literal credential is
//! recognised and masked for display. Positions and codes are those of `mcpdeck config check`.

use std::collections::BTreeMap;

use super::reader::Here;
use super::text::{Piece, Syntax, Text};
use crate::mcp::config::fields::Cx;
use crate::mcp::config::json::{Json, Spanned};
use crate::mcp::config::refs::is_credential_name;
use crate::mcp::config::schema::{REDACTED_LITERAL, displayable_url_with};
use crate::mcp::config::secret_shape;

impl Here<'_> {
    pub(super) fn args(&self, cx: &mut Cx<'_>, path: &str, args: Option<&Spanned>) -> Vec<Text> {
        let Some(value) = args else {
            return Vec::new();
        };
        let p = format!("{path}.args");
        cx.strings(value, &p)
            .into_iter()
            .map(|(s, ip, at)| self.text(cx, &ip, at, &s))
            .collect()
    }

    /// Reads `env` or `headers`: strings only, credential-shaped keys only by reference.
    pub(super) fn map(
        &self,
        cx: &mut Cx<'_>,
        path: &str,
        value: Option<&Spanned>,
    ) -> BTreeMap<String, Text> {
        let mut out = BTreeMap::new();
        let Some(value) = value else {
            return out;
        };
        let Json::Object(members) = &value.value else {
            cx.error(
                "type_mismatch",
                path,
                value.start,
                format!(
                    "must be an object of strings, found {}",
                    value.value.type_name()
                ),
                None,
            );
            return out;
        };
        cx.duplicates(members, path);
        let headers = path.ends_with(".headers");
        for m in members {
            let p = format!("{path}.{}", m.key);
            let Some(s) = cx.string(&m.value, &p) else {
                continue;
            };
            let text = self.text(cx, &p, m.value.start, &s);
            if is_secret_key(&m.key, headers) && text.is_literal() && !s.is_empty() {
                let var = m.key.to_ascii_uppercase().replace('-', "_");
                let reference = Text(vec![Piece::Env(var.clone())])
                    .render(self.rules.host.syntax())
                    .unwrap_or_else(|_| var.clone());
                let example = if m.key.eq_ignore_ascii_case("authorization") {
                    format!("\"Bearer {reference}\"")
                } else {
                    format!("\"{reference}\"")
                };
                cx.error(
                    "literal_secret",
                    &p,
                    m.key_start,
                    format!(
                        "literal credential in `{}`; it would be stored and shared as plain text",
                        m.key
                    ),
                    Some(format!("write {example} and export {var}")),
                );
                continue;
            }
            out.insert(m.key.clone(), text);
        }
        out
    }

    /// Parses a string in the host's syntax and checks its variables under the host's rules.
    pub(super) fn text(&self, cx: &mut Cx<'_>, path: &str, offset: usize, s: &str) -> Text {
        let host = self.rules.host.name();
        let (text, unknown) = Text::parse(s, self.rules.host.syntax());
        for u in unknown {
            cx.warning(
                "unknown_variable",
                path,
                offset,
                format!("{host} does not substitute `{u}`; it is passed as written"),
                None,
            );
        }
        for piece in text.variables() {
            match piece {
                Piece::Env(name)
                    if self.rules.host.syntax() == Syntax::Claude
                        && !crate::mcp::status::var_is_set(name) =>
                {
                    cx.error(
                        "missing_env",
                        path,
                        offset,
                        format!(
                            "`{name}` is not set and has no default: {host} fails to load this file"
                        ),
                        Some(format!("export {name}, or write `${{{name}:-default}}`")),
                    );
                }
                Piece::Input(id) if !self.inputs.iter().any(|i| i == id) => {
                    cx.error(
                        "undefined_input",
                        path,
                        offset,
                        format!("`${{input:{id}}}` has no entry in `inputs`"),
                        Some(format!("add {{\"id\": \"{id}\", \"type\": \"promptString\", \"password\": true}} to `inputs`")),
                    );
                }
                _ => {}
            }
        }
        let _ = self.project;
        text
    }
}
/// Whether an env key or header name carries a credential.
pub(super) fn is_secret_key(key: &str, header: bool) -> bool {
    let lower = key.to_ascii_lowercase();
    is_credential_name(key)
        || (header
            && matches!(
                lower.as_str(),
                "authorization" | "cookie" | "proxy-authorization"
            ))
}

/// Warns about `npx PACKAGE` without a pinned version: each start may run different code.
pub(super) fn unpinned(cx: &mut Cx<'_>, path: &str, command: &str, args: &[String], offset: usize) {
    let program = command.rsplit('/').next().unwrap_or(command);
    if program != "npx" {
        return;
    }
    let Some(package) = args.iter().find(|a| !a.starts_with('-')) else {
        return;
    };
    let name_part = package.strip_prefix('@').map_or(package.as_str(), |rest| {
        rest.split_once('/').map_or(rest, |(_, n)| n)
    });
    let pinned = name_part
        .split_once('@')
        .is_some_and(|(_, v)| !v.is_empty() && v != "latest");
    if !pinned {
        cx.warning(
            "unpinned_package",
            &format!("{path}.args"),
            offset,
            format!("`npx {package}` runs whatever version is newest at each start"),
            Some(format!("pin it: `{package}@<version>`")),
        );
    }
}

/// The value as written, with literal credentials hidden (for display): the literal value of a
/// credential-shaped key or credential header, a URL's password and credential-shaped query
/// values, and anything that is a credential by its shape ([`secret_shape`]) wherever it is
/// (an `args` item, an `env` value under any name). [`hidden_count`] says how many.
pub(super) fn mask(value: &serde_json::Value) -> serde_json::Value {
    match value {
        serde_json::Value::Object(map) => serde_json::Value::Object(
            map.iter()
                .map(|(k, v)| {
                    // Codex's variable *names* (`bearer_token_env_var = "VAR"`, `env_vars`,
                    // `env_http_headers = { "X-Key" = "VAR" }`): names, not secrets.
                    if matches!(
                        k.as_str(),
                        "bearer_token_env_var" | "env_vars" | "env_http_headers"
                    ) {
                        return (k.clone(), shapes_hidden(v));
                    }
                    let hide = (is_secret_key(k, true) || k == "bearer_token")
                        && v.as_str().is_some_and(|s| !s.contains('$'));
                    let shown = if hide {
                        serde_json::Value::String(REDACTED_LITERAL.to_owned())
                    } else {
                        mask(v)
                    };
                    (k.clone(), shown)
                })
                .collect(),
        ),
        serde_json::Value::Array(items) => {
            serde_json::Value::Array(items.iter().map(mask).collect())
        }
        serde_json::Value::String(s) => {
            let url = displayable_url_with(s, URL_HIDDEN);
            let text = url.as_deref().unwrap_or(s);
            let shown = secret_shape::hide(text, REDACTED_LITERAL).or(url);
            serde_json::Value::String(shown.unwrap_or_else(|| s.clone()))
        }
        other => other.clone(),
    }
}

/// `value` with only the credentials found by their shape hidden (for names, which a hostile
/// file may still fill with a token).
fn shapes_hidden(value: &serde_json::Value) -> serde_json::Value {
    match value {
        serde_json::Value::Object(map) => serde_json::Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), shapes_hidden(v)))
                .collect(),
        ),
        serde_json::Value::Array(items) => {
            serde_json::Value::Array(items.iter().map(shapes_hidden).collect())
        }
        serde_json::Value::String(s) => serde_json::Value::String(
            secret_shape::hide(s, REDACTED_LITERAL).unwrap_or_else(|| s.clone()),
        ),
        other => other.clone(),
    }
}

/// What a URL's hidden password or query value reads as after [`mask`] (URL-safe).
const URL_HIDDEN: &str = "HIDDEN-CREDENTIAL";

/// How many literal credentials [`mask`] hid in `masked`.
pub(crate) fn hidden_count(masked: &serde_json::Value) -> usize {
    match masked {
        serde_json::Value::Object(map) => map.values().map(hidden_count).sum(),
        serde_json::Value::Array(items) => items.iter().map(hidden_count).sum(),
        serde_json::Value::String(s) => {
            s.matches(REDACTED_LITERAL).count() + s.matches(URL_HIDDEN).count()
        }
        _ => 0,
    }
}

/// The line every face shows under a definition [`mask`] hid something in.
pub(crate) fn hidden_note(masked: &serde_json::Value) -> Option<String> {
    match hidden_count(masked) {
        0 => None,
        1 => Some(
            "(1 literal credential hidden: found by its name or the shape of its value)".to_owned(),
        ),
        n => Some(format!(
            "({n} literal credentials hidden: found by their names or the shape of their values)"
        )),
    }
}
