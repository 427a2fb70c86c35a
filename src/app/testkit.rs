//! Test helpers: an [`App`] over real configuration loaded from a temporary directory, and
//! builders for engine outcomes and keys, so `update` tests need no engine and no IO beyond
//! the fixture files.

use crate::mcp::connection::ErrorClass;
use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::Value;

use super::{App, Effect, Msg, ReqId, info};
use crate::mcp::api::OpResult;
use crate::mcp::config::{ConfigSet, LoadOptions};
use crate::mcp::engine::{EngineRequest, Failure, OperatorOp, Outcome, Success};
use crate::mcp::status::report;
use crate::mcp::trust::TrustStore;

/// An app over a user config with `servers` (a `mcpServers` object), plus its temp dir.
pub fn app_with(servers: &Value) -> (App, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("tempdir");
    let home = dir.path().join("cfg");
    let project = dir.path().join("proj");
    std::fs::create_dir_all(home.join("mcpdeck")).expect("mkdir");
    std::fs::create_dir_all(&project).expect("mkdir");
    std::fs::write(
        home.join("mcpdeck").join("mcp.json"),
        serde_json::json!({ "mcpServers": servers }).to_string(),
    )
    .expect("write");
    let config = ConfigSet::load(&LoadOptions {
        project_dir: project,
        config_home: Some(home.clone()),
        extra_files: Vec::new(),
    })
    .expect("load");
    let store = TrustStore::load(TrustStore::default_path(&home));
    let status = report(&config, &store, &|_| false);
    let info = info::build(&config, &store);
    (App::new(&status, info, Instant::now()), dir)
}

/// An app with one stdio server `demo`.
pub fn demo_app() -> (App, tempfile::TempDir) {
    app_with(&serde_json::json!({"demo": {"command": "mcpdeck", "args": ["demo-server"]}}))
}

/// A key press.
pub fn key(code: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

/// A character key press.
pub fn ch(c: char) -> Msg {
    key(KeyCode::Char(c))
}

/// A control-key press.
pub fn ctrl(c: char) -> Msg {
    Msg::Key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL))
}

/// The typed result an operation named `operation` returns, read from its JSON envelope form
/// (so tests state results the way an agent sees them, and a shape change fails here).
pub fn typed(operation: &str, result: Value) -> OpResult {
    use serde_json::from_value as from;
    let verb = operation.split_whitespace().next().unwrap_or("");
    let parsed = match verb {
        "tools.list" => from(result).map(OpResult::Tools),
        "tools.search" => from(result).map(OpResult::Search),
        "tools.describe" => from(result).map(|d| OpResult::Describe(Box::new(d))),
        "tools.call" => from(result).map(OpResult::Call),
        "resources.list" => from(result).map(OpResult::Resources),
        "resources.read" => from(result).map(OpResult::Read),
        "prompts.list" => from(result).map(OpResult::Prompts),
        "prompts.get" => from(result).map(OpResult::Prompt),
        "reconnect" => from(result).map(OpResult::Reconnected),
        "completion.complete" => from(result).map(OpResult::Completion),
        "tools.cost" => from(result).map(OpResult::Costs),
        "skills.list" => from(result).map(OpResult::Skills),
        "skills.get" => from(result).map(OpResult::Skill),
        other => panic!("no typed result for operation `{other}`"),
    };
    parsed.unwrap_or_else(|e| panic!("`{operation}` result does not fit its type: {e}"))
}

/// A successful outcome with `result` (its envelope JSON; see [`typed`]).
pub fn ok(id: u64, operation: &str, result: Value) -> Msg {
    let text = result
        .get("text")
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    Msg::Done {
        id,
        outcome: Box::new(Outcome {
            server: Some("demo".to_owned()),
            operation: operation.to_owned(),
            body: Ok(Success {
                result: typed(operation, result),
                text,
                spills: Vec::new(),
            }),
        }),
    }
}

/// A failed outcome.
pub fn failed(id: u64, operation: &str, class: ErrorClass, message: &str) -> Msg {
    Msg::Done {
        id,
        outcome: Box::new(Outcome {
            server: Some("demo".to_owned()),
            operation: operation.to_owned(),
            body: Err(Failure::new(class, message.to_owned())),
        }),
    }
}

/// The demo-like tool list.
pub fn tools_result() -> Value {
    serde_json::json!({"tools": [
        {"name": "echo", "description": "Echo the given text back unchanged.", "required": ["text"]},
        {"name": "long_task", "description": "Run a slow task.", "required": ["steps"]},
    ], "count": 2})
}

/// The description of `echo`.
pub fn echo_description() -> Value {
    serde_json::json!({
        "name": "echo",
        "description": "Echo the given text back unchanged.",
        "inputSchema": {"type": "object", "properties": {"text": {"type": "string", "description": "The text"}}, "required": ["text"]},
        "serverClaimedAnnotations": {"readOnlyHint": true}
    })
}

/// An app with the demo server and a `workspace` server (never started: `update` tests only).
pub fn workspace_app() -> (App, tempfile::TempDir) {
    app_with(&serde_json::json!({
        "demo": {"command": "mcpdeck", "args": ["demo-server"]},
        "workspace": {"command": "mcpdeck", "args": ["workspace-server"]},
    }))
}

/// What the engine describes for workspace `tool`, bound to the alias `proj`.
pub fn workspace_description(tool: &str) -> Value {
    serde_json::json!({
        "name": tool,
        "inputSchema": crate::workspace::schema::input_schema(tool, &["proj".to_owned()]),
    })
}

/// A successful `tools.call` of a workspace tool answering `envelope`.
pub fn workspace_answer(id: u64, envelope: &Value) -> Msg {
    ok(
        id,
        "tools.call",
        serde_json::json!({"isError": false, "text": envelope.to_string(), "structuredContent": envelope.clone()}),
    )
}

/// The id of the first agent request among `effects` (a listing, a describe, a call).
pub fn agent_request_id(effects: &[crate::app::Effect]) -> u64 {
    effects
        .iter()
        .find_map(|e| match e {
            crate::app::Effect::Engine {
                id,
                request: crate::mcp::EngineRequest::Agent(_),
                ..
            } => Some(*id),
            _ => None,
        })
        .unwrap_or_else(|| panic!("an agent request in {effects:?}"))
}

/// The one operator request in `effects`: its id and operation; panics on anything else.
pub fn operate(effects: &[Effect]) -> (ReqId, OperatorOp) {
    match effects {
        [
            Effect::Engine {
                id,
                request: EngineRequest::Operator { op, .. },
                ..
            },
        ] => (*id, op.clone()),
        other => panic!("{other:?}"),
    }
}
