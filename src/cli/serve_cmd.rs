//! `mcpdeck serve [--policy audit|enforce]` and `mcpdeck approvals`.

use std::collections::HashSet;
use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio::sync::mpsc;

use super::Context;
use super::exit::Exit;
use super::output::{print_error, print_text};
use crate::mcp::control::{
    ControlClient, ControlHub, ServerSnapshot, SessionSnapshot, ToConsole, list_sockets, socket_dir,
};
use crate::mcp::engine::{Engine, EngineOptions};
use crate::mcp::pending::{Pending, Reply, Settled};
use crate::mcp::policy::{ApprovalRequest, Decision, Mode, Policy};
use crate::mcp::sanitize::{sanitize, sanitize_capped};
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
            listen_lists: true,
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
            super::output::print_done(None, "approvals", &serde_json::json!({"sessions": list}));
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
    ask_from(&mut std::io::stdin().lock(), pid, request, policy_path)
}

/// Asks on stderr, reading the answer from `input`.
fn ask_from(
    input: &mut dyn std::io::BufRead,
    pid: u32,
    request: &ApprovalRequest,
    policy_path: &Path,
) -> Decision {
    // Not locked across the read: a withdrawal is written while the question waits for a line.
    let mut err = std::io::stderr();
    let who = format!("serve {pid}");
    super::approve_tty::ask(input, &mut err, Some(&who), request, policy_path)
}

/// One question for the terminal: the session's pid, the request, the watcher's reply to it
/// (withdrawn when the question settles in the session without it), and where its decision goes.
struct Question {
    pid: u32,
    request: ApprovalRequest,
    reply: Reply<Decision>,
    decide: mpsc::UnboundedSender<(u64, Decision)>,
}

/// The terminal's lines, one at a time, for a question being asked on a blocking thread: it
/// reads as ended (and the question denies) when the sender is dropped — the question was
/// withdrawn.
struct Lines {
    rx: std::sync::mpsc::Receiver<String>,
    line: Vec<u8>,
    at: usize,
}

impl std::io::Read for Lines {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = {
            let buf = std::io::BufRead::fill_buf(self)?;
            let n = buf.len().min(out.len());
            out[..n].copy_from_slice(&buf[..n]);
            n
        };
        std::io::BufRead::consume(self, n);
        Ok(n)
    }
}

impl std::io::BufRead for Lines {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        if self.at >= self.line.len() {
            let Ok(line) = self.rx.recv() else {
                return Ok(&[]);
            };
            self.line = line.into_bytes();
            self.line.push(b'\n');
            self.at = 0;
        }
        Ok(&self.line[self.at..])
    }

    fn consume(&mut self, n: usize) {
        self.at += n;
    }
}

/// Reads the terminal's lines on a thread of its own (a read cannot be interrupted).
fn terminal_lines() -> mpsc::UnboundedReceiver<String> {
    let (tx, rx) = mpsc::unbounded_channel();
    std::thread::spawn(move || {
        for line in std::io::stdin().lines() {
            let Ok(line) = line else { return };
            if tx.send(line.trim_end_matches('\r').to_owned()).is_err() {
                return;
            }
        }
    });
    rx
}

