//! Tests of `connection/faults.rs`.

use super::*;
use rmcp::model::ContentBlock;

fn nested(depth: usize) -> String {
    format!("{}{}", "[".repeat(depth), "]".repeat(depth))
}

#[test]
fn max_depth_is_serdes_limit() {
    assert!(serde_json::from_str::<serde_json::Value>(&nested(MAX_DEPTH)).is_ok());
    let err =
        serde_json::from_str::<serde_json::Value>(&nested(MAX_DEPTH + 1)).expect_err("too deep");
    assert!(reason(nested(MAX_DEPTH + 1).as_bytes(), &err).contains("nested deeper"));
}

#[test]
fn finds_the_id_of_answers_only() {
    let deep = nested(200);
    let frame = format!(r#"{{"jsonrpc":"2.0","result":{{"x":{deep},"id":9}},"id":7}}"#);
    assert_eq!(response_id(frame.as_bytes()), Some(RequestId::Number(7)));
    assert_eq!(
        response_id(br#"{"id" : "a-1", "result": "\xff"}"#),
        Some(RequestId::String("a-1".into()))
    );
    assert_eq!(response_id(br#"{"id":3,"method":"ping"}"#), None);
    assert_eq!(response_id(br#"{"id":null,"result":{}}"#), None);
    assert_eq!(response_id(br#"{"result":{"id":4}}"#), None);
    assert_eq!(response_id(br#"{"id":"a\"b","result":1}"#), None);
    assert_eq!(
        response_id(br#"{"key":"id","id":-2,"error":{}}"#),
        Some(RequestId::Number(-2))
    );
}

#[test]
fn counts_the_listed_array_only() {
    let f = br#"{"jsonrpc":"2.0","id":1,"result":{"x":{"tools":[1,2,3,4]},"tools":[{"a":[1,2]},{"b":"]"} , 3],"n":[1]}}"#;
    assert_eq!(count_items(f, b"tools"), Some(3));
    assert_eq!(
        count_items(br#"{"result":{"tools":[]}}"#, b"tools"),
        Some(0)
    );
    assert_eq!(
        count_items(br#"{"result":{"tools":["a,b"]}}"#, b"tools"),
        Some(1)
    );
    assert_eq!(
        count_items(br#"{"result":{"prompts":[1]}}"#, b"tools"),
        None
    );
}

#[test]
fn a_page_over_the_bound_is_refused_before_decoding() {
    let faults = Faults::default();
    faults.expect_listing(RequestId::Number(2), Listing::Tools, true);
    let items = vec!["{}"; 10_001].join(",");
    let frame = format!(r#"{{"jsonrpc":"2.0","id":2,"result":{{"tools":[{items}]}}}}"#);
    assert!(matches!(
        decode(frame.as_bytes(), &faults),
        Some(ServerJsonRpcMessage::Error(_))
    ));
    let fault = faults.take(&RequestId::Number(2)).expect("recorded");
    assert_eq!(fault.class.name(), "limit");
    faults.expect_listing(RequestId::Number(3), Listing::Tools, true);
    let ok = r#"{"jsonrpc":"2.0","id":3,"result":{"tools":[{"name":"a","inputSchema":{}}]}}"#;
    assert!(matches!(
        decode(ok.as_bytes(), &faults),
        Some(ServerJsonRpcMessage::Response(r)) if matches!(r.result, ServerResult::ListToolsResult(_))
    ));
}

#[test]
fn values_are_counted_outside_strings_and_bounded_per_listing() {
    assert_eq!(count_values(br#"{"a":[1,2,"x,{["],"b":{}}"#), 6);
    let faults = Faults::default();
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":4,"result":{{"tools":[{{"name":"a","inputSchema":{{"x":[{}]}}}}]}}}}"#,
        vec!["1"; MAX_LISTING_VALUES / 2].join(",")
    );
    faults.expect_listing(RequestId::Number(4), Listing::Tools, true);
    assert!(matches!(
        decode(big.as_bytes(), &faults),
        Some(ServerJsonRpcMessage::Response(_))
    ));
    // The second page of the same listing goes over the bound.
    faults.expect_listing(RequestId::Number(5), Listing::Tools, false);
    let second = big.replace(r#""id":4"#, r#""id":5"#);
    assert!(matches!(
        decode(second.as_bytes(), &faults),
        Some(ServerJsonRpcMessage::Error(_))
    ));
    assert_eq!(
        faults
            .take(&RequestId::Number(5))
            .expect("recorded")
            .class
            .name(),
        "limit"
    );
}

#[test]
fn undecodable_answers_fail_their_request_and_others_are_counted() {
    let faults = Faults::default();
    let deep = nested(130);
    let frame = format!(r#"{{"jsonrpc":"2.0","id":5,"result":{{"content":{deep}}}}}"#);
    let Some(ServerJsonRpcMessage::Error(e)) = decode(frame.as_bytes(), &faults) else {
        panic!("expected a stand-in error");
    };
    assert_eq!(e.id, Some(RequestId::Number(5)));
    let recorded = faults.take(&RequestId::Number(5)).expect("recorded");
    assert_eq!(recorded.class, ErrorClass::Protocol);
    assert!(
        recorded.message.contains("nested deeper"),
        "{}",
        recorded.message
    );
    let bad_utf8 = b"{\"jsonrpc\":\"2.0\",\"id\":6,\"result\":{\"t\":\"\xff\"}}";
    assert!(decode(bad_utf8, &faults).is_some());
    assert!(
        faults
            .take(&RequestId::Number(6))
            .expect("recorded")
            .message
            .contains("UTF-8")
    );
    assert!(decode(br#"{"jsonrpc":"2.0","method":"x","params":"#, &faults).is_none());
    assert!(decode(br#"{"jsonrpc":"2.0"}"#, &faults).is_none());
    assert_eq!(faults.skipped(), 2);
    assert!(decode(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#, &faults).is_some());
    assert_eq!(faults.skipped(), 2);
}

/// The result of a decoded response frame.
fn result_of(message: Option<ServerJsonRpcMessage>) -> ServerResult {
    match message {
        Some(ServerJsonRpcMessage::Response(r)) => r.result,
        other => panic!("a response was expected, got {other:?}"),
    }
}

#[test]
fn an_answer_to_a_call_is_read_as_a_tool_result_with_its_escaped_text() {
    let faults = Faults::default();
    faults.expect_call(RequestId::Number(4));
    // `contents` would make rmcp's union take it for a resource read, which comes first there.
    let frame = br#"{"jsonrpc":"2.0","id":4,"result":{"contents":[],"content":[{"type":"text","text":"a\nb \"c\" \u00e9"}]}}"#;
    let ServerResult::CallToolResult(result) = result_of(decode(frame, &faults)) else {
        panic!("a tool result was expected");
    };
    let Some(ContentBlock::Text(text)) = result.content.first() else {
        panic!("a text block was expected");
    };
    assert_eq!(text.text, "a\nb \"c\" é");
    // One answer per request: the same frame again is decoded as any frame, and rmcp's union
    // takes it for something else.
    assert!(!matches!(
        result_of(decode(frame, &faults)),
        ServerResult::CallToolResult(_)
    ));
}

#[test]
fn a_call_answered_with_a_task_or_an_error_is_decoded_as_any_frame() {
    let faults = Faults::default();
    faults.expect_call(RequestId::Number(5));
    let task = br#"{"jsonrpc":"2.0","id":5,"result":{"resultType":"task","taskId":"t1","status":"working","createdAt":"2026-01-01T00:00:00Z","lastUpdatedAt":"2026-01-01T00:00:00Z","ttlMs":null}}"#;
    assert!(!matches!(
        result_of(decode(task, &faults)),
        ServerResult::CallToolResult(_)
    ));
    faults.expect_call(RequestId::Number(6));
    let error = br#"{"jsonrpc":"2.0","id":6,"error":{"code":-32602,"message":"no such tool"}}"#;
    assert!(matches!(
        decode(error, &faults),
        Some(ServerJsonRpcMessage::Error(_))
    ));
}
