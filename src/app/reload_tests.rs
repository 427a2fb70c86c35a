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
