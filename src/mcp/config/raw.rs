//! A server definition as written, kept as the slice of its file's text.
//!
//! A configuration file may hold 100,000 servers. Keeping each definition as a parsed
//! `serde_json::Value` cost a map node (about half a kilobyte) per server whether anyone looked
//! at it or not; the definition is only needed for display, the trust fingerprint and change
//! detection, one server at a time. So an entry keeps the byte range of its value in the file's
//! text (shared by every entry of the file) and parses it again when asked. The slice was
//! already accepted by the strict JSON reader, so parsing it again cannot fail; if it ever did,
//! the definition reads as `null`, which no valid definition is.

use std::fmt;
use std::ops::Range;
use std::sync::Arc;

/// A definition as written: a slice of its file's strict-JSON text, or a value built in code
/// (packaged servers, tests).
#[derive(Clone)]
pub struct RawDef(Repr);

#[derive(Clone)]
enum Repr {
    /// `text[range]` is the definition's JSON value.
    Slice { text: Arc<str>, range: Range<usize> },
    /// A value that has no file text.
    Value(Arc<serde_json::Value>),
}

impl RawDef {
    /// The value `text[range]` (which must be one strict-JSON value).
    pub fn slice(text: Arc<str>, range: Range<usize>) -> Self {
        Self(Repr::Slice { text, range })
    }

    /// A definition built in code.
    pub fn from_value(value: serde_json::Value) -> Self {
        Self(Repr::Value(Arc::new(value)))
    }

    /// How many bytes the definition takes as written (for sizing buffers).
    pub fn len(&self) -> usize {
        match &self.0 {
            Repr::Slice { range, .. } => range.len(),
            Repr::Value(_) => 0,
        }
    }

    /// Whether the definition has no text (built in code).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The definition as a JSON value (objects with sorted keys; of two equal keys the last
    /// wins, which only matters for an entry that already carries a duplicate-key error).
    pub fn value(&self) -> serde_json::Value {
        match &self.0 {
            Repr::Slice { text, range } => text
                .get(range.clone())
                .and_then(|json| serde_json::from_str(json).ok())
                .unwrap_or(serde_json::Value::Null),
            Repr::Value(value) => (**value).clone(),
        }
    }

    /// Appends the canonical text of the definition (as
    /// [`crate::mcp::canonical::write_canonical`] writes [`RawDef::value`]) to `out`, from the
    /// file's text without building the value.
    pub fn write_canonical(&self, out: &mut String) {
        match &self.0 {
            Repr::Slice { text, range } => {
                let mark = out.len();
                if super::outline::write_canonical_span(text, range.clone(), out).is_none() {
                    out.truncate(mark);
                    crate::mcp::canonical::write_canonical(&self.value(), out);
                }
            }
            Repr::Value(value) => crate::mcp::canonical::write_canonical(value, out),
        }
    }
}

impl From<serde_json::Value> for RawDef {
    fn from(value: serde_json::Value) -> Self {
        Self::from_value(value)
    }
}

impl PartialEq for RawDef {
    fn eq(&self, other: &Self) -> bool {
        match (&self.0, &other.0) {
            (Repr::Value(a), Repr::Value(b)) => a == b,
            _ => self.value() == other.value(),
        }
    }
}

impl fmt::Debug for RawDef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.value(), f)
    }
}

impl serde::Serialize for RawDef {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value().serialize(serializer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slice_reads_as_the_value_it_holds() {
        let text: Arc<str> = Arc::from(r#"{"a": {"command": "x", "args": ["1"]}}"#);
        let start = text.find("{\"command").expect("value");
        let raw = RawDef::slice(text.clone(), start..text.len() - 1);
        assert_eq!(
            raw.value(),
            serde_json::json!({"command": "x", "args": ["1"]})
        );
        assert_eq!(
            raw,
            RawDef::from_value(serde_json::json!({"args": ["1"], "command": "x"}))
        );
        assert_ne!(raw, RawDef::from_value(serde_json::json!({"command": "y"})));
    }
}
