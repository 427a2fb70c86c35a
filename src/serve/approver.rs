//! Who answers approvals in serve mode: the agent host through MCP elicitation when
//! it advertises form elicitation, otherwise an attached console through the control socket,
//! otherwise nobody — and the operation fails closed with `approval_required`.

use std::sync::{Arc, Mutex};

use crate::mcp::control::ControlHub;
use crate::mcp::pending::Reply;
use crate::mcp::policy::{ApprovalRequest, Approver, Decision, approval_text};
use rmcp::Peer;
use rmcp::model::{
    ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationSchema, EnumSchema,
};
use rmcp::service::RoleServer;

/// The answer values offered to hosts that support elicitation.
const CHOICES: [&str; 3] = ["allow_once", "allow_session", "deny"];

/// The form: one required `decision` chosen from [`CHOICES`].
fn answer_schema() -> Option<ElicitationSchema> {
    ElicitationSchema::builder()
        .required_enum_schema(
            "decision",
            EnumSchema::builder(CHOICES.iter().map(|c| (*c).to_owned()).collect()).build(),
        )
        .description("Approve this mcpdeck operation")
        .build()
        .ok()
}

/// Reads the host's answer; anything but an accepted, known choice is a denial.
fn decision_of(result: &ElicitResult) -> Decision {
    if result.action != ElicitationAction::Accept {
        return Decision::Deny;
    }
    match result
        .content
        .as_ref()
        .and_then(|c| c.get("decision"))
        .and_then(|d| d.as_str())
    {
        Some("allow_once") => Decision::AllowOnce,
        Some("allow_session") => Decision::AllowSession,
        _ => Decision::Deny,
    }
}

/// Elicitation first, then attached consoles.
pub struct ServeApprover {
    peer: Mutex<Option<Peer<RoleServer>>>,
    hub: Option<Arc<ControlHub>>,
}

impl ServeApprover {
    /// An approver that can fall back to consoles attached to `hub`.
    pub fn new(hub: Option<Arc<ControlHub>>) -> Self {
        Self {
            peer: Mutex::new(None),
            hub,
        }
    }

    /// Remembers the host's peer (for elicitation).
    pub fn learn_peer(&self, peer: &Peer<RoleServer>) {
        let mut slot = self
            .peer
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if slot.is_none() {
            *slot = Some(peer.clone());
        }
    }

    fn elicitation_peer(&self) -> Option<Peer<RoleServer>> {
        let peer = self
            .peer
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()?;
        peer.supported_elicitation_modes()
            .contains(&rmcp::service::ElicitationMode::Form)
            .then_some(peer)
    }
}

impl Approver for ServeApprover {
    fn available(&self) -> bool {
        self.elicitation_peer().is_some() || self.hub.as_ref().is_some_and(|h| h.attached() > 0)
    }

    fn wait_available(
        &self,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = bool> + Send + '_>> {
        Box::pin(async move {
            if self.elicitation_peer().is_some() {
                return true;
            }
            match &self.hub {
                Some(hub) => hub.wait_attached().await,
                None => false,
            }
        })
    }

    /// Audit mode ran a drifted tool: a line on serve's stderr (its log), and a flag to the
    /// attached consoles.
    fn flag(&self, request: ApprovalRequest) {
        eprintln!("{}", drift_notice(&request));
        if let Some(hub) = &self.hub {
            hub.flag(request);
        }
    }

    fn ask(&self, request: ApprovalRequest, reply: Reply<Decision>) {
        if let Some(peer) = self.elicitation_peer() {
            let message = elicitation_message(&request);
            let timeout = std::time::Duration::from_millis(request.timeout_ms);
            let Some(schema) = answer_schema() else {
                let _ = reply.answer(Decision::Deny);
                return;
            };
            tokio::spawn(async move {
                let params = ElicitRequestParams::FormElicitationParams {
                    meta: None,
                    message,
                    requested_schema: schema,
                };
                let asked = peer.create_elicitation_with_timeout(params, Some(timeout));
                // Settled without the host (the operation was cancelled): stop asking it.
                let answered = tokio::select! {
                    answered = asked => answered,
                    _ = reply.settled() => return,
                };
                let decision = match answered {
                    Ok(result) => decision_of(&result),
                    Err(e) => {
                        eprintln!(
                            "mcpdeck serve: the host could not be asked ({}); denied",
                            crate::mcp::sanitize::sanitize_capped(&e.to_string(), 300)
                        );
                        Decision::Deny
                    }
                };
                let _ = reply.answer(decision);
            });
            return;
        }
        // Without a hub the reply is dropped unanswered: a denial.
        if let Some(hub) = &self.hub {
            hub.ask(request, reply);
        }
    }
}

/// The line serve logs for a drifted tool it ran in audit mode (the request is sanitised).
fn drift_notice(request: &ApprovalRequest) -> String {
    let mut line = format!(
        "mcpdeck serve: audit: `{}` on `{}` ran though the tool changed since its pins",
        request.operation, request.server
    );
    if let Some(head) = request.drift.first() {
        line.push_str(" (");
        line.push_str(head);
        line.push(')');
    }
    line
}

/// What the agent's host is asked when it answers approvals by elicitation: the question and
/// its effects in the words every face uses, then what changed, the scan's findings and the
/// arguments.
fn elicitation_message(request: &ApprovalRequest) -> String {
    let mut message = format!(
        "mcpdeck: {} Effects: {}.",
        approval_text::question(request),
        approval_text::effects(request),
    );
    if request.server_changed {
        message.push_str(" The server's definition changed.");
    }
    if request.tool_changed {
        message.push_str(" The tool's definition changed since first listed.");
    }
    for line in &request.drift {
        message.push('\n');
        message.push_str(line);
    }
    if !request.findings.is_empty() {
        message.push_str("\nThe poisoning scan flags the tool's definition:");
        for line in &request.findings {
            message.push('\n');
            message.push_str(line);
        }
    }
    if let Some(arguments) = &request.arguments {
        message.push_str("\nArguments:\n");
        message.push_str(arguments);
    }
    message
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The host's elicitation, the terminal approver and `mcpdeck approvals` ask the question
    /// and state the effects in the one wording `approval_text` gives.
    #[test]
    fn every_text_face_words_the_question_alike() {
        let request = approval_text::request_with_arguments("{}".into());
        let question = approval_text::question(&request);
        let effects = approval_text::effects(&request);
        assert_eq!(question, "approve `tools.call t` on `s`?");
        let elicited = elicitation_message(&request);
        assert!(
            elicited.starts_with(&format!("mcpdeck: {question} Effects: {effects}.")),
            "{elicited}"
        );
        for who in [None, Some("serve 7")] {
            let described = approval_text::describe(&request, who);
            let head = who.map(|w| format!("{w}: ")).unwrap_or_default();
            assert!(
                described.starts_with(&format!("{head}{question}\n  effects: {effects}")),
                "{described}"
            );
        }
    }
}
