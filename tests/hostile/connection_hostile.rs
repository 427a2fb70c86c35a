//! Hostile stdio servers: crashes mid-call (no replay), exits, oversized frames, junk output,
//! stderr floods, and process-group cleanup after close and after drop.

use crate::common::fs_wait::until_changed;
use crate::common::pid_wait::ended_within;
use crate::connection_support;

use std::time::Duration;

use connection_support::*;
use mcpdeck::mcp::connection::STDERR_RING_BYTES;
use mcpdeck::mcp::connection::{ConnectionEvent, ErrorClass, connect, connect_with_events};
use serde_json::json;

#[tokio::test]
async fn crash_mid_call_runs_once_and_fails_without_replay() {
    let dir = tempfile::tempdir().expect("tempdir");
    let counter = temp_file(&dir, "counter");
    let counter_s = counter.to_string_lossy().into_owned();
    let mut conn = connect(
        &stdio_def(&[], &[("FIXTURE_COUNTER", &counter_s)]),
        here(),
        &no_vars,
    )
    .await
    .expect("connects");
    let err = call(&conn, "crash", json!({}))
        .await
        .expect_err("crash fails");
    let ErrorClass::Exited {
        status,
        stderr_tail,
    } = &err.class
    else {
        panic!("expected exited, got {err:?}");
    };
    assert!(status.contains('3'), "{status}");
    assert!(
        stderr_tail
            .iter()
            .any(|l| l.contains("crashing on purpose"))
    );
    assert!(!conn.is_alive());
    // A later request fails too and is not sent anywhere.
    assert!(call(&conn, "echo", json!({"text": "x"})).await.is_err());
    let calls = std::fs::read_to_string(&counter).expect("counter written");
    assert_eq!(calls.lines().collect::<Vec<_>>(), ["crash"]);
    conn.close().await;
}

#[tokio::test]
async fn no_leaked_processes_after_close() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pidfile = temp_file(&dir, "gc");
    let pid_s = pidfile.to_string_lossy().into_owned();
    let mut conn = connect(
        &stdio_def(&["--grandchild"], &[("FIXTURE_GRANDCHILD_PID", &pid_s)]),
        here(),
        &no_vars,
    )
    .await
    .expect("connects");
    let pgid = conn.process().expect("stdio").pid();
    let grandchild: u32 = std::fs::read_to_string(&pidfile)
        .expect("pid written")
        .trim()
        .parse()
        .expect("pid");
    assert!(pid_alive(grandchild));
    assert!(group_alive(pgid));
    conn.close().await;
    assert!(
        ended_within(pgid, Duration::from_secs(5)).await
            && ended_within(grandchild, Duration::from_secs(5)).await
            && !group_alive(pgid),
        "process group {pgid} survived close()"
    );
}

#[tokio::test]
async fn no_leaked_processes_after_drop() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pidfile = temp_file(&dir, "gc");
    let pid_s = pidfile.to_string_lossy().into_owned();
    let conn = connect(
        &stdio_def(
            &["--grandchild", "--ignore-eof"],
            &[("FIXTURE_GRANDCHILD_PID", &pid_s)],
        ),
        here(),
        &no_vars,
    )
    .await
    .expect("connects");
    let pgid = conn.process().expect("stdio").pid();
    let grandchild: u32 = std::fs::read_to_string(&pidfile)
        .expect("pid written")
        .trim()
        .parse()
        .expect("pid");
    assert!(pid_alive(grandchild));
    drop(conn);
    assert!(
        ended_within(pgid, Duration::from_secs(3)).await
            && ended_within(grandchild, Duration::from_secs(3)).await
            && !group_alive(pgid),
        "process group {pgid} survived drop"
    );
}

/// The supervisor's grace after closing stdin, before it signals the group.
const SHUTDOWN_STEP: Duration = Duration::from_secs(2);

// Paused and held time: the group is signalled when the test moves the clock to the end of the
// grace, not before; and the next step (SIGKILL after another grace) cannot race the child's
// death from SIGTERM, which takes real time while the clock stands still.
#[tokio::test(start_paused = true)]
async fn server_ignoring_eof_is_terminated_by_the_group_signal() {
    let held = Held::new();
    let dir = tempfile::tempdir().expect("tempdir");
    let events = temp_file(&dir, "events");
    let events_s = events.to_string_lossy().into_owned();
    let mut conn = connect(
        &stdio_def(&["--ignore-eof"], &[("FIXTURE_EVENTS", &events_s)]),
        here(),
        &no_vars,
    )
    .await
    .expect("connects");
    let pgid = conn.process().expect("stdio").pid();
    let close = conn.close();
    let mut close = std::pin::pin!(close);
    // The grace starts once stdin is closed: the fixture says it read EOF and carries on. From
    // there to the grace's timer the close waits on nothing outside this process.
    tokio::select! {
        biased;
        exit = &mut close => panic!("closed before the grace: {exit:?}"),
        saw = until_changed(dir.path(), Duration::from_secs(10), || {
            std::fs::read_to_string(&events).is_ok_and(|s| s.contains("ignoring eof"))
        }) => assert!(saw, "the fixture never read EOF"),
    }
    // Just before the grace ends the group is untouched: alive, with no SIGTERM queued (a
    // signal sent early would be queued, or would have ended the process, by now).
    let early = held
        .advance_beside(
            &mut close,
            SHUTDOWN_STEP.saturating_sub(Duration::from_millis(1)),
        )
        .await;
    assert!(early.is_none(), "closed before the grace: {early:?}");
    assert!(
        group_alive(pgid) && !term_pending(pgid),
        "the group was signalled before the grace ended"
    );
    let exit = held
        .finishes_at(close, Duration::from_millis(1))
        .await
        .expect("exit info");
    assert!(
        exit.status.contains("SIGTERM") || exit.status.contains("signal: 15"),
        "{}",
        exit.status
    );
    assert!(!group_alive(pgid));
}

