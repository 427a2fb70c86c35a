//! Field-level checks shared by the schema: typed reads with diagnostics, `env`, `headers` and
//! URL rules. Values are checked as written; nothing is resolved.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use super::diagnostic::{Diagnostic, Severity};
use super::json::{Json, LineIndex, Member, Spanned};
use super::refs::{Template, is_credential_name};

/// Header names rmcp or the protocol own; configuring them would break the transport.
const RESERVED_HEADERS: &[&str] = &[
    "accept",
    "content-type",
    "content-length",
    "host",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
];

/// Collects diagnostics for one file with positions resolved to line and column.
pub(crate) struct Cx<'a> {
    file: &'a Path,
    text: &'a str,
    index: &'a LineIndex,
    diagnostics: Vec<Diagnostic>,
}

impl<'a> Cx<'a> {
    /// A collector for `file`.
    pub(crate) fn new(file: &'a Path, text: &'a str, index: &'a LineIndex) -> Self {
        Self {
            file,
            text,
            index,
            diagnostics: Vec::new(),
        }
    }

    /// A collector for the same file that starts empty (to check a value on the side).
    pub(crate) fn scratch(&self) -> Cx<'a> {
        Self::new(self.file, self.text, self.index)
    }

    /// Keeps a diagnostic collected elsewhere for the same file.
    pub(crate) fn record(&mut self, diagnostic: Diagnostic) {
        self.diagnostics.push(diagnostic);
    }

    /// Whether any error was collected.
    pub(crate) fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }

    /// Takes what was collected.
    pub(crate) fn take(&mut self) -> Vec<Diagnostic> {
        std::mem::take(&mut self.diagnostics)
    }

    fn push(
        &mut self,
        severity: Severity,
        code: &'static str,
        path: &str,
        offset: usize,
        message: String,
        suggestion: Option<String>,
    ) {
        let (line, column) = self.index.locate(self.text, offset);
        self.diagnostics.push(Diagnostic {
            severity,
            code,
            file: self.file.to_path_buf(),
            path: clip_runs(path.to_owned(), '.'),
            line: Some(line),
            column: Some(column),
            message: clip_runs(message, '`'),
            suggestion: suggestion.map(|s| clip_runs(s, '`')),
        });
    }

    /// Records an error at `offset`.
    pub(crate) fn error(
        &mut self,
        code: &'static str,
        path: &str,
        offset: usize,
        message: String,
        suggestion: Option<String>,
    ) {
        self.push(Severity::Error, code, path, offset, message, suggestion);
    }

    /// Records a warning at `offset`.
    pub(crate) fn warning(
        &mut self,
        code: &'static str,
        path: &str,
        offset: usize,
        message: String,
        suggestion: Option<String>,
    ) {
        self.push(Severity::Warning, code, path, offset, message, suggestion);
    }

    /// Reports every key that appears more than once in `members`.
    pub(crate) fn duplicates(&mut self, members: &[Member], path: &str) {
        // A server object has a handful of keys: looking back costs less than hashing them.
        const SMALL: usize = 16;
        let mut seen: HashSet<&str> = HashSet::new();
        if members.len() > SMALL {
            seen.reserve(members.len());
        }
        for (i, m) in members.iter().enumerate() {
            let repeated = if members.len() > SMALL {
                !seen.insert(m.key.as_str())
            } else {
                members[..i].iter().any(|earlier| earlier.key == m.key)
            };
            if repeated {
                let p = join(path, &m.key);
                self.error(
                    "duplicate_key",
                    &p,
                    m.key_start,
                    format!("key `{}` appears more than once", m.key),
                    Some("keep one; JSON parsers disagree on which one wins".into()),
                );
            }
        }
    }

    fn mismatch(&mut self, value: &Spanned, path: &str, expected: &str) {
        let field = path.rsplit('.').next().unwrap_or(path);
        self.error(
            "type_mismatch",
            path,
            value.start,
            format!(
                "`{field}` must be {expected}, found {}",
                value.value.type_name()
            ),
            None,
        );
    }

    /// The items of an array, or `None` with "`field` must be {expected}" reported.
    pub(crate) fn array<'v>(
        &mut self,
        value: &'v Spanned,
        path: &str,
        expected: &str,
    ) -> Option<&'v [Spanned]> {
        if let Json::Array(items) = &value.value {
            Some(items)
        } else {
            self.mismatch(value, path, expected);
            None
        }
    }

    /// The members of an object, or `None` with "`field` must be an object" reported.
    pub(crate) fn object<'v>(&mut self, value: &'v Spanned, path: &str) -> Option<&'v [Member]> {
        if let Json::Object(members) = &value.value {
            Some(members)
        } else {
            self.mismatch(value, path, "an object");
            None
        }
    }

    /// The strings of an array of strings, each with its path (`args[2]`) and offset; a value
    /// that is not an array, and each item that is not a string, is reported and skipped.
    pub(crate) fn strings(&mut self, value: &Spanned, path: &str) -> Vec<(String, String, usize)> {
        let Some(items) = self.array(value, path, "an array of strings") else {
            return Vec::new();
        };
        items
            .iter()
            .enumerate()
            .filter_map(|(i, item)| {
                let ip = format!("{path}[{i}]");
                self.string(item, &ip).map(|s| (s, ip, item.start))
            })
            .collect()
    }

    /// Reads a string or reports a type mismatch.
    pub(crate) fn string(&mut self, value: &Spanned, path: &str) -> Option<String> {
        if let Json::String(s) = &value.value {
            Some(s.clone())
        } else {
            self.mismatch(value, path, "a string");
            None
        }
    }

    /// Reads a non-empty string or reports why not.
    pub(crate) fn non_empty_string(&mut self, value: &Spanned, path: &str) -> Option<String> {
        let s = self.string(value, path)?;
        if s.trim().is_empty() {
            let field = path.rsplit('.').next().unwrap_or(path);
            self.error(
                "empty_value",
                path,
                value.start,
                format!("`{field}` must not be empty"),
                None,
            );
            return None;
        }
        Some(s)
    }

    /// Reads the non-empty string of field `field` of the object at `path` (as
    /// [`Cx::non_empty_string`] of `{path}.{field}`), spelling the field's path out only when
    /// there is something to report: every server of a file has a `command` or a `url`.
    pub(crate) fn non_empty_field(
        &mut self,
        value: &Spanned,
        path: &str,
        field: &str,
    ) -> Option<String> {
        match &value.value {
            Json::String(s) if !s.trim().is_empty() => Some(s.clone()),
            _ => self.non_empty_string(value, &format!("{path}.{field}")),
        }
    }

    /// Reads a boolean or reports a type mismatch.
    pub(crate) fn boolean(&mut self, value: &Spanned, path: &str) -> Option<bool> {
        if let Json::Bool(b) = value.value {
            Some(b)
        } else {
            self.mismatch(value, path, "`true` or `false`");
            None
        }
    }

    /// Reads an integer within `lo..=hi` or reports why not.
    pub(crate) fn integer_in(
        &mut self,
        value: &Spanned,
        path: &str,
        lo: i64,
        hi: i64,
    ) -> Option<i64> {
        let Json::Number(n) = &value.value else {
            self.mismatch(value, path, "an integer");
            return None;
        };
        let n = n.as_i64();
        match n {
            Some(n) if (lo..=hi).contains(&n) => Some(n),
            _ => {
                let field = path.rsplit('.').next().unwrap_or(path);
                self.error(
                    "out_of_range",
                    path,
                    value.start,
                    format!("`{field}` must be an integer from {lo} to {hi}"),
                    None,
                );
                None
            }
        }
    }

    /// Reads a string→string object as templates, handing each `(key, key offset, template)`
    /// to `each` as it is read (an object of 100,000 keys is never listed twice); reports
    /// non-strings and bad references.
    fn templates(
        &mut self,
        value: &Spanned,
        path: &str,
        mut each: impl FnMut(&mut Self, String, usize, Template),
    ) {
        let Json::Object(members) = &value.value else {
            self.mismatch(value, path, "an object of strings");
            return;
        };
        self.duplicates(members, path);
        for m in members {
            let p = join(path, &m.key);
            let Some(text) = self.string(&m.value, &p) else {
                continue;
            };
            match Template::parse(&text) {
                Ok(t) => each(self, m.key.clone(), m.key_start, t),
                Err(e) => self.error("bad_reference", &p, m.value.start, e.to_string(), None),
            }
        }
    }
}

