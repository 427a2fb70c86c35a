//! The console answers a server's own requests: headless (`Runtime::step`, the real executor
//! and engine) against server-everything over stdio — an elicitation form filled and accepted,
//! one declined, a URL elicitation accepted, and a sampling request answered by the operator.
//! Skipped, saying so, without node or `scripts/install-interop`. Waits are for messages,
//! never sleeps.

use crate::common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::console_kit::{self, Console, everything_or_skip, everything_stdio};
use crossterm::event::{KeyCode, KeyModifiers};
use mcpdeck::app::elicitation::{ElicitMode, FieldValue};
use mcpdeck::app::server_asks::ServerAsk;
use mcpdeck::app::{App, Load, Msg, Screen};

/// The result shown once the call ends: (error, lines).
async fn outcome(h: &mut Console, what: &str) -> (Option<(String, String)>, String) {
    let view = h.result(what).await;
    (view.error.clone(), view.lines.join("\n"))
}

/// Runs `scenario` on a console over `servers`, every key sent as if the guard after a
/// server's request appeared had passed.
fn with_servers<F>(servers: &serde_json::Value, scenario: F)
where
    F: AsyncFnOnce(&mut Console),
{
    console_kit::with_servers(servers, async |h: &mut Console| {
        h.key_delay = Duration::from_secs(1);
        scenario(h).await;
    });
}

/// Runs `scenario` over server-everything (stdio); skipped, saying so, without node.
fn with_everything<F>(scenario: F)
where
    F: AsyncFnOnce(&mut Console),
{
    let Some(script) = everything_or_skip() else {
        return;
    };
    with_servers(
        &serde_json::json!({ "everything": everything_stdio(&script) }),
        scenario,
    );
}

#[test]
fn the_console_answers_elicitation_forms_and_urls() {
    with_everything(async |h: &mut Console| {
        // Accept: fields from the schema, defaults pre-filled, the name typed.
        h.open_form("trigger-elicitation-request").await;
        h.key(KeyCode::Enter);
        h.until("the elicitation", |a| {
            matches!(a.asks.front(), Some(ServerAsk::Elicit(_)))
        })
        .await;
        let Some(ServerAsk::Elicit(ask)) = h.app.asks.front() else {
            unreachable!()
        };
        let ElicitMode::Form(form) = &ask.mode else {
            panic!("a form: {ask:?}")
        };
        assert!(form.form.fields.len() >= 10, "{form:?}");
        let first_line = form
            .form
            .fields
            .iter()
            .position(|f| f.key == "firstLine")
            .expect("firstLine");
        assert_eq!(
            form.values[first_line],
            FieldValue::Text("It was a dark and stormy night.".into())
        );
        // Required fields come first.
        assert_eq!(form.form.fields[0].key, "name");
        h.type_text("Ada Lovelace");
        h.key(KeyCode::Enter);
        assert!(h.app.asks.is_empty(), "accepted: {:?}", h.app.message);
        let (error, text) = outcome(h, "the accepted result").await;
        assert!(error.is_none(), "{error:?} {text}");
        assert!(text.contains("Ada Lovelace"), "{text}");
        assert!(text.contains("stormy night"), "{text}");

        // Decline.
        h.back();
        h.open_form("trigger-elicitation-request").await;
        h.key(KeyCode::Enter);
        h.until("the second elicitation", |a| !a.asks.is_empty())
            .await;
        h.key_with(KeyCode::Char('d'), KeyModifiers::CONTROL);
        let (_, text) = outcome(h, "the declined result").await;
        assert!(text.to_lowercase().contains("decline"), "{text}");

        // URL mode: shown, accepted; never opened by itself.
        h.back();
        h.open_form("trigger-url-elicitation").await;
        let Screen::Form(form) = &mut h.app.screen else {
            unreachable!()
        };
        for f in &mut form.fields {
            if f.key == "url" {
                "https://example.com/consent".clone_into(&mut f.value);
            }
        }
        h.key(KeyCode::Enter);
        h.until("the URL elicitation", |a| !a.asks.is_empty()).await;
        let Some(ServerAsk::Elicit(ask)) = h.app.asks.front() else {
            panic!("an elicitation")
        };
        let ElicitMode::Url { url, origin, .. } = &ask.mode else {
            panic!("URL mode: {ask:?}")
        };
        assert_eq!(url, "https://example.com/consent");
        assert_eq!(origin, "https://example.com");
        h.key(KeyCode::Char('a'));
        let (error, text) = outcome(h, "the URL result").await;
        assert!(error.is_none(), "{error:?} {text}");
        assert!(text.contains("completed the URL elicitation"), "{text}");
        // What was asked and answered is in the server's log.
        assert!(h.app.pane().is_some_and(|p| {
            p.log
                .lines
                .iter()
                .any(|l| l.kind == "client" && l.text.contains("answered: accept"))
        }),);
    });
}

