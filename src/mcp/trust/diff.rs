//! What changed between the trusted project definitions and the current ones:
//! added, removed and changed servers by file and name, with both versions of a changed one
//! (secrets masked as the definitions are displayed everywhere). The console's trust view and
//! `mcpdeck trust` both render these lines.

use serde_json::Value;

use crate::mcp::config::schema::displayable;

/// One line of a trust diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DiffLine {
    /// The text, indented (`  + added   file name`, `      was: {…}`).
    pub text: String,
    /// Whether it is a detail (a changed server's old or new definition) under a change.
    pub detail: bool,
}

fn key(v: &Value) -> String {
    format!(
        "{} {}",
        v.get("file").and_then(Value::as_str).unwrap_or("?"),
        v.get("name").and_then(Value::as_str).unwrap_or("?")
    )
}

fn change(text: String) -> DiffLine {
    DiffLine {
        text,
        detail: false,
    }
}

/// The changes from `old` to `new` (two `definitions` values): added and changed servers in
/// `new`'s order, then removed ones.
pub(crate) fn diff(old: &Value, new: &Value) -> Vec<DiffLine> {
    let empty = Vec::new();
    let old = old.as_array().unwrap_or(&empty);
    let new = new.as_array().unwrap_or(&empty);
    let mut out = Vec::new();
    for n in new {
        match old.iter().find(|o| key(o) == key(n)) {
            None => out.push(change(format!("  + added   {}", key(n)))),
            Some(o) if o.get("definition") != n.get("definition") => {
                out.push(change(format!("  ~ changed {}", key(n))));
                for (label, v) in [("was", o), ("now", n)] {
                    let text = v
                        .get("definition")
                        .map(|d| displayable(d).to_string())
                        .unwrap_or_default();
                    out.push(DiffLine {
                        text: format!("      {label}: {text}"),
                        detail: true,
                    });
                }
            }
            Some(_) => {}
        }
    }
    for o in old {
        if !new.iter().any(|n| key(n) == key(o)) {
            out.push(change(format!("  - removed {}", key(o))));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn added_changed_and_removed() {
        let old = json!([
            {"file": ".mcp.json", "name": "a", "definition": {"command": "x"}},
            {"file": ".mcp.json", "name": "gone", "definition": {"command": "y"}},
        ]);
        let new = json!([
            {"file": ".mcp.json", "name": "a", "definition": {"command": "z"}},
            {"file": ".mcp.json", "name": "b", "definition": {"command": "y"}},
        ]);
        let texts: Vec<(String, bool)> = diff(&old, &new)
            .into_iter()
            .map(|l| (l.text, l.detail))
            .collect();
        assert_eq!(
            texts,
            [
                ("  ~ changed .mcp.json a".to_owned(), false),
                ("      was: {\"command\":\"x\"}".to_owned(), true),
                ("      now: {\"command\":\"z\"}".to_owned(), true),
                ("  + added   .mcp.json b".to_owned(), false),
                ("  - removed .mcp.json gone".to_owned(), false),
            ]
        );
    }
}
