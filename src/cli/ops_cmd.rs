//! `mcpdeck tools|describe|call|resources|read|prompts|prompt`: each is one proxy request
//! (SPEC.md §5.1) run through the engine, exactly as an agent's would be.

use super::Context;
use super::args::{call_arguments, needs_schema, prompt_arguments};
use super::exit::Exit;
use super::output::{error_envelope, print_error, print_json};
use super::run_op::{run_plan, run_request};
use crate::mcp::engine::Outcome;
use crate::mcp::proxy::ProxyRequest;

fn usage(json: bool, operation: &str, message: &str) -> Exit {
    if json {
        print_json(&error_envelope(operation, "invalid_request", message));
    } else {
        print_error(message);
    }
    Exit::Usage
}

/// `mcpdeck tools SERVER [--search Q]`.
pub fn tools(cx: Context, server: String, search: Option<String>, json: bool) -> Exit {
    let request = match search {
        Some(query) => ProxyRequest::ToolsSearch { server, query },
        None => ProxyRequest::ToolsList { server },
    };
    run_request(cx, request, json)
}

/// `mcpdeck describe SERVER TOOL`.
pub fn describe(cx: Context, server: String, tool: String, json: bool) -> Exit {
    run_request(cx, ProxyRequest::ToolsDescribe { server, tool }, json)
}

/// `mcpdeck call SERVER TOOL [JSON | key=value ...]`: `key=value` values are typed by the
/// tool's input schema, which is read first on the same connection.
pub fn call(cx: Context, server: String, tool: String, raw: Vec<String>, json: bool) -> Exit {
    if !needs_schema(&raw) {
        return match call_arguments(&raw, None) {
            Ok(args) => run_request(cx, ProxyRequest::ToolsCall { server, tool, args }, json),
            Err(message) => usage(json, &format!("tools.call {tool}"), &message),
        };
    }
    run_plan(
        cx,
        Box::new(move |engine, cancel| {
            let (server, tool, raw) = (server.clone(), tool.clone(), raw.clone());
            Box::pin(async move {
                let build = move |schema: Option<&serde_json::Value>| call_arguments(&raw, schema);
                engine.call_typed(&server, &tool, &build, cancel).await
            })
        }),
        json,
    )
}

/// `mcpdeck resources SERVER`.
pub fn resources(cx: Context, server: String, json: bool) -> Exit {
    run_request(cx, ProxyRequest::ResourcesList { server }, json)
}

/// `mcpdeck read SERVER REF`: `REF` is a reference from `resources`, or — for the operator at
/// the command line — a resource's name or URI, which is looked up in a fresh listing first.
pub fn read(cx: Context, server: String, reference: String, json: bool) -> Exit {
    if crate::mcp::results::is_resource_reference(&reference) {
        // A reference from an earlier process is from an earlier generation: it will be
        // refused with "list resources again", which is the truth.
        return run_request(cx, ProxyRequest::ResourcesRead { server, reference }, json);
    }
    run_plan(
        cx,
        Box::new(move |engine, cancel| {
            let (server, reference) = (server.clone(), reference.clone());
            Box::pin(async move {
                let listed = engine
                    .execute(
                        &ProxyRequest::ResourcesList {
                            server: server.clone(),
                        },
                        cancel,
                    )
                    .await;
                let found = match &listed.body {
                    Ok(success) => success.result["resources"]
                        .as_array()
                        .and_then(|list| list.iter().find(|r| r["name"] == reference.as_str()))
                        .and_then(|r| r["reference"].as_str())
                        .map(str::to_owned),
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
                engine
                    .execute(
                        &ProxyRequest::ResourcesRead {
                            server,
                            reference: found,
                        },
                        cancel,
                    )
                    .await
            })
        }),
        json,
    )
}

/// `mcpdeck prompts SERVER`.
pub fn prompts(cx: Context, server: String, json: bool) -> Exit {
    run_request(cx, ProxyRequest::PromptsList { server }, json)
}

/// `mcpdeck prompt SERVER NAME [key=value ...]`.
pub fn prompt(cx: Context, server: String, prompt: String, raw: &[String], json: bool) -> Exit {
    match prompt_arguments(raw) {
        Ok(arguments) => run_request(
            cx,
            ProxyRequest::PromptsGet {
                server,
                prompt,
                arguments,
            },
            json,
        ),
        Err(message) => usage(json, &format!("prompts.get {prompt}"), &message),
    }
}
