//! `mcpdeck tools|describe|call|resources|read|prompts|prompt`: each is one proxy request
//! run through the engine, exactly as an agent's would be.

use super::args::{meta_entries, prompt_arguments};
use super::exit::Exit;
use super::run_op::{Printing, run_plan_with, run_request, run_request_with};
use super::{CallArgs, Context, PromptArgs, ReadArgs};
use crate::mcp::arguments::{MISMATCH, call_arguments, needs_schema};
use crate::mcp::engine::{EngineRequest, OperatorOp, Outcome};
use crate::mcp::proxy::ProxyRequest;

fn usage(json: bool, operation: &str, message: &str) -> Exit {
    super::output::fail(
        json,
        operation,
        crate::mcp::connection::ErrorClass::InvalidRequest,
        message,
    )
}

/// `mcpdeck tools SERVER [--search Q]`.
pub fn tools(cx: Context, server: String, search: Option<String>, json: bool) -> Exit {
    let request = match search {
        Some(query) => ProxyRequest::ToolsSearch { server, query },
        None => ProxyRequest::ToolsList { server },
    };
    run_request(cx, request, json)
}

/// `mcpdeck tools SERVER --cost`.
pub fn tool_costs(cx: Context, server: String, json: bool) -> Exit {
    super::run_op::run_plan(
        cx,
        Box::new(move |engine, cancel| {
            let server = server.clone();
            Box::pin(async move {
                engine
                    .run(
                        &crate::mcp::engine::EngineRequest::operator(
                            &server,
                            crate::mcp::OperatorOp::ToolCosts,
                        ),
                        cancel,
                    )
                    .await
            })
        }),
        json,
    )
}

/// `mcpdeck describe SERVER TOOL`.
pub fn describe(cx: Context, server: String, tool: String, json: bool) -> Exit {
    run_request(cx, ProxyRequest::ToolsDescribe { server, tool }, json)
}

/// `mcpdeck call SERVER TOOL [JSON | key=value ...]`: the tool's input schema is read first on
/// the same connection; `key=value` values are typed by it, and (unless `validate` is off) the
/// arguments are checked against it before the call is sent.
pub fn call(cx: Context, args: CallArgs) -> Exit {
    let CallArgs {
        server,
        tool,
        args: raw,
        task,
        no_validate,
        meta,
        json,
        keep,
    } = args;
    let (validate, printing) = (!no_validate, Printing::kept(json, keep));
    let options = match meta_entries(&meta).and_then(|meta| {
        crate::mcp::engine::CallOptions::check_meta(&meta)?;
        Ok(crate::mcp::engine::CallOptions {
            as_task: task,
            meta,
        })
    }) {
        Ok(options) => options,
        Err(message) => return usage(json, &format!("tools.call {tool}"), &message),
    };
    if !validate && !task && options.meta.is_empty() && !needs_schema(&raw) {
        return match call_arguments(&raw, None) {
            Ok(args) => {
                run_request_with(cx, ProxyRequest::ToolsCall { server, tool, args }, printing)
            }
            Err(message) => usage(printing.json, &format!("tools.call {tool}"), &message),
        };
    }
    let describe = format!("mcpdeck describe {server} {tool}");
    let call = OperatorOp::Call {
        tool,
        args: crate::mcp::engine::CallArgs::Words {
            words: raw,
            checked: validate,
        },
        options,
    };
    let request = EngineRequest::operator(server, call);
    run_plan_with(
        cx,
        Box::new(move |engine, cancel| {
            let (request, describe) = (request.clone(), describe.clone());
            Box::pin(async move {
                let mut outcome = engine.run(&request, cancel).await;
                // A call refused by the schema says where the schema is and how to send anyway.
                if let Err(failure) = &mut outcome.body
                    && failure.message.starts_with(MISMATCH)
                {
                    failure.message.push_str("\n`");
                    failure.message.push_str(&describe);
                    failure
                        .message
                        .push_str("` shows the schema; --no-validate sends them as given");
                }
                outcome
            })
        }),
        printing,
    )
}

