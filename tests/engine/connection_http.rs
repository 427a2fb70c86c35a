//! Integration tests of Streamable HTTP connections against `mcpdeck-fixture http`: scoped keys,
//! versions, stateful sessions, and the error classes (auth, not MCP, refused, redirects) with
//! no secret in any error text.

use crate::connection_support;

use std::time::Duration;

use connection_support::*;
use mcpdeck::mcp::config::ProtocolChoice;
use mcpdeck::mcp::connection::REDACTED;
use mcpdeck::mcp::connection::{ConnectionEvent, ErrorClass, connect, connect_with_events};
use serde_json::json;

const KEYS: &str =
    "k-read=read,bookings:read;k-admin=read,admin,bookings:read,bookings:write;k-none=";

fn bearer(key_var: &str) -> String {
    format!("Bearer ${{{key_var}}}")
}

#[tokio::test]
async fn stateless_json_endpoint_with_scoped_key() {
    let fx = HttpFixture::start(KEYS);
    let auth = bearer("FX_KEY");
    let def = http_def(&fx.url("/mcp"), &[("Authorization", &auth)]);
    let mut conn = connect(&def, here(), &vars(&[("FX_KEY", "k-read")]))
        .await
        .expect("connects");
    assert_eq!(conn.protocol_version(), "2025-11-25");
    assert_eq!(conn.identity().name.as_deref(), Some("mcpdeck-fixture"));
    assert_eq!(conn.secrets(), ["k-read".to_owned()]);
    let tools = conn.peer().list_tools(None).await.expect("lists");
    let names: Vec<&str> = tools.tools.iter().map(|t| t.name.as_ref()).collect();
    assert!(names.contains(&"search_bookings"));
    assert!(
        !names.contains(&"cancel_booking"),
        "write tool hidden from a read key"
    );
    let search = tools
        .tools
        .iter()
        .find(|t| t.name == "search_bookings")
        .expect("listed");
    assert!(search.output_schema.is_some());
    let meta = search.meta.as_ref().expect("_meta");
    assert_eq!(meta.0["owner"], "team-bookings");
    assert_eq!(meta.0["deprecatedAliases"][0], "find_bookings");
    let r = call(&conn, "search_bookings", json!({"q": "oslo"}))
        .await
        .expect("calls");
    assert_eq!(
        r.structured_content.expect("structured")["items"][0]["q"],
        "oslo"
    );
    assert!(conn.close().await.is_none());
}

#[tokio::test]
async fn key_without_scopes_sees_no_tools() {
    let fx = HttpFixture::start(KEYS);
    let def = http_def(&fx.url("/mcp"), &[("Authorization", "Bearer k-none")]);
    let mut conn = connect(&def, here(), &no_vars).await.expect("connects");
    let tools = conn.peer().list_tools(None).await.expect("lists");
    assert!(tools.tools.is_empty(), "{:?}", tools.tools);
    conn.close().await;
}

#[tokio::test]
async fn auto_and_modern_over_http() {
    let fx = HttpFixture::start(KEYS);
    for choice in [ProtocolChoice::Auto, ProtocolChoice::Modern] {
        let mut def = http_def(&fx.url("/mcp"), &[("Authorization", "Bearer k-admin")]);
        def.protocol = choice;
        let mut conn = connect(&def, here(), &no_vars).await.expect("connects");
        assert_eq!(conn.protocol_version(), "2026-07-28", "{choice:?}");
        let r = call(&conn, "echo", json!({"text": "v"}))
            .await
            .expect("echo");
        assert_eq!(first_text(&r), "v");
        conn.close().await;
    }
}

#[tokio::test]
async fn stateful_endpoint_delivers_progress() {
    let fx = HttpFixture::start(KEYS);
    let def = http_def(&fx.url("/stateful"), &[("Authorization", "Bearer k-admin")]);
    let (tx, mut rx) = tokio::sync::mpsc::channel(64);
    let mut conn = connect_with_events(&def, here(), &no_vars, Some(tx))
        .await
        .expect("connects");
    let r = call(&conn, "slow", json!({"steps": 3, "delay_ms": 20}))
        .await
        .expect("slow");
    assert_eq!(first_text(&r), "done 3 steps");
    let mut progress = 0;
    while let Ok(Some(ev)) = tokio::time::timeout(Duration::from_secs(2), rx.recv()).await {
        if matches!(ev.event, ConnectionEvent::Progress { .. }) {
            progress += 1;
            if progress == 3 {
                break;
            }
        }
    }
    assert_eq!(progress, 3);
    conn.close().await;
}

