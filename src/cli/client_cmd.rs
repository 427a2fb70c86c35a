//! The operator's client commands that agents never get: `templates` (resource templates with
//! their URI templates), `complete` (argument completion),
//! `read --template` (a resource template with values), `watch` (a resource subscription
//! printed until a count or Ctrl-C), `tasks` (a server's tasks: list, get, cancel, result),
//! and `skills` / `skill` (a server's skills, and one skill's files read and verified).

use std::collections::BTreeMap;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use super::exit::Exit;
use super::output::{print_error, print_json};
use super::run_op::{Printing, print_outcome, run_plan_observed, run_plan_with};
use super::{CompleteArgs, Context, TasksArgs};
use crate::mcp::api::{OpResult, Subscription};
use crate::mcp::catalog::uri_template::VarValue;
use crate::mcp::connection::{ConnectionEvent, ServerEvent};
use crate::mcp::engine::{CompletionTarget, Engine, OperatorOp, Outcome, Success};

fn usage(json: bool, operation: &str, message: &str) -> Exit {
    super::output::fail(
        json,
        operation,
        crate::mcp::connection::ErrorClass::InvalidRequest,
        message,
    )
}

/// Runs one operator operation and prints its outcome.
fn run_op(cx: Context, server: String, op: OperatorOp, printing: Printing) -> Exit {
    run_plan_with(
        cx,
        Box::new(move |engine, cancel| {
            let (server, op) = (server.clone(), op.clone());
            Box::pin(async move {
                engine
                    .run(
                        &crate::mcp::engine::EngineRequest::operator(&server, op.clone()),
                        cancel,
                    )
                    .await
            })
        }),
        printing,
    )
}

/// `mcpdeck templates SERVER`.
pub fn templates(cx: Context, server: String, json: bool) -> Exit {
    run_op(cx, server, OperatorOp::Templates, Printing::json(json))
}

/// `mcpdeck scan SERVER`: exit 0 when clean, 1 when anything was found.
pub fn scan(cx: Context, server: String, json: bool) -> Exit {
    run_op(cx, server, OperatorOp::Scan, Printing::json(json))
}

/// `mcpdeck skills SERVER`.
pub fn skills(cx: Context, server: String, json: bool) -> Exit {
    run_op(cx, server, OperatorOp::Skills, Printing::json(json))
}

/// `mcpdeck skill SERVER NAME [--file PATH ...]`.
pub fn skill(cx: Context, server: String, name: String, files: Vec<String>, json: bool) -> Exit {
    run_op(
        cx,
        server,
        OperatorOp::Skill { name, files },
        Printing::json(json),
    )
}

/// `key=value` pairs as strings.
fn string_pairs(raw: &[String]) -> Result<BTreeMap<String, String>, String> {
    let mut out = BTreeMap::new();
    for arg in raw {
        let Some((key, value)) = arg.split_once('=').filter(|(k, _)| !k.is_empty()) else {
            return Err(format!("`{arg}` is not key=value"));
        };
        if out.insert(key.to_owned(), value.to_owned()).is_some() {
            return Err(format!("`{key}` is given twice"));
        }
    }
    Ok(out)
}

/// `mcpdeck complete SERVER (--prompt NAME | --template T) ARG=PARTIAL [KEY=VALUE ...]`.
pub fn complete(cx: Context, args: CompleteArgs) -> Exit {
    let operation = "completion.complete";
    let Some((argument, value)) = args.argument.split_once('=') else {
        return usage(
            args.json,
            operation,
            &format!(
                "`{}` is not ARG=PARTIAL (the argument to complete and what is typed so far)",
                args.argument
            ),
        );
    };
    let context = match string_pairs(&args.context) {
        Ok(context) => context,
        Err(message) => return usage(args.json, operation, &message),
    };
    let (argument, value) = (argument.to_owned(), value.to_owned());
    let (server, json) = (args.server, args.json);
    match (args.prompt, args.template) {
        (Some(prompt), None) => run_op(
            cx,
            server,
            OperatorOp::Complete {
                target: CompletionTarget::Prompt(prompt),
                argument,
                value,
                context,
            },
            Printing::json(json),
        ),
        (None, Some(template)) => run_op(
            cx,
            server,
            OperatorOp::Complete {
                target: CompletionTarget::Template(template),
                argument,
                value,
                context,
            },
            Printing::json(json),
        ),
        _ => usage(
            json,
            operation,
            "give one of --prompt NAME or --template NAME|URI_TEMPLATE",
        ),
    }
}

/// Template values: `key=value` (a string) or `key:=JSON` (a string, list or object).
fn template_values(raw: &[String]) -> Result<BTreeMap<String, VarValue>, String> {
    let mut out = BTreeMap::new();
    for arg in raw {
        let (key, value) =
            if let Some((key, json)) = arg.split_once(":=").filter(|(k, _)| !k.contains('=')) {
                let parsed: serde_json::Value =
                    serde_json::from_str(json).map_err(|e| format!("`{key}:=` needs JSON: {e}"))?;
                (key, VarValue::from_json(&parsed)?)
            } else if let Some((key, text)) = arg.split_once('=') {
                (key, VarValue::String(text.to_owned()))
            } else {
                return Err(format!("`{arg}` is not key=value or key:=JSON"));
            };
        if key.is_empty() {
            return Err("a variable name is empty".to_owned());
        }
        if out.insert(key.to_owned(), value).is_some() {
            return Err(format!("`{key}` is given twice"));
        }
    }
    Ok(out)
}

