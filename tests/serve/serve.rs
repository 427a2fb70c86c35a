//! `mcpdeck serve` driven by a real rmcp client over stdio: the one `mcp` tool, every operation
//! through to the fixture, cancellation reaching the downstream call, cleanup after the client
//! leaves, and enforce mode with every approver (none, elicitation, an attached console).

#![allow(clippy::unwrap_used)]

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::json_keys::not_camel_case;
use common::{AuthServer, Sandbox, files_under, fixture};
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig,
    ClientRequest, ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationCapability,
    Implementation, ProtocolVersion,
};
use rmcp::service::{PeerRequestOptions, RequestContext, RoleClient, RunningService};
use rmcp::transport::{ConfigureCommandExt as _, TokioChildProcess};
use rmcp::{ClientHandler, ErrorData, ServiceExt as _};
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(30);

/// A client that answers elicitations with a fixed decision (or does not support them).
struct Host {
    answer: Option<&'static str>,
    asked: Arc<AtomicUsize>,
}

impl ClientHandler for Host {
    fn get_info(&self) -> ClientConfig {
        let mut caps = ClientCapabilities::default();
        if self.answer.is_some() {
            caps.elicitation = Some(ElicitationCapability::new());
        }
        ClientConfig::new(caps, Implementation::new("serve-test", "0"))
            .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }

    async fn create_elicitation(
        &self,
        _request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        self.asked.fetch_add(1, Ordering::SeqCst);
        let decision = self.answer.unwrap_or("deny");
        Ok(
            ElicitResult::new(ElicitationAction::Accept)
                .with_content(json!({"decision": decision})),
        )
    }
}

struct Session {
    client: RunningService<RoleClient, Host>,
    asked: Arc<AtomicUsize>,
    runtime_dir: PathBuf,
}

fn servers(sb: &Sandbox, counter: &Path, events: &Path) {
    let env = json!({"FIXTURE_COUNTER": counter, "FIXTURE_EVENTS": events});
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {"fx": {"command": fixture(), "args": ["stdio"], "env": env}}})
            .to_string(),
    );
}

async fn start(sb: &Sandbox, extra: &[&str], answer: Option<&'static str>) -> Session {
    let runtime_dir = sb.dir.path().join("run");
    std::fs::create_dir_all(&runtime_dir).unwrap();
    let cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcpdeck")).configure(|c| {
        c.env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", sb.dir.path())
            .env("XDG_CONFIG_HOME", &sb.home)
            .env("XDG_RUNTIME_DIR", &runtime_dir)
            .args(["--cwd", sb.project.to_str().unwrap(), "serve"])
            .args(extra);
    });
    let (transport, _stderr) = TokioChildProcess::builder(cmd)
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let asked = Arc::new(AtomicUsize::new(0));
    let client = tokio::time::timeout(
        WAIT,
        Host {
            answer,
            asked: asked.clone(),
        }
        .serve(transport),
    )
    .await
    .unwrap()
    .unwrap();
    Session {
        client,
        asked,
        runtime_dir,
    }
}

async fn mcp(session: &Session, args: Value) -> CallToolResult {
    let params =
        CallToolRequestParams::new("mcp").with_arguments(args.as_object().unwrap().clone());
    tokio::time::timeout(WAIT, session.client.call_tool(params))
        .await
        .unwrap()
        .unwrap()
}

fn text(r: &CallToolResult) -> String {
    r.content
        .iter()
        .filter_map(|c| c.as_text().map(|t| t.text.clone()))
        .collect()
}

fn calls(counter: &Path) -> usize {
    std::fs::read_to_string(counter).map_or(0, |s| s.lines().count())
}

