//! The response frame kept as the server sent it (the raw JSON view's source): byte for byte
//! over stdio and over HTTP (a plain JSON body and an SSE event), with the connection's secrets
//! redacted, inline when small; a large one is a raw spill removed with the engine's other
//! spills.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use crate::common;

use common::fixture;
use mcpdeck::mcp::api::OpResult;
use mcpdeck::mcp::config::{ConfigSet, Layer, read_file};
use mcpdeck::mcp::engine::{Engine, EngineOptions, EngineRequest};
use mcpdeck::mcp::proxy::ProxyRequest;
use mcpdeck::mcp::results::RawJson;
use mcpdeck::mcp::trust::TrustStore;
use serde_json::json;
use tokio_util::sync::CancellationToken;

const SECRET: &str = "tok-raw-frame-5531";

/// An engine over the raw fixture's `case` on stdio, with `MY_TOKEN` set to [`SECRET`] for
/// references and the fixture writing what it sent to `frame`.
fn engine(dir: &tempfile::TempDir, case: &str, frame: &std::path::Path) -> Engine {
    engine_of(
        dir,
        &json!({"fx": {
            "command": fixture(), "args": ["raw", "--case", case],
            "env": {"FIXTURE_SECRET": "${MY_TOKEN}", "FIXTURE_FRAME_FILE": frame},
        }}),
    )
}

/// An engine over `servers`, with `MY_TOKEN` set to [`SECRET`] for references.
fn engine_of(dir: &tempfile::TempDir, servers: &serde_json::Value) -> Engine {
    let file = dir.path().join("mcp.json");
    std::fs::write(&file, json!({"mcpServers": servers}).to_string()).unwrap();
    let config = ConfigSet::from_files(
        dir.path().to_path_buf(),
        vec![read_file(Layer::User, file, true)],
    );
    std::fs::create_dir_all(dir.path().join("run")).unwrap();
    let options = EngineOptions {
        spill_base: Some(dir.path().join("run")),
        lookup: Some(Arc::new(|name: &str| {
            (name == "MY_TOKEN").then(|| SECRET.to_owned())
        })),
        ..EngineOptions::default()
    };
    Engine::new(
        config,
        TrustStore::load(dir.path().join("trust.json")),
        options,
    )
    .unwrap()
}

fn call() -> EngineRequest {
    EngineRequest::Agent(ProxyRequest::ToolsCall {
        server: "fx".into(),
        tool: "echo".into(),
        args: serde_json::Map::new(),
    })
}

#[tokio::test]
async fn a_call_keeps_its_answer_byte_for_byte_with_secrets_redacted() {
    let dir = tempfile::tempdir().unwrap();
    let frame = dir.path().join("frame");
    let engine = engine(&dir, "as-sent", &frame);
    let outcome = engine.run(&call(), &CancellationToken::new()).await;
    assert_kept_as_sent(&outcome, &frame);
    engine.shutdown().await;
}

/// Over HTTP the answer is a plain JSON body or an SSE event's data; either is kept as sent,
/// the secret (here a header's reference) redacted.
#[tokio::test]
async fn over_http_a_json_body_and_an_event_are_kept_as_sent() {
    for path in ["/raw/as-sent", "/raw/as-sent-as-sse"] {
        let dir = tempfile::tempdir().unwrap();
        let frame = dir.path().join("frame");
        let fx = common::HttpFixture::start_with(
            "k=read",
            &[
                ("FIXTURE_SECRET", std::path::Path::new(SECRET)),
                ("FIXTURE_FRAME_FILE", &frame),
            ],
        );
        let engine = engine_of(
            &dir,
            &json!({"fx": {"url": fx.url(path), "headers": {"X-Key": "${MY_TOKEN}"}}}),
        );
        let outcome = engine.run(&call(), &CancellationToken::new()).await;
        assert_kept_as_sent(&outcome, &frame);
        engine.shutdown().await;
    }
}