#[tokio::test]
async fn huge_line_at_start_is_a_limit() {
    let err = connect(&stdio_def(&["--huge-line"], &[]), here(), &no_vars)
        .await
        .expect_err("fails");
    assert!(matches!(err.class, ErrorClass::Limit { .. }), "{err:?}");
}

#[tokio::test]
async fn huge_result_closes_the_connection_with_limit() {
    let mut conn = connect(&stdio_def(&[], &[]), here(), &no_vars)
        .await
        .expect("connects");
    let pgid = conn.process().expect("stdio").pid();
    let err = call(&conn, "big_text", json!({"size": 17 * 1024 * 1024}))
        .await
        .expect_err("too large");
    assert!(matches!(err.class, ErrorClass::Limit { .. }), "{err:?}");
    assert!(!conn.is_alive());
    conn.close().await;
    assert!(ended_within(pgid, Duration::from_secs(5)).await && !group_alive(pgid));
}

#[tokio::test]
async fn just_under_the_limit_is_fine() {
    let mut conn = connect(&stdio_def(&[], &[]), here(), &no_vars)
        .await
        .expect("connects");
    let r = call(&conn, "big_text", json!({"size": 8 * 1024 * 1024}))
        .await
        .expect("8 MiB ok");
    assert_eq!(first_text(&r).len(), 8 * 1024 * 1024);
    conn.close().await;
}

#[tokio::test]
async fn garbage_lines_are_counted_and_skipped() {
    let mut conn = connect(&stdio_def(&["--garbage", "5"], &[]), here(), &no_vars)
        .await
        .expect("connects despite garbage");
    assert_eq!(conn.process().expect("stdio").non_json_lines(), 5);
    assert_eq!(
        first_text(
            &call(&conn, "echo", json!({"text": "y"}))
                .await
                .expect("echo")
        ),
        "y"
    );
    conn.close().await;
}

#[tokio::test]
async fn stderr_flood_is_bounded() {
    let flood: u64 = 8 * 1024 * 1024;
    let mut conn = connect(
        &stdio_def(&["--stderr-flood", &flood.to_string()], &[]),
        here(),
        &no_vars,
    )
    .await
    .expect("connects");
    let process = conn.process().expect("stdio");
    let mut written = process.stderr_written();
    let drained = tokio::time::timeout(
        Duration::from_secs(20),
        written.wait_for(|total| *total >= flood),
    )
    .await;
    assert!(
        drained.is_ok_and(|seen| seen.is_ok()),
        "flood never drained: {:?}",
        process.stderr_sizes()
    );
    let (kept, total) = process.stderr_sizes();
    assert!(kept <= STDERR_RING_BYTES, "{kept}");
    assert!(total >= flood);
    assert_eq!(
        first_text(
            &call(&conn, "echo", json!({"text": "z"}))
                .await
                .expect("echo")
        ),
        "z"
    );
    conn.close().await;
}

#[tokio::test]
async fn hostile_text_arrives_raw_for_the_consumer_to_sanitise() {
    let mut conn = connect(&stdio_def(&["--hostile-text"], &[]), here(), &no_vars)
        .await
        .expect("connects");
    let tools = conn.peer().list_tools(None).await.expect("lists");
    let evil = tools
        .tools
        .iter()
        .find(|t| t.name.starts_with("evil"))
        .expect("evil tool");
    let shown = mcpdeck::mcp::sanitize::sanitize(&evil.name);
    assert!(!shown.contains('\u{1b}') && !shown.contains('\u{202e}'));
    let instructions = conn.identity().instructions.clone().expect("instructions");
    assert!(instructions.contains('\u{1b}'), "raw in the engine's data");
    assert!(!mcpdeck::mcp::sanitize::sanitize(&instructions).contains('\u{1b}'));
    let resources = conn.peer().list_resources(None).await.expect("lists");
    assert!(
        resources
            .resources
            .iter()
            .any(|r| r.name.contains('\u{202e}'))
    );
    let r = call(&conn, "echo", json!({"text": "x"}))
        .await
        .expect("echo");
    assert!(
        first_text(&r).contains("\u{1b}]0;"),
        "hostile results reach the engine raw"
    );
    conn.close().await;
}

