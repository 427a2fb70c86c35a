//! Answers a server's requests for one connection: refuses what was not declared (-32601) and
//! anything over [`MAX_SERVER_REQUEST_BYTES`], turns the rest into sanitised asks for the
//! face's broker, checks the answers, and notes on the broker what was asked and answered.

// Roots and sampling are deprecated by SEP-2577, but 2025-11-25 servers use them.
#![allow(deprecated)]

use rmcp::model::{
    CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
    ElicitationAction, ErrorCode, ErrorData, ListRootsResult, Root, SamplingMessage,
};
use serde_json::Value;

use super::{
    ClientSide, ElicitAnswer, ElicitKind, ElicitationAsk, Form, MAX_SERVER_REQUEST_BYTES,
    OPERATOR_MODEL, SamplingAnswer, sampling,
};
use crate::mcp::sanitize::sanitize_capped;

/// The refusal of a request the client did not declare.
pub(crate) fn not_declared(method: &'static str) -> ErrorData {
    ErrorData::new(ErrorCode::METHOD_NOT_FOUND, method, None)
}

/// The answer to a request rmcp could not read as any method it knows. A declared method
/// whose parameters did not fit its type (an elicitation form schema nested past what forms
/// allow, say) is refused as invalid parameters (-32602), with serde's reason; anything else is
/// a method mcpdeck does not have (-32601).
pub(crate) fn unreadable_request(
    side: Option<&ClientSide>,
    method: &str,
    params: Option<&Value>,
) -> ErrorData {
    let params = params.cloned().unwrap_or(Value::Null);
    let why = match method {
        "elicitation/create" => serde_json::from_value::<ElicitRequestParams>(params).err(),
        "sampling/createMessage" => {
            serde_json::from_value::<CreateMessageRequestParams>(params).err()
        }
        _ => {
            return ErrorData::new(
                ErrorCode::METHOD_NOT_FOUND,
                sanitize_capped(method, 128),
                None,
            );
        }
    };
    if side.is_none() {
        return ErrorData::new(ErrorCode::METHOD_NOT_FOUND, method.to_owned(), None);
    }
    let why = why.map_or_else(
        || "they do not fit the method's parameters".to_owned(),
        |e| sanitize_capped(&e.to_string(), 200),
    );
    ErrorData::new(
        ErrorCode::INVALID_PARAMS,
        format!("{method} refused: its parameters cannot be read ({why})"),
        None,
    )
}

fn too_large(method: &str, bytes: usize) -> ErrorData {
    ErrorData::new(
        ErrorCode::INVALID_REQUEST,
        format!("{method} refused: {bytes} bytes is over mcpdeck's 1 MiB limit"),
        None,
    )
}

/// The parameters as JSON, refused when over the limit.
fn bounded_params<T: serde::Serialize>(method: &str, params: &T) -> Result<Value, ErrorData> {
    let bytes = serde_json::to_vec(params)
        .map_err(|e| ErrorData::new(ErrorCode::INVALID_PARAMS, format!("{method}: {e}"), None))?;
    if bytes.len() > MAX_SERVER_REQUEST_BYTES {
        return Err(too_large(method, bytes.len()));
    }
    serde_json::from_slice(&bytes)
        .map_err(|e| ErrorData::new(ErrorCode::INVALID_PARAMS, format!("{method}: {e}"), None))
}

/// `roots/list`.
pub(crate) fn list_roots(
    side: Option<&ClientSide>,
    server: &str,
) -> Result<ListRootsResult, ErrorData> {
    let side = side.ok_or_else(|| not_declared("roots/list"))?;
    let now = side.roots.get();
    let roots: Vec<Root> = now
        .iter()
        .map(|r| Root::new(r.uri.clone()).with_name(r.name.clone()))
        .collect();
    let listed: Vec<&str> = now.iter().map(|r| r.uri.as_str()).collect();
    side.requests.note(
        server,
        &format!(
            "the server asked for its roots; answered: {}",
            if listed.is_empty() {
                "none".to_owned()
            } else {
                listed.join(", ")
            }
        ),
    );
    Ok(ListRootsResult::new(roots))
}