#[tokio::test]
async fn one_tool_reaches_every_operation() {
    let sb = Sandbox::new();
    let counter = sb.dir.path().join("counter");
    servers(&sb, &counter, &sb.dir.path().join("events"));
    let session = start(&sb, &[], None).await;

    let info = session.client.peer_info().unwrap();
    assert_eq!(
        info.server_info.as_ref().map(|i| i.name.as_str()),
        Some("mcpdeck")
    );
    let tools = session.client.list_tools(None).await.unwrap().tools;
    assert_eq!(tools.len(), 1);
    assert_eq!(tools[0].name, "mcp");
    let annotations = tools[0].annotations.clone().unwrap();
    assert_eq!(annotations.read_only_hint, Some(false));
    assert_eq!(annotations.destructive_hint, Some(true));
    assert_eq!(annotations.open_world_hint, Some(true));
    assert_eq!(
        tools[0].input_schema.get("additionalProperties"),
        Some(&json!(false))
    );

    let status = mcp(&session, json!({})).await;
    assert_ne!(status.is_error, Some(true));
    assert!(
        text(&status).contains("fx [disconnected]"),
        "{}",
        text(&status)
    );

    let listed = mcp(&session, json!({"server": "fx"})).await;
    assert!(text(&listed).contains("- echo"), "{}", text(&listed));
    let structured = listed.structured_content.clone().unwrap();
    assert_eq!(structured["operation"], "tools.list");
    assert_eq!(structured["status"], "ok");

    let found = mcp(&session, json!({"server": "fx", "search": "echo"})).await;
    assert!(text(&found).contains("1 match for"), "{}", text(&found));
    let described = mcp(&session, json!({"server": "fx", "describe": "add"})).await;
    assert!(text(&described).contains("inputSchema"));
    let echoed = mcp(
        &session,
        json!({"server": "fx", "tool": "echo", "args": {"text": "via serve"}}),
    )
    .await;
    assert_eq!(text(&echoed), "via serve");
    assert_eq!(calls(&counter), 1);

    let resources = mcp(
        &session,
        json!({"server": "fx", "operation": "resources.list"}),
    )
    .await;
    let reference = resources.structured_content.unwrap()["result"]["resources"][0]["reference"]
        .as_str()
        .unwrap()
        .to_owned();
    let read = mcp(
        &session,
        json!({"server": "fx", "operation": "resources.read", "resource": reference}),
    )
    .await;
    assert!(
        text(&read).contains("content of mem://doc/1"),
        "{}",
        text(&read)
    );
    let prompt = mcp(&session, json!({"server": "fx", "operation": "prompts.get", "prompt": "greet", "arguments": {"name": "Ada"}})).await;
    assert!(text(&prompt).contains("Say hello to Ada"));

    let reconnected = mcp(&session, json!({"server": "fx", "operation": "reconnect"})).await;
    assert_ne!(reconnected.is_error, Some(true), "{}", text(&reconnected));
    let stale = mcp(
        &session,
        json!({"server": "fx", "operation": "resources.read", "resource": reference}),
    )
    .await;
    assert_eq!(stale.is_error, Some(true));
    assert!(
        text(&stale).contains("list resources again"),
        "{}",
        text(&stale)
    );

    let big = mcp(
        &session,
        json!({"server": "fx", "tool": "big_text", "args": {"size": 200_000}}),
    )
    .await;
    let big_text = text(&big);
    assert!(
        big_text.contains("spill file spill-"),
        "{}",
        &big_text[big_text.len() - 200..]
    );
    assert!(
        !big_text.contains(session.runtime_dir.to_str().unwrap()),
        "no host paths"
    );
    assert!(
        !files_under(&session.runtime_dir).is_empty(),
        "the spill exists while serving"
    );

    let bad = mcp(
        &session,
        json!({"server": "fx", "search": "x", "tool": "y"}),
    )
    .await;
    assert_eq!(bad.is_error, Some(true));
    assert!(text(&bad).contains("search") && text(&bad).contains("tool"));

    let runtime_dir = session.runtime_dir.clone();
    let mut client = session.client;
    client.close().await.unwrap();
    let gone = common_wait(&runtime_dir, || files_under(&runtime_dir).is_empty()).await;
    assert!(
        gone,
        "spills and socket removed after the client left: {:?}",
        files_under(&runtime_dir)
    );
}

/// Waits, at most [`WAIT`], for `cond` on files under `root`, woken by their changes.
async fn common_wait(root: &std::path::Path, cond: impl FnMut() -> bool) -> bool {
    common::fs_wait::until_changed(root, WAIT, cond).await
}

