//! The workspace server's single producer slot over a real MCP session (in-process duplex
//! transport): a concurrent call gets `server_busy`; a producer that ignores cancellation past
//! its timeout and grace keeps the slot quarantined until it exits. A hook holds the producer
//! open deterministically; nothing synchronises on a sleep.

#![allow(clippy::unwrap_used)]

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcpdeck::workspace::server::ProduceHook;
use mcpdeck::workspace::{Limits, Observability, Observer, WorkspaceServer, bind_all};
use rmcp::ServiceExt as _;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(30);

struct Gate {
    started: mpsc::Sender<()>,
    release: Mutex<mpsc::Receiver<()>>,
}

/// A hook that reports each producer start and then waits for one release.
fn gate() -> (ProduceHook, mpsc::Receiver<()>, mpsc::Sender<()>) {
    let (started_tx, started_rx) = mpsc::channel();
    let (release_tx, release_rx) = mpsc::channel();
    let gate = Arc::new(Gate {
        started: started_tx,
        release: Mutex::new(release_rx),
    });
    let hook: ProduceHook = Arc::new(move |_tool| {
        let _ = gate.started.send(());
        let _ = gate.release.lock().unwrap().recv();
    });
    (hook, started_rx, release_tx)
}

async fn start(
    limits: Limits,
    hook: ProduceHook,
) -> (RunningService<RoleClient, ()>, tempfile::TempDir) {
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("README.md"), "# A\n\nprecedence rules\n").unwrap();
    let bindings = bind_all(&[("ws".into(), ws.path().to_path_buf())]).unwrap();
    let server = WorkspaceServer::with_hook(
        bindings,
        Observer::new(Observability::Off),
        limits,
        Some(hook),
    )
    .unwrap();
    let (a, b) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        let running = server.serve(a).await.unwrap();
        let _ = running.waiting().await;
    });
    let client = ().serve(b).await.unwrap();
    (client, ws)
}

fn params() -> CallToolRequestParams {
    let Value::Object(map) = json!({"workspace": "ws", "question": "precedence"}) else {
        unreachable!()
    };
    CallToolRequestParams::new("workspace_find").with_arguments(map)
}

fn status(result: &CallToolResult) -> (String, String) {
    let s = result.structured_content.as_ref().unwrap();
    (
        s["status"].as_str().unwrap().to_owned(),
        s["reason"].as_str().unwrap_or("").to_owned(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_concurrent_call_gets_server_busy() {
    let (hook, started, release) = gate();
    let (client, _ws) = start(Limits::default(), hook).await;
    let peer = client.peer().clone();
    let first = tokio::spawn(async move { peer.call_tool(params()).await.unwrap() });
    tokio::task::spawn_blocking(move || started.recv().unwrap())
        .await
        .unwrap();
    let second = tokio::time::timeout(WAIT, client.call_tool(params()))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(status(&second), ("refused".into(), "server_busy".into()));
    assert_eq!(second.is_error, Some(true));
    release.send(()).unwrap();
    let first = tokio::time::timeout(WAIT, first).await.unwrap().unwrap();
    assert_eq!(status(&first), ("known".into(), String::new()));
    // The slot is free again as soon as the first answer arrived.
    release.send(()).unwrap();
    let third = tokio::time::timeout(WAIT, client.call_tool(params()))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(status(&third).0, "known");
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_producer_ignoring_cancellation_is_quarantined_until_it_exits() {
    let (hook, started, release) = gate();
    let limits = Limits {
        timeout: Duration::from_millis(50),
        grace: Duration::from_millis(50),
    };
    let (client, _ws) = start(limits, hook).await;
    let first = tokio::time::timeout(WAIT, client.call_tool(params()))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(status(&first), ("refused".into(), "timeout".into()));
    started.recv().unwrap();
    // The producer is still parked in the hook: the slot stays quarantined.
    for _ in 0..3 {
        let busy = tokio::time::timeout(WAIT, client.call_tool(params()))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(status(&busy), ("refused".into(), "server_busy".into()));
    }
    // Let the quarantined producer (and the next one) finish.
    release.send(()).unwrap();
    release.send(()).unwrap();
    let mut answered = None;
    for _ in 0..10_000 {
        let r = tokio::time::timeout(WAIT, client.call_tool(params()))
            .await
            .unwrap()
            .unwrap();
        if status(&r).1 != "server_busy" {
            answered = Some(r);
            break;
        }
        tokio::task::yield_now().await;
    }
    assert_eq!(status(&answered.expect("the slot is released")).0, "known");
    client.cancel().await.unwrap();
}
