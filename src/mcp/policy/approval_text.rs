//! What an approval request says, in words, for the faces that show it as text (the terminal
//! approver and `mcpdeck approvals`): what, where, the effects — labelled server-claimed when
//! they come from the tool's annotations — changed definitions, and the arguments: the first
//! 4 KiB in whole lines, with the rest one key away ([`all_arguments`]); and, for every face
//! (the console too), what it says once it settled without that face ([`withdrawn`]).

use std::fmt::Write as _;

use super::approval::{ApprovalRequest, Decision, SHOWN_ARGUMENTS, cut_lines};
use crate::mcp::pending::Settled;
use crate::mcp::sanitize::sanitize;

/// The arguments' lines, sanitised.
fn argument_lines(request: &ApprovalRequest) -> Vec<String> {
    request
        .arguments
        .as_deref()
        .map(|a| sanitize(a).lines().map(str::to_owned).collect())
        .unwrap_or_default()
}

/// Whether the question leaves some of the arguments out.
pub(crate) fn arguments_cut(request: &ApprovalRequest) -> bool {
    let lines = argument_lines(request);
    cut_lines(&lines, SHOWN_ARGUMENTS) != lines
}

/// Every line of the arguments, numbered, for the person who asked to see them all.
pub(crate) fn all_arguments(request: &ApprovalRequest) -> String {
    let lines = argument_lines(request);
    let width = lines.len().to_string().len();
    let mut text = String::from("  all arguments:");
    for (i, line) in lines.iter().enumerate() {
        let _ = write!(text, "\n  {:>width$}  {line}", i + 1);
    }
    text
}

/// The question itself, the same words on every face (the console's modal, `mcpdeck approvals`,
/// serve's elicitation, the terminal approver): "approve `tools.call echo` on `fx`?"
/// (sanitised).
pub(crate) fn question(request: &ApprovalRequest) -> String {
    format!(
        "approve `{}` on `{}`?",
        sanitize(&request.operation),
        sanitize(&request.server)
    )
}

/// The operation's effects and where they come from, the same words on every face: "read
/// (server-claimed, from the tool's annotations)", or all four "(the proxy cannot prove less)".
pub(crate) fn effects(request: &ApprovalRequest) -> String {
    let effects: Vec<String> = request.effects.iter().map(ToString::to_string).collect();
    let claim = if request.effects_claimed {
        "server-claimed, from the tool's annotations"
    } else {
        "the proxy cannot prove less"
    };
    format!("{} ({claim})", effects.join(", "))
}

/// The request as lines for a terminal, ending without a newline. `who` names the asker (a
/// serve session), when it is not this process.
pub(crate) fn describe(request: &ApprovalRequest, who: Option<&str>) -> String {
    let mut text = String::new();
    if let Some(who) = who {
        let _ = write!(text, "{who}: ");
    }
    text.push_str(&question(request));
    let _ = write!(text, "\n  effects: {}", effects(request));
    if let Some(sandbox) = &request.sandbox {
        let _ = write!(text, "\n  sandboxed: {sandbox}");
    }
    if request.tool_changed {
        text.push_str("\n  the tool's definition changed since it was first listed");
    }
    for line in &request.drift {
        let _ = write!(text, "\n    {line}");
    }
    if !request.findings.is_empty() {
        text.push_str("\n  the poisoning scan flags the tool's definition:");
        for line in &request.findings {
            let _ = write!(text, "\n    {line}");
        }
    }
    if request.server_changed {
        text.push_str("\n  the server's definition changed in this session");
    }
    let lines = argument_lines(request);
    if !lines.is_empty() {
        text.push_str("\n  arguments:");
        let shown = cut_lines(&lines, SHOWN_ARGUMENTS);
        for line in &shown {
            let _ = write!(text, "\n    {line}");
        }
        if shown != lines {
            let whole = shown.iter().zip(&lines).filter(|(s, l)| s == l).count();
            let _ = write!(
                text,
                "\n    … {} more line(s) ([v] shows them all)",
                lines.len() - whole
            );
        }
    }
    text
}

