//! `workspace_check`: validation findings, never repairs.
//!
//! MCP config files (`.mcp.json`, `.mcpdeck/mcp.json`, `mcp.json`) get exactly the diagnostics
//! `mcpdeck config check` prints ([`crate::mcp::config::schema::parse_file`]); other JSON, TOML
//! and YAML files get a syntax check; Markdown files get their relative links checked against
//! the admitted files. `strict` adds warnings: unpinned `npx` packages in MCP configs and
//! literal credentials in any config file. Only admitted files are looked at; paths the caller
//! names that are not admitted are counted, never echoed. Nothing is executed or written.

use std::path::Path;

use serde_json::Value;

use super::graph;
use super::index::{FileRecord, Snapshot};
use super::results::{CheckResult, Counts, Finding, to_value};
use crate::mcp::config::json::{self as cjson, Json, LineIndex, Spanned};
use crate::mcp::config::refs::is_credential_name;
use crate::mcp::config::schema::parse_file;
use crate::mcp::config::{Diagnostic, Layer, Severity};

impl Finding {
    fn new(
        path: &str,
        severity: Severity,
        code: &str,
        line: u32,
        column: u32,
        message: String,
    ) -> Self {
        Self {
            path: path.to_owned(),
            severity,
            code: code.to_owned(),
            json_path: String::new(),
            line: Some(line),
            column: Some(column),
            message,
            suggestion: None,
        }
    }

    fn from_diagnostic(path: &str, d: &Diagnostic) -> Self {
        Self {
            path: path.to_owned(),
            severity: d.severity,
            code: d.code.to_owned(),
            json_path: d.path.clone(),
            line: d.line,
            column: d.column,
            message: d.message.clone(),
            suggestion: d.suggestion.clone(),
        }
    }
}

/// Which configuration layer a workspace MCP config corresponds to (for identical diagnostics).
fn layer_of(rel: &str) -> Layer {
    if rel == ".mcpdeck/mcp.json" || rel.ends_with("/.mcpdeck/mcp.json") {
        Layer::ProjectDeck
    } else {
        Layer::Project
    }
}

/// Every finding for `file`.
pub fn check_file(snap: &Snapshot, file: &FileRecord, strict: bool) -> Vec<Finding> {
    let rel = file.rel.as_str();
    // Diagnostics point into the file as written (not the text with credentials hidden).
    let text = file.content();
    let mut out = Vec::new();
    match file.kind {
        "mcp-config" => mcp_config(rel, text, strict, &mut out),
        "json" => json_syntax(rel, text, strict, &mut out),
        "toml" => toml_syntax(rel, text, strict, &mut out),
        "yaml" => yaml_syntax(rel, text, strict, &mut out),
        "markdown" => broken_links(snap, rel, text, &mut out),
        _ => {}
    }
    out
}

/// An MCP config: the diagnostics of `mcpdeck config check`, and with `strict` unpinned `npx`
/// packages and literal credentials.
fn mcp_config(rel: &str, text: &str, strict: bool, out: &mut Vec<Finding>) {
    let parsed = parse_file(text, Path::new(rel), layer_of(rel));
    let entries = parsed.entries.iter().flat_map(|e| &e.diagnostics);
    out.extend(
        parsed
            .diagnostics
            .iter()
            .chain(entries)
            .map(|d| Finding::from_diagnostic(rel, d)),
    );
    if strict && let Ok(root) = cjson::parse(text.strip_prefix('\u{feff}').unwrap_or(text)) {
        let index = LineIndex::new(text);
        unpinned_npx(rel, text, &index, &root, out);
        literal_credentials_json(rel, text, &index, &root, "", out);
    }
}

fn toml_syntax(rel: &str, text: &str, strict: bool, out: &mut Vec<Finding>) {
    let Err(e) = text.parse::<toml::Table>() else {
        if strict {
            literal_credentials_lines(rel, text, '=', out);
        }
        return;
    };
    let offset = e.span().map_or(0, |s| s.start);
    let (line, column) = LineIndex::new(text).locate(text, offset);
    let message = e
        .message()
        .lines()
        .next()
        .unwrap_or("invalid TOML")
        .to_owned();
    out.push(Finding::new(
        rel,
        Severity::Error,
        "syntax",
        line,
        column,
        format!("TOML: {message}"),
    ));
}

/// The first YAML syntax error, if any; else, with `strict`, literal credentials.
fn yaml_syntax(rel: &str, text: &str, strict: bool, out: &mut Vec<Finding>) {
    let first_error = saphyr_parser::Parser::new_from_str(text).find_map(Result::err);
    let Some(e) = first_error else {
        if strict {
            literal_credentials_lines(rel, text, ':', out);
        }
        return;
    };
    let m = e.marker();
    let line = u32::try_from(m.line()).unwrap_or(u32::MAX);
    let column = u32::try_from(m.col() + 1).unwrap_or(u32::MAX);
    out.push(Finding::new(
        rel,
        Severity::Error,
        "syntax",
        line,
        column,
        format!("YAML: {}", e.info()),
    ));
}