/// `sampling/createMessage`: a person answers, or the request is rejected.
pub(crate) async fn create_message(
    side: Option<&ClientSide>,
    server: &str,
    params: &CreateMessageRequestParams,
) -> Result<CreateMessageResult, ErrorData> {
    let side = side.ok_or_else(|| not_declared("sampling/createMessage"))?;
    let raw = bounded_params("sampling/createMessage", params)?;
    let ask = sampling::ask_from_params(server, &raw);
    let first = ask
        .messages
        .last()
        .map(|(_, text)| sanitize_capped(text, 120))
        .unwrap_or_default();
    match side.requests.sample(ask).await {
        SamplingAnswer::Reply { text, stop_reason } => {
            side.requests.note(
                server,
                &format!(
                    "the server asked for a completion (“{first}”); answered with {} characters as {OPERATOR_MODEL}",
                    text.chars().count()
                ),
            );
            let message = SamplingMessage::assistant_text(text);
            let mut result = CreateMessageResult::new(message, OPERATOR_MODEL.to_owned());
            result.stop_reason = Some(stop_reason);
            Ok(result)
        }
        SamplingAnswer::Reject => {
            side.requests.note(
                server,
                &format!("the server asked for a completion (“{first}”); rejected"),
            );
            Err(ErrorData::new(
                ErrorCode(-1),
                "the operator rejected the sampling request",
                None,
            ))
        }
    }
}

/// `elicitation/create`, form or URL mode.
pub(crate) async fn create_elicitation(
    side: Option<&ClientSide>,
    server: &str,
    params: &ElicitRequestParams,
) -> Result<ElicitResult, ErrorData> {
    let side = side.ok_or_else(|| not_declared("elicitation/create"))?;
    let raw = bounded_params("elicitation/create", params)?;
    let message = raw
        .get("message")
        .and_then(Value::as_str)
        .map(|m| sanitize_capped(m, 4096))
        .unwrap_or_default();
    let (kind, form) = elicit_kind(params, &raw)?;
    let mode = if form.is_some() {
        "input"
    } else {
        "a URL visit"
    };
    let ask = ElicitationAsk {
        server: sanitize_capped(server, 128),
        message: message.clone(),
        kind,
    };
    let mut answer = side.requests.elicit(ask).await;
    if let (ElicitAnswer::Accept(content), Some(form)) = (&answer, &form)
        && let Err(problem) = form.validate(content)
    {
        side.requests.note(
            server,
            &format!("the answer did not fit the server's form ({problem}); sending cancel"),
        );
        answer = ElicitAnswer::Cancel;
    }
    let shown = match &answer {
        ElicitAnswer::Accept(content) if !content.is_empty() => format!(
            "accept {}",
            sanitize_capped(&Value::Object(content.clone()).to_string(), 300)
        ),
        other => other.label().to_owned(),
    };
    side.requests.note(
        server,
        &format!(
            "the server asked for {mode}: {}; answered: {shown}",
            sanitize_capped(&message, 200)
        ),
    );
    Ok(elicit_result(answer, form.is_some()))
}

/// What the operator is asked: a form built from the requested schema (also returned, to check
/// the answer against), or a URL to visit, shown with its origin.
fn elicit_kind(
    params: &ElicitRequestParams,
    raw: &Value,
) -> Result<(ElicitKind, Option<Form>), ErrorData> {
    match params {
        ElicitRequestParams::FormElicitationParams { .. } => {
            let form = Form::from_schema(raw.get("requestedSchema").unwrap_or(&Value::Null));
            Ok((ElicitKind::Form(form.clone()), Some(form)))
        }
        ElicitRequestParams::UrlElicitationParams {
            url,
            elicitation_id,
            ..
        } => {
            let origin = url::Url::parse(url)
                .map(|u| u.origin().ascii_serialization())
                .ok()
                .filter(|o| o != "null")
                .unwrap_or_default();
            Ok((
                ElicitKind::Url {
                    url: sanitize_capped(url, 2048),
                    origin: sanitize_capped(&origin, 256),
                    id: sanitize_capped(elicitation_id, 256),
                },
                None,
            ))
        }
        _ => Err(not_declared("elicitation/create")),
    }
}

/// The answer sent back; accepted content goes with it only for a form.
fn elicit_result(answer: ElicitAnswer, with_content: bool) -> ElicitResult {
    match answer {
        ElicitAnswer::Accept(content) => {
            let mut result = ElicitResult::new(ElicitationAction::Accept);
            if with_content {
                result = result.with_content(Value::Object(content));
            }
            result
        }
        ElicitAnswer::Decline => ElicitResult::new(ElicitationAction::Decline),
        ElicitAnswer::Cancel => ElicitResult::new(ElicitationAction::Cancel),
    }
}
