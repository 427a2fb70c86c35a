//! The engine façade in-process against the stdio fixture: reconnects coalesce, a dead
//! connection stays failed unless automatic reconnects are configured, notifications reach the
//! subscriber, and shutdown leaves no process and no spill.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::path::PathBuf;
use std::sync::Arc;

use common::fixture;
use mcpdeck::mcp::config::read_file;
use mcpdeck::mcp::config::{ConfigSet, Layer};
use mcpdeck::mcp::engine::{Engine, EngineOptions, EngineRequest};
use mcpdeck::mcp::proxy::ProxyRequest;
use mcpdeck::mcp::trust::TrustStore;
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn engine(
    dir: &tempfile::TempDir,
    servers: &serde_json::Value,
) -> (
    Arc<Engine>,
    tokio::sync::mpsc::Receiver<mcpdeck::mcp::connection::ServerEvent>,
) {
    common::engine_kit::engine(dir, servers, None)
}

fn stdio(extra: &serde_json::Value) -> serde_json::Value {
    let mut server = json!({"command": fixture(), "args": ["stdio"]});
    if let (Some(s), Some(e)) = (server.as_object_mut(), extra.as_object()) {
        s.extend(e.clone());
    }
    server
}

fn call(tool: &str) -> ProxyRequest {
    ProxyRequest::ToolsCall {
        server: "fx".into(),
        tool: tool.into(),
        args: serde_json::Map::new(),
    }
}

#[tokio::test]
async fn concurrent_reconnects_share_one_attempt() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, _rx) = engine(&dir, &json!({"fx": stdio(&json!({}))}));
    let cancel = CancellationToken::new();
    assert!(
        engine
            .run(
                &EngineRequest::Agent(ProxyRequest::ToolsList {
                    server: "fx".into()
                }),
                &cancel
            )
            .await
            .ok()
    );
    let reconnect = EngineRequest::Agent(ProxyRequest::Reconnect {
        server: "fx".into(),
    });
    let (a, b) = tokio::join!(
        engine.run(&reconnect, &cancel),
        engine.run(&reconnect, &cancel)
    );
    assert!(a.ok() && b.ok());
    let status = engine.status();
    assert_eq!(
        status.servers[0].runtime.connect_count, 2,
        "one initial connect + one coalesced reconnect"
    );
    engine.shutdown().await;
}

#[tokio::test]
async fn a_dead_connection_stays_failed_until_reconnected() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, _rx) = engine(&dir, &json!({"fx": stdio(&json!({}))}));
    let cancel = CancellationToken::new();
    let crashed = engine
        .run(&EngineRequest::Agent(call("crash")), &cancel)
        .await;
    assert_eq!(crashed.body.unwrap_err().class.name(), "exited");
    let next = engine
        .run(&EngineRequest::Agent(call("echo")), &cancel)
        .await;
    let failure = next.body.unwrap_err();
    assert_eq!(failure.class.name(), "exited");
    assert!(failure.message.contains("reconnect"), "{}", failure.message);
    assert_eq!(engine.status().servers[0].state.label(), "failed");
    let reconnected = engine
        .run(
            &EngineRequest::Agent(ProxyRequest::Reconnect {
                server: "fx".into(),
            }),
            &cancel,
        )
        .await;
    assert!(reconnected.ok());
    assert!(
        engine
            .run(
                &EngineRequest::Agent(ProxyRequest::ToolsList {
                    server: "fx".into()
                }),
                &cancel
            )
            .await
            .ok()
    );
    engine.shutdown().await;
}

#[tokio::test]
async fn automatic_reconnect_makes_a_fresh_connection_for_the_next_operation() {
    let dir = tempfile::tempdir().unwrap();
    let counter: PathBuf = dir.path().join("counter");
    let server = stdio(&json!({
        "env": {"FIXTURE_COUNTER": counter.to_str().unwrap()},
        "reconnect": {"automatic": true, "maxAttempts": 2, "baseDelayMs": 100}
    }));
    let (engine, _rx) = engine(&dir, &json!({"fx": server}));
    let cancel = CancellationToken::new();
    assert_eq!(
        engine
            .run(&EngineRequest::Agent(call("crash")), &cancel)
            .await
            .body
            .unwrap_err()
            .class
            .name(),
        "exited"
    );
    let mut args = serde_json::Map::new();
    args.insert("text".into(), json!("again"));
    let again = engine
        .run(
            &EngineRequest::Agent(ProxyRequest::ToolsCall {
                server: "fx".into(),
                tool: "echo".into(),
                args,
            }),
            &cancel,
        )
        .await;
    assert_eq!(again.body.unwrap().text, "again");
    let lines = std::fs::read_to_string(&counter).unwrap();
    assert_eq!(
        lines.lines().count(),
        2,
        "the crashed call was not replayed: {lines:?}"
    );
    assert_eq!(engine.status().servers[0].runtime.connect_count, 2);
    engine.shutdown().await;
}

