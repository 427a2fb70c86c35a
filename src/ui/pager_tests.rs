//! Snapshots at 80×24, 120×40 and 40×15 of whole results in the spill pager: the window at the
//! end of a 53,001-line file (`End`), a search landed on its matching line, and the status line
//! when a copy is over a clipboard cap.

use std::path::PathBuf;

use crossterm::event::KeyCode;

use super::tests::{draw, snapshot_all, tools_app};
use crate::app::testkit::{ch, key};
use crate::app::{Effect, Msg, Overlay, SpillAt};
use crate::mcp::results::SpillWindow;

const PATH: &str = "/run/user/1000/mcpdeck/spill-1/spill-2.txt";

fn window(first: usize, found: Option<usize>) -> SpillWindow {
    SpillWindow {
        first,
        lines: (first..(first + 400).min(53_001))
            .map(|i| {
                if i == 53_000 {
                    "the last line of big-1mb".to_owned()
                } else {
                    format!("big-1mb line {:06}", i + 1)
                }
            })
            .collect(),
        total_lines: 53_001,
        size: 1_060_024,
        found,
    }
}

#[test]
fn whole_text_end_and_search() {
    let (mut app, _d) = tools_app();
    app.update(Msg::SpillPage {
        path: PathBuf::from(PATH),
        at: SpillAt::End,
        window: Ok(window(52_601, None)),
    });
    assert!(matches!(app.overlay, Some(Overlay::Pager(_))));
    let screen = draw(&app, 80, 24);
    assert!(screen.contains("the last line of big-1mb"), "{screen}");
    assert!(screen.contains("of 53001"), "{screen}");
    snapshot_all("pager_whole_end", &mut app);
    // `/` types a query; Enter asks for a search of the whole file from the top line.
    app.update(ch('/'));
    for c in "line 026500".chars() {
        app.update(ch(c));
    }
    let effects = app.update(key(KeyCode::Enter));
    let Some(Effect::ReadSpill { at, .. }) = effects.first() else {
        panic!("a search read: {effects:?}");
    };
    assert!(matches!(at, SpillAt::Find { forward: true, .. }), "{at:?}");
    app.update(Msg::SpillPage {
        path: PathBuf::from(PATH),
        at: at.clone(),
        window: Ok(window(26_399, Some(26_499))),
    });
    let screen = draw(&app, 80, 24);
    assert!(screen.contains("match at line 26500"), "{screen}");
    assert!(screen.contains("big-1mb line 026500"), "{screen}");
    snapshot_all("pager_whole_search", &mut app);
}

#[test]
fn a_copy_over_the_cap_names_the_spill() {
    let (mut app, _d) = tools_app();
    app.update(Msg::SpillPage {
        path: PathBuf::from(PATH),
        at: SpillAt::Line(0),
        window: Ok(window(0, None)),
    });
    let effects = app.update(ch('y'));
    assert!(
        matches!(effects.first(), Some(Effect::CopySpill { .. })),
        "{effects:?}"
    );
    app.update(Msg::SpillCopied(Err(format!(
        "not copied: 1060024 bytes is over the 1 MiB OSC 52 cap (terminals drop larger \
         sequences); the whole text is in {PATH}"
    ))));
    let screen = draw(&app, 120, 40);
    assert!(screen.contains("not copied"), "{screen}");
    snapshot_all("pager_copy_over_cap", &mut app);
}