/// The most characters of any one value a diagnostic quotes.
pub(crate) const MAX_QUOTED_CHARS: usize = 200;

/// `text` with every run between two `separator`s cut to [`MAX_QUOTED_CHARS`] characters and an
/// ellipsis: a 3 MiB key or value is named by its start, never printed whole. Messages quote
/// values between backticks and paths join keys with dots, so no quoted value escapes the cut.
pub(crate) fn clip_runs(text: String, separator: char) -> String {
    if text.len() <= MAX_QUOTED_CHARS {
        return text;
    }
    let mut out = String::with_capacity(text.len().min(4 * MAX_QUOTED_CHARS));
    for (i, run) in text.split(separator).enumerate() {
        if i > 0 {
            out.push(separator);
        }
        match run.char_indices().nth(MAX_QUOTED_CHARS) {
            Some((cut, _)) => {
                out.push_str(&run[..cut]);
                out.push('…');
            }
            None => out.push_str(run),
        }
    }
    out
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_owned()
    } else {
        format!("{path}.{key}")
    }
}

/// Checks `env`: keys usable as variable names, credential-shaped keys only by reference.
pub(crate) fn check_env(
    cx: &mut Cx<'_>,
    server_path: &str,
    value: &Spanned,
) -> BTreeMap<String, Template> {
    let path = format!("{server_path}.env");
    let mut out = BTreeMap::new();
    cx.templates(value, &path, |cx, key, key_start, template| {
        let p = join(&path, &key);
        if key.is_empty() || key.contains('=') || key.contains('\0') {
            cx.error(
                "invalid_name",
                &p,
                key_start,
                "an environment variable name must be non-empty and contain no `=` or NUL".into(),
                None,
            );
            return;
        }
        if is_credential_name(&key) && !template.has_reference() {
            cx.error(
                "literal_secret",
                &p,
                key_start,
                format!("literal value in credential-shaped `{key}`; secrets must be references"),
                Some(format!(
                    "literal token in `{key}`; use `${{{key}}}` and export it"
                )),
            );
            return;
        }
        out.insert(key, template);
    });
    out
}

