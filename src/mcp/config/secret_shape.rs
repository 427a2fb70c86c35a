//! Credentials recognised by the shape of their value, whatever the key holding them is called:
//! an `sk-ant-…` key as an `args` item, a `ghp_…` token under `env.K`. Used where a literal
//! credential must not be shown (other hosts' files) or copied (import), and by `config check`.
//!
//! A value is scanned word by word (runs of letters, digits and `_-.+/`); a word is a credential
//! when it carries a known issuer's prefix and enough random-looking characters after it, is a
//! JWT (three base64url parts, the first starting `eyJ`), an AWS access key id, or follows
//! `Bearer`/`Basic`. A PEM private key block is one too. What is not caught: a credential with
//! no recognisable shape (a plain password, a hex string) under a name that does not look like
//! one — those need a credential-shaped name (`config check` catches those by name).

use super::fields::Cx;
use super::json::{Json, Spanned};

/// Known prefixes: (prefix, what it is, the variable a user would usually keep it in, least
/// number of characters after the prefix).
const PREFIXES: &[(&str, &str, &str, usize)] = &[
    ("sk-ant-", "an Anthropic API key", "ANTHROPIC_API_KEY", 20),
    ("sk-proj-", "an OpenAI API key", "OPENAI_API_KEY", 20),
    ("sk-", "an API secret key", "API_KEY", 20),
    ("sk_live_", "a Stripe secret key", "STRIPE_SECRET_KEY", 16),
    ("sk_test_", "a Stripe secret key", "STRIPE_SECRET_KEY", 16),
    (
        "rk_live_",
        "a Stripe restricted key",
        "STRIPE_SECRET_KEY",
        16,
    ),
    ("github_pat_", "a GitHub token", "GITHUB_TOKEN", 20),
    ("ghp_", "a GitHub token", "GITHUB_TOKEN", 20),
    ("gho_", "a GitHub token", "GITHUB_TOKEN", 20),
    ("ghu_", "a GitHub token", "GITHUB_TOKEN", 20),
    ("ghs_", "a GitHub token", "GITHUB_TOKEN", 20),
    ("ghr_", "a GitHub token", "GITHUB_TOKEN", 20),
    ("glpat-", "a GitLab token", "GITLAB_TOKEN", 20),
    ("xoxb-", "a Slack token", "SLACK_BOT_TOKEN", 10),
    ("xoxp-", "a Slack token", "SLACK_TOKEN", 10),
    ("xoxa-", "a Slack token", "SLACK_TOKEN", 10),
    ("xapp-", "a Slack app token", "SLACK_APP_TOKEN", 10),
    ("npm_", "an npm token", "NPM_TOKEN", 30),
    ("pypi-", "a PyPI token", "PYPI_TOKEN", 40),
    ("hf_", "a Hugging Face token", "HF_TOKEN", 30),
    ("AIza", "a Google API key", "GOOGLE_API_KEY", 30),
    ("lin_api_", "a Linear API key", "LINEAR_API_KEY", 30),
];

/// A credential found in a value: what it looks like and the variable to keep it in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shape {
    /// What it looks like, e.g. "a GitHub token".
    pub kind: &'static str,
    /// The environment variable a user would usually keep it in.
    pub variable: &'static str,
}

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"_-.+/".contains(&b)
}

/// The words of `value` with their byte ranges.
fn words(value: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let bytes = value.as_bytes();
    let mut pos = 0;
    std::iter::from_fn(move || {
        while pos < bytes.len() && !is_word_byte(bytes[pos]) {
            pos += 1;
        }
        if pos >= bytes.len() {
            return None;
        }
        let start = pos;
        while pos < bytes.len() && is_word_byte(bytes[pos]) {
            pos += 1;
        }
        Some((start, pos))
    })
}

/// Whether the word is a credential by its shape.
fn word_shape(word: &str) -> Option<Shape> {
    for &(prefix, kind, variable, least) in PREFIXES {
        if let Some(rest) = word.strip_prefix(prefix) {
            let random = rest
                .bytes()
                .filter(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'-')
                .count();
            // Random-looking: long enough, and both letters and digits in it.
            if random >= least
                && rest.bytes().any(|b| b.is_ascii_digit())
                && rest.bytes().any(|b| b.is_ascii_alphabetic())
            {
                return Some(Shape { kind, variable });
            }
        }
    }
    if is_aws_key_id(word) {
        return Some(Shape {
            kind: "an AWS access key id",
            variable: "AWS_ACCESS_KEY_ID",
        });
    }
    if is_jwt(word) {
        return Some(Shape {
            kind: "a JSON Web Token",
            variable: "TOKEN",
        });
    }
    None
}

fn is_aws_key_id(word: &str) -> bool {
    word.len() == 20
        && (word.starts_with("AKIA") || word.starts_with("ASIA"))
        && word
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
}

fn is_jwt(word: &str) -> bool {
    let parts: Vec<&str> = word.split('.').collect();
    parts.len() == 3
        && parts[0].starts_with("eyJ")
        && parts.iter().take(2).all(|p| {
            p.len() >= 10
                && p.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        })
}

