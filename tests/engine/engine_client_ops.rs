//! The operator's operations through the engine in-process, as the console uses them on one
//! long-lived session: a task the session ran is listed, read and its result fetched
//! (server-everything over stdio; skipped, saying so, without node), and a subscription
//! delivers `notifications/resources/updated` to the event subscriber (the fixture).

#![allow(clippy::unwrap_used)]

use crate::common;

use std::sync::Arc;

use common::fixture;
use mcpdeck::mcp::api::OpResult;
use mcpdeck::mcp::client::{
    Answer, ClientRequests, ElicitAnswer, ElicitationAsk, SamplingAnswer, SamplingAsk,
};
use mcpdeck::mcp::connection::ConnectionEvent;
use mcpdeck::mcp::engine::{Engine, EngineRequest, OperatorOp};
use mcpdeck::mcp::proxy::ProxyRequest;
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// Declines every elicitation and rejects every sampling request.
struct Declines;

impl ClientRequests for Declines {
    fn elicit(&self, _ask: ElicitationAsk) -> Answer<ElicitAnswer> {
        Box::pin(async { ElicitAnswer::Decline })
    }
    fn sample(&self, _ask: SamplingAsk) -> Answer<SamplingAnswer> {
        Box::pin(async { SamplingAnswer::Reject })
    }
}

fn engine(
    dir: &tempfile::TempDir,
    servers: &serde_json::Value,
) -> (
    Arc<Engine>,
    tokio::sync::mpsc::Receiver<mcpdeck::mcp::connection::ServerEvent>,
) {
    common::engine_kit::engine(dir, servers, Some(Arc::new(Declines)))
}

#[tokio::test]
async fn a_task_of_this_session_is_listed_read_and_its_result_fetched() {
    let Some(script) = common::peers::everything() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let (engine, _rx) = engine(
        &dir,
        &json!({"everything": {"command": "node", "args": [script, "stdio"]}}),
    );
    let cancel = CancellationToken::new();
    let mut args = serde_json::Map::new();
    args.insert("topic".into(), json!("rust"));
    let call = engine
        .run(
            &EngineRequest::Agent(ProxyRequest::ToolsCall {
                server: "everything".into(),
                tool: "simulate-research-query".into(),
                args,
            }),
            &cancel,
        )
        .await;
    assert!(call.body.is_ok(), "{call:?}");
    let listed = engine
        .run(
            &EngineRequest::operator("everything", OperatorOp::TasksList),
            &cancel,
        )
        .await;
    assert_eq!(listed.operation, "tasks.list");
    let Ok(success) = &listed.body else {
        panic!("{listed:?}")
    };
    let OpResult::Tasks(list) = &success.result else {
        panic!("{success:?}")
    };
    assert_eq!(list.tasks.len(), 1, "{list:?}");
    let task = &list.tasks[0];
    assert_eq!(task.status, "completed", "{task:?}");
    let got = engine
        .run(
            &EngineRequest::operator(
                "everything",
                OperatorOp::TaskGet {
                    id: task.task_id.clone(),
                },
            ),
            &cancel,
        )
        .await;
    let Ok(success) = &got.body else {
        panic!("{got:?}")
    };
    assert!(matches!(&success.result, OpResult::Task(t) if t.task_id == task.task_id));
    let result = engine
        .run(
            &EngineRequest::operator(
                "everything",
                OperatorOp::TaskResult {
                    id: task.task_id.clone(),
                },
            ),
            &cancel,
        )
        .await;
    let Ok(success) = &result.body else {
        panic!("{result:?}")
    };
    assert!(
        success.text.contains("Research Report: rust"),
        "{success:?}"
    );
    engine.shutdown().await;
}

#[tokio::test]
async fn a_subscription_delivers_updates_to_the_event_subscriber() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, mut rx) = engine(
        &dir,
        &json!({"fx": {"command": fixture(), "args": ["stdio"]}}),
    );
    let cancel = CancellationToken::new();
    let uri = "mem://doc/2".to_owned();
    let subscribed = engine
        .run(
            &EngineRequest::operator("fx", OperatorOp::Subscribe { uri: uri.clone() }),
            &cancel,
        )
        .await;
    assert_eq!(subscribed.operation, "resources.subscribe");
    let Ok(success) = &subscribed.body else {
        panic!("{subscribed:?}")
    };
    assert!(matches!(&success.result, OpResult::Subscription(s) if s.subscribed && s.uri == uri));
    let mut updates = 0;
    while updates < 3 {
        let event = tokio::time::timeout(std::time::Duration::from_secs(30), rx.recv())
            .await
            .expect("an update within 30 s")
            .expect("the channel is open");
        if let ConnectionEvent::ResourceUpdated { uri: updated } = &event.event {
            assert_eq!(*updated, uri);
            assert_eq!(&*event.server, "fx");
            updates += 1;
        }
    }
    let unsubscribed = engine
        .run(
            &EngineRequest::operator("fx", OperatorOp::Unsubscribe { uri: uri.clone() }),
            &cancel,
        )
        .await;
    let Ok(success) = &unsubscribed.body else {
        panic!("{unsubscribed:?}")
    };
    assert!(matches!(&success.result, OpResult::Subscription(s) if !s.subscribed));
    engine.shutdown().await;
}

/// A sandboxed server is offered roots inside its sandbox's readable paths only: the project
/// default narrows to its `read` path, and adding a root it could not read is refused with
/// `sandbox_refused`, naming it. Never connects.
#[tokio::test]
async fn a_sandboxed_servers_roots_stay_inside_its_read_rules() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("docs")).unwrap();
    std::fs::create_dir_all(dir.path().join("secret")).unwrap();
    let (engine, _rx) = engine(
        &dir,
        &json!({"boxed": {"command": fixture(), "args": ["stdio"],
                          "sandbox": {"read": ["docs"]}}}),
    );
    let listed = engine
        .run(
            &EngineRequest::operator("boxed", OperatorOp::Roots),
            &CancellationToken::new(),
        )
        .await;
    let Ok(success) = &listed.body else {
        panic!("{listed:?}")
    };
    let OpResult::Roots(roots) = &success.result else {
        panic!("{:?}", success.result)
    };
    let uris: Vec<&str> = roots.roots.iter().map(|r| r.uri.as_str()).collect();
    let docs = url::Url::from_directory_path(dir.path().join("docs")).unwrap();
    assert_eq!(uris, [docs.as_str().trim_end_matches('/')]);
    let added = engine
        .run(
            &EngineRequest::operator(
                "boxed",
                OperatorOp::AddRoot {
                    path: "secret".into(),
                },
            ),
            &CancellationToken::new(),
        )
        .await;
    let Err(failure) = &added.body else {
        panic!("{added:?}")
    };
    assert_eq!(failure.class.name(), "sandbox_refused", "{failure:?}");
    assert!(failure.message.contains("secret"), "{}", failure.message);
}