/// Whether `name` is an RFC 9110 token.
fn is_token(name: &str) -> bool {
    !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// Checks `headers`: token names, no reserved names, credentials only by reference.
pub(crate) fn check_headers(
    cx: &mut Cx<'_>,
    server_path: &str,
    value: &Spanned,
) -> BTreeMap<String, Template> {
    let path = format!("{server_path}.headers");
    let mut out: BTreeMap<String, Template> = BTreeMap::new();
    let mut lower_names: HashSet<String> = HashSet::new();
    cx.templates(value, &path, |cx, name, key_start, template| {
        let p = join(&path, &name);
        if name.trim() != name || !is_token(&name) {
            cx.error(
                "invalid_header",
                &p,
                key_start,
                format!("`{name}` is not a valid header name (RFC 9110 token: letters, digits and !#$%&'*+-.^_`|~, no spaces)"),
                Some(format!("write `{}`", name.trim())).filter(|_| is_token(name.trim())),
            );
            return;
        }
        let lower = name.to_ascii_lowercase();
        if RESERVED_HEADERS.contains(&lower.as_str()) {
            cx.error(
                "reserved_header",
                &p,
                key_start,
                format!("header `{name}` is managed by the MCP transport and cannot be configured"),
                Some("remove it".into()),
            );
            return;
        }
        if !lower_names.insert(lower.clone()) {
            cx.error(
                "duplicate_key",
                &p,
                key_start,
                format!("header `{name}` is given twice (header names ignore case)"),
                None,
            );
            return;
        }
        if template.source().contains(['\r', '\n', '\0']) {
            cx.error(
                "invalid_header",
                &p,
                key_start,
                "a header value must not contain CR, LF or NUL".into(),
                None,
            );
            return;
        }
        let credential = matches!(
            lower.as_str(),
            "authorization" | "cookie" | "proxy-authorization"
        ) || is_credential_name(&name);
        if credential && !template.has_reference() {
            let var = name.to_ascii_uppercase().replace('-', "_");
            let example = if lower == "authorization" {
                format!("\"Bearer ${{{var}}}\"")
            } else {
                format!("\"${{{var}}}\"")
            };
            cx.error(
                "literal_secret",
                &p,
                key_start,
                format!("literal credential in header `{name}`; credentials must be references"),
                Some(format!("write {example} and export {var}")),
            );
            return;
        }
        out.insert(name, template);
    });
    out
}

/// Checks a server URL: http(s), a host, no credentials in user info or query.
pub(crate) fn check_url(cx: &mut Cx<'_>, path: &str, offset: usize, text: &str) {
    let parsed = match url::Url::parse(text) {
        Ok(u) => u,
        Err(e) => {
            cx.error(
                "invalid_url",
                path,
                offset,
                format!("not a valid URL: {e}"),
                None,
            );
            return;
        }
    };
    if !matches!(parsed.scheme(), "http" | "https") {
        cx.error(
            "invalid_url",
            path,
            offset,
            format!(
                "the URL scheme must be `http` or `https`, not `{}`",
                parsed.scheme()
            ),
            None,
        );
        return;
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        cx.error(
            "credential_in_url",
            path,
            offset,
            "the URL carries credentials (`user:pass@`)".into(),
            Some("remove them and send credentials in `headers` by reference, e.g. `\"Authorization\": \"Bearer ${TOKEN}\"`".into()),
        );
    }
    for (key, _) in parsed.query_pairs() {
        let words_key = key.split(['_', '-']).any(|w| {
            matches!(
                w.to_ascii_lowercase().as_str(),
                "key" | "sig" | "signature" | "code"
            )
        });
        if is_credential_name(&key) || words_key {
            cx.error(
                "credential_in_url",
                path,
                offset,
                format!("the URL query parameter `{key}` looks like a credential"),
                Some("send it in `headers` by reference instead".into()),
            );
        }
    }
    let loopback = match parsed.host() {
        Some(url::Host::Domain(d)) => d == "localhost",
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    };
    if parsed.scheme() == "http" && !loopback {
        cx.warning(
            "plain_http",
            path,
            offset,
            "plain `http` to a non-loopback host sends headers unencrypted".into(),
            Some("use `https`".into()),
        );
    }
}
