//! Environment references inside configuration values.
//!
//! Owns the `${NAME}` / `$env:NAME` / `$${` syntax: parsing without resolving (for display and
//! validation) and resolving at connect time. Resolution is single-pass and never recursive: text
//! produced by a variable is never looked at again. It must never log or format a resolved value.

use std::fmt;

/// One piece of a configuration value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Literal text, already unescaped (`$${` became `${`).
    Literal(String),
    /// A reference to an environment variable by name.
    Var(String),
}

/// A configuration value that may reference environment variables.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    /// The value exactly as written in the file.
    source: String,
    /// The parsed pieces, in order; empty for a value that is one literal equal to its source
    /// (most values: an `env` of 100,000 plain values then costs one string each).
    parts: Vec<Part>,
}

/// Why a value could not be parsed as a template.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RefError {
    /// `${` without a closing `}`.
    #[error("`${{` at byte {at} is never closed with `}}`")]
    Unclosed {
        /// Byte offset of the `$`.
        at: usize,
    },
    /// `${...}` whose content is not a variable name.
    #[error("`${{{text}}}` is not a variable reference: names are [A-Za-z_][A-Za-z0-9_]*{hint}")]
    BadName {
        /// The text between the braces.
        text: String,
        /// Extra advice (defaults and nesting are unsupported).
        hint: &'static str,
    },
    /// Parts that the `${}` syntax cannot write (see [`Template::from_parts`]).
    #[error("these parts cannot be written as a template")]
    Inexpressible,
    /// `$env:` followed by something that is not a variable name.
    #[error("`$env:{text}` is not a variable reference: names are [A-Za-z_][A-Za-z0-9_]*")]
    BadEnvName {
        /// The text after `$env:`.
        text: String,
    },
}

/// A referenced variable that was unset or empty at connect time (`missing_env`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("environment variable `{name}` is not set (or is empty)")]
pub struct MissingEnv {
    /// The variable's name; never its value.
    pub name: String,
}

/// Whether `name` matches `[A-Za-z_][A-Za-z0-9_]*`.
pub(crate) fn is_var_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

impl Template {
    /// Parses a value as written in a configuration file.
    pub fn parse(source: &str) -> Result<Self, RefError> {
        if let Some(name) = source.strip_prefix("$env:") {
            if !is_var_name(name) {
                return Err(RefError::BadEnvName {
                    text: name.to_owned(),
                });
            }
            return Ok(Self {
                source: source.to_owned(),
                parts: vec![Part::Var(name.to_owned())],
            });
        }
        if !source.contains('$') {
            return Ok(Self {
                source: source.to_owned(),
                parts: Vec::new(),
            });
        }
        let mut parts = Vec::new();
        let mut literal = String::new();
        let mut rest = source;
        let mut offset = 0;
        while let Some(pos) = rest.find('$') {
            literal.push_str(&rest[..pos]);
            let after = &rest[pos..];
            if let Some(tail) = after.strip_prefix("$${") {
                literal.push_str("${");
                offset += pos + 3;
                rest = tail;
            } else if let Some(tail) = after.strip_prefix("${") {
                let Some(close) = tail.find('}') else {
                    return Err(RefError::Unclosed { at: offset + pos });
                };
                let name = &tail[..close];
                if !is_var_name(name) {
                    return Err(RefError::BadName {
                        text: name.to_owned(),
                        hint: bad_name_hint(name),
                    });
                }
                if !literal.is_empty() {
                    parts.push(Part::Literal(std::mem::take(&mut literal)));
                }
                parts.push(Part::Var(name.to_owned()));
                offset += pos + 2 + close + 1;
                rest = &tail[close + 1..];
            } else {
                literal.push('$');
                offset += pos + 1;
                rest = &after[1..];
            }
        }
        literal.push_str(rest);
        if !literal.is_empty() {
            parts.push(Part::Literal(literal));
        }
        Ok(Self::compact(source.to_owned(), parts))
    }

    /// The template of `source` and `parts`, with `parts` left empty when it is one literal
    /// equal to `source` (so equal values compare equal however they were built).
    fn compact(source: String, mut parts: Vec<Part>) -> Self {
        if matches!(parts.as_slice(), [Part::Literal(text)] if *text == source) {
            parts = Vec::new();
        }
        Self { source, parts }
    }

