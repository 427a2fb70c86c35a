//! An engine in-process over a one-file configuration, as the engine tests build it.

use std::sync::Arc;

use mcpdeck::mcp::client::ClientRequests;
use mcpdeck::mcp::config::read_file;
use mcpdeck::mcp::config::{ConfigSet, Layer};
use mcpdeck::mcp::connection::ServerEvent;
use mcpdeck::mcp::engine::{Engine, EngineOptions};
use mcpdeck::mcp::trust::TrustStore;
use serde_json::json;

/// An engine over `servers` (the `mcpServers` object, written to `dir/mcp.json` as a user
/// file), spilling under `dir/run`, with the receiver of its connection events. `client`
/// answers the servers' roots, sampling and elicitation requests when given.
pub fn engine(
    dir: &tempfile::TempDir,
    servers: &serde_json::Value,
    client: Option<Arc<dyn ClientRequests>>,
) -> (Arc<Engine>, tokio::sync::mpsc::Receiver<ServerEvent>) {
    let file = dir.path().join("mcp.json");
    std::fs::write(&file, json!({"mcpServers": servers}).to_string()).expect("write config");
    let config = ConfigSet::from_files(
        dir.path().to_path_buf(),
        vec![read_file(Layer::User, file, true)],
    );
    let trust = TrustStore::load(dir.path().join("trust.json"));
    let (tx, rx) = tokio::sync::mpsc::channel(256);
    std::fs::create_dir_all(dir.path().join("run")).expect("spill base");
    let options = EngineOptions {
        spill_base: Some(dir.path().join("run")),
        events: Some(tx),
        client,
        ..EngineOptions::default()
    };
    (
        Arc::new(Engine::new(config, trust, options).expect("engine")),
        rx,
    )
}
