//! Input-required rounds (protocol 2026-07-28, multi round-trip requests).
//!
//! A 2026 server that needs something from the client before it can answer `tools/call`,
//! `prompts/get` or `resources/read` answers with `resultType: "input_required"`: a map of
//! input requests (`elicitation/create`, `sampling/createMessage`, `roots/list`) and an opaque
//! `requestState`. Each input request is answered through the same path as a server-initiated
//! request of the older protocol (the face's broker: the console's modals, the CLI's flags and
//! questions; serve mode declares none and refuses), then the original request is sent again as
//! a new request (a new JSON-RPC id) with the answers as `inputResponses` and the state echoed
//! exactly — or no state at all when the server sent none. The state belongs to this operation
//! only. This is the one re-send besides version negotiation's; nothing is re-sent after a
//! transport error or a timeout. The rounds are bounded by [`MAX_INPUT_ROUNDS`] (its own error
//! class, `input_rounds`); each round has the request's idle timeout, and the server's time over
//! all rounds together is bounded by the request's total cap (the time a person takes to answer
//! is not the server's).

use std::time::{Duration, Instant};

use rmcp::model::{
    ClientRequest, InputRequests, InputResponses, NumberOrString, ProgressToken, ResultType,
    ServerResult,
};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::error::{ConnectError, ErrorClass, RequestError};
use super::events::{ConnectionEvent, ProgressUpdate};
use super::{Connection, MAX_TOTAL_CAP};

/// The most input-required rounds one operation may take before it fails (`input_rounds`).
pub const MAX_INPUT_ROUNDS: u32 = 8;

impl Connection {
    /// Sends `request`, answering input-required rounds until the server completes it.
    pub(super) async fn request_rounds(
        &self,
        request: ClientRequest,
        timeout: Duration,
        max_total: Duration,
        cancel: &CancellationToken,
        progress: Option<&mpsc::Sender<ProgressUpdate>>,
    ) -> Result<ServerResult, RequestError> {
        let mut left = max_total.min(MAX_TOTAL_CAP);
        let mut round = request.clone();
        for done in 0..=MAX_INPUT_ROUNDS {
            let started = Instant::now();
            let answer = self
                .send_once(round, timeout, left, cancel, progress)
                .await?;
            left = left.saturating_sub(started.elapsed());
            let ServerResult::InputRequiredResult(asked) = answer else {
                return check_result_type(answer, &request, self.tasks_negotiated());
            };
            if !carries_rounds(&request) {
                return Err(protocol(format!(
                    "the server answered {} with input_required, which only tools/call, \
                     prompts/get and resources/read may carry",
                    request.method()
                )));
            }
            if done == MAX_INPUT_ROUNDS {
                return Err(too_many_rounds());
            }
            if left.is_zero() {
                return Err(out_of_time(max_total));
            }
            self.report_round(done + 1, progress);
            let responses = self
                .answer_inputs(asked.input_requests.as_ref(), cancel)
                .await?;
            round = retry_of(&request, responses, asked.request_state);
        }
        Err(too_many_rounds())
    }

    /// Says that the operation waits for input, as a progress report: to the caller's route,
    /// or as the server's event (what the console shows on the running call).
    fn report_round(&self, round: u32, progress: Option<&mpsc::Sender<ProgressUpdate>>) {
        let message = format!("waiting for input: round {round} (at most {MAX_INPUT_ROUNDS})");
        match progress {
            Some(tx) => {
                let _ = tx.try_send(ProgressUpdate {
                    progress: f64::from(round),
                    total: None,
                    message: Some(message),
                });
            }
            None => self.sink.emit(ConnectionEvent::Progress {
                token: ProgressToken(NumberOrString::String("mcpdeck-input-round".into())),
                progress: f64::from(round),
                total: None,
                message: Some(message),
            }),
        }
    }

