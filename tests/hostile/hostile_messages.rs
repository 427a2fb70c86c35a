//! Messages written for a person: the timeout says how the request was cancelled (only
//! `notifications/cancelled` when it was sent), a missing command says "not found" in words, and
//! an unusable handshake answer names no Rust type.

use crate::connection_support;

use std::time::Duration;

use connection_support::*;
use mcpdeck::mcp::config::{ProtocolChoice, Transport};
use mcpdeck::mcp::connection::{ErrorClass, connect, max_total_for};
use serde_json::json;

async fn timeout_message(def: &mcpdeck::mcp::config::ServerDef) -> String {
    let mut conn = connect(def, here(), &no_vars).await.expect("connects");
    let t = Duration::from_millis(300);
    let err = conn
        .request(call_request("hang", json!({})), t, max_total_for(t))
        .await
        .expect_err("times out");
    assert_eq!(err.class, ErrorClass::Timeout { after_ms: 300 });
    conn.close().await;
    err.message
}

#[tokio::test]
async fn timeout_names_notifications_cancelled_only_when_it_was_sent() {
    let fx = HttpFixture::start("k=read,admin");
    let mut legacy = http_def(&fx.url("/mcp"), &[("Authorization", "Bearer k")]);
    let message = timeout_message(&legacy).await;
    assert!(
        message.contains("notifications/cancelled sent"),
        "{message}"
    );
    legacy.protocol = ProtocolChoice::Modern;
    let message = timeout_message(&legacy).await;
    assert!(message.contains("closing its stream"), "{message}");
    assert!(
        !message.contains("notifications/cancelled sent"),
        "{message}"
    );
    let message = timeout_message(&stdio_def(&[], &[])).await;
    assert!(
        message.contains("notifications/cancelled sent"),
        "{message}"
    );
}

#[tokio::test]
async fn missing_command_is_said_in_words() {
    let mut def = stdio_def(&[], &[]);
    if let Transport::Stdio(s) = &mut def.transport {
        s.command = "/nonexistent/mcp-server".into();
    }
    let err = connect(&def, here(), &no_vars).await.expect_err("missing");
    assert!(err.message.contains("not found"), "{}", err.message);
    assert!(!err.message.contains("NotFound"), "{}", err.message);
}

#[tokio::test]
async fn empty_initialize_result_names_no_rust_type() {
    let mut def = stdio_def(&[], &[]);
    if let Transport::Stdio(s) = &mut def.transport {
        s.args = vec!["raw".into(), "--case".into(), "empty-init".into()];
    }
    let err = connect(&def, here(), &no_vars)
        .await
        .expect_err("no result");
    assert_eq!(err.class, ErrorClass::Protocol);
    for debug in ["Some(", "EmptyResult", "EmptyObject", "CustomResult"] {
        assert!(!err.message.contains(debug), "{}", err.message);
    }
}
