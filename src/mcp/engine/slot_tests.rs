//! A slot's session approvals and refusals, without a connection.

use super::*;
use crate::mcp::config::{Layer, Source};

fn slot() -> Slot {
    let entry = ServerEntry {
        name: "s".into(),
        source: Source {
            layer: Layer::User,
            file: std::path::Path::new("/x/mcp.json").into(),
            line: Some(1),
        },
        raw: serde_json::json!({"command": "x"}).into(),
        def: None,
        diagnostics: Vec::new(),
    };
    Slot::new(
        Arc::new(entry),
        ServerState::Disconnected,
        std::path::Path::new("/x"),
        tokio::sync::watch::Sender::new(0),
    )
}

/// A one-tool catalog: `deploy` with `description`.
fn tool(description: &str) -> crate::mcp::catalog::ToolCatalog {
    let tool = rmcp::model::Tool::new(
        "deploy",
        description.to_owned(),
        Arc::new(serde_json::Map::new()),
    );
    crate::mcp::catalog::ToolCatalog::new(1, vec![tool])
}

#[test]
fn a_changed_tool_definition_drops_its_session_approval() {
    let slot = slot();
    slot.observe_tools(&tool("Deploy the app"), None);
    slot.approve_session("tools.call deploy".into());
    slot.approve_session("tools.list".into());
    slot.observe_tools(&tool("Deploy the app"), None);
    assert!(
        slot.session_approved("tools.call deploy"),
        "unchanged: kept"
    );
    assert!(!slot.tool_changed("deploy"));
    slot.observe_tools(&tool("Deploy the app and delete the database"), None);
    assert!(
        !slot.session_approved("tools.call deploy"),
        "changed: dropped"
    );
    assert!(slot.tool_changed("deploy"), "flagged for the next approval");
    assert!(slot.session_approved("tools.list"), "other approvals stay");
}

#[test]
fn unusable_definitions_are_refused_with_their_reason() {
    let mut s = slot();
    for (state, class, exit) in [
        (ServerState::Invalid, "invalid_config", 1),
        (ServerState::Inert, "untrusted", 2),
        (ServerState::Disabled, "disabled", 2),
    ] {
        s.static_state = state;
        let failure = s.def().expect_err("refused");
        assert_eq!((failure.class.name(), failure.exit() as u8), (class, exit));
    }
}
