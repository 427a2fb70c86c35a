//! How the command line shows an approval request to the person asked (on the controlling
//! terminal, and in `mcpdeck approvals`): what, where, the effects — labelled server-claimed
//! when they come from the tool's annotations — changed definitions, and the arguments.

use std::fmt::Write as _;

use crate::mcp::policy::ApprovalRequest;
use crate::mcp::sanitize::sanitize;

/// The request as lines for a terminal, ending without a newline. `who` names the asker (a
/// serve session), when it is not this process.
pub fn describe(request: &ApprovalRequest, who: Option<&str>) -> String {
    let mut text = String::new();
    if let Some(who) = who {
        let _ = write!(text, "{who}: ");
    }
    let _ = write!(
        text,
        "approve `{}` on `{}`?",
        sanitize(&request.operation),
        sanitize(&request.server)
    );
    let effects: Vec<String> = request.effects.iter().map(ToString::to_string).collect();
    let _ = write!(
        text,
        "\n  effects: {}{}",
        effects.join(", "),
        if request.effects_claimed {
            " (server-claimed, from the tool's annotations)"
        } else {
            " (the proxy cannot prove less)"
        }
    );
    if request.tool_changed {
        text.push_str("\n  the tool's definition changed since it was first listed");
    }
    if request.server_changed {
        text.push_str("\n  the server's definition changed in this session");
    }
    if let Some(arguments) = &request.arguments {
        text.push_str("\n  arguments:");
        for line in sanitize(arguments).lines() {
            let _ = write!(text, "\n    {line}");
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::policy::EffectClass as Effect;

    #[test]
    fn arguments_and_claimed_effects_are_shown() {
        let request = ApprovalRequest {
            ticket: 1,
            server: "scoped".into(),
            operation: "tools.call cancel_booking".into(),
            effects: vec![Effect::Read, Effect::Write],
            server_changed: false,
            tool_changed: true,
            timeout_ms: 120_000,
            arguments: Some("{\n  \"id\": \"b-42\"\n}".into()),
            effects_claimed: true,
        };
        let text = describe(&request, Some("serve 7"));
        assert_eq!(
            text,
            "serve 7: approve `tools.call cancel_booking` on `scoped`?\n  effects: read, write (server-claimed, from the tool's annotations)\n  the tool's definition changed since it was first listed\n  arguments:\n    {\n      \"id\": \"b-42\"\n    }"
        );
    }
}
