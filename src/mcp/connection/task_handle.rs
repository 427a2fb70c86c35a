//! A task as a server sent it, read liberally where nothing depends on a field.
//!
//! The tasks extension requires `taskId`, `status`, `createdAt`, `lastUpdatedAt` and `ttlMs` on
//! every task (the handle a `tools/call` answers with, and each `tasks/get` answer). mcpdeck
//! needs two of them: `taskId`, which every poll, update and cancel names, and `status`, which
//! decides what comes next; a task without either is refused with an error naming the field.
//! The two times are only shown, so a task lacking one (or sending one that is not a string) is
//! taken with the time [`UNKNOWN_TIME`]; a missing `ttlMs` reads as `null`, no limit beyond the
//! operator's own task timeout. rmcp's typed decode needs every field, and keeps a task without
//! one as an untyped result; [`handle`] and [`detailed`] read that result again with the gaps
//! filled.

use rmcp::model::{CreateTaskResult, DetailedTask, GetTaskResult, ServerResult};
use serde_json::{Map, Value};

use super::error::{ConnectError, ErrorClass, RequestError};

/// What a task's missing creation or update time is shown as.
pub(crate) const UNKNOWN_TIME: &str = "unknown";

/// `result` as a typed task handle when it is a `resultType: "task"` answer rmcp kept untyped
/// (see the module comment); any other result unchanged.
pub(crate) fn handle(result: ServerResult) -> Result<ServerResult, RequestError> {
    let ServerResult::CustomResult(custom) = &result else {
        return Ok(result);
    };
    if custom.0.get("resultType").and_then(Value::as_str) != Some("task") {
        return Ok(result);
    }
    let filled = filled(&custom.0, "task handle")?;
    serde_json::from_value::<CreateTaskResult>(Value::Object(filled))
        .map(ServerResult::CreateTaskResult)
        .map_err(|e| unreadable("task handle", &e))
}

/// The task a `tasks/get` answered with, its gaps filled when rmcp kept it untyped.
pub(crate) fn detailed(result: ServerResult) -> Result<DetailedTask, RequestError> {
    match result {
        ServerResult::GetTaskResult(got) => Ok(got.task),
        ServerResult::CustomResult(custom) => {
            let filled = filled(&custom.0, "tasks/get answer")?;
            serde_json::from_value::<GetTaskResult>(Value::Object(filled))
                .map(|got| got.task)
                .map_err(|e| unreadable("tasks/get answer", &e))
        }
        _ => Err(protocol("tasks/get did not answer with a task".to_owned())),
    }
}

/// The task object with its times filled in; an error naming `taskId` or `status` when one is
/// missing or not a string.
fn filled(task: &Value, what: &str) -> Result<Map<String, Value>, RequestError> {
    let Some(object) = task.as_object() else {
        return Err(protocol(format!(
            "the server's {what} is not a JSON object"
        )));
    };
    for (field, why) in [
        ("taskId", "every poll and cancel names it"),
        ("status", "it says whether the task goes on"),
    ] {
        match object.get(field) {
            Some(Value::String(_)) => {}
            None => {
                return Err(protocol(format!(
                    "the server's {what} has no `{field}`, which mcpdeck needs: {why}"
                )));
            }
            Some(_) => {
                return Err(protocol(format!(
                    "the server's {what} has a `{field}` that is not a string; mcpdeck needs it: \
                     {why}"
                )));
            }
        }
    }
    let mut object = object.clone();
    for time in ["createdAt", "lastUpdatedAt"] {
        if !matches!(object.get(time), Some(Value::String(_))) {
            object.insert(time.to_owned(), Value::String(UNKNOWN_TIME.to_owned()));
        }
    }
    Ok(object)
}

fn unreadable(what: &str, e: &serde_json::Error) -> RequestError {
    let said = crate::mcp::sanitize::sanitize_capped(&e.to_string(), 256);
    protocol(format!("the server's {what} could not be read: {said}"))
}

fn protocol(message: String) -> RequestError {
    ConnectError::new(ErrorClass::Protocol, message)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmcp::model::TaskStatus;

    fn parse(text: &str) -> ServerResult {
        serde_json::from_str(text).expect("a result")
    }

    #[test]
    fn a_handle_without_its_times_or_ttl_is_followed_with_the_times_unknown() {
        let bare = parse(r#"{"resultType":"task","taskId":"t1","status":"working"}"#);
        assert!(
            matches!(bare, ServerResult::CustomResult(_)),
            "rmcp keeps it untyped"
        );
        let ServerResult::CreateTaskResult(created) = handle(bare).expect("accepted") else {
            panic!("a typed handle was expected");
        };
        assert_eq!(created.task.task_id, "t1");
        assert_eq!(created.task.status, TaskStatus::Working);
        assert_eq!(created.task.created_at, UNKNOWN_TIME);
        assert_eq!(created.task.last_updated_at, UNKNOWN_TIME);
        assert_eq!(created.task.ttl_ms, None);
        let odd_time = parse(
            r#"{"resultType":"task","taskId":"t2","status":"working","createdAt":7,"lastUpdatedAt":"2026-01-01T00:00:00Z","ttlMs":5000,"pollIntervalMs":300}"#,
        );
        let ServerResult::CreateTaskResult(created) = handle(odd_time).expect("accepted") else {
            panic!("a typed handle was expected");
        };
        assert_eq!(created.task.created_at, UNKNOWN_TIME);
        assert_eq!(created.task.last_updated_at, "2026-01-01T00:00:00Z");
        assert_eq!(created.task.ttl_ms, Some(5000));
        assert_eq!(created.task.poll_interval_ms, Some(300));
    }

    #[test]
    fn a_handle_without_what_mcpdeck_needs_is_refused_naming_the_field() {
        for (text, field) in [
            (r#"{"resultType":"task","status":"working"}"#, "`taskId`"),
            (r#"{"resultType":"task","taskId":"t"}"#, "`status`"),
            (
                r#"{"resultType":"task","taskId":3,"status":"working"}"#,
                "`taskId`",
            ),
        ] {
            let e = handle(parse(text)).expect_err(text);
            assert_eq!(e.class, ErrorClass::Protocol);
            assert!(e.message.contains(field), "{text}: {}", e.message);
        }
    }

    #[test]
    fn other_results_pass_unchanged() {
        let json = |r: &ServerResult| serde_json::to_value(r).expect("serialises");
        for text in [
            r#"{"content":[],"resultType":"complete"}"#,
            r#"{"resultType":"later","x":1}"#,
        ] {
            let result = parse(text);
            let passed = handle(result.clone()).expect("passes");
            assert_eq!(json(&passed), json(&result), "{text}");
        }
    }

    #[test]
    fn a_tasks_get_answer_without_its_times_is_read_and_one_without_a_status_is_not() {
        let done = parse(
            r#"{"resultType":"complete","taskId":"t1","status":"completed","ttlMs":null,"result":{"content":[{"type":"text","text":"ok"}]}}"#,
        );
        let task = detailed(done).expect("read");
        assert_eq!(task.task.status, TaskStatus::Completed);
        assert_eq!(task.task.created_at, UNKNOWN_TIME);
        let e =
            detailed(parse(r#"{"resultType":"complete","taskId":"t1"}"#)).expect_err("no status");
        assert!(e.message.contains("`status`"), "{}", e.message);
        assert!(e.message.contains("tasks/get"), "{}", e.message);
    }
}
