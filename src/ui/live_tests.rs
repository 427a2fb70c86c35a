//! Snapshots of what a live reload leaves on screen: the status line's account of what changed,
//! at every size.

use crate::app::Msg;
use crate::app::testkit::demo_app;

#[test]
fn a_reload_says_what_changed_on_the_status_line() {
    let (mut app, _d) = demo_app();
    app.update(Msg::Reloaded {
        said: "`.mcp.json`: server `api` added; the project needs trust".to_owned(),
        mode: "enforce".to_owned(),
    });
    super::tests::snapshot_all("reloaded", &mut app);
}
