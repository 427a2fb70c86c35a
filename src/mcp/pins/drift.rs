//! Drift: a server's definitions now against its pins, field by field — added, removed,
//! changed (with a readable diff), renamed (a removal and an addition that are nearly the same
//! definition) — and each change rated for what it may mean.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use super::{Pin, entry_key, pinned_parts, split_key};
use crate::mcp::sanitize::sanitize_capped;
use crate::mcp::scan::{Definition, Kind};

/// What happened to one definition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ChangeKind {
    /// New since the pins (pinned as first seen, not yet accepted).
    Added,
    /// Pinned, no longer listed.
    Removed,
    /// Listed under its pinned name with a different definition.
    Changed,
    /// A removal plus an addition that are nearly the same definition.
    Renamed,
}

/// What a change may mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rating {
    /// A description or title changed: text the model reads.
    Text,
    /// The input schema accepts more than before (a property added, a requirement, an enum or
    /// a bound dropped, `additionalProperties` opened).
    SchemaWidened,
    /// The schemas changed otherwise.
    SchemaChanged,
    /// `readOnlyHint` was true and is not any more.
    ReadOnlyDropped,
    /// `destructiveHint` is true now and was not.
    DestructiveNow,
    /// Other annotations changed.
    Annotations,
    /// The name differs from a pinned one only by look-alike characters.
    LookAlike,
    /// The server's `serverInfo` or `instructions` changed.
    ServerText,
}

/// One change.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Change {
    /// What changed.
    pub change: ChangeKind,
    /// The kind of definition.
    pub kind: Kind,
    /// Its name now (for a removal, as pinned); sanitised.
    pub name: String,
    /// For a rename, the pinned name; sanitised.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub renamed_from: Option<String>,
    /// What it may mean.
    pub ratings: Vec<Rating>,
    /// The field-by-field diff: `- /description: old`, `+ /description: new` (sanitised).
    pub diff: Vec<String>,
    /// The pinned parts as listed now (an addition's, to pair it with a removal).
    #[serde(skip)]
    pub(crate) now: Value,
}

impl Change {
    /// The change as approvals and the console show it: what changed with its ratings, then
    /// at most 40 lines of the diff.
    pub fn lines(&self) -> Vec<String> {
        use std::fmt::Write as _;
        let ratings: Vec<String> = self
            .ratings
            .iter()
            .filter_map(|r| serde_json::to_value(r).ok()?.as_str().map(str::to_owned))
            .collect();
        let mut head = format!("{:?} since its pins", self.change).to_lowercase();
        if let Some(from) = &self.renamed_from {
            let _ = write!(head, " (renamed from {from})");
        }
        if !ratings.is_empty() {
            let _ = write!(head, ": {}", ratings.join(", "));
        }
        let mut lines = vec![head];
        lines.extend(self.diff.iter().take(40).cloned());
        lines
    }
}

/// Every change of one server.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Drift {
    /// The changes, by kind and name.
    pub changes: Vec<Change>,
}

impl Drift {
    /// Nothing changed.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// Names of the tools a standing approval must not cover any more: changed, renamed to,
    /// added since the baseline.
    pub fn tools(&self) -> Vec<String> {
        self.changes
            .iter()
            .filter(|c| c.kind == Kind::Tool && c.change != ChangeKind::Removed)
            .map(|c| c.name.clone())
            .collect()
    }
}

/// Compares `current` with `pins`, only for the kinds in `kinds` (a tool listing says nothing
/// about prompts).
pub fn compare(pins: &BTreeMap<String, Pin>, current: &[Definition], kinds: &[Kind]) -> Drift {
    let mut changes = Vec::new();
    let mut listed = std::collections::BTreeSet::new();
    for def in current.iter().filter(|d| kinds.contains(&d.kind)) {
        let key = entry_key(def.kind, &def.name);
        listed.insert(key.clone());
        let now = pinned_parts(def);
        match pins.get(&key) {
            Some(pin) if pin.pending => changes.push(added(def, &now)),
            Some(pin) if pin.digest != super::digest(&now) => {
                changes.push(changed(def.kind, &def.name, &pin.definition, &now));
            }
            Some(_) => {}
            None => changes.push(added(def, &now)),
        }
    }
    for (key, pin) in pins {
        let (Some(kind), name) = split_key(key) else {
            continue;
        };
        if kinds.contains(&kind) && !listed.contains(key) && !pin.pending {
            changes.push(Change {
                change: ChangeKind::Removed,
                kind,
                name: sanitize_capped(name, 128),
                renamed_from: None,
                ratings: Vec::new(),
                diff: lines('-', "", &pin.definition),
                now: Value::Null,
            });
        }
    }
    pair_renames(&mut changes, pins);
    look_alikes(&mut changes, pins);
    Drift { changes }
}

