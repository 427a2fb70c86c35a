//! The config doctor and its editor, as the operator trial used them: the doctor opens on a
//! file that exists, `e` edits it, `Esc` in the editor returns to the doctor as it was, and the
//! editor's help lists the keys its buffer takes, not only save and close.

use crossterm::event::KeyCode;

use super::info::DoctorFile;
use super::overlays::DoctorView;
use super::testkit::{ch, demo_app, key};
use super::{Effect, Msg, Overlay};
use crate::mcp::config::Layer;

fn file(line: usize, path: &str, present: bool) -> DoctorFile {
    DoctorFile {
        line,
        path: path.into(),
        layer: Layer::User,
        present,
    }
}

#[test]
fn the_doctor_opens_on_a_file_that_exists_and_the_editor_returns_to_it() {
    let (mut app, _d) = demo_app();
    app.info.doctor_files = vec![
        file(1, "/etc/xdg/mcpdeck/mcp.json", false),
        file(2, "/home/op/.config/mcpdeck/mcp.json", true),
        file(3, "/work/p/.mcp.json", true),
    ];
    app.update(ch('d'));
    assert!(
        matches!(
            app.overlay,
            Some(Overlay::Doctor(DoctorView { scroll: 0, file: 1 }))
        ),
        "the absent system file is not preselected: {:?}",
        app.overlay
    );
    app.update(key(KeyCode::Down));
    let fx = app.update(ch('e'));
    let [Effect::OpenEditor { path, layer }] = &fx[..] else {
        panic!("{fx:?}")
    };
    assert_eq!(path.to_str(), Some("/work/p/.mcp.json"));
    app.update(Msg::EditorText {
        path: path.clone(),
        layer: *layer,
        text: Ok("{\"mcpServers\": {}}\n".to_owned()),
    });
    assert!(matches!(app.overlay, Some(Overlay::Editor(_))));
    // What the keymap says `Esc` does here is what it does.
    let esc = app
        .keymap
        .hints(&[super::keymap::Ctx::Editor])
        .into_iter()
        .find(|(k, _)| k == "Esc")
        .map(|(_, d)| d.to_owned());
    assert_eq!(esc.as_deref(), Some("back to the doctor / tab (discards)"));
    app.update(key(KeyCode::Esc));
    assert!(
        matches!(
            app.overlay,
            Some(Overlay::Doctor(DoctorView { scroll: 0, file: 2 }))
        ),
        "back to the doctor, on the file it edited: {:?}",
        app.overlay
    );
    app.update(key(KeyCode::Esc));
    assert!(app.overlay.is_none());
}

#[test]
fn the_editors_help_lists_its_editing_keys() {
    let (mut app, _d) = demo_app();
    app.update(Msg::EditorText {
        path: "/home/op/.config/mcpdeck/mcp.json".into(),
        layer: Layer::User,
        text: Ok("{\"mcpServers\": {}}\n".to_owned()),
    });
    app.update(key(KeyCode::F(1)));
    let (lines, _) = app.key_help_lines();
    let text: Vec<String> = lines
        .iter()
        .map(|l| match l {
            super::key_help::HelpLine::Heading(h) => (*h).to_owned(),
            super::key_help::HelpLine::Row { keys, desc } => format!("{keys} {desc}"),
        })
        .collect();
    let all = text.join("\n");
    for expected in [
        "save (only when valid)",
        "editing",
        "C-u C-r",
        "undo / redo",
    ] {
        assert!(all.contains(expected), "missing {expected:?} in:\n{all}");
    }
}
