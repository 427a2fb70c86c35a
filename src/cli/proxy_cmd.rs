//! `mcpdeck proxy '<request>'`: any request the agents' `mcp` tool takes, from the command line.

use super::Context;
use super::exit::Exit;
use super::run_op::run_request;
use super::status_cmd;
use crate::mcp::proxy::{ProxyRequest, parse_request};

/// Runs one proxy request; `{}` is answered without starting the engine (it never connects).
pub fn run(cx: Context, request: &str, json: bool) -> Exit {
    let parsed: serde_json::Value = match serde_json::from_str(request) {
        Ok(v) => v,
        Err(e) => return fail(json, &format!("the request is not JSON: {e}")),
    };
    match parse_request(&parsed) {
        Ok(ProxyRequest::Status) => status_cmd::run(cx, json),
        Ok(request) => run_request(cx, request, json),
        Err(e) => fail(json, &e.to_string()),
    }
}

fn fail(json: bool, message: &str) -> Exit {
    super::output::fail(
        json,
        "invalid",
        crate::mcp::connection::ErrorClass::InvalidRequest,
        message,
    )
}