/// The byte ranges of every credential in `value`, with its shape.
fn find(value: &str) -> Vec<(usize, usize, Shape)> {
    let mut out = Vec::new();
    if value.contains("PRIVATE KEY-----") {
        out.push((
            0,
            value.len(),
            Shape {
                kind: "a private key",
                variable: "PRIVATE_KEY",
            },
        ));
        return out;
    }
    let all: Vec<(usize, usize)> = words(value).collect();
    for (i, &(start, end)) in all.iter().enumerate() {
        let word = &value[start..end];
        if let Some(shape) = word_shape(word) {
            out.push((start, end, shape));
            continue;
        }
        // `Bearer TOKEN` / `Basic CREDENTIALS`: the word after the scheme.
        let scheme = i
            .checked_sub(1)
            .map(|p| &value[all[p].0..all[p].1])
            .is_some_and(|w| w.eq_ignore_ascii_case("bearer") || w.eq_ignore_ascii_case("basic"));
        if scheme && word.len() >= 12 && !word.starts_with('$') {
            out.push((
                start,
                end,
                Shape {
                    kind: "a bearer credential",
                    variable: "TOKEN",
                },
            ));
        }
    }
    out
}

/// The first credential `value` holds by its shape, when it is written literally.
pub(crate) fn shape_of(value: &str) -> Option<Shape> {
    find(value).first().map(|&(_, _, shape)| shape)
}

/// `value` with every credential found by shape replaced by `hidden`; `None` when none is.
pub(crate) fn hide(value: &str, hidden: &str) -> Option<String> {
    let found = find(value);
    if found.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(value.len());
    let mut at = 0;
    for (start, end, _) in found {
        out.push_str(&value[at..start]);
        out.push_str(hidden);
        at = end;
    }
    out.push_str(&value[at..]);
    Some(out)
}

/// `config check`: a `literal_secret` warning at each literal string of a server's `args`,
/// `env`, `headers` or `url` that is a credential by its shape. Values under credential-shaped
/// names are errors already (by name) and are not reported twice.
pub(crate) fn check_server_values(
    cx: &mut Cx<'_>,
    path: &str,
    fields: [(&str, Option<&Spanned>); 4],
) {
    for (field, value) in fields {
        let Some(value) = value else {
            continue;
        };
        let at = format!("{path}.{field}");
        match &value.value {
            Json::String(s) => warn_shape(cx, &at, value.start, s, None),
            Json::Array(items) => {
                for (i, item) in items.iter().enumerate() {
                    if let Json::String(s) = &item.value {
                        warn_shape(cx, &format!("{at}[{i}]"), item.start, s, None);
                    }
                }
            }
            Json::Object(members) => {
                for m in members {
                    if let Json::String(s) = &m.value.value
                        && !super::schema::is_secret_key(&m.key)
                    {
                        let p = format!("{at}.{}", m.key);
                        warn_shape(cx, &p, m.value.start, s, Some(&m.key));
                    }
                }
            }
            _ => {}
        }
    }
}

fn warn_shape(cx: &mut Cx<'_>, path: &str, offset: usize, value: &str, key: Option<&str>) {
    if !super::schema::is_literal_value(value) {
        return;
    }
    let Some(shape) = shape_of(value) else {
        return;
    };
    let var = shape.variable;
    let suggestion = match key {
        Some(key) => format!("write `\"{key}\": \"${{{var}}}\"` and export {var}"),
        None => format!(
            "pass it by reference instead, e.g. in `env` as `\"{var}\": \"${{{var}}}\"`, and \
             export {var}"
        ),
    };
    cx.warning(
        "literal_secret",
        path,
        offset,
        format!(
            "this value looks like {}; it would be stored and shared as plain text",
            shape.kind
        ),
        Some(suggestion),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_are_found_by_shape_alone() {
        let ant = "sk-ant-api03-AbCdEf0123456789AbCdEf0123456789";
        assert_eq!(shape_of(ant).map(|s| s.variable), Some("ANTHROPIC_API_KEY"));
        assert_eq!(
            shape_of("--token=ghp_1234567890abcdefghijABCDEFGHIJ").map(|s| s.kind),
            Some("a GitHub token")
        );
        assert!(shape_of("Bearer abcdef0123456789xyz").is_some());
        assert!(shape_of("AKIAIOSFODNN7EXAMPLE").is_some());
        assert!(shape_of("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.sig").is_some());
        for harmless in [
            "-y",
            "@modelcontextprotocol/server-filesystem@1.0.0",
            "sk-learn",
            "scikit-learn",
            "Bearer ${TOKEN}",
            "/home/me/proj/data",
            "ghp_",
        ] {
            assert_eq!(shape_of(harmless), None, "{harmless}");
        }
        assert_eq!(
            hide("--key=ghp_1234567890abcdefghijABCDEFGHIJ --v", "H").as_deref(),
            Some("--key=H --v")
        );
    }
}