#[tokio::test]
async fn notifications_reach_the_subscriber_and_shutdown_cleans_up() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, mut rx) = engine(&dir, &json!({"fx": stdio(&json!({}))}));
    let cancel = CancellationToken::new();
    assert!(
        engine
            .run(&EngineRequest::Agent(call("notify")), &cancel)
            .await
            .ok()
    );
    let event = tokio::time::timeout(std::time::Duration::from_secs(20), async {
        loop {
            let e = rx.recv().await.unwrap();
            if matches!(
                e.event,
                mcpdeck::mcp::connection::ConnectionEvent::ToolListChanged
            ) {
                return e;
            }
        }
    })
    .await
    .unwrap();
    assert_eq!(&*event.server, "fx");
    let big = ProxyRequest::ToolsCall {
        server: "fx".into(),
        tool: "big_text".into(),
        args: json!({"size": 100_000}).as_object().unwrap().clone(),
    };
    assert!(engine.run(&EngineRequest::Agent(big), &cancel).await.ok());
    // The text, and the answer's frame as sent (over 64 KiB, so a raw spill of its own).
    let spills: Vec<_> = engine
        .spills()
        .iter()
        .map(|s| (s.path.clone(), s.origin.clone()))
        .collect();
    assert_eq!(spills.len(), 2, "{spills:?}");
    assert_eq!(
        spills
            .iter()
            .filter(|(_, origin)| origin.ends_with("(raw JSON)"))
            .count(),
        1,
        "{spills:?}"
    );
    assert!(spills.iter().all(|(path, _)| path.exists()));
    engine.shutdown().await;
    assert!(
        spills.iter().all(|(path, _)| !path.exists()),
        "spills removed at shutdown"
    );
    let trace = engine.trace();
    assert_eq!(trace.len(), 2);
    assert_eq!(trace[0].operation, "tools.call notify");
    assert_eq!(trace[0].decision, "allowed");
    let text = serde_json::to_string(&trace).unwrap();
    assert!(!text.contains("100000"), "the trace holds no arguments");
}

/// A server marked changed (a reloaded configuration) says so in its approval requests; the
/// others do not.
#[tokio::test]
async fn approvals_carry_the_server_changed_flag() {
    use mcpdeck::app::Msg;
    use mcpdeck::console::approver::{ConsoleApprover, Replies};
    use mcpdeck::mcp::policy::{Decision, Mode, Policy};

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mcp.json");
    let servers = json!({"fx": stdio(&json!({})), "other": stdio(&json!({}))});
    std::fs::write(&file, json!({"mcpServers": servers}).to_string()).unwrap();
    let config = ConfigSet::from_files(
        dir.path().to_path_buf(),
        vec![read_file(Layer::User, file, true)],
    );
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let replies = Replies::default();
    std::fs::create_dir_all(dir.path().join("run")).unwrap();
    let mut policy = Policy::default();
    policy.mode = Mode::Enforce;
    let engine = Engine::new(
        config,
        TrustStore::load(dir.path().join("trust.json")),
        EngineOptions {
            policy,
            approver: Some(Arc::new(ConsoleApprover::new(tx, replies.clone()))),
            spill_base: Some(dir.path().join("run")),
            changed_servers: ["fx".to_owned()].into_iter().collect(),
            ..EngineOptions::default()
        },
    )
    .unwrap();
    let engine = Arc::new(engine);
    for (server, changed) in [("fx", true), ("other", false)] {
        let e = engine.clone();
        let request = ProxyRequest::ToolsCall {
            server: server.into(),
            tool: "echo".into(),
            args: serde_json::Map::new(),
        };
        let run = tokio::spawn(async move {
            let token = CancellationToken::new();
            e.run(&EngineRequest::Agent(request), &token).await
        });
        let Some(Msg::Approval(asked)) = rx.recv().await else {
            panic!("an approval request")
        };
        assert_eq!(asked.server, server);
        assert_eq!(asked.server_changed, changed, "{asked:?}");
        replies.answer(None, asked.ticket, Decision::Deny);
        let outcome = run.await.unwrap();
        assert!(outcome.body.is_err(), "denied");
    }
    engine.shutdown().await;
}

