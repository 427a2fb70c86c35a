//! Canonical JSON (object keys sorted by bytes at every level, no whitespace): the one writer
//! behind every hash of JSON in mcpdeck — trust fingerprints, tool pins, workspace capsules.
//! Written by hand so that it does not depend on whether some dependency turned on
//! `serde_json/preserve_order`.

/// The canonical text of `value`.
pub(crate) fn canonical_json(value: &serde_json::Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

/// Appends the canonical text of `value` to `out`.
pub(crate) fn write_canonical(value: &serde_json::Value, out: &mut String) {
    match value {
        serde_json::Value::Object(map) => write_canonical_map(map, out),
        serde_json::Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&scalar.to_string()),
    }
}

/// Appends the canonical text of the object `map` to `out`.
pub(crate) fn write_canonical_map(
    map: &serde_json::Map<String, serde_json::Value>,
    out: &mut String,
) {
    let mut entries: Vec<(&String, &serde_json::Value)> = map.iter().collect();
    entries.sort_by_key(|(key, _)| *key);
    out.push('{');
    for (i, (key, value)) in entries.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_string(key, out);
        out.push(':');
        write_canonical(value, out);
    }
    out.push('}');
}

/// Appends `text` as a JSON string (as `serde_json` writes it).
pub(crate) fn write_string(text: &str, out: &mut String) {
    // serde_json escapes only `"`, `\` and control characters; text without them is quoted
    // as it is (server names, keys, most values).
    if text.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
        out.reserve(text.len() + 2);
        out.push('"');
        out.push_str(text);
        out.push('"');
        return;
    }
    out.push_str(&serde_json::to_string(text).unwrap_or_default());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_string_is_written_as_serde_json_writes_it() {
        for text in [
            "s0",
            "",
            "é/x~\u{7f}",
            "a\"b",
            "c\\d",
            "\u{1}\n\t",
            "\u{2028}",
        ] {
            let mut out = String::new();
            write_string(text, &mut out);
            assert_eq!(out, serde_json::to_string(text).expect("json"), "{text:?}");
        }
    }
}
