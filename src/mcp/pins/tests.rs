use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt as _;

use serde_json::json;

use super::*;

fn tool(value: Value) -> Definition {
    Definition::new(Kind::Tool, value)
}

fn key() -> ServerKey {
    ServerKey {
        server: "s".into(),
        scope: "user".into(),
    }
}

const TOOLS: &[Kind] = &[Kind::Tool];

#[test]
fn the_first_listing_is_the_baseline_and_later_additions_stay_added() {
    let dir = tempfile::tempdir().unwrap();
    let store = PinStore::at(dir.path().join("state/pins.json"));
    let a = tool(json!({"name": "a", "description": "A", "inputSchema": {}}));
    let b = tool(json!({"name": "b", "description": "B", "inputSchema": {}}));
    assert!(
        store
            .observe(&key(), std::slice::from_ref(&a), TOOLS)
            .unwrap()
            .is_empty()
    );
    let mode = std::fs::metadata(store.server_path(&key()))
        .unwrap()
        .permissions()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o600);
    let drift = store
        .observe(&key(), &[a.clone(), b.clone()], TOOLS)
        .unwrap();
    assert_eq!(drift.changes.len(), 1);
    assert_eq!(
        (drift.changes[0].change, drift.tools()),
        (ChangeKind::Added, vec!["b".to_owned()])
    );
    assert_eq!(
        store
            .observe(&key(), &[a.clone(), b.clone()], TOOLS)
            .unwrap()
            .changes
            .len(),
        1,
        "still added"
    );
    store
        .accept(&key(), &[a.clone(), b.clone()], TOOLS)
        .unwrap();
    assert!(store.observe(&key(), &[a, b], TOOLS).unwrap().is_empty());
}

#[test]
fn changes_are_diffed_field_by_field_and_rated() {
    let before = tool(
        json!({"name": "deploy", "description": "Deploys to staging.",
        "inputSchema": {"type": "object", "properties": {"env": {"type": "string", "enum": ["staging"]}}},
        "annotations": {"readOnlyHint": true, "destructiveHint": false}}),
    );
    let after = tool(json!({"name": "deploy", "description": "Deploys anywhere.",
        "inputSchema": {"type": "object", "properties": {"env": {"type": "string"}}},
        "annotations": {"readOnlyHint": false, "destructiveHint": true}}));
    let pins: BTreeMap<_, _> = [("tool:deploy".to_owned(), store_pin(&before))].into();
    let drift = compare(&pins, &[after], TOOLS);
    let change = &drift.changes[0];
    assert_eq!(change.change, ChangeKind::Changed);
    assert_eq!(
        change.ratings,
        [
            Rating::Text,
            Rating::SchemaWidened,
            Rating::ReadOnlyDropped,
            Rating::DestructiveNow
        ]
    );
    assert!(
        change
            .diff
            .contains(&"- /description: Deploys to staging.".to_owned()),
        "{:?}",
        change.diff
    );
    assert!(
        change
            .diff
            .contains(&"+ /description: Deploys anywhere.".to_owned()),
        "{:?}",
        change.diff
    );
    assert!(
        change
            .diff
            .contains(&"- /inputSchema/properties/env/enum/0: staging".to_owned()),
        "{:?}",
        change.diff
    );
}

fn store_pin(def: &Definition) -> Pin {
    let parts = pinned_parts(def);
    Pin {
        digest: digest(&parts),
        definition: parts,
        first_seen: String::new(),
        pending: false,
    }
}

#[test]
fn renames_and_look_alikes_are_named() {
    let old = tool(
        json!({"name": "fetch_page", "description": "Fetches a web page and returns its text.",
        "inputSchema": {"type": "object", "properties": {"url": {"type": "string"}}}}),
    );
    let pins: BTreeMap<_, _> = [("tool:fetch_page".to_owned(), store_pin(&old))].into();
    let mut renamed = old.value.clone();
    renamed["name"] = json!("fetch_url");
    let drift = compare(&pins, &[tool(renamed)], TOOLS);
    assert_eq!(drift.changes.len(), 1, "{drift:?}");
    let c = &drift.changes[0];
    assert_eq!(
        (c.change, c.name.as_str(), c.renamed_from.as_deref()),
        (ChangeKind::Renamed, "fetch_url", Some("fetch_page"))
    );
    assert!(
        c.diff.iter().all(|l| l.contains("/name")),
        "only the name differs: {:?}",
        c.diff
    );
    let mut look = old.value.clone();
    look["name"] = json!("fetch_p\u{430}ge");
    let drift = compare(&pins, &[tool(look)], TOOLS);
    assert!(
        drift.changes[0].ratings.contains(&Rating::LookAlike),
        "{drift:?}"
    );
    let other = tool(
        json!({"name": "delete_all", "description": "Deletes every row of every table.", "inputSchema": {}}),
    );
    let drift = compare(&pins, &[other], TOOLS);
    let kinds: Vec<ChangeKind> = drift.changes.iter().map(|c| c.change).collect();
    assert_eq!(
        kinds,
        [ChangeKind::Added, ChangeKind::Removed],
        "not similar: no rename"
    );
}

#[test]
fn a_corrupt_store_is_reported_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("pins.json");
    std::fs::write(&path, "{not json").unwrap();
    let store = PinStore::at(path.clone());
    let e = store.observe(&key(), &[], TOOLS).unwrap_err();
    assert!(e.to_string().contains("will not overwrite"), "{e}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "{not json");
}

#[test]
fn keys_name_the_defining_layer_and_project() {
    let entry = |layer| crate::mcp::config::ServerEntry {
        name: "fs".into(),
        source: crate::mcp::config::Source {
            layer,
            file: std::path::Path::new("/p/.mcp.json").into(),
            line: Some(1),
        },
        raw: json!({"command": "x"}).into(),
        def: None,
        diagnostics: Vec::new(),
    };
    let root = std::path::Path::new("/p");
    assert_eq!(
        ServerKey::of(&entry(Layer::Project), root).scope,
        "project:/p"
    );
    assert_eq!(
        ServerKey::of(&entry(Layer::ProjectDeck), root).scope,
        "project:/p"
    );
    assert_eq!(ServerKey::of(&entry(Layer::User), root).scope, "user");
}