/// What a face still showing `request` says once it settled without that face: "`tools.call
/// echo` on `fx` was answered elsewhere: denied" (sanitised).
pub(crate) fn withdrawn(request: &ApprovalRequest, settled: &Settled<Decision>) -> String {
    format!(
        "`{}` on `{}` was {}",
        sanitize(&request.operation),
        sanitize(&request.server),
        settled.withdrawn(|d| d.words().to_owned())
    )
}

/// A read-only `tools.call t` on `s` with these arguments, for the approvers' tests.
#[cfg(test)]
pub(crate) fn request_with_arguments(arguments: String) -> ApprovalRequest {
    ApprovalRequest {
        ticket: 1,
        server: "s".into(),
        operation: "tools.call t".into(),
        effects: vec![crate::mcp::policy::EffectClass::Read],
        server_changed: false,
        tool_changed: false,
        drift: Vec::new(),
        findings: Vec::new(),
        timeout_ms: 120_000,
        arguments: Some(arguments),
        effects_claimed: false,
        sandbox: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::policy::EffectClass as Effect;

    #[test]
    fn a_withdrawn_request_says_how_it_settled() {
        let request: ApprovalRequest = serde_json::from_value(serde_json::json!({
            "ticket": 1, "server": "fx\u{1b}[2J", "operation": "tools.call echo",
            "effects": [], "toolChanged": false, "serverChanged": false, "timeoutMs": 1
        }))
        .expect("request");
        let said = |s| withdrawn(&request, &s);
        assert_eq!(
            said(Settled::Answered(Decision::AllowSession)),
            "`tools.call echo` on `fx␛[2J` was answered elsewhere: allowed for this session"
        );
        assert_eq!(
            said(Settled::TimedOut),
            "`tools.call echo` on `fx␛[2J` was not answered in time, so refused"
        );
        assert_eq!(
            said(Settled::Cancelled),
            "`tools.call echo` on `fx␛[2J` was withdrawn: the operation was cancelled"
        );
    }

    #[test]
    fn arguments_claimed_effects_the_drift_and_the_scan_are_shown() {
        let request = ApprovalRequest {
            ticket: 1,
            server: "scoped".into(),
            operation: "tools.call cancel_booking".into(),
            effects: vec![Effect::Read, Effect::Write],
            server_changed: false,
            tool_changed: true,
            drift: vec![
                "changed since its pins: text".into(),
                "- /description: Cancels a booking.".into(),
                "+ /description: Cancels every booking.".into(),
            ],
            findings: vec!["[conceal-from-user] /description:1:23 …do not tell the user…".into()],
            timeout_ms: 120_000,
            arguments: Some("{\n  \"id\": \"b-42\"\n}".into()),
            effects_claimed: true,
            sandbox: None,
        };
        let text = describe(&request, Some("serve 7"));
        assert_eq!(
            text,
            "serve 7: approve `tools.call cancel_booking` on `scoped`?\n  effects: read, write (server-claimed, from the tool's annotations)\n  the tool's definition changed since it was first listed\n    changed since its pins: text\n    - /description: Cancels a booking.\n    + /description: Cancels every booking.\n  the poisoning scan flags the tool's definition:\n    [conceal-from-user] /description:1:23 …do not tell the user…\n  arguments:\n    {\n      \"id\": \"b-42\"\n    }"
        );
        assert!(!arguments_cut(&request));
    }

    #[test]
    fn long_arguments_show_4_kib_and_the_rest_on_request() {
        let items: Vec<String> = (1..=400)
            .map(|i| format!("  \"k{i}\": \"value {i}\""))
            .collect();
        let request = request_with_arguments(format!("{{\n{}\n}}", items.join(",\n")));
        let text = describe(&request, None);
        let arguments = &text[text.find("arguments:").expect("arguments")..];
        let shown: usize = arguments
            .lines()
            .skip(1)
            .filter(|l| !l.contains("more line(s)"))
            .map(|l| l.len() - 4 + 1)
            .sum();
        assert!(shown <= SHOWN_ARGUMENTS + 4, "{shown}");
        assert!(text.contains("more line(s) ([v] shows them all)"), "{text}");
        assert!(!text.contains("\"k400\""));
        assert!(arguments_cut(&request));
        let all = all_arguments(&request);
        assert!(
            all.contains("402  }") && all.contains("\"k400\": \"value 400\""),
            "{all:.200}"
        );
    }
}