#[tokio::test]
async fn host_cancellation_reaches_the_downstream_call() {
    let sb = Sandbox::new();
    let events = sb.dir.path().join("events");
    servers(&sb, &sb.dir.path().join("counter"), &events);
    let session = start(&sb, &[], None).await;
    let params = CallToolRequestParams::new("mcp").with_arguments(
        json!({"server": "fx", "tool": "hang"})
            .as_object()
            .unwrap()
            .clone(),
    );
    let handle = session
        .client
        .send_cancellable_request(
            ClientRequest::CallToolRequest(CallToolRequest::new(params)),
            PeerRequestOptions::no_options(),
        )
        .await
        .unwrap();
    // The fixture records the call once it starts; then cancel from the host.
    assert!(common_wait(sb.dir.path(), || calls(&sb.dir.path().join("counter")) == 1).await);
    handle.cancel(Some("host gave up".into())).await.unwrap();
    assert!(
        common_wait(sb.dir.path(), || std::fs::read_to_string(&events)
            .is_ok_and(|e| e.contains("cancel")))
        .await,
        "the fixture saw the cancellation"
    );
}

#[tokio::test]
async fn enforce_without_an_approver_fails_closed() {
    let sb = Sandbox::new();
    let counter = sb.dir.path().join("counter");
    servers(&sb, &counter, &sb.dir.path().join("events"));
    let session = start(&sb, &["--policy", "enforce"], None).await;
    let r = mcp(
        &session,
        json!({"server": "fx", "tool": "echo", "args": {"text": "x"}}),
    )
    .await;
    assert_eq!(r.is_error, Some(true));
    assert_eq!(
        r.structured_content.unwrap()["error"]["class"],
        "approval_required"
    );
    assert_eq!(calls(&counter), 0, "nothing reached the server");
    let status = mcp(&session, json!({})).await;
    assert_ne!(status.is_error, Some(true), "status always runs");
}

#[tokio::test]
async fn deny_rules_refuse_before_any_request() {
    let sb = Sandbox::new();
    let counter = sb.dir.path().join("counter");
    servers(&sb, &counter, &sb.dir.path().join("events"));
    sb.write(
        "config/mcpdeck/policy.json",
        r#"{"mode": "audit", "deny": ["fx:tools.call ec*"]}"#,
    );
    let session = start(&sb, &[], None).await;
    let r = mcp(
        &session,
        json!({"server": "fx", "tool": "echo", "args": {"text": "x"}}),
    )
    .await;
    assert_eq!(r.structured_content.unwrap()["error"]["class"], "denied");
    assert_eq!(calls(&counter), 0);
    let ok = mcp(
        &session,
        json!({"server": "fx", "tool": "add", "args": {"a": 1, "b": 2}}),
    )
    .await;
    assert_ne!(ok.is_error, Some(true));
    assert_eq!(calls(&counter), 1);
}

#[tokio::test]
async fn elicitation_approves_once_or_for_the_session() {
    let sb = Sandbox::new();
    let counter = sb.dir.path().join("counter");
    servers(&sb, &counter, &sb.dir.path().join("events"));
    sb.write(
        "config/mcpdeck/policy.json",
        r#"{"mode": "enforce", "allow": ["fx:tools.list"]}"#,
    );

    let once = start(&sb, &[], Some("allow_once")).await;
    for n in 1..=2 {
        let r = mcp(
            &once,
            json!({"server": "fx", "tool": "echo", "args": {"text": "x"}}),
        )
        .await;
        assert_ne!(r.is_error, Some(true), "{}", text(&r));
        assert_eq!(
            once.asked.load(Ordering::SeqCst),
            n,
            "allow once asks every time"
        );
    }
    assert_eq!(calls(&counter), 2);
    mcp(&once, json!({"server": "fx"})).await;
    assert_eq!(
        once.asked.load(Ordering::SeqCst),
        2,
        "allowed by rule: not asked"
    );

    let session = start(&sb, &[], Some("allow_session")).await;
    for _ in 0..3 {
        let r = mcp(
            &session,
            json!({"server": "fx", "tool": "echo", "args": {"text": "x"}}),
        )
        .await;
        assert_ne!(r.is_error, Some(true));
    }
    assert_eq!(
        session.asked.load(Ordering::SeqCst),
        1,
        "asked once for the session"
    );
    mcp(
        &session,
        json!({"server": "fx", "tool": "add", "args": {"a": 1, "b": 1}}),
    )
    .await;
    assert_eq!(
        session.asked.load(Ordering::SeqCst),
        2,
        "a different operation asks again"
    );

    let denied = start(&sb, &[], Some("deny")).await;
    let before = calls(&counter);
    let r = mcp(
        &denied,
        json!({"server": "fx", "tool": "echo", "args": {"text": "x"}}),
    )
    .await;
    assert_eq!(r.structured_content.unwrap()["error"]["class"], "denied");
    assert_eq!(calls(&counter), before, "a denial sends nothing");
}

