//! The value-based redactor: every occurrence of a resolved secret value in text
//! a server sent back is replaced by `[redacted]` before it is shown anywhere. It knows only the
//! values it is given; it never resolves references and never logs what it replaces.
//!
//! Besides the values it is built with, a redactor may share [`LiveSecrets`]: values learnt
//! while the connection runs (the OAuth access tokens its requests carry, which change on every
//! refresh), redacted by every clone from the moment they are added.

use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, PoisonError, RwLock};

/// The replacement text.
pub const REDACTED: &str = "[redacted]";
/// Shorter values are not redacted: they would match ordinary text everywhere.
pub(crate) const MIN_SECRET_BYTES: usize = 4;

/// How many live secrets are kept; the oldest is forgotten first (an access token is replaced
/// at most once per refresh, so this covers every token a connection used for hours).
const LIVE_SECRETS: usize = 32;

/// Secret values learnt while a connection runs, shared by every redactor built with them.
#[derive(Clone, Default)]
pub struct LiveSecrets {
    /// Per secret, its spellings; oldest first.
    values: Arc<RwLock<Vec<Vec<String>>>>,
}

impl LiveSecrets {
    /// Redacts `secret` from now on (values shorter than [`MIN_SECRET_BYTES`] are ignored).
    pub fn add(&self, secret: &str) {
        if secret.len() < MIN_SECRET_BYTES {
            return;
        }
        let mut values = self.values.write().unwrap_or_else(PoisonError::into_inner);
        if values
            .iter()
            .any(|v| v.first().is_some_and(|s| s == secret))
        {
            return;
        }
        if values.len() == LIVE_SECRETS {
            values.remove(0);
        }
        values.push(spellings(secret));
    }

    /// Every spelling of every live secret.
    fn spellings(&self) -> Vec<String> {
        let values = self.values.read().unwrap_or_else(PoisonError::into_inner);
        values.iter().flatten().cloned().collect()
    }
}

impl fmt::Debug for LiveSecrets {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self
            .values
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .len();
        write!(f, "LiveSecrets({count})")
    }
}

/// Replaces secret values in text. Linear in the text per secret; no quadratic rescans.
#[derive(Clone, Default)]
pub struct Redactor {
    secrets: Vec<String>,
    live: LiveSecrets,
}

impl Redactor {
    /// A redactor for `secrets`; values shorter than [`MIN_SECRET_BYTES`] are ignored.
    pub fn new<I, S>(secrets: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut secrets: Vec<String> = secrets
            .into_iter()
            .map(Into::into)
            .filter(|s| s.len() >= MIN_SECRET_BYTES)
            .flat_map(|s| spellings(&s))
            .collect();
        secrets.sort();
        secrets.dedup();
        Self {
            secrets,
            live: LiveSecrets::default(),
        }
    }

    /// This redactor, also redacting whatever `live` holds now or later.
    #[must_use]
    pub fn with_live(mut self, live: LiveSecrets) -> Self {
        self.live = live;
        self
    }

    /// Whether there is nothing to redact (now).
    pub fn is_empty(&self) -> bool {
        self.secrets.is_empty() && self.live.spellings().is_empty()
    }

    /// The longest secret's length in bytes (0 when empty).
    pub fn max_len(&self) -> usize {
        self.secrets
            .iter()
            .chain(&self.live.spellings())
            .map(String::len)
            .max()
            .unwrap_or(0)
    }

    /// `text` with every occurrence of every secret replaced; borrowed when none occurs.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        // Collect every matched byte range against the original text, merge overlaps, then
        // build the output once: a secret inside another, or overlapping it, is covered whole.
        let mut ranges: Vec<(usize, usize)> = Vec::new();
        let live = self.live.spellings();
        for secret in self.secrets.iter().chain(&live) {
            ranges.extend(
                text.match_indices(secret.as_str())
                    .map(|(at, m)| (at, at + m.len())),
            );
        }
        if ranges.is_empty() {
            return Cow::Borrowed(text);
        }
        ranges.sort_unstable();
        let mut out = String::with_capacity(text.len());
        let mut copied = 0;
        let mut iter = ranges.into_iter().peekable();
        while let Some((start, mut end)) = iter.next() {
            while let Some(&(next_start, next_end)) = iter.peek() {
                if next_start >= end {
                    break;
                }
                end = end.max(next_end);
                iter.next();
            }
            out.push_str(&text[copied..start]);
            out.push_str(REDACTED);
            copied = end;
        }
        out.push_str(&text[copied..]);
        Cow::Owned(out)
    }
}