/// The call succeeded, and its kept frame is what the fixture wrote to `frame`, with only the
/// secret redacted (in the frame and in the decoded text).
fn assert_kept_as_sent(outcome: &mcpdeck::mcp::engine::Outcome, frame: &std::path::Path) {
    let Ok(success) = &outcome.body else {
        panic!("{:?}", outcome.body);
    };
    let OpResult::Call(result) = &success.result else {
        panic!("{:?}", success.result);
    };
    let sent = String::from_utf8(std::fs::read(frame).unwrap()).unwrap();
    assert!(sent.contains(SECRET), "the server sent the secret: {sent}");
    assert!(
        sent.contains("2.50"),
        "and a number no serialiser writes: {sent}"
    );
    let Some(RawJson::Inline(kept)) = &result.raw else {
        panic!("{:?}", result.raw);
    };
    assert_eq!(
        *kept,
        sent.replace(SECRET, "[redacted]"),
        "kept as sent, only the secret redacted"
    );
    // The typed result says the same thing, decoded.
    assert!(result.text.contains("[redacted]") && !result.text.contains(SECRET));
}

#[tokio::test]
async fn a_large_answer_is_a_raw_spill_removed_at_shutdown() {
    let dir = tempfile::tempdir().unwrap();
    let frame = dir.path().join("frame");
    let engine = engine(&dir, "huge-text", &frame);
    let outcome = engine.run(&call(), &CancellationToken::new()).await;
    let Ok(success) = &outcome.body else {
        panic!("{:?}", outcome.body);
    };
    let OpResult::Call(result) = &success.result else {
        panic!("{:?}", success.result);
    };
    let Some(RawJson::Spilled { path, size, .. }) = &result.raw else {
        panic!("a 15 MiB answer is spilled: {:?}", result.raw.is_some());
    };
    assert!(*size > 15 * 1024 * 1024, "{size}");
    assert_eq!(std::fs::metadata(path).unwrap().len(), *size);
    assert!(
        engine
            .spills()
            .iter()
            .any(|s| &s.path == path && s.origin.ends_with("(raw JSON)")),
        "listed with the text spills"
    );
    engine.shutdown().await;
    assert!(!path.exists(), "removed with the other spills");
}

/// A 15 MiB text answering a call in one SSE event (from a real server on 127.0.0.1) arrives
/// whole: decoded where the event is read, it takes the place of the stand-in rmcp's worker
/// sees, and its text is spilled byte for byte.
#[tokio::test]
async fn a_large_result_in_an_sse_event_arrives_whole_and_is_spilled() {
    let dir = tempfile::tempdir().unwrap();
    let fx = common::HttpFixture::start("k=read");
    let engine = engine_of(
        &dir,
        &json!({"fx": {"url": fx.url("/raw/huge-escaped-as-sse")}}),
    );
    let outcome = engine.run(&call(), &CancellationToken::new()).await;
    let Ok(success) = &outcome.body else {
        panic!("{:?}", outcome.body);
    };
    let OpResult::Call(result) = &success.result else {
        panic!("{:?}", success.result);
    };
    // The fixture's text: lines of 79 `x`, each ending in an escaped newline, 15 MiB decoded.
    let line = format!("{}\n", "x".repeat(79));
    let sent = line.repeat(15 * 1024 * 1024 / 80);
    let spill = result
        .spills
        .iter()
        .find(|s| s.mime.starts_with("text/"))
        .unwrap_or_else(|| panic!("the text is spilled: {:?}", result.spills));
    assert_eq!(spill.size, sent.len() as u64);
    let entry = engine
        .spills()
        .into_iter()
        .find(|s| s.basename == spill.basename)
        .expect("listed");
    let on_disk = std::fs::read_to_string(&entry.path).unwrap();
    assert!(on_disk == sent, "the spill is the whole text");
    assert!(result.text.contains(&spill.basename), "the text names it");
    engine.shutdown().await;
}
