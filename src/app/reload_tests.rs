//! Pure tests of the console's live state: nothing is asked of the engine on a timer (status is
//! pushed), and a watched file's change or the reload key becomes one reload whose answer is
//! the status line and the policy mode.

use crossterm::event::KeyCode;

use crate::app::testkit::{demo_app, key};
use crate::app::{Effect, Msg};

#[test]
fn a_tick_asks_the_engine_for_nothing() {
    let (mut app, _dir) = demo_app();
    assert!(
        app.update(Msg::Tick).is_empty(),
        "status is pushed, never polled"
    );
}

#[test]
fn a_file_change_and_the_reload_key_each_reload_and_the_answer_is_said() {
    let (mut app, _dir) = demo_app();
    let changed = app.update(Msg::FilesChanged(vec!["/p/.mcp.json".into()]));
    assert_eq!(changed, [Effect::Reload { asked: false }]);
    let asked = app.update(key(KeyCode::F(5)));
    assert_eq!(asked, [Effect::Reload { asked: true }]);
    assert!(
        app.keymap
            .help_rows()
            .iter()
            .any(|(_, keys, desc)| keys == "F5" && *desc == "reload configuration"),
        "the help lists it"
    );
    app.update(Msg::Reloaded {
        said: "`.mcp.json`: server `api` added; the project needs trust\u{1b}[2J".to_owned(),
        mode: "enforce".to_owned(),
    });
    let said = app.message.as_deref().expect("said");
    assert!(said.starts_with("`.mcp.json`: server `api` added; the project needs trust"));
    assert!(!said.contains('\u{1b}'), "sanitised");
    assert_eq!(app.policy, "enforce");
}

/// A rebuild forgets the catalogs of the servers it started again, and only theirs: a server
/// whose definition did not change keeps its connection, so its pane keeps what it listed.
#[test]
fn a_rebuild_keeps_the_catalogs_of_the_servers_it_kept() {
    use std::collections::BTreeSet;

    use crate::app::testkit::app_with;
    use crate::app::{Focus, Load, ResourceRow};

    let (mut app, _dir) = app_with(&serde_json::json!({
        "kept": {"command": "mcpdeck", "args": ["demo-server"]},
        "edited": {"command": "mcpdeck", "args": ["demo-server"]}
    }));
    let row = ResourceRow {
        reference: "mcp-resource-1".to_owned(),
        name: "notes".to_owned(),
        meta: String::new(),
        description: String::new(),
        template: false,
    };
    for name in ["kept", "edited"] {
        let pane = app.panes.get_mut(name).expect("pane");
        pane.resources.catalog = Some(Load::Ready(vec![row.clone()]));
    }
    app.focus = Focus::Main;
    let shown = app.server().expect("a server").name.clone();
    let info = app.info.clone();
    app.update(Msg::Rebuilt {
        info: Box::new(info.clone()),
        kept: BTreeSet::from([shown.clone()]),
    });
    let catalog = |app: &crate::app::App, name: &str| {
        app.panes.get(name).expect("pane").resources.catalog.clone()
    };
    let other = if shown == "kept" { "edited" } else { "kept" };
    assert_eq!(catalog(&app, &shown), Some(Load::Ready(vec![row])));
    assert_eq!(catalog(&app, other), None, "started again: listed again");
    assert_eq!(app.focus, Focus::Main, "the shown server's list stays open");

    app.update(Msg::Rebuilt {
        info: Box::new(info),
        kept: BTreeSet::new(),
    });
    assert_eq!(catalog(&app, &shown), None);
    assert_eq!(app.focus, Focus::Servers);
}
