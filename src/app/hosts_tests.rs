//! The Hosts view's state machine: opening reads the files, tabs and selection move, a
//! test-connect asks for `${input:…}` values first (and keeps none of them once sent), an import
//! shows its preview and writes only after a typed `y`. Plus the fixture the render snapshots use:
//! the repository's host fixtures read for real, with the temporary directory's path replaced.

use std::collections::BTreeMap;
use std::path::Path;

use crossterm::event::KeyCode;

use super::hosts::{Answer, HostsEffect, HostsMode, HostsMsg, ImportPreview, ImportTo};
use super::hosts_data::{self, HostsData};
use super::testkit::{ch, ctrl, demo_app, key};
use super::{App, Effect, Msg, Overlay};
use crate::mcp::config::{ConfigSet, LoadOptions};
use crate::mcp::hosts::{HostEnv, HostId, read_all};

/// Copies `tests/fixtures/hosts/<kind>` into `root`, filling in the project path.
fn copy_fixture(from: &Path, dir: &Path, root: &Path, project: &Path) {
    for entry in std::fs::read_dir(dir).expect("fixture dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            copy_fixture(from, &path, root, project);
            continue;
        }
        let rel = path.strip_prefix(from).expect("relative");
        let text = std::fs::read_to_string(&path)
            .expect("fixture")
            .replace("@PROJECT@", project.to_str().expect("utf8"))
            .replace("@MCPDECK@", "mcpdeck");
        let to = root.join(rel);
        std::fs::create_dir_all(to.parent().expect("parent")).expect("mkdir");
        std::fs::write(to, text).expect("write");
    }
}

/// The Hosts view's data for a fixture (`valid` or `broken`), read by the real readers, with
/// the temporary directory shown as `/home/u` so snapshots are stable.
pub fn fixture_data(kind: &str) -> HostsData {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = std::fs::canonicalize(dir.path()).expect("canonical");
    let project = root.join("project");
    std::fs::create_dir_all(&project).expect("mkdir");
    let from = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hosts")
        .join(kind);
    copy_fixture(&from, &from, &root, &project);
    let config = ConfigSet::load(&LoadOptions {
        project_dir: project.clone(),
        config_home: Some(root.join("config")),
        extra_files: Vec::new(),
    })
    .expect("config");
    let env = HostEnv {
        home: Some(root.clone()),
        config_home: Some(root.join("config")),
        project,
        overrides: BTreeMap::new(),
    };
    let data = hosts_data::build(&config, &read_all(&env), &env);
    scrub(data, root.to_str().expect("utf8"), "/home/u")
}

fn scrub(mut data: HostsData, from: &str, to: &str) -> HostsData {
    let fix = |s: &mut String| *s = s.replace(from, to);
    fix(&mut data.project);
    for panel in &mut data.hosts {
        panel.files.iter_mut().for_each(|l| fix(&mut l.text));
        panel.traps.iter_mut().for_each(fix);
        for s in &mut panel.servers {
            fix(&mut s.summary);
            s.detail.iter_mut().for_each(|l| fix(&mut l.text));
        }
    }
    for row in &mut data.matrix {
        row.detail.iter_mut().for_each(|l| fix(&mut l.text));
    }
    data
}

/// An app with the Hosts view open over the `kind` fixture.
pub fn hosts_app(kind: &str) -> (App, tempfile::TempDir) {
    let (mut app, dir) = demo_app();
    let effects = app.update(ch('H'));
    assert_eq!(effects, [Effect::Hosts(HostsEffect::Read)]);
    app.update(Msg::Hosts(HostsMsg::Data(Box::new(fixture_data(kind)))));
    (app, dir)
}

fn view(app: &App) -> &super::hosts::HostsView {
    match &app.overlay {
        Some(Overlay::Hosts(v)) => v,
        other => panic!("the Hosts view is not in front: {other:?}"),
    }
}