/// `mcpdeck resources SERVER`.
pub fn resources(cx: Context, server: String, json: bool) -> Exit {
    run_request(cx, ProxyRequest::ResourcesList { server }, json)
}

/// `mcpdeck read SERVER (REF | --template TEMPLATE [key=value ...])`.
pub fn read_command(cx: Context, args: ReadArgs) -> Exit {
    let printing = Printing::kept(args.json, args.keep);
    match args.template {
        // With --template, the first positional is a value too.
        Some(template) => {
            let values: Vec<String> = args.reference.into_iter().chain(args.values).collect();
            super::client_cmd::read_template(cx, args.server, template, &values, printing)
        }
        None => read(
            cx,
            args.server,
            args.reference.unwrap_or_default(),
            printing,
        ),
    }
}

/// `mcpdeck read SERVER REF`: `REF` is a reference from `resources`, or — for the operator at
/// the command line — a resource's name or URI, which is looked up in a fresh listing first.
pub fn read(cx: Context, server: String, reference: String, mut printing: Printing) -> Exit {
    if crate::mcp::results::is_resource_reference(&reference) {
        // A reference from an earlier process is from an earlier generation: it will be
        // refused with "list resources again", which is the truth.
        return run_request_with(
            cx,
            ProxyRequest::ResourcesRead { server, reference },
            printing,
        );
    }
    printing.resource = Some(reference.clone());
    if looks_like_uri(&reference) {
        let read = OperatorOp::ReadUri { uri: reference };
        return run_request_with(cx, EngineRequest::operator(server, read), printing);
    }
    run_plan_with(
        cx,
        Box::new(move |engine, cancel| {
            let (server, reference) = (server.clone(), reference.clone());
            Box::pin(async move {
                let list = ProxyRequest::ResourcesList {
                    server: server.clone(),
                };
                let listed = engine.run(&list.into(), cancel).await;
                let found = match &listed.body {
                    Ok(crate::mcp::engine::Success {
                        result: crate::mcp::api::OpResult::Resources(list),
                        ..
                    }) => list
                        .resources
                        .iter()
                        .find(|r| r.name == reference)
                        .map(|r| r.reference.clone()),
                    Ok(_) => None,
                    Err(_) => return listed,
                };
                let Some(found) = found else {
                    return Outcome {
                        server: Some(server),
                        operation: "resources.read".to_owned(),
                        body: Err(crate::mcp::engine::Failure::invalid(format!(
                            "no resource named `{}`; `mcpdeck resources SERVER` lists names and references",
                            crate::mcp::sanitize::sanitize_capped(&reference, 200)
                        ))),
                    };
                };
                let read = ProxyRequest::ResourcesRead {
                    server,
                    reference: found,
                };
                engine.run(&read.into(), cancel).await
            })
        }),
        printing,
    )
}

/// `mcpdeck ping SERVER`.
pub fn ping(cx: Context, server: String, json: bool) -> Exit {
    run_request(cx, EngineRequest::operator(server, OperatorOp::Ping), json)
}

/// `scheme:…` with a plausible scheme (letters first, then letters, digits, `+-.`).
fn looks_like_uri(text: &str) -> bool {
    text.split_once(':').is_some_and(|(scheme, rest)| {
        !rest.is_empty()
            && scheme.len() > 1
            && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
            && scheme
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    })
}

/// `mcpdeck prompts SERVER`.
pub fn prompts(cx: Context, server: String, json: bool) -> Exit {
    run_request(cx, ProxyRequest::PromptsList { server }, json)
}

/// `mcpdeck prompt SERVER NAME [key=value ...]`.
pub fn prompt(cx: Context, args: PromptArgs) -> Exit {
    let PromptArgs {
        server,
        name: prompt,
        args: raw,
        json,
        keep,
    } = args;
    let printing = Printing::kept(json, keep);
    match prompt_arguments(&raw) {
        Ok(arguments) => run_request_with(
            cx,
            ProxyRequest::PromptsGet {
                server,
                prompt,
                arguments,
            },
            printing,
        ),
        Err(message) => usage(printing.json, &format!("prompts.get {prompt}"), &message),
    }
}
