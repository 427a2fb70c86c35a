//! Integration tests of stdio connections against `mcpdeck-fixture`: handshake and versions,
//! environment, requests, timeouts and cancellation, crashes, limits and process cleanup.

use crate::common::fs_wait::until_changed;
use crate::connection_support;

use std::time::Duration;

use connection_support::*;
use mcpdeck::mcp::config::ProtocolChoice;
use mcpdeck::mcp::connection::MINIMAL_ENV;
use mcpdeck::mcp::connection::{
    ConnectionEvent, ErrorClass, connect, connect_with_events, max_total_for,
};
use serde_json::json;
use tokio_util::sync::CancellationToken;

#[tokio::test]
async fn legacy_handshake_reports_server_and_version() {
    let mut conn = connect(&stdio_def(&[], &[]), here(), &no_vars)
        .await
        .expect("connects");
    let id = conn.identity();
    assert_eq!(id.protocol_version, "2025-11-25");
    assert_eq!(id.name.as_deref(), Some("mcpdeck-fixture"));
    assert!(id.capabilities.tools.is_some());
    assert!(conn.is_alive());
    let r = call(&conn, "echo", json!({"text": "hi"}))
        .await
        .expect("echo");
    assert_eq!(first_text(&r), "hi");
    let exit = conn.close().await.expect("stdio exit info");
    assert!(!exit.on_its_own);
    assert!(!conn.is_alive());
}

#[tokio::test]
async fn auto_and_modern_negotiate_2026_07_28() {
    for choice in [ProtocolChoice::Auto, ProtocolChoice::Modern] {
        let mut def = stdio_def(&[], &[]);
        def.protocol = choice;
        let mut conn = connect(&def, here(), &no_vars).await.expect("connects");
        assert_eq!(conn.protocol_version(), "2026-07-28", "{choice:?}");
        let r = call(&conn, "add", json!({"a": 2, "b": 3}))
            .await
            .expect("add");
        assert_eq!(r.structured_content, Some(json!({"sum": 5})));
        conn.close().await;
    }
}

#[tokio::test]
async fn child_gets_minimal_env_plus_configured_and_cwd() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut def = stdio_def(&[], &[("FIXTURE_SECRET", "${MY_TOKEN}")]);
    if let mcpdeck::mcp::config::Transport::Stdio(s) = &mut def.transport {
        s.cwd = Some("sub".into());
    }
    std::fs::create_dir(dir.path().join("sub")).expect("mkdir");
    // Some variable of this test process outside the minimal set must not reach the child.
    let outsider = std::env::vars()
        .map(|(k, _)| k)
        .find(|k| !MINIMAL_ENV.contains(&k.as_str()) && !k.starts_with("FIXTURE_"))
        .expect("the test process has some variable outside the minimal set");
    let mut conn = connect(&def, dir.path(), &vars(&[("MY_TOKEN", "tok-123")]))
        .await
        .expect("connects");
    assert_eq!(conn.secrets(), ["tok-123".to_owned()]);
    let got = |name: &str| call(&conn, "env", json!({"name": name}));
    assert_eq!(
        first_text(&got("FIXTURE_SECRET").await.expect("env")),
        "tok-123"
    );
    assert_eq!(first_text(&got(&outsider).await.expect("env")), "<unset>");
    assert_ne!(first_text(&got("PATH").await.expect("env")), "<unset>");
    let cwd = first_text(&call(&conn, "cwd", json!({})).await.expect("cwd"));
    assert!(cwd.ends_with("/sub"), "{cwd}");
    conn.close().await;
}

#[tokio::test]
async fn missing_env_names_the_variable_and_spawns_nothing() {
    let def = stdio_def(&["--grandchild"], &[("API_TOKEN", "${NOT_SET_ANYWHERE}")]);
    let err = connect(&def, here(), &no_vars).await.expect_err("fails");
    assert_eq!(
        err.class,
        ErrorClass::MissingEnv {
            variable: "NOT_SET_ANYWHERE".into()
        }
    );
    assert!(err.message.contains("NOT_SET_ANYWHERE"));
}

#[tokio::test]
async fn spawn_failed_for_a_missing_binary() {
    let mut def = stdio_def(&[], &[]);
    if let mcpdeck::mcp::config::Transport::Stdio(s) = &mut def.transport {
        s.command = "/nonexistent/mcpdeck-no-such-server".into();
    }
    let err = connect(&def, here(), &no_vars).await.expect_err("fails");
    assert_eq!(
        err.class,
        ErrorClass::SpawnFailed {
            os_error: "NotFound".into()
        }
    );
}