#[test]
fn the_operator_writes_the_sampling_reply() {
    with_everything(async |h: &mut Console| {
        h.open_form("trigger-sampling-request").await;
        let Screen::Form(form) = &mut h.app.screen else {
            unreachable!()
        };
        for f in &mut form.fields {
            if f.key == "prompt" {
                "what is MCP?".clone_into(&mut f.value);
            }
        }
        h.key(KeyCode::Enter);
        h.until("the sampling request", |a| {
            matches!(a.asks.front(), Some(ServerAsk::Sample(_)))
        })
        .await;
        let Some(ServerAsk::Sample(ask)) = h.app.asks.front() else {
            unreachable!()
        };
        assert!(
            ask.request_lines()
                .iter()
                .any(|(role, text)| role == "user" && text.contains("what is MCP?")),
            "{:?}",
            ask.request_lines()
        );
        // Enter types a newline: only the send key sends.
        h.type_text("A protocol");
        h.key(KeyCode::Enter);
        h.type_text("for tools.");
        assert_eq!(h.app.asks.len(), 1);
        h.key_with(KeyCode::Char('s'), KeyModifiers::CONTROL);
        assert!(h.app.asks.is_empty());
        let (error, text) = outcome(h, "the sampling result").await;
        assert!(error.is_none(), "{error:?} {text}");
        assert!(text.contains("A protocol"), "{text}");
        assert!(text.contains("mcpdeck-operator"), "{text}");
    });
}

#[test]
fn a_task_runs_with_its_status_shown_and_esc_sends_tasks_cancel() {
    with_everything(async |h: &mut Console| {
        // The call form's switch: the tool runs as a task, its status notes reach the Log tab.
        h.open_form("simulate-research-query").await;
        h.type_text("rust");
        h.key_with(KeyCode::Char('t'), KeyModifiers::CONTROL);
        let Screen::Form(form) = &h.app.screen else {
            panic!("the form")
        };
        assert!(form.as_task);
        h.key(KeyCode::Enter);
        let (error, text) = outcome(h, "the task's result").await;
        assert!(error.is_none(), "{error:?} {text}");
        assert!(text.contains("Research Report"), "{text}");
        let notes = |a: &App| -> Vec<String> {
            a.pane()
                .map(|p| {
                    p.log
                        .lines
                        .iter()
                        .filter(|l| l.kind == "client")
                        .map(|l| l.text.clone())
                        .collect()
                })
                .unwrap_or_default()
        };
        assert!(
            notes(&h.app)
                .iter()
                .any(|n| n.starts_with("task ") && n.contains("working")),
            "{:?}",
            notes(&h.app)
        );

        // The Tasks view lists it (the console keeps one session) and opens its result.
        h.back();
        h.key(KeyCode::Char('T'));
        h.until("the task list", |a| {
            a.tasks_view
                .as_ref()
                .is_some_and(|v| matches!(&v.tasks, Load::Ready(t) if !t.is_empty()))
        })
        .await;
        let Some(view) = &h.app.tasks_view else {
            unreachable!()
        };
        let Load::Ready(tasks) = &view.tasks else {
            unreachable!()
        };
        assert_eq!(tasks[0].status, "completed", "{tasks:?}");
        h.key(KeyCode::Enter);
        let (error, text) = outcome(h, "the task's result from the list").await;
        assert!(error.is_none(), "{error:?} {text}");
        assert!(text.contains("Research Report"), "{text}");

        // Esc while it works: tasks/cancel goes to the server.
        h.back();
        h.open_form("simulate-research-query").await;
        h.type_text("cancel me");
        h.key(KeyCode::Enter);
        let tasks = |a: &App| notes(a).iter().filter(|n| n.starts_with("task ")).count();
        let seen = tasks(&h.app);
        h.until("the task's first status", |a| tasks(a) > seen)
            .await;
        h.key(KeyCode::Esc);
        let (error, _) = outcome(h, "the cancelled task").await;
        assert_eq!(error.map(|e| e.0).as_deref(), Some("cancelled"));
        assert!(
            notes(&h.app)
                .iter()
                .any(|n| n.contains("tasks/cancel was sent")),
            "{:?}",
            notes(&h.app)
        );
    });
}