    /// Builds a template from parts, writing the canonical source text (`${NAME}`, `$${`).
    ///
    /// Two arrangements cannot be written in this syntax and are refused: a literal ending in
    /// `$` right before a reference (`$` + `${A}` would read as the escape `$${A}`), and a value
    /// whose first literal starts with `$env:` (it would read as a reference).
    /// Adjacent literals are merged and empty ones dropped first, as parsing would.
    pub fn from_parts(raw: Vec<Part>) -> Result<Self, RefError> {
        let mut parts: Vec<Part> = Vec::with_capacity(raw.len());
        for part in raw {
            match (parts.last_mut(), part) {
                (_, Part::Literal(text)) if text.is_empty() => {}
                (Some(Part::Literal(prev)), Part::Literal(text)) => prev.push_str(&text),
                (_, part) => parts.push(part),
            }
        }
        let mut source = String::new();
        for (i, part) in parts.iter().enumerate() {
            match part {
                Part::Literal(text) => {
                    if i == 0 && text.starts_with("$env:") {
                        return Err(RefError::Inexpressible);
                    }
                    if text.ends_with('$') && matches!(parts.get(i + 1), Some(Part::Var(_))) {
                        return Err(RefError::Inexpressible);
                    }
                    source.push_str(&text.replace("${", "$${"));
                }
                Part::Var(name) => {
                    if !is_var_name(name) {
                        return Err(RefError::BadName {
                            text: name.clone(),
                            hint: bad_name_hint(name),
                        });
                    }
                    source.push_str("${");
                    source.push_str(name);
                    source.push('}');
                }
            }
        }
        Ok(Self::compact(source, parts))
    }

    /// The value exactly as written.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The parsed pieces.
    pub fn parts(&self) -> std::borrow::Cow<'_, [Part]> {
        if self.parts.is_empty() && !self.source.is_empty() {
            std::borrow::Cow::Owned(vec![Part::Literal(self.source.clone())])
        } else {
            std::borrow::Cow::Borrowed(&self.parts)
        }
    }

    /// Whether the value references at least one variable.
    pub fn has_reference(&self) -> bool {
        self.parts.iter().any(|p| matches!(p, Part::Var(_)))
    }

    /// The referenced variable names, in order of first appearance, without repeats.
    pub fn var_names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = Vec::new();
        for part in &self.parts {
            if let Part::Var(name) = part
                && !names.contains(&name.as_str())
            {
                names.push(name);
            }
        }
        names
    }

    /// Resolves every reference through `lookup`, once. Unset and empty variables are errors.
    pub fn resolve(
        &self,
        lookup: &(dyn Fn(&str) -> Option<String> + Sync),
    ) -> Result<Resolved, MissingEnv> {
        if self.parts.is_empty() {
            return Ok(Resolved {
                value: self.source.clone(),
                secrets: Vec::new(),
            });
        }
        let mut value = String::new();
        let mut secrets = Vec::new();
        for part in &self.parts {
            match part {
                Part::Literal(text) => value.push_str(text),
                Part::Var(name) => {
                    let found = lookup(name)
                        .filter(|v| !v.is_empty())
                        .ok_or_else(|| MissingEnv { name: name.clone() })?;
                    value.push_str(&found);
                    secrets.push(found);
                }
            }
        }
        Ok(Resolved { value, secrets })
    }
}

/// A resolved value, with the variable values it contains (for the redactor).
pub struct Resolved {
    /// The expanded value. Never print it.
    pub value: String,
    /// Each variable value that went into it.
    pub secrets: Vec<String>,
}

impl fmt::Debug for Resolved {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Resolved(<redacted>)")
    }
}

fn bad_name_hint(name: &str) -> &'static str {
    if name.contains(":-") || name.contains(":=") || name.contains('-') && name.contains(':') {
        "; defaults like `${NAME:-x}` are not supported"
    } else if name.contains('$') || name.contains('{') {
        "; nested references are not supported"
    } else if name.is_empty() {
        "; the name is empty"
    } else {
        ""
    }
}