fn added(def: &Definition, now: &Value) -> Change {
    Change {
        change: ChangeKind::Added,
        kind: def.kind,
        name: sanitize_capped(&def.name, 128),
        renamed_from: None,
        ratings: Vec::new(),
        diff: lines('+', "", now),
        now: now.clone(),
    }
}

fn changed(kind: Kind, name: &str, before: &Value, now: &Value) -> Change {
    Change {
        change: ChangeKind::Changed,
        kind,
        name: sanitize_capped(name, 128),
        renamed_from: None,
        ratings: rate(kind, before, now),
        diff: diff(before, now),
        now: now.clone(),
    }
}

/// A removal and an addition of one kind whose definitions, names aside, are nearly the same
/// (normalised Levenshtein similarity of their canonical JSON ≥ 0.8) become one rename.
fn pair_renames(changes: &mut Vec<Change>, pins: &BTreeMap<String, Pin>) {
    let without_name = |v: &Value| {
        let mut v = v.clone();
        if let Value::Object(map) = &mut v {
            map.remove("name");
        }
        crate::mcp::canonical::canonical_json(&v)
    };
    let mut i = 0;
    while i < changes.len() {
        if changes[i].change != ChangeKind::Added {
            i += 1;
            continue;
        }
        let kind = changes[i].kind;
        let now = changes[i].now.clone();
        let best = changes
            .iter()
            .enumerate()
            .filter(|(_, c)| c.change == ChangeKind::Removed && c.kind == kind)
            .filter_map(|(j, c)| {
                let pin = pins.get(&entry_key(kind, &c.name))?;
                let similarity = strsim::normalized_levenshtein(
                    &without_name(&pin.definition),
                    &without_name(&now),
                );
                (similarity >= 0.8).then_some((j, similarity, pin.definition.clone()))
            })
            .max_by(|a, b| a.1.total_cmp(&b.1));
        if let Some((j, _, before)) = best {
            let from = changes[j].name.clone();
            let mut rename = changed(kind, &changes[i].name, &before, &now);
            rename.change = ChangeKind::Renamed;
            rename.renamed_from = Some(from);
            changes[i] = rename;
            changes.remove(j);
            if j < i {
                continue;
            }
        }
        i += 1;
    }
}

/// Rates additions and renames whose name is a pinned name in look-alike characters.
fn look_alikes(changes: &mut [Change], pins: &BTreeMap<String, Pin>) {
    for change in changes.iter_mut() {
        if !matches!(change.change, ChangeKind::Added | ChangeKind::Renamed) {
            continue;
        }
        let skeleton = skeleton(&change.name);
        let shadows = pins.keys().any(|key| match split_key(key) {
            (Some(kind), name) => {
                kind == change.kind && name != change.name && self::skeleton(name) == skeleton
            }
            _ => false,
        });
        if shadows && !change.ratings.contains(&Rating::LookAlike) {
            change.ratings.push(Rating::LookAlike);
        }
    }
}

/// A name folded for comparison: lowercase, look-alike letters and digits mapped to the ASCII
/// letter they pass for.
pub(crate) fn skeleton(name: &str) -> String {
    name.chars()
        .map(|c| match c {
            'а' | 'α' | 'А' | 'Α' => 'a',
            'е' | 'ε' | 'Е' | 'Ε' => 'e',
            'о' | 'ο' | 'О' | 'Ο' | '0' => 'o',
            'р' | 'ρ' | 'Р' | 'Ρ' => 'p',
            'с' | 'С' | 'ϲ' => 'c',
            'у' | 'У' | 'υ' => 'y',
            'х' | 'Х' | 'χ' | 'Χ' => 'x',
            'і' | 'І' | 'ι' | 'Ι' | '1' | 'l' | 'ӏ' => 'l',
            'ј' | 'Ј' => 'j',
            'ѕ' | 'Ѕ' => 's',
            'ԁ' => 'd',
            'ɡ' => 'g',
            'κ' | 'Κ' | 'К' | 'к' => 'k',
            'ν' => 'v',
            'τ' | 'Т' | 'т' | 'Τ' => 't',
            'Н' | 'Η' | 'н' => 'h',
            'М' | 'Μ' | 'м' => 'm',
            'В' | 'Β' | 'в' => 'b',
            c => c.to_ascii_lowercase(),
        })
        .collect()
}

/// Every scalar of `value` with its JSON pointer.
fn flatten(value: &Value, pointer: &str, out: &mut BTreeMap<String, String>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                flatten(v, &format!("{pointer}/{k}"), out);
            }
            if map.is_empty() {
                out.insert(pointer.to_owned(), "{}".to_owned());
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                flatten(v, &format!("{pointer}/{i}"), out);
            }
            if items.is_empty() {
                out.insert(pointer.to_owned(), "[]".to_owned());
            }
        }
        Value::String(s) => {
            out.insert(pointer.to_owned(), s.clone());
        }
        other => {
            out.insert(pointer.to_owned(), other.to_string());
        }
    }
}