#[tokio::test]
async fn unknown_key_is_auth_required_and_not_echoed() {
    let fx = HttpFixture::start(KEYS);
    let auth = bearer("FX_KEY");
    let def = http_def(&fx.url("/mcp"), &[("Authorization", &auth)]);
    let err = connect(&def, here(), &vars(&[("FX_KEY", "wrong-secret-key")]))
        .await
        .expect_err("refused");
    assert_eq!(
        err.class,
        ErrorClass::AuthRequired {
            code: 401,
            scope: None
        }
    );
    assert!(!err.to_string().contains("wrong-secret-key"));
}

#[tokio::test]
async fn html_page_is_not_mcp() {
    let fx = HttpFixture::start(KEYS);
    let def = http_def(&fx.url("/html"), &[]);
    let err = connect(&def, here(), &no_vars).await.expect_err("not mcp");
    assert!(
        matches!(&err.class, ErrorClass::NotMcp { content_type: Some(ct) } if ct.contains("text/html")),
        "{err:?}"
    );
    assert!(err.message.contains("HTML"), "{}", err.message);
}

#[tokio::test]
async fn closed_port_is_refused() {
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("binds");
        l.local_addr().expect("addr").port()
    };
    let def = http_def(&format!("http://127.0.0.1:{port}/mcp"), &[]);
    let err = connect(&def, here(), &no_vars).await.expect_err("refused");
    assert_eq!(err.class, ErrorClass::Refused, "{err:?}");
}

#[tokio::test]
async fn redirect_is_not_followed_with_credentials() {
    let fx = HttpFixture::start(KEYS);
    let auth = bearer("FX_KEY");
    let def = http_def(&fx.url("/redirect"), &[("Authorization", &auth)]);
    let err = connect(&def, here(), &vars(&[("FX_KEY", "k-admin")]))
        .await
        .expect_err("redirect refused");
    assert_eq!(err.class, ErrorClass::HttpStatus { code: 307 }, "{err:?}");
    assert!(
        err.message
            .contains(&format!("http://127.0.0.1:{}", fx.capture_port)),
        "{}",
        err.message
    );
    let seen = fx.seen().await;
    assert_eq!(
        seen["requests"], 0,
        "the redirect target was contacted: {seen}"
    );
    assert_eq!(seen["with_auth"], 0);
}

#[tokio::test]
async fn echoed_secret_never_appears_in_errors() {
    let fx = HttpFixture::start(KEYS);
    let auth = bearer("FX_KEY");
    let secret = "s3cret-token-value-42";
    for path in ["/echo", "/echo-json"] {
        let def = http_def(&fx.url(path), &[("Authorization", &auth)]);
        let err = connect(&def, here(), &vars(&[("FX_KEY", secret)]))
            .await
            .expect_err("fails");
        let text = format!(
            "{err} {err:?} {}",
            serde_json::to_string(&err).expect("json")
        );
        assert!(!text.contains(secret), "{path}: {text}");
        if path == "/echo" {
            assert_eq!(err.class, ErrorClass::HttpStatus { code: 400 }, "{err:?}");
        }
        if path == "/echo-json" {
            // The server's JSON-RPC message is shown, with the secret replaced.
            assert_eq!(err.class, ErrorClass::Protocol, "{err:?}");
            assert!(err.message.contains(REDACTED), "{}", err.message);
        }
    }
}

#[tokio::test]
async fn reserved_header_is_refused() {
    let def = http_def("http://127.0.0.1:9/mcp", &[("Mcp-Session-Id", "x")]);
    let err = connect(&def, here(), &no_vars).await.expect_err("refused");
    assert_eq!(err.class, ErrorClass::Protocol);
    assert!(err.message.contains("Mcp-Session-Id"));
}

// Paused and held time: the timeout fires when the test moves the clock to it, not before.
#[tokio::test(start_paused = true)]
async fn oversized_http_body_is_a_limit_and_timeouts_are_classified() {
    let held = Held::new();
    let dir = tempfile::tempdir().expect("tempdir");
    let events = dir.path().join("events");
    let fx = HttpFixture::start_with(KEYS, &[("FIXTURE_EVENTS", &events)]);
    let def = http_def(&fx.url("/mcp"), &[("Authorization", "Bearer k-admin")]);
    let mut conn = connect(&def, here(), &no_vars).await.expect("connects");
    let err = call(&conn, "big_text", json!({"size": 17 * 1024 * 1024}))
        .await
        .expect_err("too large");
    assert!(matches!(err.class, ErrorClass::Limit { .. }), "{err:?}");
    let err = hang_times_out(&held, &conn, &events, Duration::from_millis(300)).await;
    assert_eq!(err.class, ErrorClass::Timeout { after_ms: 300 });
    // Still usable afterwards.
    assert_eq!(
        first_text(
            &call(&conn, "echo", json!({"text": "k"}))
                .await
                .expect("echo")
        ),
        "k"
    );
    conn.close().await;
}

