//! `protocolVersion: "auto"` never fails a server that works with `legacy`: whatever
//! `server/discover` gets that is not a usable discover result (an empty result, a JSON-RPC
//! error, HTTP 400/404/405, a body that is not JSON), mcpdeck falls back to `initialize`.

use crate::connection_support;

use connection_support::*;
use mcpdeck::mcp::config::{ProtocolChoice, ServerDef, Transport};
use mcpdeck::mcp::connection::connect;
use serde_json::json;

fn raw_def(case: &str) -> ServerDef {
    let mut def = stdio_def(&[], &[]);
    if let Transport::Stdio(s) = &mut def.transport {
        s.args = vec!["raw".into(), "--case".into(), case.into()];
    }
    def.protocol = ProtocolChoice::Auto;
    def
}

async fn works_with_auto(def: &ServerDef) {
    let mut conn = connect(def, here(), &no_vars)
        .await
        .unwrap_or_else(|e| panic!("auto connects to {}: {e}", def.name));
    assert_eq!(conn.protocol_version(), "2025-11-25");
    let r = call(&conn, "echo", json!({})).await.expect("calls");
    assert!(!r.content.is_empty());
    conn.close().await;
}

#[tokio::test]
async fn stdio_legacy_server_answering_unknown_methods_with_empty_result() {
    works_with_auto(&raw_def("discover-empty")).await;
}

#[tokio::test]
async fn stdio_legacy_server_answering_with_an_error() {
    works_with_auto(&raw_def("discover-error")).await;
    works_with_auto(&raw_def("plain")).await;
}

#[tokio::test]
async fn http_legacy_servers_of_every_kind() {
    let fx = HttpFixture::start("");
    for case in [
        "discover-empty",
        "discover-error",
        "discover-404",
        "discover-405",
        "discover-400",
        "discover-text",
        "plain",
    ] {
        let mut def = http_def(&fx.url(&format!("/raw/{case}")), &[]);
        def.name = case.to_owned();
        def.protocol = ProtocolChoice::Auto;
        works_with_auto(&def).await;
    }
}

#[tokio::test]
async fn auto_still_speaks_2026_to_a_modern_server() {
    let mut def = stdio_def(&[], &[]);
    def.protocol = ProtocolChoice::Auto;
    let mut conn = connect(&def, here(), &no_vars).await.expect("connects");
    assert_eq!(conn.protocol_version(), "2026-07-28");
    conn.close().await;
}

async fn raw_posts(fx: &HttpFixture) -> u64 {
    mcpdeck::mcp::connection::install_crypto_provider();
    reqwest::get(fx.url("/raw-posts"))
        .await
        .expect("reachable")
        .text()
        .await
        .expect("text")
        .parse()
        .expect("a number")
}

#[tokio::test]
async fn a_failed_connect_sends_nothing_extra() {
    let fx = HttpFixture::start("");
    let err = connect(&http_def(&fx.url("/raw/status-400"), &[]), here(), &no_vars)
        .await
        .expect_err("400");
    assert_eq!(
        err.class,
        mcpdeck::mcp::connection::ErrorClass::HttpStatus { code: 400 }
    );
    assert_eq!(raw_posts(&fx).await, 1, "only the initialize POST was sent");
}

#[tokio::test]
async fn oauth_challenge_without_headers_says_sign_in_is_needed() {
    let fx = HttpFixture::start("");
    let err = connect(&http_def(&fx.url("/raw/oauth"), &[]), here(), &no_vars)
        .await
        .expect_err("401");
    assert_eq!(
        err.class,
        mcpdeck::mcp::connection::ErrorClass::AuthRequired {
            code: 401,
            scope: None
        }
    );
    assert!(err.message.contains("OAuth sign-in"), "{}", err.message);
    assert!(
        err.message.contains("run `mcpdeck auth login web`"),
        "{}",
        err.message
    );
    assert!(!err.message.contains("check the configured headers"));
    let with_headers = http_def(&fx.url("/raw/oauth"), &[("Authorization", "Bearer x")]);
    let err = connect(&with_headers, here(), &no_vars)
        .await
        .expect_err("401");
    assert!(
        err.message.contains("check the configured headers"),
        "{}",
        err.message
    );
}

