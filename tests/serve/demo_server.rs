//! `mcpdeck demo-server` driven by a real rmcp client over stdio: identity, catalogs, calls,
//! structured output against its own output schema, progress and cancellation, prompts and
//! resources. Every wait on a server event is bounded; nothing synchronises on a fixed sleep.

#![allow(clippy::unwrap_used, deprecated)]

use std::process::Stdio;
use std::time::Duration;

use base64::Engine as _;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientCapabilities, ClientConfig, ClientRequest,
    ContentBlock, GetPromptRequestParams, Implementation, LoggingMessageNotificationParam,
    ProgressNotificationParam, ProtocolVersion, ReadResourceRequestParams, ResourceContents,
    ServerResult,
};
use rmcp::service::{NotificationContext, PeerRequestOptions, RoleClient, RunningService};
use rmcp::transport::{ConfigureCommandExt as _, TokioChildProcess};
use rmcp::{ClientHandler, ServiceError, ServiceExt as _};
use serde_json::{Value, json};
use tokio::sync::mpsc::{UnboundedReceiver, UnboundedSender, unbounded_channel};

/// Upper bound for any single wait on the server.
const WAIT: Duration = Duration::from_secs(20);

#[derive(Debug)]
enum Event {
    Progress(ProgressNotificationParam),
    Log(LoggingMessageNotificationParam),
}

struct Recorder(UnboundedSender<Event>);

impl ClientHandler for Recorder {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("demo-server-test", "0"),
        )
        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }

    async fn on_progress(
        &self,
        p: ProgressNotificationParam,
        _cx: NotificationContext<RoleClient>,
    ) {
        let _ = self.0.send(Event::Progress(p));
    }

    async fn on_logging_message(
        &self,
        p: LoggingMessageNotificationParam,
        _cx: NotificationContext<RoleClient>,
    ) {
        let _ = self.0.send(Event::Log(p));
    }
}

type Client = RunningService<RoleClient, Recorder>;

async fn connect() -> (Client, UnboundedReceiver<Event>) {
    let cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcpdeck")).configure(|c| {
        c.arg("demo-server");
    });
    let (transport, _stderr) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn demo-server");
    let (tx, rx) = unbounded_channel();
    let client = tokio::time::timeout(WAIT, Recorder(tx).serve(transport))
        .await
        .expect("initialize in time")
        .expect("initialize");
    (client, rx)
}

fn args(v: Value) -> serde_json::Map<String, Value> {
    let Value::Object(map) = v else {
        panic!("not an object: {v}")
    };
    map
}

async fn call(client: &Client, tool: &str, arguments: Value) -> rmcp::model::CallToolResult {
    tokio::time::timeout(
        WAIT,
        client
            .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(args(arguments))),
    )
    .await
    .expect("call in time")
    .expect("call")
}