/// An enforce-mode serve session over the fixture, once its control socket is published:
/// (sandbox, the fixture's call counter, the session, the socket directory).
async fn enforce_session_with_socket() -> (Sandbox, PathBuf, Arc<Session>, PathBuf) {
    let sb = Sandbox::new();
    let counter = sb.dir.path().join("counter");
    servers(&sb, &counter, &sb.dir.path().join("events"));
    let session = Arc::new(start(&sb, &["--policy", "enforce"], None).await);
    let dir = session.runtime_dir.join("mcpdeck");
    assert!(
        common_wait(&session.runtime_dir, || {
            !mcpdeck::mcp::control::list_sockets(&dir).is_empty()
        })
        .await,
        "socket published"
    );
    (sb, counter, session, dir)
}

#[tokio::test]
async fn an_attached_console_answers_through_the_control_socket() {
    use mcpdeck::mcp::control::{ControlClient, list_sockets};
    use mcpdeck::mcp::policy::Decision;

    let (sb, counter, session, dir) = enforce_session_with_socket().await;
    let socket = list_sockets(&dir).remove(0);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        assert_eq!(
            std::fs::metadata(&socket).unwrap().permissions().mode() & 0o777,
            0o600
        );
        assert_eq!(
            std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777,
            0o700
        );
    }
    let (mut console, snapshot) = ControlClient::attach(&socket).await.unwrap();
    assert_eq!(snapshot.mode, "enforce");
    assert_eq!(snapshot.servers[0].name, "fx");

    for (decision, expect_ok, expect_calls) in
        [(Decision::AllowOnce, true, 1), (Decision::Deny, false, 1)]
    {
        let s = session.clone();
        let call = tokio::spawn(async move {
            mcp(
                &s,
                json!({"server": "fx", "tool": "echo", "args": {"text": "secret-arg"}}),
            )
            .await
        });
        let request = next_approval(&mut console).await;
        assert_eq!(request.server, "fx");
        assert_eq!(request.operation, "tools.call echo");
        // The person asked sees what the call will do: its arguments, and the effects the
        // tool's annotations claim (echo says it is read-only).
        let arguments = request.arguments.clone().unwrap_or_default();
        assert!(
            arguments.contains("\"text\": \"secret-arg\""),
            "{arguments}"
        );
        assert!(request.effects_claimed);
        assert_eq!(
            request.effects,
            [
                mcpdeck::mcp::policy::EffectClass::Read,
                mcpdeck::mcp::policy::EffectClass::Network
            ]
        );
        console.decide(request.ticket, decision).await.unwrap();
        let r = call.await.unwrap();
        assert_eq!(r.is_error != Some(true), expect_ok, "{}", text(&r));
        assert_eq!(calls(&counter), expect_calls);
    }
    // A decision for an unknown ticket is ignored.
    console.decide(9_999, Decision::AllowOnce).await.unwrap();

    // `approvals --json` lists the session and its pending request, every key camelCase.
    let s = session.clone();
    let call = tokio::spawn(async move {
        mcp(
            &s,
            json!({"server": "fx", "tool": "echo", "args": {"text": "pending"}}),
        )
        .await
    });
    let request = next_approval(&mut console).await;
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_mcpdeck"))
        .env("XDG_RUNTIME_DIR", &session.runtime_dir)
        .env("XDG_CONFIG_HOME", &sb.home)
        .args(["approvals", "--json"])
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let listed = &v["result"]["sessions"][0];
    assert_eq!(listed["mode"], "enforce", "{v}");
    assert_eq!(listed["awaitingConsole"], 0, "{v}");
    let pending = &listed["pending"][0];
    assert_eq!(pending["ticket"], request.ticket, "{v}");
    assert_eq!(pending["timeoutMs"], request.timeout_ms, "{v}");
    assert_eq!(pending["toolChanged"], false, "{v}");
    assert_eq!(pending["serverChanged"], false, "{v}");
    assert_eq!(pending["effectsClaimed"], true, "{v}");
    assert!(not_camel_case(&v).is_empty(), "{v}");
    console
        .decide(request.ticket, Decision::Deny)
        .await
        .unwrap();
    let denied = call.await.unwrap();
    assert_eq!(denied.is_error, Some(true), "{}", text(&denied));
}