    /// Answers every input request of one round (or of a task, `tasks`), in key order.
    pub(super) async fn answer_inputs(
        &self,
        requests: Option<&InputRequests>,
        cancel: &CancellationToken,
    ) -> Result<InputResponses, RequestError> {
        let mut responses = InputResponses::new();
        let Some(requests) = requests else {
            return Ok(responses);
        };
        let handler = self.service.service();
        for (key, input) in requests {
            let answer = tokio::select! {
                answer = handler.answer_input(input) => answer,
                () = cancel.cancelled() => {
                    return Err(ConnectError::new(ErrorClass::Cancelled, "the request was cancelled"));
                }
            };
            match answer {
                Ok(value) => {
                    responses.insert(key.clone(), value);
                }
                Err(refusal) => return Err(refused(&refusal, &self.redactor)),
            }
        }
        Ok(responses)
    }
}

/// Whether `request` may be answered with input-required rounds.
fn carries_rounds(request: &ClientRequest) -> bool {
    matches!(
        request,
        ClientRequest::CallToolRequest(_)
            | ClientRequest::GetPromptRequest(_)
            | ClientRequest::ReadResourceRequest(_)
    )
}

/// The next round: the original request with this round's answers and the state as sent.
fn retry_of(
    original: &ClientRequest,
    responses: InputResponses,
    state: Option<String>,
) -> ClientRequest {
    let mut next = original.clone();
    match &mut next {
        ClientRequest::CallToolRequest(r) => {
            r.params.input_responses = Some(responses);
            r.params.request_state = state;
        }
        ClientRequest::GetPromptRequest(r) => {
            r.params.input_responses = Some(responses);
            r.params.request_state = state;
        }
        ClientRequest::ReadResourceRequest(r) => {
            r.params.input_responses = Some(responses);
            r.params.request_state = state;
        }
        _ => {}
    }
    next
}

/// A result whose `resultType` mcpdeck does not know is invalid (absent means `complete`).
/// A task handle (`task`) is valid only as the answer to `tools/call` from a server that
/// advertised the tasks extension (`tasks`); the caller follows it.
fn check_result_type(
    result: ServerResult,
    request: &ClientRequest,
    tasks: bool,
) -> Result<ServerResult, RequestError> {
    // A task handle lacking a field mcpdeck does not need is typed here (`task_handle`).
    let result = super::task_handle::handle(result)?;
    if matches!(result, ServerResult::CreateTaskResult(_))
        && !(tasks && matches!(request, ClientRequest::CallToolRequest(_)))
    {
        return Err(protocol(format!(
            "the server answered {} with a task (resultType `task`), which only tools/call may \
             carry, and only from a server that advertises the tasks extension",
            request.method()
        )));
    }
    let kind = match &result {
        ServerResult::CallToolResult(r) => r.result_type.as_ref(),
        ServerResult::GetPromptResult(r) => r.result_type.as_ref(),
        ServerResult::ReadResourceResult(r) => r.result_type.as_ref(),
        ServerResult::ListToolsResult(r) => r.result_type.as_ref(),
        ServerResult::ListPromptsResult(r) => r.result_type.as_ref(),
        ServerResult::ListResourcesResult(r) => r.result_type.as_ref(),
        ServerResult::ListResourceTemplatesResult(r) => r.result_type.as_ref(),
        ServerResult::CompleteResult(r) => r.result_type.as_ref(),
        _ => None,
    };
    let custom = match &result {
        // rmcp keeps a result of a shape it does not know as it came.
        ServerResult::CustomResult(r) => r.0.get("resultType").and_then(|v| v.as_str()),
        _ => None,
    };
    let unknown = kind
        .map(ResultType::as_str)
        .or(custom)
        .filter(|k| !matches!(*k, "complete" | "task"));
    match unknown {
        Some(kind) => Err(protocol(format!(
            "the server answered {} with resultType `{}`, which mcpdeck does not know",
            request.method(),
            crate::mcp::sanitize::sanitize_capped(kind, 64)
        ))),
        None => Ok(result),
    }
}

fn protocol(message: String) -> RequestError {
    ConnectError::new(ErrorClass::Protocol, message)
}

