//! The policy table: every request a face can make of the engine (the agents' operations, the
//! operator's own, the session controls) → the operation its outcome and trace name → the
//! operation policy judges it as → the trace's decision in each policy. Recorded before the
//! engine request became one type, kept unchanged after it (`policy_table.txt`): what a request
//! is called, how policy judges it and what it decides are behaviour the faces and the policy
//! files depend on.
//!
//! "Judged as" is found the way a policy file would find it: the request is run under a deny rule
//! for each operation family in turn, and the families whose rule refuses it are listed. A cell
//! is `-` when the request left no trace record (it runs outside policy).

#![allow(clippy::unwrap_used)]

use crate::common;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};

use mcpdeck::mcp::catalog::VarValue;
use mcpdeck::mcp::client::{
    Answer, ClientRequests, ElicitAnswer, ElicitationAsk, SamplingAnswer, SamplingAsk,
};
use mcpdeck::mcp::config::{ConfigSet, Layer, read_file};
use mcpdeck::mcp::engine::{
    CallArgs, CallOptions, CompletionTarget, Engine, EngineOptions, EngineRequest, OperatorOp,
};
use mcpdeck::mcp::pending::Reply;
use mcpdeck::mcp::policy::{ApprovalRequest, Approver, Decision, Mode, Policy};
use mcpdeck::mcp::proxy::ProxyRequest;
use mcpdeck::mcp::trust::TrustStore;
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// Declines what servers ask; it makes the engine a face with roots.
struct Declines;

impl ClientRequests for Declines {
    fn elicit(&self, _ask: ElicitationAsk) -> Answer<ElicitAnswer> {
        Box::pin(async { ElicitAnswer::Decline })
    }
    fn sample(&self, _ask: SamplingAsk) -> Answer<SamplingAnswer> {
        Box::pin(async { SamplingAnswer::Reject })
    }
}

/// Approves every question once and keeps the operation each named.
#[derive(Default)]
struct Approves(Mutex<Vec<String>>);

impl Approver for Approves {
    fn ask(&self, request: ApprovalRequest, reply: Reply<Decision>) {
        self.0.lock().unwrap().push(request.operation);
        let _ = reply.answer(Decision::AllowOnce);
    }
}