/// The next approval request an attached console receives.
async fn next_approval(
    console: &mut mcpdeck::mcp::control::ControlClient,
) -> mcpdeck::mcp::policy::ApprovalRequest {
    loop {
        match tokio::time::timeout(WAIT, console.next())
            .await
            .unwrap()
            .unwrap()
        {
            Some(mcpdeck::mcp::control::ToConsole::Approval { request }) => return request,
            Some(_) => {}
            None => panic!("session closed"),
        }
    }
}

#[tokio::test]
async fn mcpdeck_approvals_answers_from_another_terminal() {
    use mcpdeck::mcp::control::{ControlClient, ToConsole, list_sockets};

    if !common::peers::script() {
        return;
    }
    let sb = Sandbox::new();
    let counter = sb.dir.path().join("counter");
    servers(&sb, &counter, &sb.dir.path().join("events"));
    let session = Arc::new(start(&sb, &["--policy", "enforce"], None).await);
    let dir = session.runtime_dir.join("mcpdeck");
    assert!(common_wait(&session.runtime_dir, || !list_sockets(&dir).is_empty()).await);
    let socket = list_sockets(&dir).remove(0);
    // A watcher console sees the request arrive, so the approvals command finds it pending.
    let (mut watcher, _) = ControlClient::attach(&socket).await.unwrap();
    for (answer, expect_ok, expect_calls) in [("y\n", true, 1), ("n\n", false, 1)] {
        let s = session.clone();
        let call = tokio::spawn(async move {
            mcp(
                &s,
                json!({"server": "fx", "tool": "echo", "args": {"text": "x"}}),
            )
            .await
        });
        loop {
            if let Some(ToConsole::Approval { .. }) = tokio::time::timeout(WAIT, watcher.next())
                .await
                .unwrap()
                .unwrap()
            {
                break;
            }
        }
        let command = format!("{} approvals", env!("CARGO_BIN_EXE_mcpdeck"));
        let runtime_dir = session.runtime_dir.clone();
        let screen = tokio::task::spawn_blocking(move || {
            use std::io::Write as _;
            let mut child = std::process::Command::new("script")
                .args(["-qec", &command, "/dev/null"])
                .env("XDG_RUNTIME_DIR", runtime_dir)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .unwrap();
            child
                .stdin
                .take()
                .unwrap()
                .write_all(answer.as_bytes())
                .unwrap();
            String::from_utf8_lossy(&child.wait_with_output().unwrap().stdout).into_owned()
        })
        .await
        .unwrap();
        assert!(
            screen.contains("approve `tools.call echo` on `fx`"),
            "{screen}"
        );
        let r = tokio::time::timeout(WAIT, call).await.unwrap().unwrap();
        assert_eq!(r.is_error != Some(true), expect_ok, "{}", text(&r));
        assert_eq!(calls(&counter), expect_calls);
    }
}

