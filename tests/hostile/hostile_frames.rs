//! Hostile frames: an answer nested past serde's limit, with invalid UTF-8, or not a JSON-RPC
//! message fails its request at once with `protocol` (not at the deadline), over stdio, a JSON
//! body and an SSE event; an SSE event over 16 MiB is `limit`. The connection stays usable.

use crate::connection_support;

use std::time::{Duration, Instant};

use connection_support::*;
use mcpdeck::mcp::config::{ServerDef, Transport};
use mcpdeck::mcp::connection::{Connection, ErrorClass, connect};
use serde_json::json;

/// Long enough that a request waiting for its deadline is told apart from one failed at once.
const TIMEOUT_MS: u64 = 20_000;

fn raw_def(case: &str) -> ServerDef {
    let mut def = stdio_def(&[], &[]);
    if let Transport::Stdio(s) = &mut def.transport {
        s.args = vec!["raw".into(), "--case".into(), case.into()];
    }
    def.request_timeout_ms = Some(TIMEOUT_MS);
    def
}

fn raw_http_def(fx: &HttpFixture, case: &str) -> ServerDef {
    let mut def = http_def(&fx.url(&format!("/raw/{case}")), &[]);
    def.request_timeout_ms = Some(TIMEOUT_MS);
    def
}

/// Calls `echo` and expects a failure of `class` well before the deadline; returns the message.
async fn fails_at_once(conn: &Connection, class: &str) -> String {
    let started = Instant::now();
    let err = call(conn, "echo", json!({"text": "x"}))
        .await
        .expect_err("an undecodable answer fails the call");
    assert!(
        started.elapsed() < Duration::from_millis(TIMEOUT_MS / 2),
        "waited {:?} for {err:?}",
        started.elapsed()
    );
    assert_eq!(err.class.name(), class, "{err:?}");
    assert!(!err.message.contains('\u{1b}'));
    err.message
}

async fn still_usable(conn: &Connection) {
    let tools = conn
        .request_default(rmcp::model::ClientRequest::ListToolsRequest(
            rmcp::model::ListToolsRequest::default(),
        ))
        .await
        .expect("the connection still answers");
    assert!(matches!(
        tools,
        rmcp::model::ServerResult::ListToolsResult(_)
    ));
}

#[tokio::test]
async fn stdio_result_nested_130_deep_fails_at_once() {
    let mut conn = connect(&raw_def("deep-result"), here(), &no_vars)
        .await
        .expect("connects");
    let message = fails_at_once(&conn, "protocol").await;
    assert!(message.contains("nested deeper than 127"), "{message}");
    still_usable(&conn).await;
    conn.close().await;
}

#[tokio::test]
async fn stdio_invalid_utf8_fails_at_once() {
    let mut conn = connect(&raw_def("bad-utf8"), here(), &no_vars)
        .await
        .expect("connects");
    let message = fails_at_once(&conn, "protocol").await;
    assert!(message.contains("UTF-8"), "{message}");
    conn.close().await;
}

#[tokio::test]
async fn stdio_answer_that_is_no_message_fails_at_once() {
    let mut conn = connect(&raw_def("not-message"), here(), &no_vars)
        .await
        .expect("connects");
    let message = fails_at_once(&conn, "protocol").await;
    assert!(message.contains("not a JSON-RPC message"), "{message}");
    conn.close().await;
}

#[tokio::test]
async fn stdio_schema_of_120_nested_all_ofs_fails_the_listing_at_once() {
    let mut conn = connect(&raw_def("deep-schema"), here(), &no_vars)
        .await
        .expect("connects");
    let started = Instant::now();
    let err = conn
        .request_default(rmcp::model::ClientRequest::ListToolsRequest(
            rmcp::model::ListToolsRequest::default(),
        ))
        .await
        .expect_err("too deep");
    assert!(started.elapsed() < Duration::from_millis(TIMEOUT_MS / 2));
    assert_eq!(err.class, ErrorClass::Protocol, "{err:?}");
    conn.close().await;
}

#[tokio::test]
async fn http_event_nested_too_deep_fails_at_once() {
    let fx = HttpFixture::start("");
    let mut conn = connect(&raw_http_def(&fx, "deep-result"), here(), &no_vars)
        .await
        .expect("connects");
    let message = fails_at_once(&conn, "protocol").await;
    assert!(message.contains("nested deeper"), "{message}");
    still_usable(&conn).await;
    conn.close().await;
}

#[tokio::test]
async fn http_json_body_nested_too_deep_fails_at_once() {
    let fx = HttpFixture::start("");
    let mut conn = connect(&raw_http_def(&fx, "deep-json"), here(), &no_vars)
        .await
        .expect("connects");
    // The body is read by mcpdeck's own POST (a tool call's answer is decoded straight into its
    // type), so it fails with the same words as an event or a stdio line.
    let message = fails_at_once(&conn, "protocol").await;
    assert!(message.contains("nested deeper"), "{message}");
    still_usable(&conn).await;
    conn.close().await;
}

#[tokio::test]
async fn http_event_with_invalid_utf8_fails_at_once() {
    let fx = HttpFixture::start("");
    let mut conn = connect(&raw_http_def(&fx, "bad-utf8"), here(), &no_vars)
        .await
        .expect("connects");
    let message = fails_at_once(&conn, "protocol").await;
    assert!(message.contains("UTF-8"), "{message}");
    conn.close().await;
}

#[tokio::test]
async fn http_event_that_is_no_message_fails_at_once() {
    let fx = HttpFixture::start("");
    let mut conn = connect(&raw_http_def(&fx, "not-message"), here(), &no_vars)
        .await
        .expect("connects");
    fails_at_once(&conn, "protocol").await;
    conn.close().await;
}

#[tokio::test]
async fn http_event_over_16_mib_is_a_limit() {
    let fx = HttpFixture::start("");
    let mut conn = connect(&raw_http_def(&fx, "huge-sse"), here(), &no_vars)
        .await
        .expect("connects");
    let message = fails_at_once(&conn, "limit").await;
    assert!(message.contains("16 MiB"), "{message}");
    assert_eq!(
        ErrorClass::Limit {
            bound: String::new()
        }
        .exit_code(),
        7
    );
    conn.close().await;
}
