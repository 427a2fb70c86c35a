//! The layer stack drives routing, hints and drawing alike: every kind of layer open at once,
//! peeled off front to back, and at each step the layer in front is the one drawn on top, the
//! one whose hints the footer shows, the one a key reaches, and the panes take no click.

use std::time::Duration;

use crossterm::event::{KeyCode, MouseButton, MouseEvent, MouseEventKind};

use super::hints;
use crate::app::keymap::Ctx;
use crate::app::layers::{Layer, ORDER};
use crate::app::testkit::{ch, key, workspace_app};
use crate::app::{App, Focus, Msg, Overlay};
use crate::mcp::client::SamplingAsk;
use crate::mcp::policy::approval::{ApprovalRequest, EffectClass};

/// A click on the second server row.
fn click_second_server(app: &App) -> Msg {
    let servers = app.areas().servers;
    Msg::Mouse(MouseEvent {
        kind: MouseEventKind::Down(MouseButton::Left),
        column: servers.x + 2,
        row: servers.y + 2,
        modifiers: crossterm::event::KeyModifiers::NONE,
    })
}

/// Opens one layer of every kind.
fn everything_open() -> (App, tempfile::TempDir) {
    let (mut app, dir) = workspace_app();
    app.size = (120, 40);
    app.side_panel = true;
    app.focus = Focus::Side;
    app.overlay = Some(Overlay::Doctor(crate::app::DoctorView::default()));
    app.session.roots = Some(crate::app::roots_view::RootsView::new("demo"));
    app.tasks_view = Some(crate::app::tasks_view::TasksView {
        server: "demo".into(),
        tasks: crate::app::Load::Ready(Vec::new()),
        sel: 0,
        known: false,
    });
    app.key_help = Some(crate::app::key_help::KeyHelp {
        contexts: vec![Ctx::TasksView, Ctx::View],
        scroll: 0,
    });
    app.update(Msg::Sample {
        ticket: 2,
        ask: SamplingAsk {
            server: "demo".into(),
            system_prompt: None,
            messages: vec![("user".into(), "Say hi.".into())],
            max_tokens: 10,
            model_preferences: None,
            tools: Vec::new(),
        },
    });
    app.update(Msg::Approval(ApprovalRequest {
        ticket: 3,
        server: "demo".to_owned(),
        operation: "tools.call echo".to_owned(),
        effects: vec![EffectClass::Read],
        server_changed: false,
        tool_changed: false,
        drift: Vec::new(),
        findings: Vec::new(),
        timeout_ms: 120_000,
        arguments: None,
        effects_claimed: true,
        sandbox: None,
    }));
    (app, dir)
}

/// What only `layer` draws, to find on the screen.
fn title(layer: Layer) -> &'static str {
    match layer {
        Layer::Approval => "approve `",
        Layer::Ask => "Server asks for a completion",
        Layer::KeyHelp => "Keys · ",
        Layer::Tasks => "Tasks of demo",
        Layer::Roots => "Roots of demo",
        Layer::Overlay => "Config doctor",
        Layer::Side => "run workspace tool",
        Layer::Panes => "Servers",
    }
}

/// The key that closes `layer` (or takes the focus from it).
fn closing_key(layer: Layer) -> Msg {
    match layer {
        Layer::Approval => ch('n'),
        _ => key(KeyCode::Esc),
    }
}

#[test]
fn every_layer_routes_hints_and_draws_in_the_one_order() {
    let (mut app, _d) = everything_open();
    for (i, layer) in ORDER.into_iter().enumerate() {
        app.now += Duration::from_secs(1);
        assert_eq!(
            app.layers(),
            ORDER[i..].to_vec(),
            "the stack under {layer:?}"
        );
        assert_eq!(app.front(), layer);
        let screen = super::super::tests::draw(&app, 120, 40);
        assert!(
            screen.contains(title(layer)),
            "{layer:?} is drawn on top:\n{screen}"
        );
        let footer = screen.lines().nth(39).unwrap_or_default().to_owned();
        let (k, desc) = hints(&app, &app.contexts())
            .into_iter()
            .next()
            .expect("a hint");
        assert!(
            footer.contains(&format!("{k} {desc}")),
            "{layer:?}'s hints: {footer}"
        );
        if layer == Layer::Panes {
            app.update(click_second_server(&app));
            assert_eq!(app.servers.selected, 1, "the panes take the click");
            break;
        }
        if layer != Layer::Side {
            app.update(click_second_server(&app));
            assert_eq!(
                app.servers.selected, 0,
                "no click reaches the panes under {layer:?}"
            );
        }
        app.update(closing_key(layer));
        assert_eq!(
            app.layers(),
            ORDER[i + 1..].to_vec(),
            "the key closed {layer:?} only"
        );
    }
}