/// Asks the questions one at a time on the terminal. A question that settles in its session
/// while it is asked (another console answered, it timed out, the agent cancelled) is withdrawn
/// at once, saying how; a line typed while no question is open answers nothing, and says so.
async fn ask_questions(mut questions: mpsc::Receiver<Question>, policy_path: PathBuf) {
    let mut lines = terminal_lines();
    loop {
        let question = tokio::select! {
            question = questions.recv() => match question {
                Some(question) => question,
                None => return,
            },
            line = lines.recv() => match line {
                Some(line) if !line.trim().is_empty() => {
                    eprintln!(
                        "  `{}` ignored: no question is open",
                        sanitize_capped(line.trim(), 40)
                    );
                    continue;
                }
                Some(_) => continue,
                None => std::future::pending().await,
            },
        };
        let Question {
            pid,
            request,
            reply,
            decide,
        } = question;
        if let Some(settled) = reply.settled_now() {
            eprintln!("serve {pid}: {}", withdrawn(&request, &settled));
            continue;
        }
        let (input, rx) = std::sync::mpsc::channel();
        let mut input = Some(input);
        let path = policy_path.clone();
        let shown = request.clone();
        let mut asking = tokio::task::spawn_blocking(move || {
            let mut lines = Lines {
                rx,
                line: Vec::new(),
                at: 0,
            };
            ask_from(&mut lines, pid, &shown, &path)
        });
        loop {
            tokio::select! {
                decision = &mut asking => {
                    let decision = decision.unwrap_or(Decision::Deny);
                    // Withdrawn meanwhile: the session has its answer already.
                    if reply.answer(decision).is_ok() {
                        let _ = decide.send((request.ticket, decision));
                    }
                    break;
                }
                settled = reply.settled(), if input.is_some() => {
                    eprintln!("\nserve {pid}: {}", withdrawn(&request, &settled));
                    // The question's input ends: it returns, and its answer goes nowhere.
                    input = None;
                }
                line = lines.recv(), if input.is_some() => match (line, &input) {
                    (Some(line), Some(to)) => drop(to.send(line)),
                    _ => input = None,
                },
            }
        }
    }
}

fn withdrawn(request: &ApprovalRequest, settled: &Settled<Decision>) -> String {
    crate::mcp::policy::approval_text::withdrawn(request, settled)
}

/// Follows every session (and every new one) until Ctrl-C, asking one question at a time.
async fn watch_sessions(
    dir: &Path,
    sessions: Vec<(ControlClient, SessionSnapshot)>,
    mut known: HashSet<PathBuf>,
    policy_path: PathBuf,
) {
    let (questions, asked) = mpsc::channel::<Question>(64);
    tokio::spawn(ask_questions(asked, policy_path));
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

/// Answers one session's pending and new approvals until it ends: each becomes a question on
/// the terminal, mirrored here by a [`Pending`] that the session's word on it (`resolved`)
/// withdraws.
async fn follow(
    mut client: ControlClient,
    snapshot: SessionSnapshot,
    questions: mpsc::Sender<Question>,
) {
    let pid = snapshot.pid;
    let (decide, mut decided) = mpsc::unbounded_channel();
    let mut open: std::collections::HashMap<u64, Pending<Decision>> =
        std::collections::HashMap::new();
    let mut backlog = std::collections::VecDeque::from(snapshot.pending);
    loop {
        let request = if let Some(request) = backlog.pop_front() {
            request
        } else {
            tokio::select! {
                message = client.next() => match message {
                    Ok(Some(ToConsole::Approval { request })) => request,
                    Ok(Some(ToConsole::Flagged { request })) => {
                        print_text(&flagged(pid, &request));
                        continue;
                    }
                    Ok(Some(ToConsole::Resolved { ticket, settled })) => {
                        if let Some(pending) = open.remove(&ticket) {
                            pending.withdraw(settled.unwrap_or(Settled::Abandoned));
                        }
                        continue;
                    }
                    Ok(Some(ToConsole::Snapshot { .. })) => continue,
                    Ok(None) | Err(_) => {
                        eprintln!("serve {pid} ended");
                        return;
                    }
                },
                Some((ticket, decision)) = decided.recv() => {
                    open.remove(&ticket);
                    if client.decide(ticket, decision).await.is_err() {
                        return;
                    }
                    continue;
                }
            }
        };
        let (pending, reply) = Pending::new(request.ticket, None);
        open.insert(request.ticket, pending);
        let question = Question {
            pid,
            request,
            reply,
            decide: decide.clone(),
        };
        if questions.send(question).await.is_err() {
            return;
        }
    }
}