/// A request nobody answers fails closed after the approval timeout, and says so: not as if
/// the operator had refused. In paused and held time: the wait ends when the test moves the
/// clock to the approval timeout, and not before.
#[tokio::test(start_paused = true)]
async fn an_unanswered_approval_says_nobody_answered() {
    use mcpdeck::console::approver::{ConsoleApprover, Replies};
    use mcpdeck::mcp::policy::{Mode, Policy};

    let held = common::held_clock::Held::new();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mcp.json");
    std::fs::write(
        &file,
        json!({"mcpServers": {"fx": stdio(&json!({}))}}).to_string(),
    )
    .unwrap();
    let config = ConfigSet::from_files(
        dir.path().to_path_buf(),
        vec![read_file(Layer::User, file, true)],
    );
    // The receiver stays alive and never answers.
    let (tx, mut asked) = tokio::sync::mpsc::unbounded_channel();
    let replies = Replies::default();
    std::fs::create_dir_all(dir.path().join("run")).unwrap();
    let mut policy = Policy::default();
    policy.mode = Mode::Enforce;
    let engine = Engine::new(
        config,
        TrustStore::load(dir.path().join("trust.json")),
        EngineOptions {
            policy,
            approver: Some(Arc::new(ConsoleApprover::new(tx, replies.clone()))),
            approval_timeout: Some(std::time::Duration::from_millis(250)),
            spill_base: Some(dir.path().join("run")),
            ..EngineOptions::default()
        },
    )
    .unwrap();
    let request = EngineRequest::Agent(ProxyRequest::ToolsCall {
        server: "fx".into(),
        tool: "echo".into(),
        args: serde_json::Map::new(),
    });
    let cancel = CancellationToken::new();
    let run = engine.run(&request, &cancel);
    let mut run = std::pin::pin!(run);
    // No time passes until the approval has been asked (it reached the console's queue).
    tokio::select! {
        biased;
        _ = &mut run => panic!("the call ended before its approval was asked"),
        ask = asked.recv() => assert!(ask.is_some(), "the approver was dropped"),
    }
    let outcome = held
        .finishes_at(run, std::time::Duration::from_millis(250))
        .await;
    let failure = outcome.body.unwrap_err();
    assert_eq!(failure.exit(), mcpdeck::exit::Exit::Refused);
    assert!(
        failure.message.starts_with("no answer within 0.25 s"),
        "{}",
        failure.message
    );
    assert_eq!(engine.trace()[0].decision, "approval_timeout");
    engine.shutdown().await;
}

/// Who answers approvals in the audit test: it is never asked, and keeps what it is told.
#[derive(Default)]
struct Watcher(std::sync::Mutex<Vec<mcpdeck::mcp::policy::ApprovalRequest>>);

impl mcpdeck::mcp::policy::Approver for Watcher {
    fn ask(
        &self,
        request: mcpdeck::mcp::policy::ApprovalRequest,
        _reply: mcpdeck::mcp::pending::Reply<mcpdeck::mcp::policy::Decision>,
    ) {
        panic!("audit mode asked about {}", request.operation);
    }

    fn flag(&self, request: mcpdeck::mcp::policy::ApprovalRequest) {
        self.0.lock().unwrap().push(request);
    }
}