#[tokio::test]
async fn expired_session_fails_the_request_without_resending_it() {
    let fx = HttpFixture::start(KEYS);
    let def = http_def(
        &fx.url("/stateful-expiring"),
        &[("Authorization", "Bearer k-admin")],
    );
    let mut conn = connect(&def, here(), &no_vars).await.expect("connects");
    assert_eq!(
        first_text(&call(&conn, "count", json!({})).await.expect("count")),
        "1"
    );
    // The server drops a session after 300 ms without requests, on its own clock: a real
    // process, so paused time cannot reach it, and it reports nothing when the session goes (its
    // server instance ends a moment before the session leaves rmcp's table, where 404 comes
    // from). This wait is the behaviour under test (idle expiry), not synchronisation.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let err = call(&conn, "echo", json!({"text": "after expiry"}))
        .await
        .expect_err("the expired session fails the request");
    assert_eq!(err.class, ErrorClass::Protocol, "{err:?}");
    assert!(err.message.contains("expired"), "{}", err.message);
    // Had the transport re-initialized and re-sent the echo, the server would have run three
    // tools/call by now (count, echo, this count); without replay it ran two.
    let mut fresh = connect(&def, here(), &no_vars).await.expect("reconnects");
    let total = first_text(&call(&fresh, "count", json!({})).await.expect("count"));
    assert_eq!(total, "2");
    fresh.close().await;
    conn.close().await;
}

#[tokio::test]
async fn https_to_a_plain_http_port_is_tls() {
    let fx = HttpFixture::start(KEYS);
    let url = fx.url("/mcp").replace("http://", "https://");
    let err = connect(&http_def(&url, &[]), here(), &no_vars)
        .await
        .expect_err("no TLS there");
    assert_eq!(err.class, ErrorClass::Tls, "{err:?}");
}

#[tokio::test]
async fn unresolvable_host_is_dns() {
    // `.invalid` never resolves (RFC 6761).
    let def = http_def("http://mcpdeck-no-such-host.invalid/mcp", &[]);
    let err = connect(&def, here(), &no_vars)
        .await
        .expect_err("no such host");
    assert_eq!(err.class, ErrorClass::Dns, "{err:?}");
}

/// Accepts one connection, reads its request head, answers `503` with `Connection: close`,
/// and returns once the client has closed the connection: it has read the answer, so what it
/// does next (a backoff) has begun.
async fn answer_503_once(listener: &tokio::net::TcpListener) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (mut stream, _) = listener.accept().await.expect("accepts");
    let mut head = Vec::new();
    let mut buf = [0u8; 4096];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") {
        let n = stream.read(&mut buf).await.expect("reads");
        assert!(n > 0, "the request ended before its head");
        head.extend_from_slice(&buf[..n]);
    }
    stream
        .write_all(
            b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
        )
        .await
        .expect("writes");
    stream.shutdown().await.expect("shuts down");
    while stream.read(&mut buf).await.is_ok_and(|n| n > 0) {}
}

