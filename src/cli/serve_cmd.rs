//! `mcpdeck serve [--policy audit|enforce]` and `mcpdeck approvals`.

use std::collections::HashSet;
use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};

use super::Context;
use super::exit::Exit;
use super::output::{print_error, print_json, print_text};
use crate::mcp::control::{
    ControlClient, ControlHub, ServerSnapshot, SessionSnapshot, ToConsole, list_sockets, socket_dir,
};
use crate::mcp::engine::{Engine, EngineOptions};
use crate::mcp::policy::{ApprovalRequest, Decision, Mode, Policy};
use crate::mcp::sanitize::sanitize;
use crate::serve::ServeApprover;

fn runtime() -> Result<tokio::runtime::Runtime, Exit> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| {
            print_error(&format!("cannot start the async runtime: {e}"));
            Exit::Usage
        })
}

/// Serves the `mcp` tool on stdio until stdin closes or a signal arrives.
pub fn serve(cx: Context, mode: Option<Mode>) -> Exit {
    let policy_path = Policy::default_path(&cx.config_home);
    let mut policy = match Policy::load(&policy_path) {
        Ok(p) => p,
        Err(e) => {
            print_error(&format!(
                "{e}; refusing to serve in an unknown policy state"
            ));
            return Exit::Usage;
        }
    };
    if let Some(mode) = mode {
        policy.mode = mode;
    }
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(exit) => return exit,
    };
    crate::mcp::engine::cleanup::install_panic_hook();
    rt.block_on(async move {
        let hub = match socket_dir().and_then(|dir| ControlHub::bind(&dir)) {
            Ok(hub) => Some(hub),
            Err(e) => {
                print_error(&format!("no control socket (consoles cannot attach): {e}"));
                None
            }
        };
        let approver = Arc::new(ServeApprover::new(hub.clone()));
        let project = cx.config.project_root.clone();
        let options = EngineOptions {
            policy,
            approver: Some(approver.clone()),
            pins: crate::mcp::pins::PinStore::user(),
            ..EngineOptions::default()
        };
        let engine = match Engine::new(cx.config, cx.trust, options) {
            Ok(engine) => Arc::new(engine),
            Err(e) => {
                print_error(&format!("cannot create the spill directory: {e}"));
                return Exit::Usage;
            }
        };
        // The policy file is read again when it changes, so the rules the console shows are
        // the rules enforced here; `--policy` keeps winning over the file's mode.
        let _watch = watch_policy(&engine, policy_path, mode);
        if let Some(hub) = &hub {
            let weak = Arc::downgrade(&engine);
            hub.set_snapshot(Box::new(move |pending| snapshot(&weak, &project, pending)));
        }
        let result = crate::serve::serve(engine, approver).await;
        drop(hub);
        match result {
            Ok(()) => Exit::Ok,
            Err(e) => {
                print_error(&format!("{e:#}"));
                Exit::Connection
            }
        }
    })
}

/// Watches the policy file and puts each changed version in force; a file that cannot be used
/// leaves the policy in force. Each change is said on stderr.
fn watch_policy(
    engine: &Arc<Engine>,
    path: std::path::PathBuf,
    mode: Option<Mode>,
) -> Option<crate::mcp::config::watch::FileWatch> {
    let weak = Arc::downgrade(engine);
    let file = path.clone();
    let watch = crate::mcp::config::watch::FileWatch::start(&[path], move |_| {
        let Some(engine) = weak.upgrade() else { return };
        match Policy::reread(&file, &engine.policy(), mode) {
            crate::mcp::policy::Reread::Unchanged => {}
            crate::mcp::policy::Reread::Changed(policy) => {
                let summary = policy.summary();
                engine.set_policy(policy);
                print_error(&format!(
                    "policy file {} read again: {summary}",
                    file.display()
                ));
            }
            crate::mcp::policy::Reread::Failed(e) => {
                print_error(&format!("{e}; the policy in force stays"));
            }
        }
    });
    match watch {
        Ok(watch) => Some(watch),
        Err(e) => {
            print_error(&format!(
                "the policy file is not watched ({e}): restart serve to apply changes"
            ));
            None
        }
    }
}

fn snapshot(
    engine: &std::sync::Weak<Engine>,
    project: &std::path::Path,
    pending: Vec<crate::mcp::policy::ApprovalRequest>,
) -> SessionSnapshot {
    let (mode, servers, spills) = engine.upgrade().map_or_else(
        || ("stopping".to_owned(), Vec::new(), 0),
        |engine| {
            let status = engine.status();
            let servers = status
                .servers
                .iter()
                .map(|s| ServerSnapshot {
                    name: sanitize(&s.name).into_owned(),
                    state: s.state.label().to_owned(),
                })
                .collect();
            (
                engine.mode().label().to_owned(),
                servers,
                engine.spills().len(),
            )
        },
    );
    SessionSnapshot {
        pid: std::process::id(),
        project: project.to_path_buf(),
        mode,
        servers,
        spills,
        pending,
        awaiting_console: 0,
    }
}