/// `mcpdeck read SERVER --template NAME|URI_TEMPLATE key=value ...`.
pub fn read_template(
    cx: Context,
    server: String,
    template: String,
    raw: &[String],
    mut printing: Printing,
) -> Exit {
    let values = match template_values(raw) {
        Ok(values) => values,
        Err(message) => return usage(printing.json, "resources.read", &message),
    };
    printing.resource = Some(template.clone());
    run_op(
        cx,
        server,
        OperatorOp::ReadTemplate { template, values },
        printing,
    )
}

/// `mcpdeck tasks SERVER [--get ID | --cancel ID | --result ID]`.
pub fn tasks(cx: Context, args: TasksArgs) -> Exit {
    // At most one of the three is given (they form one argument group).
    let op = match (args.get, args.cancel, args.result) {
        (Some(id), _, _) => OperatorOp::TaskGet { id },
        (None, Some(id), _) => OperatorOp::TaskCancel { id },
        (None, None, Some(id)) => OperatorOp::TaskResult { id },
        (None, None, None) => OperatorOp::TasksList,
    };
    run_op(cx, args.server, op, Printing::json(args.json))
}

/// `mcpdeck watch SERVER URI [--count N]`: subscribes, prints the resource each time the
/// server says it changed, and unsubscribes at the end (after `count` updates, or on Ctrl-C).
pub fn watch(cx: Context, server: String, uri: String, count: Option<u64>, json: bool) -> Exit {
    let (tx, rx) = tokio::sync::mpsc::channel(256);
    let rx = Arc::new(tokio::sync::Mutex::new(rx));
    let printing = Printing {
        json,
        until_interrupted: true,
        ..Printing::default()
    };
    run_plan_observed(
        cx,
        Box::new(move |engine, cancel| {
            let (server, uri, rx) = (server.clone(), uri.clone(), rx.clone());
            Box::pin(async move {
                let mut rx = rx.lock().await;
                watch_loop(engine, cancel, &server, &uri, count, json, &mut rx).await
            })
        }),
        printing,
        Some(tx),
    )
}

async fn watch_loop(
    engine: &Engine,
    cancel: &CancellationToken,
    server: &str,
    uri: &str,
    count: Option<u64>,
    json: bool,
    rx: &mut tokio::sync::mpsc::Receiver<ServerEvent>,
) -> Outcome {
    let subscribe = OperatorOp::Subscribe {
        uri: uri.to_owned(),
    };
    let subscribed = engine
        .run(
            &crate::mcp::engine::EngineRequest::operator(server, subscribe.clone()),
            cancel,
        )
        .await;
    if subscribed.body.is_err() {
        return subscribed;
    }
    print_error(&format!(
        "subscribed to {uri} on {server}; printing it on each update{}",
        match count {
            Some(n) => format!(" ({n} updates)"),
            None => " until Ctrl-C".to_owned(),
        }
    ));
    let mut updates = 0u64;
    while count.is_none_or(|n| updates < n) {
        let event = tokio::select! {
            event = rx.recv() => event,
            () = cancel.cancelled() => None,
        };
        let Some(event) = event else { break };
        let ConnectionEvent::ResourceUpdated { uri: updated } = &event.event else {
            continue;
        };
        if *event.server != *server || updated != uri {
            continue;
        }
        updates += 1;
        let read = engine
            .run(
                &crate::mcp::engine::EngineRequest::operator(
                    server,
                    crate::mcp::engine::OperatorOp::ReadUri {
                        uri: String::from(uri),
                    },
                ),
                cancel,
            )
            .await;
        if cancel.is_cancelled() {
            break;
        }
        if json {
            print_json(&serde_json::json!({"update": updates, "read": read.to_json()}));
        } else {
            print_error(&format!("update {updates} of {uri}"));
            print_outcome(&read, false);
        }
    }
    unsubscribe(engine, server, uri, updates).await
}

/// Unsubscribes (bounded, and even after Ctrl-C) and sums up the watch.
async fn unsubscribe(engine: &Engine, server: &str, uri: &str, updates: u64) -> Outcome {
    let unsubscribe = OperatorOp::Unsubscribe {
        uri: uri.to_owned(),
    };
    let fresh = CancellationToken::new();
    let done = tokio::time::timeout(
        std::time::Duration::from_secs(5),
        engine.run(
            &crate::mcp::engine::EngineRequest::operator(server, unsubscribe.clone()),
            &fresh,
        ),
    )
    .await;
    let still = !matches!(done, Ok(Outcome { body: Ok(_), .. }));
    let shown = crate::mcp::sanitize::sanitize_capped(uri, 512);
    Outcome {
        server: Some(server.to_owned()),
        operation: "resources.subscribe".to_owned(),
        body: Ok(Success {
            text: format!(
                "{updates} {} of {shown}; {}\n",
                if updates == 1 { "update" } else { "updates" },
                if still {
                    "unsubscribing did not complete"
                } else {
                    "unsubscribed"
                }
            ),
            result: OpResult::Subscription(Subscription {
                uri: shown,
                subscribed: still,
                updates,
            }),
            spills: Vec::new(),
        }),
    }
}