fn text_of(content: &[ContentBlock]) -> Vec<String> {
    content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

async fn next_event(rx: &mut UnboundedReceiver<Event>) -> Event {
    tokio::time::timeout(WAIT, rx.recv())
        .await
        .expect("an event in time")
        .expect("channel open")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn initialize_reports_mcpdeck_demo_not_rmcp() {
    let (mut client, _rx) = connect().await;
    let info = client.peer_info().expect("peer info");
    let server = info.server_info.as_ref().expect("server info");
    assert_eq!(server.name, "mcpdeck-demo");
    assert_eq!(server.version, env!("CARGO_PKG_VERSION"));
    assert!(
        info.instructions
            .as_deref()
            .unwrap_or("")
            .contains("long_task")
    );
    let caps = &info.capabilities;
    assert!(caps.tools.is_some() && caps.resources.is_some() && caps.prompts.is_some());
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn catalogs_list_tools_resources_templates_and_prompts() {
    let (mut client, _rx) = connect().await;
    let tools = client.list_tools(None).await.unwrap().tools;
    let mut names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
    names.sort_unstable();
    assert_eq!(names, ["add", "echo", "image", "long_task", "weather"]);
    let weather = tools.iter().find(|t| t.name == "weather").unwrap();
    assert!(
        weather.output_schema.is_some(),
        "weather declares an outputSchema"
    );

    let resources = client.list_resources(None).await.unwrap().resources;
    let uris: Vec<(&str, Option<&str>)> = resources
        .iter()
        .map(|r| (r.uri.as_str(), r.mime_type.as_deref()))
        .collect();
    assert_eq!(
        uris,
        [
            ("demo://readme", Some("text/plain")),
            ("demo://status.json", Some("application/json"))
        ]
    );
    let templates = client
        .list_resource_templates(None)
        .await
        .unwrap()
        .resource_templates;
    let templates: Vec<&str> = templates.iter().map(|t| t.uri_template.as_str()).collect();
    assert_eq!(templates, ["demo://notes/{id}"]);

    let prompts = client.list_prompts(None).await.unwrap().prompts;
    assert_eq!(prompts.len(), 1);
    assert_eq!(prompts[0].name, "review");
    let mut arguments: Vec<(String, Option<bool>)> = prompts[0]
        .arguments
        .as_ref()
        .unwrap()
        .iter()
        .map(|a| (a.name.clone(), a.required))
        .collect();
    arguments.sort();
    assert_eq!(
        arguments,
        [("tone".into(), Some(false)), ("topic".into(), Some(true))]
    );
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn echo_add_image_and_errors() {
    let (mut client, _rx) = connect().await;
    let echo = call(&client, "echo", json!({"text": "héllo ✓"})).await;
    assert_eq!(echo.is_error, Some(false));
    assert_eq!(text_of(&echo.content), ["héllo ✓"]);

    let add = call(&client, "add", json!({"a": 2, "b": 3.5})).await;
    assert_eq!(text_of(&add.content), ["5.5"]);
    let bad = call(&client, "add", json!({"a": "two", "b": 1})).await;
    assert_eq!(
        bad.is_error,
        Some(true),
        "bad arguments are an in-band error"
    );

    let image = call(&client, "image", json!({})).await;
    let img = image
        .content
        .iter()
        .find_map(|c| c.as_image())
        .expect("image content");
    assert_eq!(img.mime_type, "image/png");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(&img.data)
        .unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");

    let unknown = client
        .call_tool(CallToolRequestParams::new("nope").with_arguments(args(json!({}))))
        .await;
    assert!(
        matches!(unknown, Err(ServiceError::McpError(_))),
        "{unknown:?}"
    );
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn weather_structured_content_matches_its_output_schema() {
    let (mut client, _rx) = connect().await;
    let tools = client.list_tools(None).await.unwrap().tools;
    let schema = tools
        .iter()
        .find(|t| t.name == "weather")
        .unwrap()
        .output_schema
        .clone()
        .unwrap();
    let validator = jsonschema::validator_for(&Value::Object((*schema).clone())).unwrap();

    let result = call(&client, "weather", json!({"city": "Oslo"})).await;
    assert_eq!(result.is_error, Some(false));
    let structured = result
        .structured_content
        .clone()
        .expect("structuredContent");
    let errors: Vec<String> = validator
        .iter_errors(&structured)
        .map(|e| e.to_string())
        .collect();
    assert!(
        errors.is_empty(),
        "{structured} violates its schema: {errors:?}"
    );
    assert_eq!(structured["city"], "Oslo");
    // The schema is not vacuous: a wrong document is rejected.
    assert!(!validator.is_valid(&json!({"city": "Oslo", "celsius": "warm"})));
    // Deterministic: the same city gives the same report.
    let again = call(&client, "weather", json!({"city": "Oslo"})).await;
    assert_eq!(again.structured_content, Some(structured));

    let empty = call(&client, "weather", json!({"city": "  "})).await;
    assert_eq!(empty.is_error, Some(true));
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_task_reports_progress_to_completion() {
    let (mut client, mut rx) = connect().await;
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(
        CallToolRequestParams::new("long_task")
            .with_arguments(args(json!({"steps": 3, "delay_ms": 1}))),
    ));
    let handle = client
        .send_request_with_option(request, PeerRequestOptions::with_timeout(WAIT))
        .await
        .unwrap();
    let token = handle.progress_token.clone();
    let Ok(ServerResult::CallToolResult(result)) = handle.await_response().await else {
        panic!("no tool result");
    };
    assert_eq!(result.is_error, Some(false));
    assert_eq!(text_of(&result.content), ["long_task completed 3 steps"]);
    // Notifications are dispatched concurrently: collect until all three have arrived.
    let mut seen = Vec::new();
    while seen.len() < 3 {
        if let Event::Progress(p) = next_event(&mut rx).await {
            assert_eq!(p.progress_token, token);
            assert_eq!(p.total, Some(3.0));
            seen.push(p.progress);
        }
    }
    seen.sort_by(f64::total_cmp);
    assert_eq!(seen, [1.0, 2.0, 3.0]);
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_task_stops_early_when_cancelled_and_says_so() {
    let (mut client, mut rx) = connect().await;
    let steps = 400;
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(
        CallToolRequestParams::new("long_task")
            .with_arguments(args(json!({"steps": steps, "delay_ms": 50}))),
    ));
    let handle = client
        .send_cancellable_request(request, PeerRequestOptions::no_options())
        .await
        .unwrap();
    let token = handle.progress_token.clone();
    // Wait for the first progress notification of this request, then cancel.
    loop {
        if let Event::Progress(p) = next_event(&mut rx).await
            && p.progress_token == token
        {
            break;
        }
    }
    handle.cancel(Some("test cancels".into())).await.unwrap();
    // The server reports the cancellation with a log notification naming where it stopped.
    let outcome = loop {
        if let Event::Log(log) = next_event(&mut rx).await {
            assert_eq!(log.logger.as_deref(), Some("long_task"));
            break log.data["outcome"].clone();
        }
    };
    assert_eq!(outcome["state"], "cancelled", "{outcome}");
    let done = outcome["completed_steps"].as_u64().unwrap();
    assert!(done >= 1 && done < steps, "stopped early: {outcome}");

    // The status resource records the same outcome.
    let status = client
        .read_resource(ReadResourceRequestParams::new("demo://status.json"))
        .await
        .unwrap();
    let ResourceContents::TextResourceContents { text, .. } = &status.contents[0] else {
        panic!("status is text");
    };
    let status: Value = serde_json::from_str(text).unwrap();
    assert_eq!(status["last_long_task"], outcome);
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn prompt_with_required_and_optional_arguments() {
    let (mut client, _rx) = connect().await;
    let full = client
        .get_prompt(
            GetPromptRequestParams::new("review")
                .with_arguments(args(json!({"topic": "the parser", "tone": "terse"}))),
        )
        .await
        .unwrap();
    let first = full.messages[0].content.as_text().map(|t| t.text.clone());
    assert_eq!(
        first.as_deref(),
        Some("Please give a terse review of: the parser")
    );

    let default_tone = client
        .get_prompt(
            GetPromptRequestParams::new("review").with_arguments(args(json!({"topic": "x"}))),
        )
        .await
        .unwrap();
    let first = default_tone.messages[0]
        .content
        .as_text()
        .map(|t| t.text.clone());
    assert_eq!(
        first.as_deref(),
        Some("Please give a constructive review of: x")
    );

    let missing = client
        .get_prompt(
            GetPromptRequestParams::new("review").with_arguments(args(json!({"tone": "terse"}))),
        )
        .await;
    assert!(missing.is_err(), "topic is required: {missing:?}");
    client.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resources_and_template_read() {
    let (mut client, _rx) = connect().await;
    let read = |uri: &'static str| client.read_resource(ReadResourceRequestParams::new(uri));
    let readme = read("demo://readme").await.unwrap();
    let ResourceContents::TextResourceContents {
        text, mime_type, ..
    } = &readme.contents[0]
    else {
        panic!("readme is text");
    };
    assert_eq!(mime_type.as_deref(), Some("text/plain"));
    assert!(text.contains("long_task"));

    let status = read("demo://status.json").await.unwrap();
    let ResourceContents::TextResourceContents {
        text, mime_type, ..
    } = &status.contents[0]
    else {
        panic!("status is text");
    };
    assert_eq!(mime_type.as_deref(), Some("application/json"));
    let status: Value = serde_json::from_str(text).unwrap();
    assert_eq!(status["server"], "mcpdeck-demo");
    assert_eq!(status["last_long_task"], Value::Null);

    let note = read("demo://notes/2").await.unwrap();
    let ResourceContents::TextResourceContents { text, .. } = &note.contents[0] else {
        panic!("note is text");
    };
    assert!(text.contains("trust"));

    let missing = read("demo://notes/99").await;
    match missing {
        Err(ServiceError::McpError(e)) => assert_eq!(e.code.0, -32002),
        other => panic!("expected resource-not-found, got {other:?}"),
    }
    client.close().await.unwrap();
}

#[test]
fn stdout_carries_only_json_rpc() {
    use std::io::{BufRead as _, Write as _};
    let requests = [
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"}}}),
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": "hi"}}}),
        json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
            "name": "long_task", "arguments": {"steps": 2, "delay_ms": 1},
            "_meta": {"progressToken": "p"}}}),
        json!({"jsonrpc": "2.0", "id": 4, "method": "resources/read",
            "params": {"uri": "demo://nowhere"}}),
    ];
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mcpdeck"))
        .arg("demo-server")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    for r in &requests {
        writeln!(stdin, "{r}").unwrap();
    }
    stdin.flush().unwrap();
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    let mut ids = Vec::new();
    let mut progress = 0;
    let mut check = |line: &str| {
        let message: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("non-JSON line on stdout ({e}): {line:?}"));
        assert_eq!(message["jsonrpc"], "2.0", "{line}");
        if let Some(id) = message["id"].as_u64() {
            ids.push(id);
        } else if message["method"] == "notifications/progress" {
            progress += 1;
        }
    };
    // Every request is answered while stdin is open…
    for _ in 0..6 {
        check(&rx.recv_timeout(WAIT).expect("a line in time"));
    }
    // …and closing stdin ends the server without printing anything else.
    drop(stdin);
    while let Ok(line) = rx.recv_timeout(WAIT) {
        check(&line);
    }
    reader.join().unwrap();
    assert!(child.wait().unwrap().success());
    ids.sort_unstable();
    assert_eq!(ids, [1, 2, 3, 4]);
    assert_eq!(progress, 2);
}