/// On the Resources tab, waits for server-everything's templates, selects its text template and
/// opens the form for its variables.
async fn open_text_template_form(h: &mut Console) {
    h.until("the resources", |a| {
        a.resource_entries().iter().any(|r| r.template)
    })
    .await;
    let at = h
        .app
        .resource_entries()
        .iter()
        .position(|r| r.template && r.name.contains("Text"))
        .expect("a text template");
    h.app
        .panes
        .get_mut("everything")
        .expect("pane")
        .resources
        .list
        .sel = at;
    h.key(KeyCode::Enter);
    h.until("the variables form", |a| {
        matches!(a.screen, Screen::Form(_))
    })
    .await;
}

#[test]
fn a_template_is_read_through_its_variables_and_any_uri_by_hand() {
    with_everything(async |h: &mut Console| {
        h.key(KeyCode::Enter);
        h.until("the tool list", |a| a.visible_tools().is_some())
            .await;
        h.key(KeyCode::Char('l'));
        open_text_template_form(h).await;
        let Screen::Form(form) = &h.app.screen else {
            unreachable!()
        };
        assert_eq!(form.fields.len(), 1, "{:?}", form.fields);
        h.type_text("3");
        h.key(KeyCode::Enter);
        let (error, text) = outcome(h, "the template's resource").await;
        assert!(error.is_none(), "{error:?} {text}");
        assert!(text.contains("Resource 3"), "{text}");

        // Any URI, typed.
        h.back();
        h.key(KeyCode::Char('u'));
        h.type_text("demo://resource/dynamic/text/1");
        h.key(KeyCode::Enter);
        let (error, text) = outcome(h, "the read by URI").await;
        assert!(error.is_none(), "{error:?} {text}");
        assert!(text.contains("Resource 1"), "{text}");
    });
}

/// The values of the open suggestion list, once it holds an answer.
fn suggestions(app: &App) -> Option<Vec<String>> {
    match &app.completer.open.as_ref()?.load {
        Load::Ready(s) => Some(s.values.clone()),
        _ => None,
    }
}