/// Audit mode runs a tool that drifted from its pins across restarts (two engines, one pin
/// store: the first pins the rug-pull server's catalog, the second sees `deploy` changed); the
/// trace records it as `allowed_drifted` and the approver is told, while the unchanged tool
/// runs as `allowed` untold.
#[tokio::test]
async fn audit_mode_traces_a_drifted_tool_as_allowed_drifted_and_flags_it() {
    use mcpdeck::mcp::pins::PinStore;
    use mcpdeck::mcp::policy::Policy;

    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("mcp.json");
    let server = json!({"command": fixture(), "args": ["drift", "--case", "rug-pull"],
                        "env": {"FIXTURE_RUN_FILE": dir.path().join("runs")}});
    std::fs::write(&file, json!({"mcpServers": {"rug": server}}).to_string()).unwrap();
    std::fs::create_dir_all(dir.path().join("run")).unwrap();
    let watcher = Arc::new(Watcher::default());
    let engine = |approver: Option<Arc<Watcher>>| {
        let config = ConfigSet::from_files(
            dir.path().to_path_buf(),
            vec![read_file(Layer::User, file.clone(), true)],
        );
        Engine::new(
            config,
            TrustStore::load(dir.path().join("trust.json")),
            EngineOptions {
                policy: Policy::default(),
                approver: approver.map(|a| a as Arc<dyn mcpdeck::mcp::policy::Approver>),
                spill_base: Some(dir.path().join("run")),
                pins: Some(PinStore::at(dir.path().join("state/pins.json"))),
                ..EngineOptions::default()
            },
        )
        .unwrap()
    };
    let cancel = CancellationToken::new();
    let call = |tool: &str| ProxyRequest::ToolsCall {
        server: "rug".into(),
        tool: tool.into(),
        args: serde_json::Map::new(),
    };
    let first = engine(None);
    let listed = first
        .run(
            &EngineRequest::Agent(ProxyRequest::ToolsList {
                server: "rug".into(),
            }),
            &cancel,
        )
        .await;
    assert!(listed.ok());
    first.shutdown().await;

    let second = engine(Some(watcher.clone()));
    assert!(
        second
            .run(&EngineRequest::Agent(call("status")), &cancel)
            .await
            .ok()
    );
    assert!(
        second
            .run(&EngineRequest::Agent(call("deploy")), &cancel)
            .await
            .ok(),
        "audit runs it"
    );
    let decisions: Vec<(String, String)> = second
        .trace()
        .iter()
        .map(|r| (r.operation.clone(), r.decision.clone()))
        .collect();
    assert_eq!(
        decisions,
        [
            ("tools.call status".to_owned(), "allowed".to_owned()),
            ("tools.call deploy".to_owned(), "allowed_drifted".to_owned()),
        ]
    );
    let flagged = watcher.0.lock().unwrap().clone();
    assert_eq!(flagged.len(), 1, "{flagged:?}");
    assert_eq!(flagged[0].operation, "tools.call deploy");
    assert!(
        flagged[0].drift[0].starts_with("changed since its pins: text"),
        "{:?}",
        flagged[0].drift
    );
    second.shutdown().await;
}

/// The lines of `path` (none when it does not exist yet).
fn lines_of(path: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(str::to_owned)
        .collect()
}

/// The one server process `pids` names has ended, and no other was started.
async fn started_once_and_ended(pids: &std::path::Path) {
    let pids = lines_of(pids);
    assert_eq!(pids.len(), 1, "the server was started again: {pids:?}");
    let pid: u32 = pids[0].parse().unwrap();
    assert!(
        common::pid_wait::ended_within(pid, std::time::Duration::from_secs(20)).await,
        "the server process {pid} is left running"
    );
}

fn disconnect() -> EngineRequest {
    EngineRequest::operator("fx", mcpdeck::mcp::engine::OperatorOp::Disconnect)
}

/// The operator's disconnect while calls run on the connection (calls that never answer on
/// their own): the disconnect does not wait for them, each is cancelled and says the operator
/// disconnected the server, none connects it again, and its process is gone. A request asked
/// for after the disconnect connects as usual.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_disconnect_cancels_requests_in_flight_and_none_reconnects() {
    let dir = tempfile::tempdir().unwrap();
    let (events, pids) = (dir.path().join("events"), dir.path().join("pids"));
    let env = json!({"env": {"FIXTURE_EVENTS": events, "FIXTURE_PIDS": pids}});
    let (engine, _rx) = engine(&dir, &json!({"fx": stdio(&env)}));
    let cancel = CancellationToken::new();
    let calls: Vec<_> = (0..3)
        .map(|_| {
            let (engine, cancel) = (engine.clone(), cancel.clone());
            tokio::spawn(async move {
                engine
                    .run(&EngineRequest::Agent(call("hang")), &cancel)
                    .await
            })
        })
        .collect();
    let started = || {
        lines_of(&events)
            .iter()
            .filter(|l| *l == "started hang")
            .count()
    };
    assert!(
        common::fs_wait::until_changed(dir.path(), std::time::Duration::from_secs(30), || {
            started() == 3
        })
        .await,
        "the calls did not start: {:?}",
        lines_of(&events)
    );
    assert!(engine.run(&disconnect(), &cancel).await.ok());
    for call in calls {
        let failure = call.await.unwrap().body.unwrap_err();
        assert_eq!(failure.class.name(), "cancelled", "{}", failure.message);
        assert!(
            failure.message.contains("disconnected by the operator"),
            "{}",
            failure.message
        );
    }
    let status = engine.status();
    assert_eq!(status.servers[0].state.label(), "disconnected");
    assert_eq!(status.servers[0].runtime.connect_count, 1);
    started_once_and_ended(&pids).await;

    let list = EngineRequest::Agent(ProxyRequest::ToolsList {
        server: "fx".into(),
    });
    assert!(engine.run(&list, &cancel).await.ok());
    assert_eq!(engine.status().servers[0].runtime.connect_count, 2);
    engine.shutdown().await;
}