// Paused and held time: each attempt is an event (a loopback server answers it `503`, which is
// transient), and between attempts the clock moves only as the test says, so each backoff is
// seen to be no shorter than `base × 2^n` and no longer than its 25 % jitter.
#[tokio::test(start_paused = true)]
async fn attempt_series_backs_off_and_stops_on_cancel() {
    use mcpdeck::mcp::config::ReconnectPolicy;
    use mcpdeck::mcp::connection::connect_series;
    use tokio_util::sync::CancellationToken;

    let held = Held::new();
    let unavailable = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("binds");
    let busy = http_def(
        &format!("http://{}/mcp", unavailable.local_addr().expect("addr")),
        &[],
    );
    let policy = ReconnectPolicy {
        automatic: true,
        max_attempts: 3,
        base_delay_ms: 100,
    };
    let never = CancellationToken::new();
    let series = connect_series(&busy, here(), &no_vars, (None, false), policy, &never);
    let mut series = std::pin::pin!(series);
    for backoff in [None, Some(100), Some(200)] {
        if let Some(ms) = backoff {
            let base = Duration::from_millis(ms);
            tokio::select! {
                biased;
                r = &mut series => panic!("the series ended in its backoff: {:?}", r.err()),
                _ = unavailable.accept() => panic!("the next attempt came before {base:?}"),
                () = held.advance(base.saturating_sub(Duration::from_millis(1))) => {}
            }
            held.advance(base / 4 + Duration::from_millis(1)).await;
        }
        if backoff == Some(200) {
            break;
        }
        tokio::select! {
            biased;
            r = &mut series => panic!("the series ended before its attempt: {:?}", r.err()),
            () = answer_503_once(&unavailable) => held.check(),
        }
    }
    // The third attempt is the last: the series ends with its answer.
    let (result, ()) = tokio::join!(series, answer_503_once(&unavailable));
    held.check();
    let err = result.expect_err("every attempt was answered 503");
    assert_eq!(err.class, ErrorClass::HttpStatus { code: 503 }, "{err:?}");

    // A backoff far longer than the test may take, so only cancellation can end it: the cancel
    // comes once the first attempt was answered 503 (the 8 s backoff has begun), and the series
    // ends with no time passing.
    let slow = ReconnectPolicy {
        automatic: true,
        max_attempts: 3,
        base_delay_ms: 8_000,
    };
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    let started = tokio::time::Instant::now();
    let (result, ()) = tokio::join!(
        connect_series(&busy, here(), &no_vars, (None, false), slow, &cancel),
        async {
            answer_503_once(&unavailable).await;
            trigger.cancel();
        }
    );
    assert_eq!(result.expect_err("cancelled").class, ErrorClass::Cancelled);
    assert_eq!(
        started.elapsed(),
        Duration::ZERO,
        "cancel interrupts the backoff"
    );
    held.check();

    // Non-transient failures are not retried: a missing variable fails at once.
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").expect("binds");
        l.local_addr().expect("addr").port()
    };
    let auth = bearer("UNSET_KEY");
    let def = http_def(
        &format!("http://127.0.0.1:{port}/mcp"),
        &[("Authorization", &auth)],
    );
    let err = connect_series(&def, here(), &no_vars, (None, false), slow, &never)
        .await
        .expect_err("missing env");
    assert!(matches!(err.class, ErrorClass::MissingEnv { .. }));
}

#[tokio::test]
async fn same_origin_307_is_followed() {
    let fx = HttpFixture::start(KEYS);
    let def = http_def(
        &fx.url("/same-redirect"),
        &[("Authorization", "Bearer k-read")],
    );
    let mut conn = connect(&def, here(), &no_vars)
        .await
        .expect("follows to /mcp");
    let r = call(&conn, "echo", json!({"text": "moved"}))
        .await
        .expect("echo");
    assert_eq!(first_text(&r), "moved");
    conn.close().await;
}

/// A 2026-07-28 listen whose stream drops (closed without a response) is listened again with
/// the same filter, and what the server sends on the new stream arrives. The fixture sends a
/// notification only when the filter asks for it, and never on the first stream, so the
/// tools-list change proves the re-listen; the resource subscription then joins the lists in
/// one filter.
#[tokio::test]
async fn a_dropped_listen_is_listened_again_and_later_changes_arrive() {
    let dir = tempfile::tempdir().expect("tempdir");
    let events = dir.path().join("events");
    let fx = HttpFixture::start_with(KEYS, &[("FIXTURE_EVENTS", &events)]);
    let mut def = http_def(&fx.url("/raw/listen-drop"), &[]);
    def.protocol = ProtocolChoice::Modern;
    let (tx, mut rx) = tokio::sync::mpsc::channel(64);
    let mut conn = connect_with_events(&def, here(), &no_vars, Some(tx))
        .await
        .expect("connects");
    assert!(conn.is_modern());
    conn.listen_lists(true)
        .await
        .expect("list changes acknowledged");
    wait_for(&mut rx, |e| matches!(e, ConnectionEvent::ToolListChanged)).await;
    conn.listen_resource("mem://watched", true)
        .await
        .expect("the resource acknowledged");
    wait_for(
        &mut rx,
        |e| matches!(e, ConnectionEvent::ResourceUpdated { uri } if uri == "mem://watched"),
    )
    .await;
    let listens: Vec<serde_json::Value> = std::fs::read_to_string(&events)
        .expect("events")
        .lines()
        .filter_map(|l| l.strip_prefix("listen "))
        .map(|l| serde_json::from_str(l).expect("a filter"))
        .collect();
    let lists = json!({"toolsListChanged": true, "resourcesListChanged": true});
    let mut both = lists.clone();
    both["resourceSubscriptions"] = json!(["mem://watched"]);
    assert_eq!(listens, [lists.clone(), lists, both]);
    conn.close().await;
}

async fn wait_for(
    rx: &mut tokio::sync::mpsc::Receiver<mcpdeck::mcp::connection::ServerEvent>,
    wanted: impl Fn(&ConnectionEvent) -> bool,
) {
    loop {
        let ev = tokio::time::timeout(Duration::from_secs(10), rx.recv())
            .await
            .expect("the notification arrives")
            .expect("the channel stays open");
        if wanted(&ev.event) {
            return;
        }
    }
}
