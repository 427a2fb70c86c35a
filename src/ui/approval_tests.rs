//! Snapshots of the approval modal with arguments (at 80×24, 120×40 and 40×15), its arguments
//! viewer and the "always" confirmation, and of the policy view and the doctor's selection.

use std::time::Duration;

use crossterm::event::KeyCode;

use super::tests::{draw, snapshot_all, tools_app};
use crate::app::Msg;
use crate::app::testkit::{ch, key};
use crate::mcp::policy::approval::{ApprovalRequest, EffectClass as Fx};

fn request(arguments: &str, claimed: bool) -> ApprovalRequest {
    ApprovalRequest {
        ticket: 1,
        server: "scoped".to_owned(),
        operation: "tools.call cancel_booking".to_owned(),
        effects: if claimed {
            vec![Fx::Read, Fx::Write, Fx::Network]
        } else {
            vec![Fx::Read, Fx::Write, Fx::Execute, Fx::Network]
        },
        server_changed: false,
        tool_changed: false,
        drift: Vec::new(),
        findings: Vec::new(),
        timeout_ms: 120_000,
        arguments: Some(arguments.to_owned()),
        effects_claimed: claimed,
        sandbox: None,
    }
}

#[test]
fn approval_modal_with_arguments() {
    let (mut app, _d) = tools_app();
    app.policy_path = Some("/home/op/.config/mcpdeck/policy.json".into());
    let args =
        "{\n  \"booking\": \"b-42\",\n  \"reason\": \"the customer asked\",\n  \"notify\": true\n}";
    app.update(Msg::Approval(request(args, true)));
    app.now += Duration::from_millis(400);
    snapshot_all("approval_arguments", &mut app);
    let screen = draw(&app, 80, 24);
    assert!(screen.contains("\"b-42\""), "{screen}");
    assert!(screen.contains("server-claimed"), "{screen}");
    assert!(
        !screen.contains("all arguments"),
        "everything fits: the viewer key is not offered: {screen}"
    );
    app.update(ch('a'));
    snapshot_all("approval_always_confirm", &mut app);
}

#[test]
fn the_modal_says_the_server_runs_sandboxed() {
    let (mut app, _d) = tools_app();
    let mut ask = request("{}", true);
    ask.sandbox = Some("read-only-project · read . · write none · exec command · net none".into());
    app.update(Msg::Approval(ask));
    app.now += Duration::from_millis(400);
    let screen = draw(&app, 120, 40);
    assert!(
        screen.contains("sandboxed: read-only-project · read . · write none"),
        "{screen}"
    );
}

#[test]
fn long_arguments_are_cut_in_the_modal_and_whole_in_the_viewer() {
    let (mut app, _d) = tools_app();
    let items: Vec<String> = (1..=120).map(|i| format!("  \"line{i}\": {i}")).collect();
    let args = format!("{{\n{}\n}}", items.join(",\n"));
    app.update(Msg::Approval(request(&args, false)));
    app.now += Duration::from_millis(400);
    snapshot_all("approval_long_arguments", &mut app);
    let screen = draw(&app, 80, 24);
    assert!(screen.contains("of 122 · v shows all"), "{screen}");
    assert!(screen.contains("cannot prove less"), "{screen}");
    assert!(screen.contains("v all arguments"), "{screen}");
    app.update(ch('v'));
    app.update(key(KeyCode::End));
    snapshot_all("approval_arguments_viewer", &mut app);
    let screen = draw(&app, 120, 40);
    assert!(
        screen.contains("\"line120\": 120"),
        "the last line: {screen}"
    );
}

#[test]
fn policy_view_and_doctor_selection() {
    use crate::app::policy_view::PolicyListing;
    let (mut app, _d) = tools_app();
    app.policy_path = Some("/home/op/.config/mcpdeck/policy.json".into());
    app.update(ch('P'));
    app.update(Msg::PolicyRead(Ok(PolicyListing {
        path: "/home/op/.config/mcpdeck/policy.json".into(),
        exists: true,
        mode: "enforce".to_owned(),
        rules: vec![
            (true, "github:tools.call search_*".to_owned()),
            (true, "scoped:tools.call cancel_booking".to_owned()),
            (false, "*:tools.call delete_*".to_owned()),
        ],
    })));
    app.update(key(KeyCode::Down));
    app.update(ch('x'));
    snapshot_all("policy_view_confirm", &mut app);
}

#[test]
fn an_absent_policy_file_is_explained_in_full_at_80_columns() {
    use crate::app::policy_view::PolicyListing;
    let (mut app, _d) = tools_app();
    let path = "/home/operator-with-a-long-name/.config/mcpdeck/policy.json";
    app.policy_path = Some(path.into());
    app.update(ch('P'));
    app.update(Msg::PolicyRead(Ok(PolicyListing {
        path: path.into(),
        exists: false,
        mode: "audit".to_owned(),
        rules: Vec::new(),
    })));
    let screen = draw(&app, 80, 24);
    assert!(screen.contains("no rules)"), "{screen}");
    assert!(screen.contains("without asking."), "{screen}");
}

/// The console's modal asks the question and states the effects in the words of
/// `approval_text`, as the terminal approver, `mcpdeck approvals` and serve's elicitation do.
#[test]
fn the_modal_words_the_question_as_every_face_does() {
    let (mut app, _d) = tools_app();
    let ask = request("{}", false);
    let question = crate::mcp::policy::approval_text::question(&ask);
    let effects = crate::mcp::policy::approval_text::effects(&ask);
    app.update(Msg::Approval(ask));
    app.now += Duration::from_millis(400);
    let screen = draw(&app, 120, 40);
    assert!(screen.contains(&question), "{screen}");
    assert!(screen.contains(&effects), "{screen}");
}