#[tokio::test]
async fn forcing_2026_on_a_legacy_server_suggests_auto() {
    let mut def = raw_def("discover-empty");
    def.protocol = ProtocolChoice::Modern;
    let err = connect(&def, here(), &no_vars)
        .await
        .expect_err("legacy server");
    assert!(err.message.contains("\"auto\""), "{}", err.message);
    assert!(!err.message.contains("Some("), "{}", err.message);
}

/// The methods `def`'s connection sent during its handshake, in order.
async fn handshake_methods(def: &ServerDef) -> (String, Vec<String>) {
    use mcpdeck::mcp::connection::{ConnectionEvent, connect_observed};
    let (tx, mut rx) = tokio::sync::mpsc::channel(256);
    let mut conn = connect_observed(def, here(), &no_vars, Some(tx), true)
        .await
        .unwrap_or_else(|e| panic!("auto connects to {}: {e}", def.name));
    let version = conn.protocol_version().to_owned();
    conn.close().await;
    let mut sent = Vec::new();
    while let Ok(ev) = rx.try_recv() {
        if let ConnectionEvent::Traffic(t) = ev.event
            && t.outgoing
            && t.kind == "request"
        {
            sent.extend(t.method);
        }
    }
    (version, sent)
}

/// A stdio server that never answers `server/discover` (and sits idle) is given mcpdeck's probe
/// bound (2 s, then 1 s idle), not rmcp's 10 s: with an 8 s handshake timeout the connection
/// still opens, in the older era. The era is then kept for the server, so connecting again sends `initialize` at once.
#[tokio::test]
async fn a_silent_stdio_server_costs_one_bounded_probe_then_none() {
    let mut def = raw_def("discover-silent");
    def.request_timeout_ms = Some(8_000);
    let (version, sent) = handshake_methods(&def).await;
    assert_eq!(version, "2025-11-25");
    assert_eq!(sent, ["server/discover", "initialize"]);
    let (version, sent) = handshake_methods(&def).await;
    assert_eq!(version, "2025-11-25");
    assert_eq!(sent, ["initialize"], "the era was probed again");
}

/// A modern server's era is kept too: the next connection opens with `server/discover` and
/// reaches 2026-07-28 the same way.
#[tokio::test]
async fn a_modern_era_is_kept_for_the_next_connection() {
    let mut def = stdio_def(&[], &[("FIXTURE_ERA_CASE", "modern-kept")]);
    def.protocol = ProtocolChoice::Auto;
    for _ in 0..2 {
        let (version, sent) = handshake_methods(&def).await;
        assert_eq!(version, "2026-07-28");
        assert_eq!(sent.first().map(String::as_str), Some("server/discover"));
        assert!(!sent.iter().any(|m| m == "initialize"), "{sent:?}");
    }
}

/// An HTTP server that holds its `server/discover` answer: mcpdeck falls back to `initialize`
/// at its own bound (half the request timeout here, 2 s) instead of waiting on the probe, and the
/// answer released afterwards never reaches the legacy session.
#[tokio::test]
async fn an_http_probe_held_past_its_bound_falls_back_and_its_late_answer_is_ignored() {
    let fx = HttpFixture::start("");
    let mut def = http_def(&fx.url("/raw/discover-held"), &[]);
    def.protocol = ProtocolChoice::Auto;
    def.request_timeout_ms = Some(4000);
    let started = std::time::Instant::now();
    let mut conn = connect(&def, here(), &no_vars)
        .await
        .expect("the fallback handshake completes");
    assert!(
        started.elapsed() >= std::time::Duration::from_secs(2),
        "the probe waited its bound: {:?}",
        started.elapsed()
    );
    assert_eq!(conn.protocol_version(), "2025-11-25");
    mcpdeck::mcp::connection::install_crypto_provider();
    let released = reqwest::get(fx.url("/release-discover"))
        .await
        .expect("reachable")
        .text()
        .await
        .expect("text");
    assert_eq!(released, "released");
    for _ in 0..3 {
        let r = call(&conn, "echo", json!({})).await.expect("calls");
        assert!(!r.content.is_empty());
    }
    assert_eq!(conn.protocol_version(), "2025-11-25");
    conn.close().await;
}
