//! Pure `update` tests of the session controls: ping, disconnect, the log level, resource
//! subscriptions (and an update re-reading the open resource), and the Roots view.

use crossterm::event::KeyCode;
use serde_json::json;

use crate::app::testkit::{ch, demo_app, key, ok, operate};
use crate::app::{App, Effect, Load, Msg, ReqId, Screen, Tab};
use crate::mcp::api::{Disconnected, LogLevelSet, OpResult, PingResult, RootItem, RootList};
use crate::mcp::connection::{ConnectionEvent, ServerEvent};
use crate::mcp::engine::{EngineRequest, OperatorOp, Outcome, Success};
use crate::mcp::proxy::ProxyRequest;

fn done(id: ReqId, operation: &str, result: OpResult) -> Msg {
    Msg::Done {
        id,
        outcome: Box::new(Outcome {
            server: Some("demo".to_owned()),
            operation: operation.to_owned(),
            body: Ok(Success {
                result,
                text: String::new(),
                spills: Vec::new(),
            }),
        }),
    }
}

fn session(effects: &[Effect]) -> (ReqId, OperatorOp) {
    match effects {
        [
            Effect::Engine {
                id,
                request: EngineRequest::Operator { server, op },
            },
        ] => {
            assert_eq!(server, "demo");
            (*id, op.clone())
        }
        other => panic!("{other:?}"),
    }
}

fn to_tab(app: &mut App, tab: Tab) {
    app.update(key(KeyCode::Tab));
    while app.tab != tab {
        app.update(key(KeyCode::Right));
    }
}

#[test]
fn ping_shows_the_round_trip_and_disconnect_drops_that_servers_catalogs() {
    let (mut app, _d) = demo_app();
    let (id, op) = session(&app.update(ch('p')));
    assert_eq!(op, OperatorOp::Ping);
    app.update(done(
        id,
        "ping",
        OpResult::Ping(PingResult { rtt_ms: 3.25 }),
    ));
    assert_eq!(app.message.as_deref(), Some("ping demo: 3.2 ms round trip"));

    app.panes.get_mut("demo").expect("pane").tools.catalog = Some(Load::Ready(Vec::new()));
    let (id, op) = session(&app.update(ch('D')));
    assert_eq!(op, OperatorOp::Disconnect);
    app.update(done(
        id,
        "disconnect",
        OpResult::Disconnected(Disconnected {
            was_connected: true,
        }),
    ));
    assert!(app.pane().expect("pane").tools.catalog.is_none());
    assert!(
        app.message
            .as_deref()
            .is_some_and(|m| m.starts_with("disconnected demo"))
    );
}

/// `r` then `D` at once: the reconnect comes back overtaken by the disconnect, and the tab is
/// not loaded again (which would connect the server the operator just disconnected); a
/// reconnect that succeeds loads it.
#[test]
fn a_reconnect_the_disconnect_overtook_does_not_load_the_tab_again() {
    let reconnect_id = |effects: &[Effect]| match effects {
        [
            Effect::Engine {
                id,
                request: EngineRequest::Agent(ProxyRequest::Reconnect { .. }),
            },
        ] => *id,
        other => panic!("expected one reconnect, got {other:?}"),
    };
    let (mut app, _d) = demo_app();
    let id = reconnect_id(&app.update(ch('r')));
    let effects = app.update(crate::app::testkit::failed(
        id,
        "reconnect",
        crate::mcp::connection::ErrorClass::Cancelled,
        "disconnected by the operator",
    ));
    assert!(effects.is_empty(), "{effects:?}");
    let id = reconnect_id(&app.update(ch('r')));
    let effects = app.update(crate::app::testkit::ok(
        id,
        "reconnect",
        json!({"protocolVersion": "2025-11-25", "generation": 2, "serverName": "demo"}),
    ));
    assert!(
        effects.iter().any(|e| matches!(
            e,
            Effect::Engine {
                request: EngineRequest::Agent(ProxyRequest::ToolsList { .. }),
                ..
            }
        )),
        "{effects:?}"
    );
}

#[test]
fn the_log_tab_steps_the_servers_level_and_lines_carry_level_and_logger() {
    let (mut app, _d) = demo_app();
    assert!(app.update(ch('-')).is_empty(), "only in the Log tab");
    to_tab(&mut app, Tab::Log);
    let (id, op) = operate(&app.update(ch('-')));
    assert_eq!(
        op,
        OperatorOp::SetLogLevel {
            level: "debug".into()
        }
    );
    app.update(done(
        id,
        "logging.setLevel",
        OpResult::LogLevel(LogLevelSet {
            level: "debug".into(),
        }),
    ));
    assert_eq!(
        app.session.levels.get("demo").map(String::as_str),
        Some("debug")
    );
    let (_, op) = operate(&app.update(ch('+')));
    assert_eq!(
        op,
        OperatorOp::SetLogLevel {
            level: "info".into()
        }
    );

    #[allow(deprecated)]
    let level = rmcp::model::LoggingLevel::Error;
    app.update(Msg::Event(ServerEvent {
        server: "demo".into(),
        event: ConnectionEvent::Log {
            level,
            logger: Some("db\u{1b}[31m".into()),
            data: json!("down"),
        },
    }));
    let line = app
        .pane()
        .expect("pane")
        .log
        .lines
        .back()
        .expect("line")
        .clone();
    assert_eq!(line.kind, "error");
    let logger = line.logger.expect("logger");
    assert!(!logger.contains('\u{1b}'), "sanitised: {logger:?}");
    assert_eq!(line.text, format!("{logger}: down"));
}

