//! `mcpdeck proxy '<request>'`: one request of SPEC.md §5.1 from the command line.

use super::Context;
use super::exit::Exit;
use super::output::{error_envelope, print_error, print_json, print_text};
use super::status_cmd;
use crate::mcp::status::{report, var_is_set};

/// Runs one proxy request.
pub fn run(cx: &Context, request: &str, json: bool) -> Exit {
    let parsed: serde_json::Value = match serde_json::from_str(request) {
        Ok(v) => v,
        Err(e) => return fail(json, &format!("the request is not JSON: {e}")),
    };
    let Some(object) = parsed.as_object() else {
        return fail(json, "the request must be a JSON object, e.g. '{}'");
    };
    let is_status = object.is_empty()
        || (object.len() == 1
            && object.get("operation").and_then(|o| o.as_str()) == Some("status"));
    if !is_status {
        return fail(
            json,
            "this build answers only the status request ('{}' or '{\"operation\":\"status\"}')",
        );
    }
    let status = report(&cx.config, &cx.trust, &var_is_set);
    if json {
        print_json(&status_cmd::envelope(&status));
    } else {
        print_text(&status_cmd::render(&status));
    }
    Exit::Ok
}

fn fail(json: bool, message: &str) -> Exit {
    if json {
        print_json(&error_envelope("invalid", "invalid_request", message));
    } else {
        print_error(message);
    }
    Exit::Usage
}