/// The operator's disconnect while a request is still connecting the server (one that never
/// answers the handshake): the attempt is cancelled rather than awaited to its timeout, the
/// request says the operator disconnected the server, and no connection is left.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_disconnect_cancels_a_connect_in_progress() {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let server = json!({"command": fixture(), "args": ["stdio", "--silent"],
                        "env": {"FIXTURE_PIDS": pids}});
    let (engine, _rx) = engine(&dir, &json!({"fx": server}));
    let cancel = CancellationToken::new();
    let list = {
        let (engine, cancel) = (engine.clone(), cancel.clone());
        tokio::spawn(async move {
            let list = EngineRequest::Agent(ProxyRequest::ToolsList {
                server: "fx".into(),
            });
            engine.run(&list, &cancel).await
        })
    };
    assert!(
        common::fs_wait::until_changed(dir.path(), std::time::Duration::from_secs(30), || {
            !lines_of(&pids).is_empty()
        })
        .await,
        "the server did not start"
    );
    let ended = engine.run(&disconnect(), &cancel).await;
    // A connect in progress is something the disconnect ended, not "was not connected".
    let text = &ended.body.as_ref().expect("the disconnect succeeds").text;
    assert!(text.starts_with("disconnected from"), "{text}");
    let failure = list.await.unwrap().body.unwrap_err();
    assert!(
        failure.message.contains("disconnected by the operator"),
        "{}",
        failure.message
    );
    let status = engine.status();
    assert_eq!(status.servers[0].state.label(), "disconnected");
    assert_eq!(status.servers[0].runtime.connect_count, 0);
    started_once_and_ended(&pids).await;
    engine.shutdown().await;
}

/// A request asked for before the operator's disconnect but run after it (the console queues
/// each request as its own task, so the disconnect's task may run first): it fails as
/// disconnected by the operator and never starts the server.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_asked_before_a_disconnect_but_run_after_it_does_not_connect() {
    let dir = tempfile::tempdir().unwrap();
    let pids = dir.path().join("pids");
    let server = json!({"command": fixture(), "args": ["stdio"], "env": {"FIXTURE_PIDS": pids}});
    let (engine, _rx) = engine(&dir, &json!({"fx": server}));
    let cancel = CancellationToken::new();
    let list = EngineRequest::Agent(ProxyRequest::ToolsList {
        server: "fx".into(),
    });
    let asked = engine.asked(&list);
    assert!(engine.run(&disconnect(), &cancel).await.ok());
    let failure = engine
        .run_asked(&list, asked, &cancel)
        .await
        .body
        .unwrap_err();
    assert!(
        failure.message.contains("disconnected by the operator"),
        "{}",
        failure.message
    );
    assert_eq!(engine.status().servers[0].runtime.connect_count, 0);
    assert!(lines_of(&pids).is_empty(), "the server was started");
    // Asked for after the disconnect, the same request connects as usual.
    let asked = engine.asked(&list);
    assert!(engine.run_asked(&list, asked, &cancel).await.ok());
    engine.shutdown().await;
}

/// The text of a tools listing of the fixture with `extra` dummy tools.
async fn listing_text(extra: usize) -> mcpdeck::mcp::engine::Outcome {
    let dir = tempfile::tempdir().unwrap();
    let server = json!({"command": fixture(), "args": ["stdio", "--tools", extra.to_string()]});
    let (engine, _rx) = engine(&dir, &json!({ "fx": server }));
    let list = EngineRequest::Agent(ProxyRequest::ToolsList {
        server: "fx".into(),
    });
    let outcome = engine.run(&list, &CancellationToken::new()).await;
    engine.shutdown().await;
    outcome
}

#[tokio::test]
async fn a_listing_with_its_hint_stays_within_the_bound() {
    use mcpdeck::mcp::results::MAX_VISIBLE_BYTES;
    // Learn the listing's length and one dummy line's (every index from 1000 on has as many
    // digits), then ask for the count whose text ends just under the bound, where the hint
    // after it would have crossed it.
    let base = listing_text(1001).await;
    let text = &base.body.as_ref().unwrap().text;
    let line = text
        .lines()
        .find(|l| l.contains("dummy_01000"))
        .unwrap()
        .len()
        + 1;
    let near = 1001 + (MAX_VISIBLE_BYTES - 10 - text.len()) / line;
    let outcome = listing_text(near).await;
    let agents = outcome.model_text();
    assert!(
        agents.len() <= MAX_VISIBLE_BYTES,
        "{} bytes with the hint",
        agents.len()
    );
    assert!(agents.ends_with(outcome.hint().unwrap().for_agents()));
}