fn with_resources() -> (App, tempfile::TempDir) {
    let (mut app, dir) = demo_app();
    to_tab(&mut app, Tab::Resources);
    app.panes.get_mut("demo").expect("pane").resources.catalog = None;
    let fx = app.update(key(KeyCode::Left));
    let fx = if fx.is_empty() {
        app.update(key(KeyCode::Right))
    } else {
        fx
    };
    let id = fx
        .iter()
        .find_map(|e| match e {
            Effect::Engine {
                id,
                request: EngineRequest::Agent(ProxyRequest::ResourcesList { .. }),
            } => Some(*id),
            _ => None,
        })
        .unwrap_or_else(|| panic!("{fx:?}"));
    let reference = "mcp-resource-0123456789abcdef0123456789abcdef";
    app.update(ok(
        id,
        "resources.list",
        json!({"resources": [{"reference": reference, "name": "notes", "description": ""}],
               "templates": []}),
    ));
    assert_eq!(app.tab, Tab::Resources);
    (app, dir)
}

/// The demo server saying the resource at `uri` changed.
fn resource_updated(uri: &str) -> Msg {
    Msg::Event(ServerEvent {
        server: "demo".into(),
        event: ConnectionEvent::ResourceUpdated { uri: uri.into() },
    })
}

#[test]
fn subscribing_marks_the_resource_and_an_update_reads_the_open_one_again() {
    let (mut app, _d) = with_resources();
    let reference = "mcp-resource-0123456789abcdef0123456789abcdef";
    let (id, op) = operate(&app.update(ch('S')));
    assert_eq!(
        op,
        OperatorOp::Subscribe {
            uri: reference.into()
        }
    );
    let sub = |subscribed| {
        OpResult::Subscription(crate::mcp::api::Subscription {
            uri: "file:///notes.txt".into(),
            subscribed,
            updates: 0,
        })
    };
    app.update(done(id, "resources.subscribe", sub(true)));
    assert_eq!(app.subscription_mark(reference).as_deref(), Some("◉ "));

    // Open the resource, then the server says it changed: it is read again.
    let fx = app.update(key(KeyCode::Enter));
    let read = fx
        .iter()
        .find_map(|e| match e {
            Effect::Engine {
                id,
                request: EngineRequest::Agent(request),
            } => Some((*id, request.clone())),
            _ => None,
        })
        .expect("read");
    app.update(ok(
        read.0,
        "resources.read",
        json!({"reference": reference, "text": "v1"}),
    ));
    assert!(matches!(app.screen, Screen::Result(_)), "{:?}", app.screen);
    let fx = app.update(resource_updated("file:///notes.txt"));
    assert!(
        fx.iter()
            .any(|e| matches!(e, Effect::Engine { request: EngineRequest::Agent(request), .. } if *request == read.1)),
        "{fx:?}"
    );
    assert!(matches!(app.screen, Screen::Running(_)));
    let Screen::Running(run) = &app.screen else {
        unreachable!()
    };
    app.update(ok(
        run.id,
        "resources.read",
        json!({"reference": reference, "text": "v2"}),
    ));
    assert_eq!(
        app.message.as_deref(),
        Some("file:///notes.txt was updated: read again")
    );
    assert_eq!(
        app.subscription_mark(reference).as_deref(),
        Some("◉ 1 updated ")
    );
    // An update of a resource nobody subscribed to changes nothing.
    let fx = app.update(resource_updated("file:///other"));
    assert!(!fx.iter().any(|e| matches!(
        e,
        Effect::Engine {
            request: EngineRequest::Agent(_),
            ..
        }
    )));

    // Back in the list, `S` again unsubscribes by URI.
    app.screen = Screen::Browse;
    let (id, op) = operate(&app.update(ch('S')));
    assert_eq!(
        op,
        OperatorOp::Unsubscribe {
            uri: "file:///notes.txt".into()
        }
    );
    app.update(done(id, "resources.unsubscribe", sub(false)));
    assert_eq!(app.subscription_mark(reference), None);
}

#[test]
fn the_roots_view_lists_adds_and_removes() {
    let (mut app, _d) = demo_app();
    let (id, op) = session(&app.update(ch('R')));
    assert_eq!(op, OperatorOp::Roots);
    let root = |uri: &str| RootItem {
        uri: uri.into(),
        name: "n\u{202e}".into(),
    };
    app.update(done(
        id,
        "roots.list",
        OpResult::Roots(RootList {
            roots: vec![root("file:///p"), root("file:///q")],
            notified: false,
        }),
    ));
    let view = app.session.roots.as_ref().expect("view");
    let Load::Ready(roots) = &view.roots else {
        panic!("{view:?}")
    };
    assert!(!roots[0].name.contains('\u{202e}'), "sanitised");

    // `a` types a directory (keys and the first line of a paste), Enter adds it.
    app.update(ch('a'));
    for c in "data/".chars() {
        app.update(ch(c));
    }
    app.update(Msg::Paste("x\u{1b}\nrm -rf".into()));
    let (id, op) = session(&app.update(key(KeyCode::Enter)));
    assert_eq!(
        op,
        OperatorOp::AddRoot {
            path: "data/x".into()
        }
    );
    app.update(done(
        id,
        "roots.set",
        OpResult::Roots(RootList {
            roots: vec![
                root("file:///p"),
                root("file:///q"),
                root("file:///p/data/x"),
            ],
            notified: true,
        }),
    ));
    assert!(
        app.message
            .as_deref()
            .is_some_and(|m| m.contains("roots/list_changed"))
    );

    app.update(key(KeyCode::Down));
    assert_eq!(app.update(ch('y')), vec![Effect::Copy("file:///q".into())]);
    let (_, op) = session(&app.update(ch('x')));
    assert_eq!(
        op,
        OperatorOp::RemoveRoot {
            uri: "file:///q".into()
        }
    );
    app.update(key(KeyCode::Esc));
    assert!(app.session.roots.is_none());
}