/// Every way a server is likely to write `secret` back: as is, JSON-escaped (with or without
/// `\/`, non-ASCII kept or as `\uXXXX`, hex in either case; `json.dumps` and `JSON.stringify`
/// both land in this set), percent-encoded (either hex case, `/` kept or encoded, space as
/// `%20` or `+`), re-encoded ([`re_encodings`]: base64, base64url, hex) and reversed.
fn spellings(secret: &str) -> Vec<String> {
    let mut out = vec![secret.to_owned()];
    out.extend(re_encodings(secret));
    out.push(secret.chars().rev().collect());
    for escape_slash in [false, true] {
        for escape_non_ascii in [false, true] {
            for upper in [false, true] {
                out.push(json_escaped(secret, escape_slash, escape_non_ascii, upper));
            }
        }
    }
    for keep_slash in [false, true] {
        for plus in [false, true] {
            for upper in [false, true] {
                out.push(percent_encoded(secret, keep_slash, plus, upper));
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// `secret` re-encoded: hex in either case, and base64 and base64url however it is aligned in
/// the encoded text — alone, or inside a longer value (`Bearer TOKEN`, `user:TOKEN` for Basic).
/// For each of the three alignments the part of the encoding that depends on the secret's bytes
/// alone is kept; the one or two characters at its edges that it shares with its neighbours are
/// not (so those stay visible around `[redacted]`).
fn re_encodings(secret: &str) -> Vec<String> {
    use base64::Engine as _;
    let bytes = secret.as_bytes();
    let mut out = vec![hex::encode(bytes), hex::encode_upper(bytes)];
    for offset in 0..3usize {
        let mut aligned = vec![0_u8; offset];
        aligned.extend_from_slice(bytes);
        let encoded = base64::engine::general_purpose::STANDARD_NO_PAD.encode(&aligned);
        let start = (8 * offset).div_ceil(6);
        let end = (8 * aligned.len()) / 6;
        let Some(inner) = encoded
            .get(start..end)
            .filter(|i| i.len() >= MIN_SECRET_BYTES)
        else {
            continue;
        };
        out.push(inner.to_owned());
        out.push(inner.replace('+', "-").replace('/', "_"));
    }
    out
}

fn push_hex4(out: &mut String, unit: u16, upper: bool) {
    use fmt::Write as _;
    let _ = if upper {
        write!(out, "\\u{unit:04X}")
    } else {
        write!(out, "\\u{unit:04x}")
    };
}

/// `secret` as the inside of a JSON string literal.
fn json_escaped(secret: &str, escape_slash: bool, escape_non_ascii: bool, upper: bool) -> String {
    let mut out = String::with_capacity(secret.len() + 8);
    for c in secret.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '/' if escape_slash => out.push_str("\\/"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if (c as u32) < 0x20 || c == '\u{7f}' && escape_non_ascii => {
                push_hex4(&mut out, u16::try_from(u32::from(c)).unwrap_or(0), upper);
            }
            c if !c.is_ascii() && escape_non_ascii => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    push_hex4(&mut out, *unit, upper);
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// `secret` percent-encoded byte by byte; unreserved characters stay.
fn percent_encoded(secret: &str, keep_slash: bool, plus_for_space: bool, upper: bool) -> String {
    use fmt::Write as _;
    let mut out = String::with_capacity(secret.len() * 3);
    for b in secret.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                out.push(char::from(b));
            }
            b'/' if keep_slash => out.push('/'),
            b' ' if plus_for_space => out.push('+'),
            b => {
                let _ = if upper {
                    write!(out, "%{b:02X}")
                } else {
                    write!(out, "%{b:02x}")
                };
            }
        }
    }
    out
}

impl fmt::Debug for Redactor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Redactor({} secrets)", self.secrets.len())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn replaces_every_occurrence() {
        let r = Redactor::new(["s3cr3t-token", "hunter22"]);
        assert_eq!(
            r.redact("auth failed for s3cr3t-token (s3cr3t-token) pw=hunter22!"),
            "auth failed for [redacted] ([redacted]) pw=[redacted]!"
        );
    }

    #[test]
    fn short_values_and_clean_text_are_left_alone() {
        let r = Redactor::new(["abc", "longsecret"]);
        assert!(matches!(r.redact("abc abc"), Cow::Borrowed(_)));
        assert!(Redactor::new(["ab"]).is_empty());
    }

    #[test]
    fn overlapping_and_nested_secrets_are_covered_whole() {
        let r = Redactor::new(["abcdef", "cdefgh", "bcde"]);
        assert_eq!(r.redact("xabcdefghx"), "x[redacted]x");
        let r = Redactor::new(["aaaa"]);
        assert_eq!(r.redact("aaaaaaaa"), "[redacted][redacted]");
    }

    #[test]
    fn every_spelling_of_a_secret_is_redacted() {
        let secret = "p\"a\\s/s\u{e9}\u{1}w o";
        let r = Redactor::new([secret]);
        for spelling in [
            secret,
            // serde_json / JSON.stringify
            "p\\\"a\\\\s/s\u{e9}\\u0001w o",
            // Python json.dumps (ensure_ascii)
            "p\\\"a\\\\s/s\\u00e9\\u0001w o",
            // upper-case hex and an escaped slash
            "p\\\"a\\\\s\\/s\\u00E9\\u0001w o",
            // percent-encoding, both cases, slash kept or not, space as + or %20
            "p%22a%5Cs%2Fs%C3%A9%01w%20o",
            "p%22a%5cs/s%c3%a9%01w+o",
        ] {
            let text = format!("<{spelling}>");
            assert_eq!(r.redact(&text), "<[redacted]>", "{spelling}");
        }
    }

    #[test]
    fn live_secrets_added_later_are_redacted_by_every_clone() {
        let live = LiveSecrets::default();
        let r = Redactor::new(["configured"]).with_live(live.clone());
        let clone = r.clone();
        assert_eq!(clone.redact("at-1234 configured"), "at-1234 [redacted]");
        live.add("at-1234");
        assert_eq!(clone.redact("at-1234 configured"), "[redacted] [redacted]");
        assert_eq!(r.redact("\"at-1234\""), "\"[redacted]\"");
        // The longest spelling: hex, two characters a byte.
        assert_eq!(r.max_len(), 2 * "configured".len());
        live.add("ab");
        assert_eq!(clone.redact("ab"), "ab", "short values are not secrets");
        assert!(!format!("{live:?}").contains("at-1234"));
    }

    #[test]
    fn live_secrets_keep_the_newest() {
        let live = LiveSecrets::default();
        let r = Redactor::default().with_live(live.clone());
        for i in 0..=LIVE_SECRETS {
            live.add(&format!("token-{i:03}"));
        }
        assert_eq!(
            r.redact("token-000"),
            "token-000",
            "the oldest is forgotten"
        );
        assert_eq!(r.redact("token-001"), REDACTED);
        assert_eq!(r.redact(&format!("token-{LIVE_SECRETS:03}")), REDACTED);
    }

    #[test]
    fn debug_never_shows_values() {
        let r = Redactor::new(["supersecret"]);
        assert!(!format!("{r:?}").contains("supersecret"));
    }

    #[test]
    fn large_text_is_linear() {
        let text = "x".repeat(8 << 20) + "topsecret";
        let r = Redactor::new(["topsecret", "another-one"]);
        assert!(r.redact(&text).ends_with(REDACTED));
    }
}

#[cfg(test)]
mod properties {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        #[test]
        fn no_secret_survives(
            secrets in proptest::collection::vec("[ab]{4,6}", 1..4),
            text in "[ab ]{0,60}",
        ) {
            let redactor = Redactor::new(secrets.clone());
            let out = redactor.redact(&text);
            for secret in &secrets {
                prop_assert!(!out.contains(secret.as_str()), "{secret} in {out}");
            }
        }
    }
}
