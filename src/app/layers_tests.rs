//! Pure tests of the layer stack's routing: what a paste and the mouse reach.

use crossterm::event::{KeyModifiers, MouseEvent, MouseEventKind};

use super::*;
use crate::app::form::{Form, Target};
use crate::app::testkit::{demo_app, workspace_app};
use crate::app::{Load, Msg};

fn text_form() -> Form {
    Form::new(
        "demo",
        Target::Tool("echo".into()),
        serde_json::json!({"type": "object", "properties": {"text": {"type": "string"}}}),
    )
}

#[test]
fn a_paste_over_the_tasks_view_does_not_type_into_the_form_under_it() {
    let (mut app, _d) = demo_app();
    app.screen = Screen::Form(text_form());
    app.tasks_view = Some(crate::app::tasks_view::TasksView {
        server: "demo".into(),
        tasks: Load::Ready(Vec::new()),
        sel: 0,
        known: false,
    });
    assert_eq!(app.front(), Layer::Tasks);
    app.update(Msg::Paste("typed".into()));
    let Screen::Form(form) = &app.screen else {
        panic!("the form stays");
    };
    assert_eq!(
        form.fields[0].value, "",
        "the paste stayed out of the hidden form"
    );
    app.tasks_view = None;
    app.update(Msg::Paste("typed".into()));
    let Screen::Form(form) = &app.screen else {
        panic!("the form stays");
    };
    assert_eq!(
        form.fields[0].value, "typed",
        "with nothing over it the form takes it"
    );
}

#[test]
fn a_paste_with_the_side_panel_in_front_types_into_its_form_not_the_main_pane() {
    let (mut app, _d) = workspace_app();
    app.screen = Screen::Form(text_form());
    app.side_panel = true;
    app.focus = Focus::Side;
    app.side.forms[app.side.tool] = Some(Load::Ready(text_form()));
    assert_eq!(app.front(), Layer::Side);
    app.update(Msg::Paste("here".into()));
    let Screen::Form(main) = &app.screen else {
        panic!("the form stays");
    };
    assert_eq!(main.fields[0].value, "");
    let side = app.side.form().expect("the side form");
    assert_eq!(side.fields[0].value, "here");
}

#[test]
fn a_scroll_under_a_servers_ask_does_not_move_the_list() {
    let (mut app, _d) = workspace_app();
    app.update(Msg::Sample {
        ticket: 1,
        ask: crate::mcp::client::SamplingAsk {
            server: "demo".into(),
            system_prompt: None,
            messages: Vec::new(),
            max_tokens: 10,
            model_preferences: None,
            tools: Vec::new(),
        },
    });
    assert_eq!(app.front(), Layer::Ask);
    let scroll = || {
        Msg::Mouse(MouseEvent {
            kind: MouseEventKind::ScrollDown,
            column: 1,
            row: 2,
            modifiers: KeyModifiers::NONE,
        })
    };
    app.update(scroll());
    assert_eq!(app.servers.selected, 0, "the ask holds the mouse");
    app.asks.clear();
    app.update(scroll());
    assert_eq!(
        app.servers.selected, 1,
        "with nothing open the scroll moves the list"
    );
}
