//! Snapshots of the session controls at three sizes: the Roots view (listed, and while a
//! directory is typed), the Log tab with the server's level and coloured log messages, and a
//! subscribed resource's mark.

use crossterm::event::KeyCode;
use ratatui::style::Color;
use serde_json::json;

use super::tests::{SIZES, draw, snapshot_all};
use crate::app::roots_view::RootsView;
use crate::app::session::Subscribed;
use crate::app::testkit::{demo_app, key, ok};
use crate::app::{App, Effect, Load, Msg, Tab};
use crate::mcp::api::RootItem;
use crate::mcp::connection::{ConnectionEvent, ServerEvent};

fn roots_app() -> (App, tempfile::TempDir) {
    let (mut app, dir) = demo_app();
    let mut view = RootsView::new("demo");
    view.roots = Load::Ready(vec![
        RootItem {
            uri: "file:///home/ada/proj".into(),
            name: "proj".into(),
        },
        RootItem {
            uri: "file:///home/ada/shared%20data".into(),
            name: "shared data".into(),
        },
    ]);
    view.sel = 1;
    app.session.roots = Some(view);
    (app, dir)
}

#[test]
fn roots_view() {
    let (mut app, _d) = roots_app();
    snapshot_all("roots_view", &mut app);
}

#[test]
fn roots_view_adding() {
    let (mut app, _d) = roots_app();
    if let Some(view) = &mut app.session.roots {
        view.adding = Some("../docs".into());
    }
    snapshot_all("roots_view_adding", &mut app);
}

fn to_tab(app: &mut App, tab: Tab) -> Vec<Effect> {
    let mut effects = app.update(key(KeyCode::Tab));
    while app.tab != tab {
        effects = app.update(key(KeyCode::Right));
    }
    effects
}

#[test]
fn log_levels() {
    let (mut app, _d) = demo_app();
    app.session.levels.insert("demo".into(), "debug".into());
    #[allow(deprecated)]
    let levels = [
        (
            rmcp::model::LoggingLevel::Debug,
            Some("cache"),
            "warming up",
        ),
        (rmcp::model::LoggingLevel::Info, None, "ready"),
        (rmcp::model::LoggingLevel::Warning, Some("disk"), "slow"),
        (
            rmcp::model::LoggingLevel::Error,
            Some("db"),
            "connection lost: retrying",
        ),
        (
            rmcp::model::LoggingLevel::Emergency,
            Some("core"),
            "out of memory",
        ),
    ];
    for (level, logger, data) in levels {
        app.update(Msg::Event(ServerEvent {
            server: "demo".into(),
            event: ConnectionEvent::Log {
                level,
                logger: logger.map(str::to_owned),
                data: json!(data),
            },
        }));
    }
    to_tab(&mut app, Tab::Log);
    snapshot_all("log_levels", &mut app);
    // Level and logger take the level's colour: the error line's logger is red.
    let (w, h) = SIZES[1];
    app.size = (w, h);
    let mut terminal =
        ratatui::Terminal::new(ratatui::backend::TestBackend::new(w, h)).expect("terminal");
    terminal.draw(|f| super::render(&app, f)).expect("draw");
    let text = draw(&app, w, h);
    let (row, line) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.contains("db: connection lost"))
        .expect("the error line");
    let column = |needle: &str| {
        let at = line.find(needle).expect("on the line");
        u16::try_from(line[..at].chars().count()).expect("fits")
    };
    let row = u16::try_from(row).expect("fits");
    let buffer = terminal.backend().buffer();
    for needle in ["error", "db: "] {
        let cell = buffer.cell((column(needle), row)).expect("cell");
        assert_eq!(cell.fg, Color::Red, "{needle}");
    }
}

#[test]
fn subscribed_resource() {
    let (mut app, _d) = demo_app();
    let effects = to_tab(&mut app, Tab::Resources);
    let id = crate::app::testkit::agent_request_id(&effects);
    let reference = "mcp-resource-0123456789abcdef0123456789abcdef";
    app.update(ok(
        id,
        "resources.list",
        json!({"resources": [
            {"reference": reference, "name": "notes", "mimeType": "text/plain",
             "description": "Team notes"},
            {"reference": "mcp-resource-fedcba9876543210fedcba9876543210", "name": "readme",
             "description": "Read me"}],
          "templates": []}),
    ));
    app.session
        .subscribed
        .entry("demo".into())
        .or_default()
        .insert(
            "file:///notes.txt".into(),
            Subscribed {
                reference: reference.into(),
                updates: 2,
            },
        );
    snapshot_all("subscribed_resource", &mut app);
}
