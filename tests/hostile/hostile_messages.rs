//! Messages written for a person: the timeout says how the request was cancelled (only
//! `notifications/cancelled` when it was sent), a missing command says "not found" in words, and
//! an unusable handshake answer names no Rust type.

use crate::connection_support;

use std::time::Duration;

use connection_support::*;
use mcpdeck::mcp::config::{ProtocolChoice, Transport};
use mcpdeck::mcp::connection::{ErrorClass, connect};

async fn timeout_message(
    held: &Held,
    def: &mcpdeck::mcp::config::ServerDef,
    events: &std::path::Path,
) -> String {
    let mut conn = connect(def, here(), &no_vars).await.expect("connects");
    let err = hang_times_out(held, &conn, events, Duration::from_millis(300)).await;
    assert_eq!(err.class, ErrorClass::Timeout { after_ms: 300 });
    conn.close().await;
    err.message
}

// Paused and held time: each timeout fires when the test moves the clock to it, not before.
#[tokio::test(start_paused = true)]
async fn timeout_names_notifications_cancelled_only_when_it_was_sent() {
    let held = Held::new();
    let dir = tempfile::tempdir().expect("tempdir");
    let events = dir.path().join("events");
    let fx = HttpFixture::start_with("k=read,admin", &[("FIXTURE_EVENTS", &events)]);
    let mut legacy = http_def(&fx.url("/mcp"), &[("Authorization", "Bearer k")]);
    let message = timeout_message(&held, &legacy, &events).await;
    assert!(
        message.contains("notifications/cancelled sent"),
        "{message}"
    );
    legacy.protocol = ProtocolChoice::Modern;
    let message = timeout_message(&held, &legacy, &events).await;
    assert!(message.contains("closing its stream"), "{message}");
    assert!(
        !message.contains("notifications/cancelled sent"),
        "{message}"
    );
    let events_s = events.to_string_lossy().into_owned();
    let stdio = stdio_def(&[], &[("FIXTURE_EVENTS", &events_s)]);
    let message = timeout_message(&held, &stdio, &events).await;
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
