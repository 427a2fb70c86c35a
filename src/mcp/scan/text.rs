//! Walking a definition's strings, and positions in them.

use serde_json::Value;

/// Members of a definition (or of its `serverInfo`) that hold no text the model reads:
/// pictures and out-of-band metadata.
const SKIPPED: [&str; 2] = ["icons", "_meta"];

/// Calls `visit(pointer, text, is_key)` for every string in `value` and every object key below
/// the top level (a schema's property names are text the model reads).
pub(super) fn walk(value: &Value, visit: &mut dyn FnMut(&str, &str, bool)) {
    walk_at(value, &mut String::new(), visit);
}

fn walk_at(value: &Value, pointer: &mut String, visit: &mut dyn FnMut(&str, &str, bool)) {
    match value {
        Value::String(s) => visit(pointer, s, false),
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&i.to_string());
                walk_at(item, pointer, visit);
                pointer.truncate(len);
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                let top = pointer.is_empty() || pointer == "/serverInfo";
                if top && SKIPPED.contains(&key.as_str()) {
                    continue;
                }
                let len = pointer.len();
                pointer.push('/');
                pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
                if len > 0 {
                    // A key below the top level: a property's name is text too.
                    visit(pointer, key, true);
                }
                walk_at(item, pointer, visit);
                pointer.truncate(len);
            }
        }
        _ => {}
    }
}

/// The 1-based line and column (in characters) of character `offset` in `text`.
pub(super) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let (mut line, mut column) = (1, 1);
    for c in text.chars().take(offset) {
        if c == '\n' {
            line += 1;
            column = 1;
        } else {
            column += 1;
        }
    }
    (line, column)
}

/// About 100 characters of `text` around characters `offset..offset + len`, sanitised, with
/// newlines shown as `⏎`.
pub(super) fn excerpt(text: &str, offset: usize, len: usize) -> String {
    const BEFORE: usize = 30;
    const MAX: usize = 100;
    let start = offset.saturating_sub(BEFORE);
    let take = (BEFORE + len.max(1) + 20).min(MAX);
    let cut: String = text.chars().skip(start).take(take).collect();
    let mut shown = crate::mcp::sanitize::sanitize(&cut).replace('\n', "⏎");
    if start > 0 {
        shown.insert(0, '…');
    }
    if text.chars().count() > start + take {
        shown.push('…');
    }
    shown
}

/// `text` without the characters a person cannot see (zero-width, bidi, tag characters), with
/// the character offset in `text` of each character kept: text rules match what a model
/// reads, and report where it is in what the server sent.
pub(super) fn folded(text: &str) -> (String, Vec<usize>) {
    let mut out = String::with_capacity(text.len());
    let mut offsets = Vec::with_capacity(text.len());
    for (i, c) in text.chars().enumerate() {
        if super::rules::is_invisible(c) || super::rules::is_bidi(c) || super::rules::is_tag(c) {
            continue;
        }
        out.push(c);
        offsets.push(i);
    }
    (out, offsets)
}
