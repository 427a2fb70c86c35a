//! Foldable pretty JSON for result views: a value printed two spaces per
//! level, every non-empty object and array foldable by its JSON pointer. A folded container is
//! one line (`▸ "items": [… 40 items]`); an open one is marked `▾`. Strings were sanitised when
//! the value entered the console; printing escapes what JSON escapes.

use std::collections::BTreeSet;

use serde_json::Value;

/// A JSON value and which of its containers are folded.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct JsonFold {
    /// The value (strings sanitised).
    pub value: Value,
    /// The JSON pointers of the folded containers (`""` is the root).
    pub folded: BTreeSet<String>,
}

/// One printed line and, for a container's first line, its pointer.
pub type FoldLine = (String, Option<String>);

impl JsonFold {
    /// `value`, everything open.
    pub fn new(value: Value) -> Self {
        Self {
            value,
            folded: BTreeSet::new(),
        }
    }

    /// The printed lines.
    pub fn lines(&self) -> Vec<FoldLine> {
        let mut out = Vec::new();
        self.walk(&self.value, "", String::new(), 0, false, &mut out);
        out
    }

    /// Folds or opens the container at `pointer`.
    pub fn toggle(&mut self, pointer: &str) {
        if !self.folded.remove(pointer) {
            self.folded.insert(pointer.to_owned());
        }
    }

    /// Folds every container below the root, or, when any is folded, opens everything.
    pub fn toggle_all(&mut self) {
        if self.folded.is_empty() {
            let mut all = Vec::new();
            containers(&self.value, String::new(), &mut all);
            self.folded = all.into_iter().filter(|p| !p.is_empty()).collect();
        } else {
            self.folded.clear();
        }
    }

    fn walk(
        &self,
        v: &Value,
        key: &str,
        pointer: String,
        depth: usize,
        comma: bool,
        out: &mut Vec<FoldLine>,
    ) {
        let indent = "  ".repeat(depth);
        let comma = if comma { "," } else { "" };
        let (open, close, len, noun) = match v {
            Value::Object(m) if !m.is_empty() => ('{', '}', m.len(), "keys"),
            Value::Array(a) if !a.is_empty() => ('[', ']', a.len(), "items"),
            scalar => {
                let text = serde_json::to_string(scalar).unwrap_or_default();
                out.push((format!("{indent}  {key}{text}{comma}"), None));
                return;
            }
        };
        if self.folded.contains(&pointer) {
            out.push((
                format!("{indent}▸ {key}{open}… {len} {noun}{close}{comma}"),
                Some(pointer),
            ));
            return;
        }
        out.push((format!("{indent}▾ {key}{open}"), Some(pointer.clone())));
        match v {
            Value::Object(m) => {
                for (i, (k, child)) in m.iter().enumerate() {
                    let key = format!("{}: ", serde_json::to_string(k).unwrap_or_default());
                    let child_pointer = format!("{pointer}/{}", escape(k));
                    self.walk(child, &key, child_pointer, depth + 1, i + 1 < len, out);
                }
            }
            Value::Array(a) => {
                for (i, child) in a.iter().enumerate() {
                    let child_pointer = format!("{pointer}/{i}");
                    self.walk(child, "", child_pointer, depth + 1, i + 1 < len, out);
                }
            }
            _ => {}
        }
        out.push((format!("{indent}  {close}{comma}"), None));
    }
}

/// A key as a JSON pointer token (RFC 6901).
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Every non-empty container's pointer.
fn containers(v: &Value, pointer: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            for (k, child) in m {
                containers(child, format!("{pointer}/{}", escape(k)), out);
            }
            out.push(pointer);
        }
        Value::Array(a) if !a.is_empty() => {
            for (i, child) in a.iter().enumerate() {
                containers(child, format!("{pointer}/{i}"), out);
            }
            out.push(pointer);
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn texts(f: &JsonFold) -> Vec<String> {
        f.lines().into_iter().map(|(l, _)| l).collect()
    }

    #[test]
    fn prints_open_and_folds_by_pointer() {
        let mut f = JsonFold::new(json!({"a/b": [1, {"x": true}], "n": null, "e": {}}));
        assert_eq!(
            texts(&f),
            [
                "▾ {",
                "  ▾ \"a/b\": [",
                "      1,",
                "    ▾ {",
                "        \"x\": true",
                "      }",
                "    ],",
                "    \"e\": {},",
                "    \"n\": null",
                "  }",
            ]
        );
        let pointers: Vec<Option<String>> = f.lines().into_iter().map(|(_, p)| p).collect();
        assert_eq!(pointers[1].as_deref(), Some("/a~1b"));
        assert_eq!(pointers[3].as_deref(), Some("/a~1b/1"));
        f.toggle("/a~1b");
        assert_eq!(texts(&f)[1], "  ▸ \"a/b\": [… 2 items],");
        assert_eq!(texts(&f).len(), 5);
        f.toggle("/a~1b");
        assert_eq!(texts(&f).len(), 10);
    }

    #[test]
    fn toggle_all_folds_below_the_root_then_opens() {
        let mut f = JsonFold::new(json!({"a": {"b": [1]}, "c": [2, 3]}));
        f.toggle_all();
        assert_eq!(
            texts(&f),
            [
                "▾ {",
                "  ▸ \"a\": {… 1 keys},",
                "  ▸ \"c\": [… 2 items]",
                "  }"
            ]
        );
        f.toggle_all();
        assert!(f.folded.is_empty());
    }
}