#[tokio::test]
async fn exit_at_start_is_exited_with_stderr_tail() {
    let err = connect(&stdio_def(&["--exit-at-start", "7"], &[]), here(), &no_vars)
        .await
        .expect_err("fails");
    let ErrorClass::Exited {
        status,
        stderr_tail,
    } = &err.class
    else {
        panic!("expected exited, got {err:?}");
    };
    assert!(status.contains('7'), "{status}");
    assert!(
        stderr_tail
            .iter()
            .any(|l| l.contains("configuration file missing")),
        "{stderr_tail:?}"
    );
    assert!(err.message.contains("configuration file missing"));
}

// Paused and held time: the timeout fires when the test moves the clock to it, not before.
#[tokio::test(start_paused = true)]
async fn timeout_sends_cancellation_to_the_server() {
    let held = Held::new();
    let dir = tempfile::tempdir().expect("tempdir");
    let events = temp_file(&dir, "events");
    let events_s = events.to_string_lossy().into_owned();
    let mut conn = connect(
        &stdio_def(&[], &[("FIXTURE_EVENTS", &events_s)]),
        here(),
        &no_vars,
    )
    .await
    .expect("connects");
    let err = hang_times_out(&held, &conn, &events, Duration::from_millis(300)).await;
    assert_eq!(err.class, ErrorClass::Timeout { after_ms: 300 });
    let saw = until_changed(dir.path(), Duration::from_secs(5), || {
        std::fs::read_to_string(&events).is_ok_and(|s| s.contains("cancelled hang"))
    })
    .await;
    assert!(saw, "the fixture never saw notifications/cancelled");
    // The connection stays usable after a timeout.
    assert_eq!(
        first_text(
            &call(&conn, "echo", json!({"text": "ok"}))
                .await
                .expect("echo")
        ),
        "ok"
    );
    conn.close().await;
}

#[tokio::test]
async fn cancellation_token_cancels_the_request() {
    let dir = tempfile::tempdir().expect("tempdir");
    let events = temp_file(&dir, "events");
    let events_s = events.to_string_lossy().into_owned();
    let mut conn = connect(
        &stdio_def(&[], &[("FIXTURE_EVENTS", &events_s)]),
        here(),
        &no_vars,
    )
    .await
    .expect("connects");
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    let t = Duration::from_secs(10);
    let (result, ()) = tokio::join!(
        conn.request_cancellable(
            call_request("hang", json!({})),
            t,
            max_total_for(t),
            &cancel
        ),
        async {
            // Cancelled once the server is running the call (its own report), not after a delay.
            let started = until_changed(dir.path(), Duration::from_secs(5), || {
                std::fs::read_to_string(&events).is_ok_and(|s| s.contains("started hang"))
            })
            .await;
            assert!(started, "the fixture never started the hang call");
            trigger.cancel();
        }
    );
    assert_eq!(result.expect_err("cancelled").class, ErrorClass::Cancelled);
    assert!(
        until_changed(dir.path(), Duration::from_secs(5), || {
            std::fs::read_to_string(&events).is_ok_and(|s| s.contains("cancelled hang"))
        })
        .await
    );
    conn.close().await;
}

// Paused and held time: the idle timeout is seen to restart at each progress report.
#[tokio::test(start_paused = true)]
async fn progress_and_notifications_reach_the_event_channel() {
    let held = Held::new();
    let (tx, mut rx) = tokio::sync::mpsc::channel(64);
    let mut conn = connect_with_events(&stdio_def(&[], &[]), here(), &no_vars, Some(tx))
        .await
        .expect("connects");
    // (progress reports, tool list changed, logged)
    let mut seen = (0, false, false);
    let note = |seen: &mut (u32, bool, bool), ev: mcpdeck::mcp::connection::ServerEvent| {
        assert_eq!(&*ev.server, "fx");
        match ev.event {
            ConnectionEvent::Progress { .. } => seen.0 += 1,
            ConnectionEvent::ToolListChanged => seen.1 = true,
            ConnectionEvent::Log { .. } => seen.2 = true,
            _ => {}
        }
    };
    // Progress resets the idle timeout: after each of the 5 reports the clock moves on 500 ms,
    // under the 600 ms idle timeout each time and 2.5 s in all, and the call still finishes.
    let t = Duration::from_millis(600);
    let step = Duration::from_millis(500);
    let mut moved = Duration::ZERO;
    {
        let request = conn.request(
            call_request("slow", json!({"steps": 5, "delay_ms": 50})),
            t,
            Duration::from_secs(10),
        );
        let mut request = std::pin::pin!(request);
        let answer = loop {
            tokio::select! {
                biased;
                r = &mut request => break r,
                ev = rx.recv() => {
                    let ev = ev.expect("the event channel stays open");
                    let report = matches!(ev.event, ConnectionEvent::Progress { .. });
                    note(&mut seen, ev);
                    if report {
                        // The request restarts its timeout as the report reaches it: that runs
                        // first, then the clock moves.
                        if let Some(r) = held.advance_beside(&mut request, step).await {
                            break r;
                        }
                        moved += step;
                    }
                }
            }
        };
        answer.expect("slow finishes");
    }
    assert!(moved > t, "only {moved:?} passed during the call");
    call(&conn, "notify", json!({})).await.expect("notify");
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while !(seen.0 >= 4 && seen.1 && seen.2) {
        let Ok(Some(ev)) = tokio::time::timeout_at(deadline, rx.recv()).await else {
            break;
        };
        note(&mut seen, ev);
    }
    assert!(seen.0 >= 4 && seen.1 && seen.2, "{seen:?}");
    held.check();
    conn.close().await;
}