#[test]
fn the_view_lists_every_host_with_found_and_absent_files() {
    let (app, _d) = hosts_app("valid");
    let data = view(&app).data.as_ref().expect("data");
    assert_eq!(data.hosts.len(), HostId::ALL.len());
    let claude = &data.hosts[0];
    assert!(claude.found);
    let names: Vec<&str> = claude.servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["demo-copy", "docs", "fs"]);
    // The local scope shadows the user scope's `fs`, and the detail says so with positions.
    let fs = &claude.servers[2];
    assert!(
        fs.detail
            .iter()
            .any(|l| l.text.contains("shadows user /home/u/.claude.json:"))
    );
    // The VS Code definition needs an input, named (never a value).
    let vscode = &data.hosts[2];
    assert_eq!(vscode.servers[0].inputs, ["docs-key"]);
    // The side-by-side rows say same / differs / only here.
    let docs = data
        .matrix
        .iter()
        .find(|r| r.name == "docs")
        .expect("docs row");
    assert_eq!(
        docs.cells,
        ["differs", "same", "differs", "same", "same", "same"]
    );
    assert!(
        docs.detail
            .iter()
            .any(|l| l.text.contains("differs in headers.Authorization"))
    );
}

#[test]
fn broken_files_show_positioned_diagnostics_and_traps() {
    let data = fixture_data("broken");
    let cursor = &data.hosts[1];
    assert!(cursor.counts.0 > 0, "{cursor:?}");
    assert!(
        cursor
            .files
            .iter()
            .any(|l| l.text.trim_start().starts_with("3:47: error[syntax]")),
        "a diagnostic with its line: {:?}",
        cursor.files
    );
    let windsurf = &data.hosts[5];
    assert!(windsurf.servers.iter().any(|s| s.broken));
    assert!(!windsurf.traps.is_empty() || windsurf.counts.0 > 0);
    // A literal credential is masked in the definition shown.
    let claude = &data.hosts[0];
    let keyed = claude
        .servers
        .iter()
        .find(|s| s.name == "keyed")
        .expect("keyed");
    assert!(
        keyed
            .detail
            .iter()
            .all(|l| !l.text.contains("sk-live-0123456789"))
    );
}

#[test]
fn tabs_and_selection_move_and_wrap() {
    let (mut app, _d) = hosts_app("valid");
    app.update(key(KeyCode::Down));
    assert_eq!(view(&app).sel, 1);
    app.update(key(KeyCode::Left));
    assert!(view(&app).side_by_side(), "left from the first host wraps");
    assert_eq!(view(&app).sel, 0);
    app.update(key(KeyCode::Right));
    assert_eq!(view(&app).host(), Some(HostId::ClaudeCode));
    app.update(key(KeyCode::Esc));
    assert!(app.overlay.is_none());
}

#[test]
fn test_connect_asks_for_inputs_then_sends_them_once() {
    let (mut app, _d) = hosts_app("valid");
    // Claude Code's first server needs nothing: straight to the runtime.
    let effects = app.update(ctrl('t'));
    assert_eq!(
        effects,
        [Effect::Hosts(HostsEffect::Connect {
            host: HostId::ClaudeCode,
            server: "demo-copy".to_owned(),
            answers: Vec::new(),
        })]
    );
    app.update(Msg::Hosts(HostsMsg::Connected(Err(
        "not connecting `demo-copy`: stays inert".to_owned(),
    ))));
    assert_eq!(view(&app).mode, HostsMode::Browse);
    assert!(matches!(&view(&app).outcome, Some(Err(m)) if m.contains("inert")));

    // VS Code's `docs` asks for `docs-key` first; what is typed is sent, then forgotten.
    app.update(key(KeyCode::Right));
    app.update(key(KeyCode::Right));
    assert!(app.update(ctrl('t')).is_empty());
    assert!(matches!(view(&app).mode, HostsMode::Asking { .. }));
    for c in "s3cret".chars() {
        assert!(app.update(ch(c)).is_empty(), "typing runs nothing");
    }
    let effects = app.update(key(KeyCode::Enter));
    assert_eq!(
        effects,
        [Effect::Hosts(HostsEffect::Connect {
            host: HostId::VsCode,
            server: "docs".to_owned(),
            answers: vec![("docs-key".to_owned(), Answer("s3cret".to_owned()))],
        })]
    );
    assert!(!format!("{:?}", app.overlay).contains("s3cret"));
    assert!(!format!("{effects:?}").contains("s3cret"));

    // Esc while asking cancels without a request.
    assert!(app.update(ctrl('t')).is_empty());
    assert!(app.update(key(KeyCode::Esc)).is_empty());
    assert_eq!(view(&app).mode, HostsMode::Browse);
}

