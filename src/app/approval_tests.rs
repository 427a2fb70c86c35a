//! The approval modal's `update`: arguments kept and bounded, the arguments viewer, "always"
//! behind a typed `y`, and the doctor's `e`.

use crossterm::event::KeyCode;

use super::*;
use crate::app::testkit::{ch, demo_app, key};
use crate::app::{Msg, Overlay};
use crate::mcp::policy::approval::EffectClass as Fx;

pub(crate) fn request_with(arguments: Option<String>) -> ApprovalRequest {
    ApprovalRequest {
        ticket: 3,
        server: "demo".to_owned(),
        operation: "tools.call echo".to_owned(),
        effects: vec![Fx::Read],
        server_changed: false,
        tool_changed: false,
        drift: Vec::new(),
        findings: Vec::new(),
        timeout_ms: 120_000,
        arguments,
        effects_claimed: true,
        sandbox: None,
    }
}

fn long_arguments(n: usize) -> String {
    let items: Vec<String> = (0..n)
        .map(|i| format!("  \"key{i}\": \"value {i}\""))
        .collect();
    format!("{{\n{}\n}}", items.join(",\n"))
}

#[test]
fn the_modal_shows_at_most_4_kib_and_the_viewer_scrolls_to_the_end() {
    let (mut app, _d) = demo_app();
    app.update(Msg::Approval(request_with(Some(long_arguments(400)))));
    app.now += GUARD;
    let pending = &app.approvals[0];
    assert_eq!(pending.arguments.len(), 402);
    let shown: usize = pending.shown_arguments().iter().map(|l| l.len() + 1).sum();
    assert!(shown <= SHOWN_ARGUMENTS + 4, "{shown}");
    assert!(pending.shown_arguments().len() < 402);
    let one_long = vec![
        "{".to_owned(),
        format!("\"t\": \"{}\"", "é".repeat(5000)),
        "}".to_owned(),
    ];
    let cut = cut_lines(&one_long, SHOWN_ARGUMENTS);
    assert_eq!(cut.len(), 2, "a long line is cut, not dropped");
    assert!(cut[1].ends_with('…') && cut[1].len() < SHOWN_ARGUMENTS + 4);
    app.update(ch('v'));
    assert!(app.approvals[0].viewer.is_some(), "v opens the viewer");
    assert!(app.update(ch('y')).is_empty(), "no answer from the viewer");
    app.update(key(KeyCode::End));
    let pending = &app.approvals[0];
    let viewer = pending.viewer.as_ref().expect("viewer");
    assert_eq!(
        viewer.visible_lines(&pending.arguments).1,
        401,
        "the last line"
    );
    app.update(key(KeyCode::Esc));
    assert!(
        app.approvals[0].viewer.is_none(),
        "Esc goes back to the modal"
    );
    assert_eq!(app.approvals.len(), 1, "Esc in the viewer does not deny");
}

#[test]
fn arguments_are_sanitised_again_and_bounded_on_entry() {
    let (mut app, _d) = demo_app();
    let hostile = format!("{{\"a\": \"x\u{1b}[2J\u{202e}\"}}{}", "y".repeat(40_000));
    app.update(Msg::Approval(request_with(Some(hostile))));
    let args = app.approvals[0].arguments.join("\n");
    assert!(
        !args.contains('\u{1b}') && !args.contains('\u{202e}'),
        "{args:.80}"
    );
    assert!(args.len() <= crate::mcp::engine::MAX_ARGUMENT_BYTES + 64);
}

#[test]
fn always_needs_a_typed_y_and_names_the_exact_rule() {
    let (mut app, dir) = demo_app();
    let policy = dir.path().join("cfg/mcpdeck/policy.json");
    app.update(Msg::Approval(request_with(None)));
    app.now += GUARD;
    assert!(app.update(ch('a')).is_empty());
    assert!(
        app.message
            .as_deref()
            .is_some_and(|m| m.contains("no policy file")),
        "without a policy file there is nothing to add to"
    );
    app.policy_path = Some(policy.clone());
    app.update(ch('a'));
    assert!(app.approvals[0].confirming_always);
    assert!(app.update(ch('n')).is_empty(), "any other key goes back");
    assert_eq!(app.approvals.len(), 1, "and does not deny");
    app.update(ch('a'));
    assert_eq!(
        app.update(ch('y')),
        vec![Effect::AllowAlways {
            agent: None,
            ticket: 3,
            rule: "demo:tools.call echo".to_owned(),
            policy,
        }]
    );
    assert!(app.approvals.is_empty());
    assert_eq!(app.decided[0].2, Answered::Always);
}

#[test]
fn e_in_the_doctor_edits_the_selected_file() {
    let (mut app, _d) = demo_app();
    app.update(ch('d'));
    assert!(matches!(app.overlay, Some(Overlay::Doctor(_))));
    let files = app.info.doctor_files.clone();
    assert!(files.len() >= 2, "{files:?}");
    app.update(key(KeyCode::Down));
    // It opens on the first file that exists; Down selects the next.
    let Some(Overlay::Doctor(d)) = &app.overlay else {
        panic!("the doctor closed")
    };
    let selected = d.file;
    let fx = app.update(ch('e'));
    assert_eq!(
        fx,
        vec![Effect::OpenEditor {
            path: files[selected].path.clone(),
            layer: files[selected].layer,
        }]
    );
}