#[test]
fn tab_completes_prompt_arguments_with_context_and_template_variables() {
    with_everything(async |h: &mut Console| {
        h.key(KeyCode::Enter);
        h.until("the tool list", |a| a.visible_tools().is_some())
            .await;
        h.key(KeyCode::Char('l'));
        h.key(KeyCode::Char('l'));
        h.until("the prompts", |a| {
            a.prompt_entries()
                .iter()
                .any(|p| p.name == "completable-prompt")
        })
        .await;
        let at = h
            .app
            .prompt_entries()
            .iter()
            .position(|p| p.name == "completable-prompt")
            .expect("listed");
        h.app
            .panes
            .get_mut("everything")
            .expect("pane")
            .prompts
            .list
            .sel = at;
        h.key(KeyCode::Enter);
        h.until("the prompt form", |a| matches!(a.screen, Screen::Form(_)))
            .await;
        let Screen::Form(form) = &h.app.screen else {
            unreachable!()
        };
        assert_eq!(
            form.fields[form.focus].key, "department",
            "{:?}",
            form.fields
        );

        // Tab asks for everything; typing narrows once the pause has passed.
        h.key(KeyCode::Tab);
        h.until("the departments", |a| {
            suggestions(a).is_some_and(|v| v.len() == 4)
        })
        .await;
        h.type_text("S");
        // Keys are stepped a second ahead (past the guard); the pause ends after that.
        let later = Instant::now() + Duration::from_secs(2);
        h.send_at(Msg::Tick, later);
        h.until("the narrowed departments", |a| {
            suggestions(a).is_some_and(|v| v == ["Sales", "Support"])
        })
        .await;
        h.key(KeyCode::Tab);

        // The second argument's suggestions depend on the first, sent as context.
        h.key(KeyCode::Down);
        h.key(KeyCode::Tab);
        h.until("Sales's people", |a| {
            suggestions(a).is_some_and(|v| v == ["David", "Eve", "Frank"])
        })
        .await;
        h.key(KeyCode::Down);
        h.key(KeyCode::Enter);
        let Screen::Form(form) = &h.app.screen else {
            panic!("taking a suggestion keeps the form: {:?}", h.app.screen)
        };
        let values: Vec<&str> = form.fields.iter().map(|f| f.value.as_str()).collect();
        assert_eq!(values, ["Sales", "Eve"]);
        h.key(KeyCode::Enter);
        let (error, text) = outcome(h, "the prompt").await;
        assert!(error.is_none(), "{error:?} {text}");
        assert!(
            text.contains("promote Eve to the head of the Sales team"),
            "{text}"
        );

        // A resource template's variable completes too.
        h.back();
        h.key(KeyCode::Char('h'));
        open_text_template_form(h).await;
        h.type_text("7");
        h.key(KeyCode::Tab);
        h.until("the template's suggestion", |a| {
            suggestions(a).is_some_and(|v| v == ["7"])
        })
        .await;
    });
}

#[test]
fn a_url_request_closes_when_the_server_says_it_is_complete() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let Some(python) = crate::common::peers::python_sdk() else {
        return;
    };
    let servers = serde_json::json!({"probe": {
        "command": python, "args": [root.join("tests/python/client_probe_server.py")]
    }});
    with_servers(&servers, async |h: &mut Console| {
        h.key(KeyCode::Enter);
        h.until("the probe's tools", |a| {
            a.visible_tools()
                .is_some_and(|t| t.iter().any(|t| t.name == "visit_url"))
        })
        .await;
        let at = h
            .app
            .visible_tools()
            .and_then(|t| t.iter().position(|t| t.name == "visit_url"))
            .expect("listed");
        h.app.panes.get_mut("probe").expect("pane").tools.list.sel = at;
        h.key(KeyCode::Char('c'));
        h.until("the form", |a| matches!(a.screen, Screen::Form(_)))
            .await;
        h.key(KeyCode::Enter);
        // No key answers the request: the server's completion closes it.
        let (error, text) = outcome(h, "the visit's answer").await;
        assert!(error.is_none(), "{error:?} {text}");
        assert!(text.contains(r#"{"action": "accept"}"#), "{text}");
        assert!(h.app.asks.is_empty());
        let log = &h.app.panes["probe"].log.lines;
        assert!(
            log.iter().any(|l| l.text.contains("el-2 is complete")),
            "{:?}",
            log.iter().map(|l| &l.text).collect::<Vec<_>>()
        );
    });
}

#[test]
fn enter_reads_a_resource_link_of_a_result_on_the_same_server() {
    with_everything(async |h: &mut Console| {
        h.open_form("get-resource-links").await;
        let Screen::Form(form) = &mut h.app.screen else {
            unreachable!()
        };
        if let Some(count) = form.fields.iter_mut().find(|f| f.key == "count") {
            count.value = "2".to_owned();
        }
        h.key(KeyCode::Enter);
        let (error, text) = outcome(h, "the links").await;
        assert!(error.is_none(), "{error:?} {text}");
        assert!(text.contains("[resource link: Text Resource 2"), "{text}");
        assert!(
            !text.contains("demo://resource/dynamic/text/2"),
            "no raw URI in the text: {text}"
        );
        // Two links: Enter lists them, Down picks the text one, Enter reads it there.
        h.key(KeyCode::Enter);
        h.key(KeyCode::Down);
        h.key(KeyCode::Enter);
        let (error, text) = outcome(h, "the linked resource").await;
        assert!(error.is_none(), "{error:?} {text}");
        assert!(
            text.contains("Resource 2: This is a plaintext resource"),
            "{text}"
        );
    });
}