#[test]
fn import_previews_and_writes_only_after_y() {
    let (mut app, _d) = hosts_app("valid");
    let effects = app.update(ch('i'));
    let Some(Effect::Hosts(HostsEffect::Plan { host, server, to })) = effects.first() else {
        panic!("{effects:?}");
    };
    assert_eq!(
        (*host, server.as_str(), *to),
        (HostId::ClaudeCode, "demo-copy", ImportTo::User)
    );
    let preview = ImportPreview {
        host: HostId::ClaudeCode,
        server: "demo-copy".to_owned(),
        to: ImportTo::User,
        path: "/home/u/config/mcpdeck/mcp.json".to_owned(),
        lines: vec!["  + demo-copy: {…}".to_owned()],
        writes: true,
    };
    app.update(Msg::Hosts(HostsMsg::Planned(Ok(preview.clone()))));
    assert!(matches!(view(&app).mode, HostsMode::Confirm(_)));
    // Any key but y cancels: nothing is written.
    assert!(app.update(ch('n')).is_empty());
    assert_eq!(view(&app).mode, HostsMode::Browse);

    app.update(ch('I'));
    app.update(Msg::Hosts(HostsMsg::Planned(Ok(preview.clone()))));
    let effects = app.update(ch('y'));
    assert_eq!(effects, [Effect::Hosts(HostsEffect::Write { preview })]);
    app.update(Msg::Hosts(HostsMsg::Imported(Ok(
        "imported `demo-copy`".to_owned()
    ))));
    assert!(matches!(&view(&app).outcome, Some(Ok(m)) if m.contains("imported")));
}

/// A refused import says every reason: in the view, and on the status line (one line, the
/// reasons after the heading), not only its heading.
#[test]
fn a_refused_import_says_each_reason() {
    let (mut app, _d) = hosts_app("valid");
    app.update(ch('i'));
    let why = "not importing anything:\n  `fs`: `args[1]` holds what looks like an Anthropic API \
               key written out\n  `fs`: sandbox: unknown preset `tight`";
    app.update(Msg::Hosts(HostsMsg::Planned(Err(why.to_owned()))));
    assert_eq!(
        app.message.as_deref(),
        Some(
            "not importing anything: `fs`: `args[1]` holds what looks like an Anthropic API key \
             written out; `fs`: sandbox: unknown preset `tight`"
        )
    );
    assert!(matches!(&view(&app).outcome, Some(Err(m)) if m.lines().count() == 3));
}

#[test]
fn the_hosts_update_wraps_its_tabs_and_says_when_no_server_is_selected() {
    use crate::app::component::Component as _;
    use crate::app::hosts::{HOST_TABS, HostsView};
    use crate::app::keymap::Action;
    use crate::app::overlays::Asks;
    let view: Box<HostsView> = Box::default();
    let back = view
        .clone()
        .update(Action::PrevTab, &())
        .next
        .expect("open");
    assert_eq!(back.tab, HOST_TABS - 1, "previous from the first tab wraps");
    let step = back.update(Action::TestConnect, &());
    assert_eq!(
        step.out,
        Some(Asks::said("select a host's server to test-connect"))
    );
    let step = view.clone().update(Action::Import, &());
    assert_eq!(
        step.out,
        Some(Asks::said("select a host's server to import"))
    );
    let step = view.clone().update(Action::Reconnect, &());
    assert_eq!(step.out.expect("asks").effects.len(), 1, "one read");
    assert!(view.update(Action::Back, &()).next.is_none());
}