#[tokio::test]
async fn secrets_printed_to_stderr_are_redacted_in_exit_errors() {
    let secret = "tok-very-secret-991";
    let def = stdio_def(
        &["--exit-at-start", "1"],
        &[("FIXTURE_SECRET", "${MY_TOKEN}")],
    );
    let err = connect(&def, here(), &vars(&[("MY_TOKEN", secret)]))
        .await
        .expect_err("exits");
    let text = format!("{err} {}", serde_json::to_string(&err).expect("json"));
    assert!(!text.contains(secret), "{text}");
    assert!(text.contains(mcpdeck::mcp::connection::REDACTED), "{text}");
}

/// With traffic tapped, every JSON-RPC message is reported: requests with their method and id,
/// answers with the request's method and a latency, sizes, and bodies with the connection's
/// secrets redacted. Without it, no traffic event is sent.
#[tokio::test]
async fn traffic_is_reported_with_latency_and_redacted_bodies() {
    use mcpdeck::mcp::connection::connect_observed;
    let secret = "tok-traffic-4471";
    let def = stdio_def(&[], &[("FIXTURE_SECRET", "${MY_TOKEN}")]);
    let lookup = vars(&[("MY_TOKEN", secret)]);
    let (tx, mut rx) = tokio::sync::mpsc::channel(256);
    let mut conn = connect_observed(&def, here(), &lookup, Some(tx), true)
        .await
        .expect("connects");
    let got = call(&conn, "env", json!({"name": "FIXTURE_SECRET"}))
        .await
        .expect("env");
    assert_eq!(first_text(&got), secret, "the call itself is untouched");
    conn.close().await;
    let mut traffic = Vec::new();
    while let Ok(ev) = rx.try_recv() {
        if let ConnectionEvent::Traffic(t) = ev.event {
            traffic.push(*t);
        }
    }
    let init = traffic
        .iter()
        .find(|t| t.outgoing && t.method.as_deref() == Some("initialize"))
        .expect("the initialize request");
    assert_eq!(init.kind, "request");
    let answer = traffic
        .iter()
        .find(|t| !t.outgoing && t.id == init.id)
        .expect("its answer");
    assert_eq!(answer.kind, "response");
    assert_eq!(answer.method.as_deref(), Some("initialize"));
    assert!(answer.latency.is_some());
    assert!(
        traffic
            .iter()
            .any(|t| t.outgoing && t.kind == "notification")
    );
    let call_answer = traffic
        .iter()
        .find(|t| !t.outgoing && t.method.as_deref() == Some("tools/call"))
        .expect("the tools/call answer");
    // The size is the message's own; the body differs only by the redaction.
    let hits = call_answer.body.matches("[redacted]").count();
    assert!(hits >= 1, "{call_answer:?}");
    assert_eq!(
        call_answer.bytes,
        call_answer.body.len() - hits * "[redacted]".len() + hits * secret.len()
    );
    for t in &traffic {
        assert!(!t.body.contains(secret), "{t:?}");
    }

    // Off: the same connection reports no traffic.
    let (tx, mut rx) = tokio::sync::mpsc::channel(256);
    let mut conn = connect_observed(&def, here(), &lookup, Some(tx), false)
        .await
        .expect("connects");
    call(&conn, "echo", json!({"text": "x"}))
        .await
        .expect("echo");
    conn.close().await;
    while let Ok(ev) = rx.try_recv() {
        assert!(!matches!(ev.event, ConnectionEvent::Traffic(_)), "{ev:?}");
    }
}