/// The packaged workspace server answers agents through the one `mcp` tool.
#[tokio::test]
async fn workspace_tools_answer_through_serve() {
    let sb = Sandbox::new();
    sb.write(
        "project/README.md",
        "# Guide\n\n## Precedence\n\nProject files override user files.\n",
    );
    sb.write(
        "project/.mcp.json",
        "{\"mcpServers\": {\"x\": {\"command\": 1}}}",
    );
    let session = start(&sb, &[], None).await;
    let found = mcp(
        &session,
        json!({"server": "workspace", "tool": "workspace_find",
            "args": {"workspace": "project", "question": "configuration precedence"}}),
    )
    .await;
    assert_ne!(found.is_error, Some(true), "{}", text(&found));
    let envelope: Value = serde_json::from_str(&text(&found)).unwrap();
    assert_eq!(envelope["status"], "known", "{envelope}");
    assert_eq!(
        envelope["result"]["passages"][0]["text"],
        "## Precedence\n\nProject files override user files.",
        "{envelope}"
    );
    let checked = mcp(
        &session,
        json!({"server": "workspace", "tool": "workspace_check", "args": {"workspace": "project"}}),
    )
    .await;
    let envelope: Value = serde_json::from_str(&text(&checked)).unwrap();
    let findings = envelope["result"]["findings"].as_array().unwrap();
    assert!(
        findings
            .iter()
            .any(|f| f["path"] == ".mcp.json" && f["severity"] == "error"),
        "{envelope}"
    );
}

/// The console attaches to a live serve session (the real executor and app, no terminal):
/// the Agents view lists it, its approval request opens the console's modal tagged with the
/// session, and the operator's answer lets the agent's call run.
#[tokio::test]
async fn the_console_answers_an_agents_approval() {
    use mcpdeck::app::{App, Effect, Msg};
    use mcpdeck::console::Executor;
    use mcpdeck::mcp::config::{ConfigSet, LoadOptions};
    use mcpdeck::mcp::policy::Policy;
    use mcpdeck::mcp::trust::TrustStore;

    let (_sb, counter, session, dir) = enforce_session_with_socket().await;
    let console = Sandbox::new();
    let config = ConfigSet::load(&LoadOptions {
        project_dir: console.project.clone(),
        config_home: Some(console.home.clone()),
        extra_files: Vec::new(),
    })
    .unwrap();
    let local = tokio::task::LocalSet::new();
    local
        .run_until(async move {
            let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
            let (events, _events_rx) = tokio::sync::mpsc::channel(16);
            let mut exec = Executor::new(
                config,
                TrustStore::default_path(&console.home),
                Policy::default(),
                tx,
                events,
                Some(console.dir.path().to_path_buf()),
            )
            .unwrap();
            exec.set_agents_dir(dir);
            let mut app = App::new(
                &exec.engine().status(),
                exec.info(),
                std::time::Instant::now(),
            );
            let key = |c: char| {
                Msg::Key(crossterm::event::KeyEvent::new(
                    crossterm::event::KeyCode::Char(c),
                    crossterm::event::KeyModifiers::NONE,
                ))
            };
            let effects = app.update(key('A'));
            assert!(effects.contains(&Effect::ScanAgents), "{effects:?}");
            // The console's periodic discovery attaches without any key.
            exec.discover_agents();
            let mut pump = async |app: &mut App,
                                  exec: &mut Executor,
                                  what: &str,
                                  done: &dyn Fn(&App) -> bool| {
                while !done(app) {
                    let msg = tokio::time::timeout(WAIT, rx.recv())
                        .await
                        .unwrap_or_else(|_| panic!("timed out waiting for {what}"))
                        .unwrap();
                    app.now = std::time::Instant::now();
                    for effect in app.update(msg) {
                        exec.run(effect);
                    }
                }
            };
            pump(&mut app, &mut exec, "the session", &|a| {
                !a.agents.is_empty()
            })
            .await;
            let row = app.agents[0].clone();
            assert_eq!(row.mode, "enforce");
            assert_eq!(row.servers[0].0, "fx");
            assert!(!row.gone);

            let s = session.clone();
            let call = tokio::spawn(async move {
                mcp(
                    &s,
                    json!({"server": "fx", "tool": "echo", "args": {"text": "from the agent"}}),
                )
                .await
            });
            pump(&mut app, &mut exec, "the agent's approval", &|a| {
                !a.approvals.is_empty()
            })
            .await;
            let pending = &app.approvals[0];
            assert_eq!(pending.agent, Some(row.pid));
            assert_eq!(pending.request.operation, "tools.call echo");
            // Within the guard the key is ignored; after it, y allows once.
            app.now = pending.shown_at;
            app.update(key('y'));
            assert_eq!(app.approvals.len(), 1);
            app.now = app.approvals[0].shown_at + Duration::from_millis(400);
            // The answer is an effect; the executor holds the reply the session awaits.
            for effect in app.update(key('y')) {
                exec.run(effect);
            }
            assert!(app.approvals.is_empty());
            let result = tokio::time::timeout(WAIT, call).await.unwrap().unwrap();
            assert_ne!(result.is_error, Some(true), "{}", text(&result));
            assert_eq!(text(&result), "from the agent");
            assert_eq!(calls(&counter), 1);
            assert!(app.decided[0].0.contains(&format!("agent {}", row.pid)));
            exec.shutdown().await;
        })
        .await;
}