#[test]
fn the_policy_view_reads_lists_and_removes_after_a_typed_y() {
    use crate::app::policy_view::PolicyListing;
    let (mut app, dir) = demo_app();
    let policy = dir.path().join("policy.json");
    app.policy_path = Some(policy.clone());
    assert_eq!(
        app.update(ch('P')),
        vec![Effect::ReadPolicy(policy.clone())]
    );
    app.update(Msg::PolicyRead(Ok(PolicyListing {
        path: policy.clone(),
        exists: true,
        mode: "enforce".to_owned(),
        rules: vec![
            (true, "a:tools.list".to_owned()),
            (false, "b:*\u{202e}".to_owned()),
        ],
    })));
    app.update(key(KeyCode::Down));
    app.update(ch('x'));
    assert!(
        app.update(ch('n')).is_empty(),
        "anything but y keeps the rule"
    );
    app.update(ch('x'));
    let fx = app.update(ch('y'));
    let [Effect::RemoveRule { rule, .. }] = &fx[..] else {
        panic!("{fx:?}")
    };
    assert!(
        rule.starts_with("b:*") && !rule.contains('\u{202e}'),
        "sanitised: {rule}"
    );
    assert_eq!(
        app.update(Msg::PolicySaved(Ok("removed".to_owned()))),
        vec![Effect::ReadPolicy(policy)],
        "the view reads the file again"
    );
}

#[test]
fn the_added_rule_stays_on_the_status_line_when_the_calls_result_arrives() {
    use crate::app::Screen;
    use crate::app::form::{Form, Target};
    use crate::app::testkit::ok;
    let (mut app, dir) = demo_app();
    app.policy_path = Some(dir.path().join("cfg/mcpdeck/policy.json"));
    let run = |app: &mut App| {
        app.screen = Screen::Form(Form::new(
            "demo",
            Target::Tool("echo".to_owned()),
            serde_json::json!({"type": "object"}),
        ));
        let fx = app.update(key(KeyCode::Enter));
        let [
            Effect::Engine {
                id,
                request: crate::mcp::EngineRequest::Agent(_),
                ..
            },
        ] = &fx[..]
        else {
            panic!("{fx:?}");
        };
        *id
    };
    let result = serde_json::json!({"isError": false, "text": "hi", "structuredContent": null, "outputSchemaVerdict": null});
    let id = run(&mut app);
    app.update(Msg::Approval(request_with(None)));
    app.now += GUARD;
    app.update(ch('a'));
    assert!(matches!(
        &app.update(ch('y'))[..],
        [Effect::AllowAlways { .. }]
    ));
    app.update(Msg::PolicySaved(Ok(
        "allowed; added `demo:tools.call echo` to policy.json".to_owned(),
    )));
    app.update(ok(id, "tools.call echo", result.clone()));
    assert!(matches!(app.screen, Screen::Result(..)));
    assert!(
        app.message
            .as_deref()
            .is_some_and(|m| m.contains("added `demo:tools.call echo`")),
        "{:?}",
        app.message
    );
    // The next call's result clears it as any stale message.
    let id = run(&mut app);
    app.update(ok(id, "tools.call echo", result));
    assert_eq!(app.message, None);
}

#[test]
fn the_prompt_answers_asks_the_typed_y_of_always_and_passes_what_it_does_not_take() {
    let now = std::time::Instant::now();
    let pending = Pending::new(request_with(Some("{\"a\": 1}".into())), now);
    let env = ((40, 10), true);
    let once = pending.clone().update(KeyMsg::Do(Action::AllowOnce), &env);
    assert_eq!(once.out, Some(ApprovalOut::Answer(Answered::Once)));
    let step = pending
        .clone()
        .update(KeyMsg::Do(Action::AllowAlways), &env);
    let asking = step.next.expect("open");
    assert!(asking.confirming_always && step.out.is_none());
    let no = asking
        .clone()
        .update(KeyMsg::Type(KeyCode::Char('n').into()), &env);
    let said = ApprovalOut::Said("no rule added; the approval still waits");
    assert_eq!(no.out, Some(said));
    assert!(!no.next.expect("open").confirming_always, "one key only");
    let yes = asking.update(KeyMsg::Type(KeyCode::Char('y').into()), &env);
    assert_eq!(yes.out, Some(ApprovalOut::Answer(Answered::Always)));
    let without = pending
        .clone()
        .update(KeyMsg::Do(Action::AllowAlways), &((40, 10), false));
    let said = ApprovalOut::Said("no policy file to add a rule to");
    assert_eq!(without.out, Some(said));
    let viewing = pending
        .clone()
        .update(KeyMsg::Do(Action::ViewArguments), &env);
    let viewing = viewing.next.expect("open");
    assert!(viewing.viewer.is_some());
    let closed = viewing.update(KeyMsg::Do(Action::Back), &env).next;
    assert!(
        closed.expect("open").viewer.is_none(),
        "Back closes the viewer only"
    );
    let typed = pending
        .clone()
        .update(KeyMsg::Type(KeyCode::Char('q').into()), &env);
    assert!(
        !typed.taken && typed.next == Some(pending),
        "not taken, left as it was"
    );
}
