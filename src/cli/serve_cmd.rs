//! `mcpdeck serve [--policy audit|enforce]` and `mcpdeck approvals`.

use std::io::{BufRead as _, IsTerminal as _, Write as _};
use std::sync::Arc;

use super::Context;
use super::exit::Exit;
use super::output::{print_error, print_json, print_text};
use crate::mcp::control::{
    ControlClient, ControlHub, ServerSnapshot, SessionSnapshot, ToConsole, list_sockets, socket_dir,
};
use crate::mcp::engine::{Engine, EngineOptions};
use crate::mcp::policy::{Decision, Mode, Policy};
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
    let mut policy = match Policy::load(&Policy::default_path(&cx.config_home)) {
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
            ..EngineOptions::default()
        };
        let engine = match Engine::new(cx.config, cx.trust, options) {
            Ok(engine) => Arc::new(engine),
            Err(e) => {
                print_error(&format!("cannot create the spill directory: {e}"));
                return Exit::Usage;
            }
        };
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
    }
}

/// Lists live serve sessions and, on a terminal, answers their pending approvals.
pub fn approvals(json: bool, watch: bool) -> Exit {
    let rt = match runtime() {
        Ok(rt) => rt,
        Err(exit) => return exit,
    };
    rt.block_on(async move {
        let dir = match socket_dir() {
            Ok(dir) => dir,
            Err(e) => {
                print_error(&format!("no runtime directory: {e}"));
                return Exit::Usage;
            }
        };
        let mut sessions = Vec::new();
        for path in list_sockets(&dir) {
            if let Ok(attached) = ControlClient::attach(&path).await {
                sessions.push(attached);
            }
        }
        if json {
            let list: Vec<&SessionSnapshot> = sessions.iter().map(|(_, s)| s).collect();
            print_json(&serde_json::json!({"ok": true, "operation": "approvals", "result": {"sessions": list}}));
            return Exit::Ok;
        }
        if sessions.is_empty() {
            print_text("no live `mcpdeck serve` sessions");
            return Exit::Ok;
        }
        for (_, s) in &sessions {
            print_text(&describe(s));
        }
        if !std::io::stdin().is_terminal() {
            return Exit::Ok;
        }
        for (client, snapshot) in &mut sessions {
            for request in snapshot.pending.clone() {
                let decision = ask(snapshot.pid, &request);
                let _ = client.decide(request.ticket, decision).await;
            }
        }
        if watch {
            watch_sessions(sessions).await;
        }
        Exit::Ok
    })
}

fn describe(s: &SessionSnapshot) -> String {
    let servers: Vec<String> = s
        .servers
        .iter()
        .map(|x| format!("{} ({})", x.name, x.state))
        .collect();
    format!(
        "serve pid {}  project {}  mode {}  spills {}  pending approvals {}\n  servers: {}",
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

fn ask(pid: u32, request: &crate::mcp::policy::ApprovalRequest) -> Decision {
    let mut err = std::io::stderr().lock();
    let mut flags = String::new();
    if request.tool_changed {
        flags.push_str(" [tool definition changed]");
    }
    if request.server_changed {
        flags.push_str(" [server definition changed]");
    }
    let _ = write!(
        err,
        "serve {pid}: approve `{}` on `{}`{flags}? [y] once  [s] session  [anything else] deny: ",
        sanitize(&request.operation),
        sanitize(&request.server)
    );
    let _ = err.flush();
    let mut answer = String::new();
    if std::io::stdin().lock().read_line(&mut answer).is_err() {
        return Decision::Deny;
    }
    match answer.trim() {
        "y" | "Y" | "yes" => Decision::AllowOnce,
        "s" | "S" | "session" => Decision::AllowSession,
        _ => Decision::Deny,
    }
}

async fn watch_sessions(sessions: Vec<(ControlClient, SessionSnapshot)>) {
    let mut tasks = Vec::new();
    for (mut client, snapshot) in sessions {
        tasks.push(tokio::spawn(async move {
            while let Ok(Some(message)) = client.next().await {
                let ToConsole::Approval { request } = message else {
                    continue;
                };
                let ticket = request.ticket;
                let pid = snapshot.pid;
                let decision = tokio::task::spawn_blocking(move || ask(pid, &request))
                    .await
                    .unwrap_or(Decision::Deny);
                if client.decide(ticket, decision).await.is_err() {
                    return;
                }
            }
        }));
    }
    for task in tasks {
        let _ = task.await;
    }
}