/// Relative Markdown links whose target is not an admitted file or directory.
fn broken_links(snap: &Snapshot, rel: &str, text: &str, out: &mut Vec<Finding>) {
    for r in graph::markdown_links(text) {
        let ok =
            graph::resolve(rel, &r.target).is_some_and(|t| snap.has_file(&t) || snap.has_dir(&t));
        if !ok {
            out.push(Finding::new(
                rel,
                Severity::Warning,
                "broken_link",
                r.line,
                r.column,
                "relative link to a file or directory that is not an admitted file of this workspace (missing, ignored or private)".into(),
            ));
        }
    }
}

/// Files whose JSON allows comments and trailing commas by convention.
fn is_jsonc(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    std::path::Path::new(rel)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("jsonc"))
        || rel.starts_with(".vscode/")
        || rel.contains("/.vscode/")
        || name.starts_with("tsconfig")
        || name.starts_with("jsconfig")
        || name == "devcontainer.json"
        || name == ".devcontainer.json"
}

fn json_syntax(rel: &str, text: &str, strict: bool, out: &mut Vec<Finding>) {
    let body = text.strip_prefix('\u{feff}').unwrap_or(text);
    if is_jsonc(rel) {
        if let Err(e) = jsonc_parser::parse_to_value(body, &jsonc_parser::ParseOptions::default()) {
            let (line, column) = LineIndex::new(body).locate(body, e.range().start);
            out.push(Finding::new(
                rel,
                Severity::Error,
                "syntax",
                line,
                column,
                format!("JSON: {}", e.kind()),
            ));
        }
        return;
    }
    match cjson::parse(body) {
        Err(e) => {
            let (line, column) = LineIndex::new(body).locate(body, e.offset);
            out.push(Finding::new(
                rel,
                Severity::Error,
                "syntax",
                line,
                column,
                format!("JSON: {}", e.message),
            ));
        }
        Ok(root) if strict => {
            literal_credentials_json(rel, body, &LineIndex::new(body), &root, "", out);
        }
        Ok(_) => {}
    }
}

/// A literal (non-reference) value.
fn is_literal(value: &str) -> bool {
    let v = value.trim();
    !v.is_empty() && !v.contains("${") && !v.starts_with("$env:") && !v.starts_with('$')
}

