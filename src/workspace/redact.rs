//! Credentials inside an admitted MCP config file, hidden before the file is indexed.
//!
//! `workspace_find`, `workspace_query` and `workspace_capsule` quote file text; an MCP config
//! file may hold a literal token in `env`, a header or a URL. Such values are replaced in the
//! indexed text exactly as `mcpdeck config show` hides them ([`schema::displayable`]): the
//! literal value of a credential-shaped key becomes `«literal secret hidden»`, a URL's password
//! and credential-shaped query values become `hidden`; references (`${NAME}`) stay, since they
//! are names. The scan works on the raw text (JSON with comments, even when it does not parse),
//! so a broken file hides its secrets too. Pure; no IO.

use crate::mcp::config::schema::{self, REDACTED_LITERAL};

/// What a hidden literal reads as in results.
pub const HIDDEN: &str = REDACTED_LITERAL;

/// `text` with every credential value hidden, or `None` when it holds none.
pub fn hide_credentials(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    let mut pos = 0usize;
    // The key whose value comes next (set after `"key" :`).
    let mut expecting: Option<String> = None;
    while pos < bytes.len() {
        match bytes[pos] {
            b'/' if bytes.get(pos + 1) == Some(&b'/') => {
                pos = memchr::memchr(b'\n', &bytes[pos..]).map_or(bytes.len(), |n| pos + n);
            }
            b'/' if bytes.get(pos + 1) == Some(&b'*') => {
                pos = memchr::memmem::find(&bytes[pos + 2..], b"*/")
                    .map_or(bytes.len(), |n| pos + 2 + n + 2);
            }
            b'"' => {
                let end = string_end(bytes, pos);
                let token = &text[pos..end];
                let decoded = serde_json::from_str::<String>(token)
                    .unwrap_or_else(|_| token.trim_matches('"').to_owned());
                let after = skip_blank(bytes, end);
                if bytes.get(after) == Some(&b':') {
                    expecting = Some(decoded);
                    pos = after + 1;
                    continue;
                }
                if let Some(key) = expecting.take()
                    && let Some(shown) = hidden_value(&key, &decoded)
                {
                    edits.push((pos, end, shown));
                }
                pos = end;
            }
            b if b.is_ascii_whitespace() => pos += 1,
            _ => {
                expecting = None;
                pos += 1;
            }
        }
    }
    if edits.is_empty() {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0usize;
    for (start, end, shown) in edits {
        out.push_str(&text[at..start]);
        out.push_str(&shown);
        at = end;
    }
    out.push_str(&text[at..]);
    Some(out)
}

/// The JSON string literal to show instead of `value` under `key`, if it must be hidden.
fn hidden_value(key: &str, value: &str) -> Option<String> {
    if schema::is_secret_key(key) && !value.trim().is_empty() && schema::is_literal_value(value) {
        return serde_json::to_string(HIDDEN).ok();
    }
    if key.eq_ignore_ascii_case("url") {
        return schema::displayable_url(value).and_then(|u| serde_json::to_string(&u).ok());
    }
    None
}

/// The byte after the string token starting at `start` (an opening `"`); the text's end for an
/// unterminated string.
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            b'\n' => return i,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// The first byte at or after `pos` that is neither whitespace nor inside a comment.
fn skip_blank(bytes: &[u8], mut pos: usize) -> usize {
    loop {
        match bytes.get(pos) {
            Some(b) if b.is_ascii_whitespace() => pos += 1,
            Some(b'/') if bytes.get(pos + 1) == Some(&b'/') => {
                pos = memchr::memchr(b'\n', &bytes[pos..]).map_or(bytes.len(), |n| pos + n);
            }
            Some(b'/') if bytes.get(pos + 1) == Some(&b'*') => {
                pos = memchr::memmem::find(&bytes[pos + 2..], b"*/")
                    .map_or(bytes.len(), |n| pos + 2 + n + 2);
            }
            _ => return pos,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn literal_credentials_are_hidden_and_references_kept() {
        let text = r#"{
  // a comment with "quotes": "x"
  "mcpServers": {
    "gh": {
      "command": "npx",
      "env": {"GITHUB_TOKEN": "ghp_abc\"def", "API_KEY": "${API_KEY}", "LEVEL": "debug"},
      "headers": {"Authorization": "Bearer sk-live-123"}
    },
    "web": {"url": "https://user:pw-777@example.test/mcp?api_key=k-888&x=1"}
  }
}"#;
        let out = hide_credentials(text).unwrap();
        for secret in ["ghp_abc", "sk-live-123", "pw-777", "k-888"] {
            assert!(!out.contains(secret), "{secret} in {out}");
        }
        assert!(out.contains("${API_KEY}"));
        assert!(out.contains("\"LEVEL\": \"debug\""));
        assert_eq!(out.matches(HIDDEN).count(), 2);
        assert!(out.contains("x=1"));
        // Lines stay where they were (passage line numbers do not move).
        assert_eq!(out.lines().count(), text.lines().count());
    }

    #[test]
    fn a_broken_file_still_hides_and_a_clean_one_is_untouched() {
        let broken = "{\"mcpServers\": {\"a\": {\"env\": {\"SECRET_TOKEN\": \"s3cr3t\"} ,,,";
        assert!(!hide_credentials(broken).unwrap().contains("s3cr3t"));
        assert_eq!(
            hide_credentials("{\"mcpServers\": {\"a\": {\"command\": \"x\"}}}"),
            None
        );
        let open = hide_credentials("{\"token\": \"unterminated").unwrap();
        assert!(!open.contains("unterminated"), "{open}");
    }
}