fn line(sign: char, pointer: &str, value: &str) -> String {
    format!(
        "{sign} {}: {}",
        sanitize_capped(pointer, 200),
        sanitize_capped(value, 400).replace('\n', "⏎")
    )
}

/// Every scalar of `value` as `sign pointer: value` lines.
fn lines(sign: char, pointer: &str, value: &Value) -> Vec<String> {
    let mut flat = BTreeMap::new();
    flatten(value, pointer, &mut flat);
    flat.iter().map(|(p, v)| line(sign, p, v)).collect()
}

/// The field-by-field diff of two definitions.
fn diff(before: &Value, now: &Value) -> Vec<String> {
    let (mut a, mut b) = (BTreeMap::new(), BTreeMap::new());
    flatten(before, "", &mut a);
    flatten(now, "", &mut b);
    let mut out = Vec::new();
    let pointers: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    for p in pointers {
        match (a.get(p), b.get(p)) {
            (Some(x), Some(y)) if x == y => {}
            (Some(x), Some(y)) => {
                out.push(line('-', p, x));
                out.push(line('+', p, y));
            }
            (Some(x), None) => out.push(line('-', p, x)),
            (None, Some(y)) => out.push(line('+', p, y)),
            (None, None) => {}
        }
    }
    out
}

/// What a change between two pinned definitions may mean.
fn rate(kind: Kind, before: &Value, now: &Value) -> Vec<Rating> {
    let mut ratings = Vec::new();
    let differs = |key: &str| before.get(key) != now.get(key);
    if kind == Kind::Server {
        return vec![Rating::ServerText];
    }
    if differs("description") || differs("title") || differs("arguments") {
        ratings.push(Rating::Text);
    }
    if differs("inputSchema") || differs("outputSchema") || differs("uriTemplate") {
        let widened = widened(
            before.get("inputSchema").unwrap_or(&Value::Null),
            now.get("inputSchema").unwrap_or(&Value::Null),
        );
        ratings.push(if widened {
            Rating::SchemaWidened
        } else {
            Rating::SchemaChanged
        });
    }
    let hint = |v: &Value, h: &str| {
        v.pointer(&format!("/annotations/{h}"))
            .and_then(Value::as_bool)
    };
    if hint(before, "readOnlyHint") == Some(true) && hint(now, "readOnlyHint") != Some(true) {
        ratings.push(Rating::ReadOnlyDropped);
    }
    if hint(before, "destructiveHint") != Some(true) && hint(now, "destructiveHint") == Some(true) {
        ratings.push(Rating::DestructiveNow);
    }
    if differs("annotations")
        && !ratings.contains(&Rating::ReadOnlyDropped)
        && !ratings.contains(&Rating::DestructiveNow)
    {
        ratings.push(Rating::Annotations);
    }
    ratings
}

/// Whether schema `now` accepts more than `before`: a property added, a required name, an
/// enum, a `const` or a bound dropped, `additionalProperties` opened — at any depth.
fn widened(before: &Value, now: &Value) -> bool {
    let (Value::Object(a), Value::Object(b)) = (before, now) else {
        return before != now && now.is_null();
    };
    let names = |v: Option<&Value>| -> Vec<String> {
        match v {
            Some(Value::Object(m)) => m.keys().cloned().collect(),
            Some(Value::Array(items)) => items.iter().map(ToString::to_string).collect(),
            _ => Vec::new(),
        }
    };
    let a_props = names(a.get("properties"));
    if names(b.get("properties"))
        .iter()
        .any(|p| !a_props.contains(p))
    {
        return true;
    }
    let b_required = names(b.get("required"));
    if names(a.get("required"))
        .iter()
        .any(|r| !b_required.contains(r))
    {
        return true;
    }
    for bound in [
        "enum",
        "const",
        "maxLength",
        "maximum",
        "maxItems",
        "pattern",
        "format",
        "type",
    ] {
        if a.contains_key(bound) && a.get(bound) != b.get(bound) {
            return true;
        }
    }
    if a.get("additionalProperties") == Some(&Value::Bool(false))
        && b.get("additionalProperties") != Some(&Value::Bool(false))
    {
        return true;
    }
    match (a.get("properties"), b.get("properties")) {
        (Some(Value::Object(pa)), Some(Value::Object(pb))) => pa
            .iter()
            .any(|(k, v)| pb.get(k).is_some_and(|w| widened(v, w))),
        _ => false,
    }
}