fn literal_credentials_json(
    rel: &str,
    text: &str,
    index: &LineIndex,
    node: &Spanned,
    path: &str,
    out: &mut Vec<Finding>,
) {
    match &node.value {
        Json::Object(members) => {
            for m in members {
                let child = if path.is_empty() {
                    m.key.clone()
                } else {
                    format!("{path}.{}", m.key)
                };
                if let Json::String(s) = &m.value.value
                    && is_credential_name(&m.key)
                    && is_literal(s)
                {
                    let (line, column) = index.locate(text, m.value.start);
                    let mut f = Finding::new(
                        rel,
                        Severity::Warning,
                        "literal_credential",
                        line,
                        column,
                        format!("`{}` holds a literal credential", m.key),
                    );
                    f.json_path.clone_from(&child);
                    f.suggestion = Some(format!(
                        "use an environment reference such as `${{{}}}`",
                        m.key.to_ascii_uppercase().replace('-', "_")
                    ));
                    out.push(f);
                }
                literal_credentials_json(rel, text, index, &m.value, &child, out);
            }
        }
        Json::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                literal_credentials_json(rel, text, index, item, &format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

/// `key = "value"` (TOML) or `key: value` (YAML) lines with a credential-shaped key.
fn literal_credentials_lines(rel: &str, text: &str, sep: char, out: &mut Vec<Finding>) {
    for (i, line) in text.lines().enumerate() {
        let t = line.trim_start();
        if t.starts_with('#') {
            continue;
        }
        let Some((key, value)) = t.split_once(sep) else {
            continue;
        };
        let key = key
            .trim()
            .trim_start_matches("- ")
            .trim_matches(['"', '\'']);
        let value = value
            .split(" #")
            .next()
            .unwrap_or("")
            .trim()
            .trim_matches(['"', '\'']);
        if key.is_empty()
            || key.contains(char::is_whitespace)
            || !is_credential_name(key)
            || !is_literal(value)
        {
            continue;
        }
        let column = line.len() - t.len() + 1;
        out.push(Finding::new(
            rel,
            Severity::Warning,
            "literal_credential",
            u32::try_from(i + 1).unwrap_or(u32::MAX),
            u32::try_from(column).unwrap_or(u32::MAX),
            format!("`{key}` holds a literal credential"),
        ));
    }
}

/// `npx` servers whose package has no exact version (`pkg`, `pkg@latest`, `pkg@^1`).
fn unpinned_npx(rel: &str, text: &str, index: &LineIndex, root: &Spanned, out: &mut Vec<Finding>) {
    let Json::Object(top) = &root.value else {
        return;
    };
    let Some(servers) = top.iter().find(|m| m.key == "mcpServers") else {
        return;
    };
    let Json::Object(servers) = &servers.value.value else {
        return;
    };
    for server in servers {
        let Json::Object(fields) = &server.value.value else {
            continue;
        };
        let command = fields.iter().find_map(|m| match &m.value.value {
            Json::String(s) if m.key == "command" => Some(s.as_str()),
            _ => None,
        });
        let is_npx = command.is_some_and(|c| {
            let base = c.rsplit(['/', '\\']).next().unwrap_or(c);
            matches!(base, "npx" | "npx.cmd" | "bunx" | "pnpx")
        });
        if !is_npx {
            continue;
        }
        let Some(args) = fields.iter().find(|m| m.key == "args") else {
            continue;
        };
        let Json::Array(items) = &args.value.value else {
            continue;
        };
        let package = items.iter().enumerate().find_map(|(i, a)| match &a.value {
            Json::String(s) if !s.starts_with('-') => Some((i, s.as_str(), a.start)),
            _ => None,
        });
        let Some((i, package, start)) = package else {
            continue;
        };
        if is_pinned(package) {
            continue;
        }
        let (line, column) = index.locate(text, start);
        let mut f = Finding::new(
            rel,
            Severity::Warning,
            "unpinned_npx",
            line,
            column,
            format!(
                "server `{}` runs an npm package without an exact version",
                server.key
            ),
        );
        f.json_path = format!("mcpServers.{}.args[{i}]", server.key);
        f.suggestion =
            Some("pin it, e.g. `package@1.2.3`, so every run gets the code you reviewed".into());
        out.push(f);
    }
}

/// `name@1.2.3` or `@scope/name@1.2.3`: an exact version.
fn is_pinned(package: &str) -> bool {
    let body = package.strip_prefix('@').unwrap_or(package);
    let Some((_, version)) = body.split_once('@') else {
        return false;
    };
    version.starts_with(|c: char| c.is_ascii_digit())
        && version
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '+'))
}

/// A caller's path as the index names files: `./` and empty or `.` components dropped,
/// repeated slashes collapsed (`./docs//a.md` is `docs/a.md`). `..` is kept, so such a path
/// names no admitted file.
fn normalise(path: &str) -> String {
    path.split('/')
        .filter(|part| !part.is_empty() && *part != ".")
        .collect::<Vec<_>>()
        .join("/")
}

/// Runs the check over the selected files.
pub fn run(snap: &Snapshot, paths: Option<&[Value]>, strict: bool) -> Value {
    let mut files: Vec<&FileRecord> = Vec::new();
    // A file named twice (`README.md`, `./README.md`) is checked once; so is a missing one
    // counted once.
    let mut seen = std::collections::BTreeSet::new();
    let mut missing = std::collections::BTreeSet::new();
    match paths {
        Some(list) => {
            for p in list.iter().filter_map(Value::as_str) {
                let p = normalise(p);
                match snap.file(&p) {
                    Some((i, f)) => {
                        if seen.insert(i) {
                            files.push(f);
                        }
                    }
                    None => {
                        missing.insert(p);
                    }
                }
            }
        }
        None => files.extend(snap.files.iter().map(AsRef::as_ref)),
    }
    let mut findings = Vec::new();
    for f in &files {
        findings.extend(check_file(snap, f, strict));
    }
    let errors = findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    let warnings = findings.len() - errors;
    to_value(&CheckResult {
        findings,
        files_checked: files.len(),
        paths_not_checked: missing.len(),
        counts: Counts { errors, warnings },
        strict,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn pinning() {
        assert!(is_pinned("pkg@1.2.3"));
        assert!(is_pinned("@scope/pkg@0.1.0-beta.1"));
        assert!(!is_pinned("pkg"));
        assert!(!is_pinned("@scope/pkg"));
        assert!(!is_pinned("pkg@latest"));
        assert!(!is_pinned("pkg@^1.0.0"));
    }

    #[test]
    fn credential_lines() {
        let mut out = Vec::new();
        literal_credentials_lines(
            "a.toml",
            "api_key = \"abc\"\nname = \"x\"\ntoken = \"${T}\"\n",
            '=',
            &mut out,
        );
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].line, Some(1));
        assert!(!out[0].message.contains("abc"));
    }
}
