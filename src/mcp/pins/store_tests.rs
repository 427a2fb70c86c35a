use std::os::unix::fs::MetadataExt as _;

use serde_json::json;

use super::*;
use crate::mcp::pins::{ChangeKind, digest};

const TOOLS: &[Kind] = &[Kind::Tool];

fn tool(value: serde_json::Value) -> Definition {
    Definition::new(Kind::Tool, value)
}

fn key(server: &str) -> ServerKey {
    ServerKey {
        server: server.into(),
        scope: "user".into(),
    }
}

fn listing(description: &str) -> Vec<Definition> {
    (0..3)
        .map(|i| {
            tool(json!({"name": format!("t{i}"), "description": description,
                "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}}}))
        })
        .collect()
}

/// The file's inode: an atomic replace gives it a new one.
fn inode(path: &Path) -> u64 {
    std::fs::metadata(path).unwrap().ino()
}

#[test]
fn an_unchanged_listing_writes_nothing_and_a_changed_one_still_drifts() {
    let dir = tempfile::tempdir().unwrap();
    let store = PinStore::at(dir.path().join("pins.json"));
    assert!(
        store
            .observe(&key("s"), &listing("A"), TOOLS)
            .unwrap()
            .is_empty()
    );
    let file = store.server_path(&key("s"));
    let (before, text) = (inode(&file), std::fs::read(&file).unwrap());
    for _ in 0..2 {
        assert!(
            store
                .observe(&key("s"), &listing("A"), TOOLS)
                .unwrap()
                .is_empty()
        );
    }
    assert_eq!(inode(&file), before, "the file was not replaced");
    assert_eq!(std::fs::read(&file).unwrap(), text);
    let entries = std::fs::read_dir(file.parent().unwrap()).unwrap().count();
    assert_eq!(entries, 1, "no temporary file left either");
    let drift = store.observe(&key("s"), &listing("B"), TOOLS).unwrap();
    let changed: Vec<ChangeKind> = drift.changes.iter().map(|c| c.change).collect();
    assert_eq!(changed, [ChangeKind::Changed; 3]);
    assert_eq!(inode(&file), before, "a change is reported, not pinned");
    let mut fewer = listing("A");
    fewer.pop();
    let drift = store.observe(&key("s"), &fewer, TOOLS).unwrap();
    assert_eq!(drift.changes[0].change, ChangeKind::Removed, "{drift:?}");
}

#[test]
fn a_listing_writes_only_its_own_servers_file() {
    let dir = tempfile::tempdir().unwrap();
    let store = PinStore::at(dir.path().join("pins.json"));
    store.observe(&key("a"), &listing("A"), TOOLS).unwrap();
    store.observe(&key("b"), &listing("B"), TOOLS).unwrap();
    let (a, b) = (store.server_path(&key("a")), store.server_path(&key("b")));
    assert_ne!(a, b);
    let (a_before, b_before) = (inode(&a), inode(&b));
    let mut more = listing("A");
    more.push(tool(json!({"name": "new", "inputSchema": {}})));
    let drift = store.observe(&key("a"), &more, TOOLS).unwrap();
    assert_eq!(drift.tools(), ["new"]);
    assert_ne!(inode(&a), a_before, "the new tool is pinned as first seen");
    assert_eq!(inode(&b), b_before, "the other server's file is untouched");
    assert!(store.accepted(&key("b")).unwrap().contains_key("tool:t0"));
}

fn old_pin(def: &Definition) -> serde_json::Value {
    let parts = pinned_parts(def);
    json!({"digest": digest(&parts), "definition": parts, "firstSeen": "2026-01-01T00:00:00Z"})
}

/// A store as earlier versions wrote it: servers `s` and `other` in one `pins.json`.
fn old_store(dir: &Path) -> (PathBuf, String) {
    let a = &listing("A")[0];
    let body = json!({"version": 1, "servers": [
        {"server": "other", "scope": "user", "pins": {"tool:t0": old_pin(a)}},
        {"server": "s", "scope": "user", "pins": {"tool:t0": old_pin(a)}},
    ]});
    let path = dir.join("pins.json");
    let text = serde_json::to_string_pretty(&body).unwrap();
    std::fs::write(&path, &text).unwrap();
    (path, text)
}

#[test]
fn the_one_file_store_is_migrated_once_and_kept_as_a_backup() {
    let dir = tempfile::tempdir().unwrap();
    let (old, text) = old_store(dir.path());
    let store = PinStore::at(old.clone());
    let drift = store.observe(&key("s"), &listing("B")[..1], TOOLS).unwrap();
    assert_eq!(
        drift.changes[0].change,
        ChangeKind::Changed,
        "the old pins hold"
    );
    assert!(!old.exists(), "migrated");
    let backup = dir.path().join("pins.json.migrated");
    assert_eq!(
        std::fs::read_to_string(&backup).unwrap(),
        text,
        "kept as it was"
    );
    let other = store.accepted(&key("other")).unwrap();
    assert_eq!(other["tool:t0"].first_seen, "2026-01-01T00:00:00Z");
    let mode = std::fs::metadata(store.server_path(&key("other")))
        .unwrap()
        .mode()
        & 0o777;
    assert_eq!(mode, 0o600);
    // Nothing migrates twice: the backup stays the only one.
    store.observe(&key("s"), &listing("A")[..1], TOOLS).unwrap();
    assert!(!dir.path().join("pins.json.migrated.2").exists());
}

#[test]
fn a_migration_cut_short_is_done_again_without_losing_a_pin() {
    let dir = tempfile::tempdir().unwrap();
    let (old, _) = old_store(dir.path());
    let store = PinStore::at(old.clone());
    // As if an earlier run had written `s`'s file and then stopped: it holds a pin the old file
    // does not, and its own copy of t0 (which wins).
    let path = store.server_path(&key("s"));
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let first = ServerFile {
        version: 1,
        server: "s".into(),
        scope: "user".into(),
        pins: [
            ("tool:t0".to_owned(), new_pin(&listing("C")[0], false)),
            ("tool:t1".to_owned(), new_pin(&listing("C")[1], false)),
        ]
        .into(),
    };
    server_file::write(&path, &first).unwrap();
    let pins = store.accepted(&key("s")).unwrap();
    assert_eq!(pins.len(), 2);
    assert_eq!(pins["tool:t0"], first.pins["tool:t0"]);
    assert!(
        store
            .accepted(&key("other"))
            .unwrap()
            .contains_key("tool:t0")
    );
    assert!(!old.exists());
}

#[test]
fn a_corrupt_server_file_is_reported_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let store = PinStore::at(dir.path().join("pins.json"));
    store.observe(&key("s"), &listing("A"), TOOLS).unwrap();
    let path = store.server_path(&key("s"));
    std::fs::write(&path, "{not json").unwrap();
    let e = store.observe(&key("s"), &listing("A"), TOOLS).unwrap_err();
    assert!(e.to_string().contains("will not overwrite"), "{e}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "{not json");
}

#[test]
fn the_digest_written_from_a_definition_is_that_of_its_pinned_parts() {
    let defs = [
        tool(
            json!({"name": "n", "title": null, "description": "d\u{0}\"x", "extra": 1,
            "inputSchema": {"z": 1, "a": [{"b": 2, "a": null}]}, "annotations": {"readOnlyHint": true}}),
        ),
        Definition::new(
            Kind::Server,
            json!({"serverInfo": {"name": "s"}, "instructions": null}),
        ),
        Definition::new(Kind::Prompt, json!({"name": "p", "arguments": []})),
    ];
    for def in &defs {
        assert_eq!(
            definition_digest(def),
            digest(&pinned_parts(def)),
            "{:?}",
            def.value
        );
    }
}