/// Whether a key (env var or header name) is credential-shaped.
///
/// The name is split on `_` and `-`; it is credential-shaped when a word is one of the listed
/// credential words, when two neighbouring words spell `API KEY` or `PRIVATE KEY`, or when a word
/// ends in `TOKEN`, `SECRET` or `PASSWORD` (so `ACCESSTOKEN` counts too).
pub(crate) fn is_credential_name(name: &str) -> bool {
    const WORDS: &[&str] = &[
        "TOKEN",
        "SECRET",
        "PASSWORD",
        "PASSWD",
        "PASS",
        "OAUTH",
        "CREDENTIAL",
        "CREDENTIALS",
        "APIKEY",
        "AUTH",
        "COOKIE",
        "SESSION",
        "PAT",
        "PRIVATEKEY",
    ];
    let words: Vec<String> = name
        .split(['_', '-'])
        .filter(|w| !w.is_empty())
        .map(str::to_ascii_uppercase)
        .collect();
    let single = words.iter().any(|w| {
        WORDS.contains(&w.as_str())
            || w.ends_with("TOKEN")
            || w.ends_with("SECRET")
            || w.ends_with("PASSWORD")
    });
    let pair = words
        .windows(2)
        .any(|p| p[1] == "KEY" && (p[0] == "API" || p[0] == "PRIVATE"));
    single || pair
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let owned: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        move |name| {
            owned
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        }
    }

    #[test]
    fn parses_braced_env_and_escape_forms() {
        let t = Template::parse("Bearer ${TOKEN}").expect("valid");
        assert_eq!(
            *t.parts(),
            [Part::Literal("Bearer ".into()), Part::Var("TOKEN".into())]
        );
        let t = Template::parse("$env:HOME_DIR").expect("valid");
        assert_eq!(*t.parts(), [Part::Var("HOME_DIR".into())]);
        let t = Template::parse("cost $5 and $${LITERAL}").expect("valid");
        assert_eq!(*t.parts(), [Part::Literal("cost $5 and ${LITERAL}".into())]);
        assert!(!t.has_reference());
    }

    #[test]
    fn a_plain_value_reads_as_one_literal_however_it_was_built() {
        let parsed = Template::parse("plain value").expect("valid");
        let built = Template::from_parts(vec![Part::Literal("plain value".into())]).expect("ok");
        assert_eq!(parsed, built);
        assert_eq!(*parsed.parts(), [Part::Literal("plain value".into())]);
        assert_eq!(
            parsed.resolve(&|_| None).expect("no reference").value,
            "plain value"
        );
        let dollar = Template::parse("cost $5").expect("valid");
        assert_eq!(
            dollar,
            Template::from_parts(vec![Part::Literal("cost $5".into())]).expect("ok")
        );
        assert_eq!(*Template::parse("").expect("valid").parts(), []);
    }

    #[test]
    fn env_form_only_applies_to_whole_value() {
        let t = Template::parse("x $env:HOME").expect("valid");
        assert_eq!(*t.parts(), [Part::Literal("x $env:HOME".into())]);
    }

    #[test]
    fn rejects_malformed_references() {
        assert_eq!(
            Template::parse("a ${OPEN"),
            Err(RefError::Unclosed { at: 2 })
        );
        assert!(matches!(
            Template::parse("${A:-b}"),
            Err(RefError::BadName { hint, .. }) if hint.contains("defaults")
        ));
        assert!(matches!(
            Template::parse("${}"),
            Err(RefError::BadName { .. })
        ));
        assert!(matches!(
            Template::parse("${1X}"),
            Err(RefError::BadName { .. })
        ));
        assert!(matches!(
            Template::parse("$env:1X"),
            Err(RefError::BadEnvName { .. })
        ));
    }

    #[test]
    fn resolution_is_single_pass() {
        let t = Template::parse("${A}-${B}").expect("valid");
        let out = t
            .resolve(&vars(&[("A", "${B}"), ("B", "two")]))
            .expect("resolves");
        assert_eq!(out.value, "${B}-two");
        assert_eq!(out.secrets, vec!["${B}".to_owned(), "two".to_owned()]);
    }

    #[test]
    fn unset_or_empty_is_missing_env_naming_the_variable() {
        let t = Template::parse("${SET} ${EMPTY}").expect("valid");
        let err = t
            .resolve(&vars(&[("SET", "x"), ("EMPTY", "")]))
            .expect_err("empty is missing");
        assert_eq!(err.name, "EMPTY");
        assert!(!err.to_string().contains('x'));
    }

    #[test]
    fn credential_names() {
        for yes in [
            "GITHUB_TOKEN",
            "api-key",
            "X-Api-Key",
            "DB_PASSWORD",
            "AUTH",
            "session_id",
            "PRIVATE_KEY",
            "ACCESSTOKEN",
            "GITLAB_PAT",
            "OAUTH_CLIENT",
            "aws_credentials",
            "MY_APIKEY",
        ] {
            assert!(is_credential_name(yes), "{yes} should be credential-shaped");
        }
        for no in [
            "PATH",
            "HOME",
            "AUTHOR",
            "LOG_LEVEL",
            "KEYBOARD",
            "PASSTHROUGH",
        ] {
            assert!(
                !is_credential_name(no),
                "{no} should not be credential-shaped"
            );
        }
    }
}