async fn page_cursors(args: &[&str], pages: usize) -> (Vec<Option<String>>, usize) {
    let mut conn = connect(&stdio_def(args, &[]), here(), &no_vars)
        .await
        .expect("connects");
    let mut cursors = Vec::new();
    let mut count = 0;
    let mut cursor: Option<String> = None;
    for _ in 0..pages {
        let params = cursor
            .clone()
            .map(|c| rmcp::model::PaginatedRequestParams::default().with_cursor(Some(c)));
        let page = conn.peer().list_tools(params).await.expect("page");
        count += page.tools.len();
        cursors.push(page.next_cursor.clone());
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => break,
        }
    }
    conn.close().await;
    (cursors, count)
}

#[tokio::test]
async fn fixture_cursor_modes_misbehave_as_configured() {
    let (repeat, _) = page_cursors(
        &["--tools", "100", "--page-size", "10", "--cursor", "repeat"],
        3,
    )
    .await;
    assert_eq!(repeat.len(), 3);
    assert_eq!(repeat[1], repeat[2], "repeat mode repeats its cursor");
    let (endless, _) = page_cursors(&["--page-size", "5", "--cursor", "endless"], 8).await;
    assert_eq!(endless.len(), 8);
    let unique: std::collections::HashSet<_> = endless.iter().collect();
    assert_eq!(
        unique.len(),
        8,
        "endless mode gives fresh cursors: {endless:?}"
    );
    let (normal, count) = page_cursors(&["--tools", "20000", "--page-size", "1000"], 100).await;
    assert_eq!(normal.last(), Some(&None));
    assert!(count > 20_000, "{count}");
}

// Paused and held time: the handshake times out when the test moves the clock to 500 ms, and
// the server (which never reads its stdin, so never sees it close) is signalled a grace later.
#[tokio::test(start_paused = true)]
async fn silent_server_times_out_the_handshake_and_is_cleaned_up() {
    let held = Held::new();
    let dir = tempfile::tempdir().expect("tempdir");
    let pidfile = temp_file(&dir, "gc");
    let pid_s = pidfile.to_string_lossy().into_owned();
    let mut def = stdio_def(
        &["--grandchild", "--silent"],
        &[("FIXTURE_GRANDCHILD_PID", &pid_s)],
    );
    def.request_timeout_ms = Some(500);
    let connecting = connect(&def, here(), &no_vars);
    let mut connecting = std::pin::pin!(connecting);
    // The server is running (its grandchild's pid written); the handshake's timer started before.
    tokio::select! {
        biased;
        r = &mut connecting => panic!("connect ended before the server ran: {:?}", r.err()),
        ran = until_changed(dir.path(), Duration::from_secs(10), || {
            std::fs::read_to_string(&pidfile).is_ok_and(|s| !s.is_empty())
        }) => assert!(ran, "the server never started its grandchild"),
    }
    for (by, then) in [(499, "before 500 ms"), (1, "before the grace")] {
        let ended = held
            .advance_beside(&mut connecting, Duration::from_millis(by))
            .await;
        assert!(
            ended.is_none(),
            "connect ended {then}: {:?}",
            ended.and_then(Result::err)
        );
    }
    let err = held
        .finishes_at(connecting, SHUTDOWN_STEP)
        .await
        .expect_err("times out");
    assert_eq!(err.class, ErrorClass::Timeout { after_ms: 500 });
    let grandchild: u32 = std::fs::read_to_string(&pidfile)
        .expect("pid written")
        .trim()
        .parse()
        .expect("pid");
    assert!(
        ended_within(grandchild, Duration::from_secs(8)).await,
        "grandchild of a timed-out server survived"
    );
}

#[tokio::test]
async fn unprompted_exit_is_reported_as_an_event() {
    let (tx, mut rx) = tokio::sync::mpsc::channel(16);
    let mut conn = connect_with_events(&stdio_def(&[], &[]), here(), &no_vars, Some(tx))
        .await
        .expect("connects");
    let _ = call(&conn, "crash", json!({})).await;
    let exited = tokio::time::timeout(Duration::from_secs(5), async {
        while let Some(ev) = rx.recv().await {
            if let ConnectionEvent::Exited { status } = ev.event {
                return Some(status);
            }
        }
        None
    })
    .await
    .ok()
    .flatten()
    .expect("an exited event");
    assert!(exited.contains('3'), "{exited}");
    let info = conn
        .process()
        .expect("stdio")
        .exit_info()
        .expect("exit info");
    assert!(info.on_its_own);
    conn.close().await;
}