/// Serve never opens a browser: an operation on a server that needs sign-in answers
/// `auth_required` with the command to run; once the operator has signed in (here with the
/// CLI), the next operation uses the stored tokens without restarting serve.
#[tokio::test]
async fn a_server_waiting_for_sign_in_is_used_once_the_operator_signs_in() {
    let server = AuthServer::start(&[]);
    let sb = Sandbox::new();
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {"web": {"url": server.url()}}}).to_string(),
    );
    let session = start(&sb, &[], None).await;
    let refused = mcp(&session, json!({"server": "web"})).await;
    assert_eq!(refused.is_error, Some(true));
    let shown = text(&refused);
    assert!(shown.contains("auth_required"), "{shown}");
    assert!(shown.contains("mcpdeck auth login web"), "{shown}");
    assert_eq!(server.seen()["authorizations"], 0, "no browser from serve");

    let browser = format!("{} browse", fixture());
    let login = sb
        .cmd()
        .env("BROWSER", browser)
        .args(["auth", "login", "web"])
        .output()
        .unwrap();
    assert!(
        login.status.success(),
        "{}",
        String::from_utf8_lossy(&login.stderr)
    );

    let listed = mcp(&session, json!({"server": "web"})).await;
    assert_ne!(listed.is_error, Some(true), "{}", text(&listed));
    assert!(text(&listed).contains("- echo"), "{}", text(&listed));
}

/// Two calls on one connection whose token the server has stopped accepting: both are refused
/// (the fixture answers the two refusals together, so both went out with the old token), and
/// they share one refresh: the second sees the token the first one's refresh stored and retries
/// with it instead of refreshing again.
#[tokio::test]
async fn two_refusals_on_one_connection_share_one_refresh() {
    let server = AuthServer::start(&["--hold-refusals", "2"]);
    let sb = Sandbox::new();
    sb.write(
        "config/mcpdeck/mcp.json",
        &json!({"mcpServers": {"web": {"url": server.url()}}}).to_string(),
    );
    let browser = format!("{} browse", fixture());
    let login = sb
        .cmd()
        .env("BROWSER", browser)
        .args(["auth", "login", "web"])
        .output()
        .unwrap();
    assert!(login.status.success());
    let session = start(&sb, &[], None).await;
    let listed = mcp(&session, json!({"server": "web"})).await;
    assert!(text(&listed).contains("- echo"), "{}", text(&listed));

    server.post("/expire", "");
    let echo = |said: &str| json!({"server": "web", "tool": "echo", "args": {"text": said}});
    let (first, second) = tokio::join!(mcp(&session, echo("one")), mcp(&session, echo("two")));
    assert_eq!(text(&first), "one");
    assert_eq!(text(&second), "two");
    let seen = server.seen();
    assert_eq!(seen["refused_tokens"], 2, "{seen}");
    assert_eq!(seen["refreshes"], 1, "{seen}");
    assert_eq!(seen["rejected_refreshes"], 0, "{seen}");
}