/// One request of the table, named as a face makes it.
#[derive(Clone)]
enum Req {
    Agent(ProxyRequest),
    Ping,
    CallTyped { as_task: bool, meta: bool },
    ReadUri(&'static str),
    Op(OperatorOp),
    Roots,
    AddRoot(&'static str),
    RemoveRoot(&'static str),
    Disconnect,
}

fn server() -> String {
    "fx".to_owned()
}

fn requests() -> Vec<(&'static str, Req)> {
    let agent = Req::Agent;
    let mut echo = serde_json::Map::new();
    echo.insert("text".into(), json!("hi"));
    let mut greet = BTreeMap::new();
    greet.insert("name".to_owned(), "ada".to_owned());
    let mut id = BTreeMap::new();
    id.insert("id".to_owned(), VarValue::String("1".to_owned()));
    vec![
        ("agent status", agent(ProxyRequest::Status)),
        (
            "agent tools.list",
            agent(ProxyRequest::ToolsList { server: server() }),
        ),
        (
            "agent tools.search",
            agent(ProxyRequest::ToolsSearch {
                server: server(),
                query: "echo".into(),
            }),
        ),
        (
            "agent tools.describe",
            agent(ProxyRequest::ToolsDescribe {
                server: server(),
                tool: "echo".into(),
            }),
        ),
        (
            "agent tools.call",
            agent(ProxyRequest::ToolsCall {
                server: server(),
                tool: "echo".into(),
                args: echo,
            }),
        ),
        (
            "agent resources.list",
            agent(ProxyRequest::ResourcesList { server: server() }),
        ),
        (
            "agent resources.read",
            agent(ProxyRequest::ResourcesRead {
                server: server(),
                reference: "not-a-reference".into(),
            }),
        ),
        (
            "agent prompts.list",
            agent(ProxyRequest::PromptsList { server: server() }),
        ),
        (
            "agent prompts.get",
            agent(ProxyRequest::PromptsGet {
                server: server(),
                prompt: "greet".into(),
                arguments: greet,
            }),
        ),
        (
            "agent reconnect",
            agent(ProxyRequest::Reconnect { server: server() }),
        ),
        ("operator ping", Req::Ping),
        (
            "operator call (typed)",
            Req::CallTyped {
                as_task: false,
                meta: false,
            },
        ),
        (
            "operator call (as task)",
            Req::CallTyped {
                as_task: true,
                meta: false,
            },
        ),
        (
            "operator call (_meta)",
            Req::CallTyped {
                as_task: false,
                meta: true,
            },
        ),
        ("operator read by URI", Req::ReadUri("mem://doc/1")),
        (
            "operator complete",
            Req::Op(OperatorOp::Complete {
                target: CompletionTarget::Prompt("greet".into()),
                argument: "name".into(),
                value: "a".into(),
                context: BTreeMap::new(),
            }),
        ),
        ("operator templates", Req::Op(OperatorOp::Templates)),
        (
            "operator read template",
            Req::Op(OperatorOp::ReadTemplate {
                template: "doc-by-id".into(),
                values: id,
            }),
        ),
        (
            "operator subscribe",
            Req::Op(OperatorOp::Subscribe {
                uri: "mem://doc/1".into(),
            }),
        ),
        (
            "operator unsubscribe",
            Req::Op(OperatorOp::Unsubscribe {
                uri: "mem://doc/1".into(),
            }),
        ),
        ("operator tasks.list", Req::Op(OperatorOp::TasksList)),
        (
            "operator tasks.get",
            Req::Op(OperatorOp::TaskGet { id: "t1".into() }),
        ),
        (
            "operator tasks.cancel",
            Req::Op(OperatorOp::TaskCancel { id: "t1".into() }),
        ),
        (
            "operator tasks.result",
            Req::Op(OperatorOp::TaskResult { id: "t1".into() }),
        ),
        (
            "operator log level",
            Req::Op(OperatorOp::SetLogLevel {
                level: "debug".into(),
            }),
        ),
        ("operator tool costs", Req::Op(OperatorOp::ToolCosts)),
        ("operator scan", Req::Op(OperatorOp::Scan)),
        ("operator pins", Req::Op(OperatorOp::Pins { accept: false })),
        (
            "operator check pins",
            Req::Op(OperatorOp::CheckPins {
                pins: BTreeMap::new(),
            }),
        ),
        ("session roots", Req::Roots),
        ("session add root", Req::AddRoot(".")),
        ("session remove root", Req::RemoveRoot("file:///nowhere")),
        ("session disconnect", Req::Disconnect),
        ("operator skills", Req::Op(OperatorOp::Skills)),
        (
            "operator skill",
            Req::Op(OperatorOp::Skill {
                name: "pdf".into(),
                files: Vec::new(),
            }),
        ),
    ]
}

/// Runs `req` the way the faces run it: as one engine request; the outcome's operation name.
async fn run(engine: &Engine, req: &Req, cancel: &CancellationToken) -> String {
    let operator = |op: OperatorOp| EngineRequest::operator("fx", op);
    let request = match req {
        Req::Agent(request) => EngineRequest::Agent(request.clone()),
        Req::Ping => operator(OperatorOp::Ping),
        Req::CallTyped { as_task, meta } => {
            let mut options = CallOptions {
                as_task: *as_task,
                ..CallOptions::default()
            };
            if *meta {
                options.meta.insert("trace".into(), json!(1));
            }
            operator(OperatorOp::Call {
                tool: "echo".into(),
                args: CallArgs::Words {
                    words: vec!["text=hi".into()],
                    checked: true,
                },
                options,
            })
        }
        Req::ReadUri(uri) => operator(OperatorOp::ReadUri {
            uri: (*uri).to_owned(),
        }),
        Req::Op(op) => operator(op.clone()),
        Req::Roots => operator(OperatorOp::Roots),
        Req::AddRoot(path) => operator(OperatorOp::AddRoot {
            path: (*path).to_owned(),
        }),
        Req::RemoveRoot(uri) => operator(OperatorOp::RemoveRoot {
            uri: (*uri).to_owned(),
        }),
        Req::Disconnect => operator(OperatorOp::Disconnect),
    };
    engine.run(&request, cancel).await.operation
}

fn engine(
    dir: &tempfile::TempDir,
    policy: Policy,
    approver: Option<Arc<dyn Approver>>,
) -> Arc<Engine> {
    let file = dir.path().join("mcp.json");
    let servers = json!({"fx": {"command": common::fixture(), "args": ["stdio"]}});
    std::fs::write(&file, json!({"mcpServers": servers}).to_string()).unwrap();
    let config = ConfigSet::from_files(
        dir.path().to_path_buf(),
        vec![read_file(Layer::User, file, true)],
    );
    std::fs::create_dir_all(dir.path().join("run")).unwrap();
    let options = EngineOptions {
        policy,
        approver,
        spill_base: Some(dir.path().join("run")),
        client: Some(Arc::new(Declines)),
        ..EngineOptions::default()
    };
    Arc::new(
        Engine::new(
            config,
            TrustStore::load(dir.path().join("trust.json")),
            options,
        )
        .unwrap(),
    )
}

/// Runs every request on one engine: per request, its outcome's operation and its trace record
/// (`operation`, `decision`), or `-` when it left none.
async fn column(engine: &Engine) -> Vec<(String, String, String)> {
    let cancel = CancellationToken::new();
    let mut cells = Vec::new();
    for (_, req) in requests() {
        let before = engine.trace().len();
        let operation = run(engine, &req, &cancel).await;
        let trace = engine.trace();
        let (traced, decision) = match trace.get(before) {
            Some(record) if trace.len() == before + 1 => {
                (record.operation.clone(), record.decision.clone())
            }
            Some(_) => ("(several)".to_owned(), "(several)".to_owned()),
            None => ("-".to_owned(), "-".to_owned()),
        };
        cells.push((operation, traced, decision));
    }
    engine.shutdown().await;
    cells
}

/// The operation families a policy rule can name (`tools.call` and `prompts.get` with a tool or
/// prompt after them).
const FAMILIES: [&str; 10] = [
    "status",
    "tools.list",
    "tools.search",
    "tools.describe",
    "tools.call *",
    "resources.list",
    "resources.read",
    "prompts.list",
    "prompts.get *",
    "reconnect",
];

async fn table() -> String {
    let dir = tempfile::tempdir().unwrap();
    let enforce = |allow: &[&str], deny: &[&str]| Policy::new(Mode::Enforce, allow, deny).unwrap();
    let audit = column(&engine(&dir, Policy::default(), None)).await;
    let approves = Arc::new(Approves::default());
    let mut asked = Vec::new();
    let approved = {
        let engine = engine(&dir, enforce(&[], &[]), Some(approves.clone()));
        let cancel = CancellationToken::new();
        let mut cells = Vec::new();
        for (_, req) in requests() {
            let before = approves.0.lock().unwrap().len();
            let trace_before = engine.trace().len();
            run(&engine, &req, &cancel).await;
            let questions = approves.0.lock().unwrap()[before..].join(", ");
            asked.push(if questions.is_empty() {
                "-".to_owned()
            } else {
                questions
            });
            let trace = engine.trace();
            cells.push(
                trace
                    .get(trace_before)
                    .map_or_else(|| "-".to_owned(), |r| r.decision.clone()),
            );
        }
        engine.shutdown().await;
        cells
    };
    let nobody = column(&engine(&dir, enforce(&[], &[]), None)).await;
    let allowed = column(&engine(&dir, enforce(&["fx:*"], &[]), None)).await;
    let mut judged: Vec<Vec<&str>> = vec![Vec::new(); audit.len()];
    for family in FAMILIES {
        let rule = format!("fx:{family}");
        let cells = column(&engine(&dir, enforce(&[], &[rule.as_str()]), None)).await;
        for (row, (_, _, decision)) in cells.iter().enumerate() {
            if decision == "denied" {
                judged[row].push(family.trim_end_matches(" *"));
            }
        }
    }
    let mut out = String::from(
        "request | outcome operation | trace operation | judged as | audit | \
         enforce, approver (asked as) | enforce, nobody to ask | enforce, allow fx:*\n",
    );
    for (row, (label, _)) in requests().iter().enumerate() {
        let judged = if judged[row].is_empty() {
            "-".to_owned()
        } else {
            judged[row].join(", ")
        };
        let _ = writeln!(
            out,
            "{label} | {} | {} | {judged} | {} | {} ({}) | {} | {}",
            audit[row].0,
            audit[row].1,
            audit[row].2,
            approved[row],
            asked[row],
            nobody[row].2,
            allowed[row].2,
        );
    }
    out
}

#[tokio::test]
async fn every_request_is_named_judged_and_decided_as_recorded() {
    let table = table().await;
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/engine/policy_table.txt");
    if std::env::var_os("MCPDECK_RECORD_POLICY_TABLE").is_some() {
        std::fs::write(&path, &table).unwrap();
    }
    let recorded = std::fs::read_to_string(&path).unwrap();
    assert_eq!(table, recorded, "the policy table changed:\n{table}");
}