/// Lists live serve sessions and, on a terminal, answers their pending approvals. With
/// `watch`, keeps going until Ctrl-C: new sessions are found within a second, and each new
/// request is asked in turn.
pub fn approvals(json: bool, watch: bool, policy_path: PathBuf) -> Exit {
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(exit) => return exit,
    };
    let exit = rt.block_on(async move {
        let dir = match socket_dir() {
            Ok(dir) => dir,
            Err(e) => {
                print_error(&format!("no runtime directory: {e}"));
                return Exit::Usage;
            }
        };
        if json {
            // A listing only looks: it does not attach, so no session counts it as a console.
            let mut list = Vec::new();
            for path in list_sockets(&dir) {
                if let Ok(snapshot) = ControlClient::peek(&path).await {
                    list.push(snapshot);
                }
            }
            print_json(&serde_json::json!({"ok": true, "operation": "approvals", "result": {"sessions": list}}));
            return Exit::Ok;
        }
        let mut sessions = Vec::new();
        let mut known = HashSet::new();
        for path in list_sockets(&dir) {
            if let Ok(attached) = ControlClient::attach(&path).await {
                sessions.push(attached);
                known.insert(path);
            }
        }
        if sessions.is_empty() && !watch {
            print_text("no live `mcpdeck serve` sessions");
            return Exit::Ok;
        }
        for (_, s) in &sessions {
            print_text(&describe(s));
        }
        if !std::io::stdin().is_terminal() {
            if watch {
                print_error("--watch answers on a terminal; stdin is not one");
                return Exit::Usage;
            }
            return Exit::Ok;
        }
        if !watch {
            for (client, snapshot) in &mut sessions {
                for request in snapshot.pending.clone() {
                    let decision = ask(snapshot.pid, &request, &policy_path);
                    let _ = client.decide(request.ticket, decision).await;
                }
            }
            return Exit::Ok;
        }
        watch_sessions(&dir, sessions, known, policy_path).await;
        Exit::Ok
    });
    // A question may still be waiting for a line on stdin: do not wait for it.
    rt.shutdown_background();
    exit
}

fn describe(s: &SessionSnapshot) -> String {
    let servers: Vec<String> = s
        .servers
        .iter()
        .map(|x| format!("{} ({})", x.name, x.state))
        .collect();
    let awaiting = if s.awaiting_console > 0 {
        format!("  waiting for a console {}", s.awaiting_console)
    } else {
        String::new()
    };
    format!(
        "serve pid {}  project {}  mode {}  spills {}  pending approvals {}{awaiting}\n  servers: {}",
        s.pid,
        s.project.display(),
        s.mode,
        s.spills,
        s.pending.len(),
        if servers.is_empty() {
            "none".to_owned()
        } else {
            servers.join(", ")
        }
    )
}

/// Asks on this process's terminal (stdin, stderr).
fn ask(pid: u32, request: &ApprovalRequest, policy_path: &Path) -> Decision {
    let mut input = std::io::stdin().lock();
    let mut err = std::io::stderr().lock();
    let who = format!("serve {pid}");
    super::approve_tty::ask(&mut input, &mut err, Some(&who), request, policy_path)
}

/// One question for the terminal: the session's pid, the request, where the answer goes.
type Question = (u32, ApprovalRequest, oneshot::Sender<Decision>);

/// Follows every session (and every new one) until Ctrl-C, asking one question at a time.
async fn watch_sessions(
    dir: &Path,
    sessions: Vec<(ControlClient, SessionSnapshot)>,
    mut known: HashSet<PathBuf>,
    policy_path: PathBuf,
) {
    let (questions, mut asked) = mpsc::channel::<Question>(64);
    tokio::spawn(async move {
        while let Some((pid, request, reply)) = asked.recv().await {
            let path = policy_path.clone();
            let decision = tokio::task::spawn_blocking(move || ask(pid, &request, &path))
                .await
                .unwrap_or(Decision::Deny);
            let _ = reply.send(decision);
        }
    });
    for (client, snapshot) in sessions {
        tokio::spawn(follow(client, snapshot, questions.clone()));
    }
    eprintln!("watching for approvals; Ctrl-C stops");
    let mut tick = tokio::time::interval(std::time::Duration::from_secs(1));
    loop {
        tokio::select! {
            _ = tokio::signal::ctrl_c() => return,
            _ = tick.tick() => {}
        }
        for path in list_sockets(dir) {
            if known.contains(&path) {
                continue;
            }
            if let Ok((client, snapshot)) = ControlClient::attach(&path).await {
                known.insert(path);
                print_text(&describe(&snapshot));
                tokio::spawn(follow(client, snapshot, questions.clone()));
            }
        }
    }
}

/// What the watcher prints when a session in audit mode ran a drifted tool unasked: the
/// question enforce mode would have put (sanitised).
fn flagged(pid: u32, request: &crate::mcp::policy::ApprovalRequest) -> String {
    use crate::mcp::sanitize::sanitize;
    let mut text = format!(
        "serve {pid} (audit mode) ran `{}` on `{}` unasked, though the tool changed since its pins",
        sanitize(&request.operation),
        sanitize(&request.server)
    );
    for line in request.drift.iter().chain(&request.findings) {
        text.push_str("\n    ");
        text.push_str(&sanitize(line));
    }
    text.push('\n');
    text
}

/// Answers one session's pending and new approvals until it ends.
async fn follow(
    mut client: ControlClient,
    snapshot: SessionSnapshot,
    questions: mpsc::Sender<Question>,
) {
    let pid = snapshot.pid;
    let mut backlog = std::collections::VecDeque::from(snapshot.pending);
    loop {
        let request = match backlog.pop_front() {
            Some(request) => request,
            None => match client.next().await {
                Ok(Some(ToConsole::Approval { request })) => request,
                Ok(Some(ToConsole::Flagged { request })) => {
                    print_text(&flagged(pid, &request));
                    continue;
                }
                Ok(Some(_)) => continue,
                Ok(None) | Err(_) => {
                    eprintln!("serve {pid} ended");
                    return;
                }
            },
        };
        let ticket = request.ticket;
        let (reply, answer) = oneshot::channel();
        if questions.send((pid, request, reply)).await.is_err() {
            return;
        }
        let decision = answer.await.unwrap_or(Decision::Deny);
        if client.decide(ticket, decision).await.is_err() {
            return;
        }
    }
}