pub(super) fn too_many_rounds() -> RequestError {
    ConnectError::new(
        ErrorClass::InputRounds {
            rounds: MAX_INPUT_ROUNDS,
        },
        format!(
            "the server still asked for input after {MAX_INPUT_ROUNDS} rounds; the operation \
             was stopped"
        ),
    )
}

fn out_of_time(max_total: Duration) -> RequestError {
    let after_ms = u64::try_from(max_total.as_millis()).unwrap_or(u64::MAX);
    ConnectError::new(
        ErrorClass::Timeout { after_ms },
        format!("the input rounds used up the operation's {after_ms} ms"),
    )
}

/// An input request this client refused or could not answer ends the operation.
fn refused(refusal: &rmcp::model::ErrorData, redactor: &super::Redactor) -> RequestError {
    let text = super::error::clean(redactor, &refusal.message);
    if refusal.code == rmcp::model::ErrorCode::METHOD_NOT_FOUND {
        return protocol(format!(
            "the server asked for input this client does not answer ({text}); the operation \
             was not completed"
        ));
    }
    ConnectError::new(
        ErrorClass::Cancelled,
        format!(
            "the server's request for input was refused ({text}); the operation was not completed"
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::{CallToolRequest, CallToolRequestParams, ListToolsRequest};

    #[test]
    fn a_retry_carries_the_answers_and_exactly_the_state_sent() {
        let original = ClientRequest::CallToolRequest(CallToolRequest::new(
            CallToolRequestParams::new("echo"),
        ));
        let mut answers = InputResponses::new();
        answers.insert("confirm".into(), serde_json::json!({"action": "accept"}));
        let state = " {\"opaque\": 1}\n".to_owned();
        let next = retry_of(&original, answers.clone(), Some(state.clone()));
        let sent = serde_json::to_value(&next).expect("json");
        assert_eq!(sent["params"]["requestState"], state.as_str());
        assert_eq!(
            sent["params"]["inputResponses"]["confirm"]["action"],
            "accept"
        );
        let stateless = serde_json::to_value(retry_of(&next, answers, None)).expect("json");
        assert!(
            stateless["params"].get("requestState").is_none(),
            "{stateless}"
        );
        assert!(carries_rounds(&original));
        assert!(!carries_rounds(&ClientRequest::ListToolsRequest(
            ListToolsRequest::default()
        )));
    }

    #[test]
    fn an_unknown_result_type_is_refused_and_a_missing_one_is_complete() {
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(
            CallToolRequestParams::new("echo"),
        ));
        let parse = |text: &str| -> ServerResult { serde_json::from_str(text).expect("result") };
        let odd = parse(r#"{"content":[],"resultType":"later"}"#);
        let e = check_result_type(odd, &request, true).expect_err("refused");
        assert_eq!(e.class, ErrorClass::Protocol);
        assert!(check_result_type(parse(r#"{"content":[]}"#), &request, true).is_ok());
        assert!(
            check_result_type(
                parse(r#"{"content":[],"resultType":"complete"}"#),
                &request,
                true
            )
            .is_ok()
        );
    }

    #[test]
    fn a_task_is_valid_only_from_tools_call_with_the_extension_negotiated() {
        let call = ClientRequest::CallToolRequest(CallToolRequest::new(
            CallToolRequestParams::new("echo"),
        ));
        let list = ClientRequest::ListToolsRequest(ListToolsRequest::default());
        let task = || -> ServerResult {
            serde_json::from_str(
                r#"{"resultType":"task","taskId":"t","status":"working",
                    "createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z",
                    "ttlMs":null}"#,
            )
            .expect("result")
        };
        assert!(matches!(task(), ServerResult::CreateTaskResult(_)));
        assert!(check_result_type(task(), &call, true).is_ok());
        let e = check_result_type(task(), &call, false).expect_err("not negotiated");
        assert_eq!(e.class, ErrorClass::Protocol);
        assert!(check_result_type(task(), &list, true).is_err());
    }
}
