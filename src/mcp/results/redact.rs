//! The value-based redactor: every occurrence of a resolved secret value in text
//! a server sent back is replaced by `[redacted]` before it is shown anywhere. It knows only the
//! values it is given; it never resolves references and never logs what it replaces.

use std::borrow::Cow;
use std::fmt;

/// The replacement text.
pub const REDACTED: &str = "[redacted]";
/// Shorter values are not redacted: they would match ordinary text everywhere.
pub const MIN_SECRET_BYTES: usize = 4;

/// Replaces secret values in text. Linear in the text per secret; no quadratic rescans.
#[derive(Clone, Default)]
pub struct Redactor {
    secrets: Vec<String>,
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
            .collect();
        secrets.sort();
        secrets.dedup();
        Self { secrets }
    }

    /// Whether there is nothing to redact.
    pub fn is_empty(&self) -> bool {
        self.secrets.is_empty()
    }

    /// The longest secret's length in bytes (0 when empty).
    pub fn max_len(&self) -> usize {
        self.secrets.iter().map(String::len).max().unwrap_or(0)
    }

    /// `text` with every occurrence of every secret replaced; borrowed when none occurs.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        // Collect every matched byte range against the original text, merge overlaps, then
        // build the output once: a secret inside another, or overlapping it, is covered whole.
        let mut ranges: Vec<(usize, usize)> = Vec::new();
        for secret in &self.secrets {
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
