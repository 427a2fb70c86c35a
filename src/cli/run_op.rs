//! Running engine operations from the command line: a one-shot engine on a small runtime,
//! Ctrl-C / SIGTERM / SIGHUP cancelling the in-flight request (exit 6), orderly shutdown on
//! every path (connections closed, process groups killed, spills removed), and output as human
//! text or the `--json` envelope.

use std::io::Write as _;

use tokio_util::sync::CancellationToken;

use super::Context;
use super::exit::Exit;
use super::output::{print_error, print_json, print_text};
use crate::mcp::engine::{Engine, EngineOptions, Outcome};
use crate::mcp::policy::{Mode, Policy};
use crate::mcp::proxy::ProxyRequest;
use crate::mcp::sanitize::sanitize;

/// A step that may need more than one request (e.g. `call` with `key=value` arguments, which
/// reads the tool's input schema first). It may run again after an inline sign-in.
pub type Plan = Box<
    dyn for<'a> Fn(
        &'a Engine,
        &'a CancellationToken,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Outcome> + 'a>>,
>;

/// Runs one request and prints its outcome.
pub fn run_request(cx: Context, request: ProxyRequest, json: bool) -> Exit {
    run_plan(
        cx,
        Box::new(move |engine, cancel| {
            let request = request.clone();
            Box::pin(async move { engine.execute(&request, cancel).await })
        }),
        json,
    )
}

/// Runs a plan on a fresh engine and prints its outcome.
pub fn run_plan(cx: Context, plan: Plan, json: bool) -> Exit {
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            print_error(&format!("cannot start the async runtime: {e}"));
            return Exit::Usage;
        }
    };
    crate::mcp::engine::cleanup::install_panic_hook();
    let policy = match Policy::load(&Policy::default_path(&cx.config_home)) {
        Ok(policy) => policy,
        Err(e) => {
            print_error(&e.to_string());
            return Exit::Usage;
        }
    };
    let (auth_config, trust_state, login) =
        (cx.config.clone(), cx.trust.state(&cx.config), cx.login);
    runtime.block_on(async move {
        let options = EngineOptions {
            approver: (policy.mode == Mode::Enforce)
                .then(super::approve_tty::TtyApprover::open)
                .flatten()
                .map(|a| {
                    std::sync::Arc::new(a) as std::sync::Arc<dyn crate::mcp::policy::Approver>
                }),
            policy,
            ..EngineOptions::default()
        };
        let engine = match Engine::new(cx.config, cx.trust, options) {
            Ok(engine) => engine,
            Err(e) => {
                print_error(&format!("cannot create the spill directory: {e}"));
                return Exit::Usage;
            }
        };
        let cancel = CancellationToken::new();
        let interrupted = CancellationToken::new();
        // Handlers are installed here, before anything is spawned: the watcher task only runs
        // once this task first yields, and a signal before then must not kill the process
        // with its children still running.
        let signals = install_signals();
        tokio::spawn(watch_signals(signals, cancel.clone(), interrupted.clone()));
        let mut outcome = plan(&engine, &cancel).await;
        let mut signed_in = false;
        let mut step_ups = 0;
        while let Some((server, trigger)) =
            auth_retry(&outcome, login, &mut signed_in, &mut step_ups)
        {
            if let Err(message) =
                super::auth_cmd::sign_in_inline(&auth_config, trust_state, &server, trigger, false)
                    .await
            {
                print_error(&message);
                break;
            }
            // A fresh connection carries the new tokens. The refused request did not run (a
            // 401 at connect, or a 403 before the operation), so sending it again is not a
            // replay.
            let reconnect = ProxyRequest::Reconnect {
                server: server.clone(),
            };
            let reconnected = engine.execute(&reconnect, &cancel).await;
            if reconnected.body.is_err() {
                outcome = reconnected;
                break;
            }
            outcome = plan(&engine, &cancel).await;
        }
        engine.shutdown().await;
        if interrupted.is_cancelled() {
            print_error(
                "interrupted: the request was cancelled, connections closed and spills removed",
            );
            return Exit::Timeout;
        }
        print_outcome(&outcome, json);
        exit_for(&outcome)
    })
}

/// After a refusal for authorization: which server to sign in to, and why. One sign-in per
/// command, and at most two step-ups (403 `insufficient_scope`) per operation.
fn auth_retry(
    outcome: &Outcome,
    login: bool,
    signed_in: &mut bool,
    step_ups: &mut u8,
) -> Option<(String, crate::mcp::auth::Trigger)> {
    let Err(failure) = &outcome.body else {
        return None;
    };
    if failure.class != "auth_required" {
        return None;
    }
    let server = outcome.server.clone()?;
    let detail = failure.detail.as_ref();
    let code = detail
        .and_then(|d| d.get("code"))
        .and_then(serde_json::Value::as_u64);
    let scope = detail
        .and_then(|d| d.get("scope"))
        .and_then(serde_json::Value::as_str)
        .map(|s| s.split_whitespace().map(str::to_owned).collect::<Vec<_>>());
    if code == Some(403) {
        let scope = scope?;
        if *step_ups >= 2 || !super::auth_cmd::may_sign_in(login, &server) {
            return None;
        }
        *step_ups += 1;
        return Some((
            server,
            crate::mcp::auth::Trigger {
                challenge: None,
                step_up: Some(scope),
            },
        ));
    }
    if *signed_in || !super::auth_cmd::may_sign_in(login, &server) {
        return None;
    }
    *signed_in = true;
    Some((server, crate::mcp::auth::Trigger::default()))
}

#[cfg(unix)]
type Signals = Option<[tokio::signal::unix::Signal; 3]>;
#[cfg(not(unix))]
type Signals = ();

/// SIGINT, SIGTERM and SIGHUP streams, registered now (`None` when that fails).
fn install_signals() -> Signals {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let (Ok(int), Ok(term), Ok(hup)) = (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
            signal(SignalKind::hangup()),
        ) else {
            return None;
        };
        Some([int, term, hup])
    }
}

async fn watch_signals(
    signals: Signals,
    cancel: CancellationToken,
    interrupted: CancellationToken,
) {
    #[cfg(unix)]
    {
        let Some([mut int, mut term, mut hup]) = signals else {
            return;
        };
        tokio::select! {
            _ = int.recv() => {}
            _ = term.recv() => {}
            _ = hup.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let () = signals;
        let _ = tokio::signal::ctrl_c().await;
    }
    interrupted.cancel();
    cancel.cancel();
}

/// The exit code of an outcome (SPEC.md §11).
pub fn exit_for(outcome: &Outcome) -> Exit {
    match outcome.exit_code() {
        0 => Exit::Ok,
        2 => Exit::Refused,
        3 => Exit::AuthRequired,
        4 => Exit::Connection,
        5 => Exit::ServerError,
        6 => Exit::Timeout,
        7 => Exit::Limit,
        _ => Exit::Usage,
    }
}

/// Prints an outcome: the envelope with `--json`, else the model-visible text (errors to
/// stderr).
pub fn print_outcome(outcome: &Outcome, json: bool) {
    if json {
        print_json(&outcome.to_json());
        return;
    }
    match &outcome.body {
        Ok(success) => {
            print_text(&success.text);
            if !success.spills.is_empty() {
                let mut err = std::io::stderr().lock();
                for spill in &success.spills {
                    let _ = writeln!(
                        err,
                        "spill {} ({} bytes, {}) — removed when mcpdeck exits",
                        sanitize(&spill.basename),
                        spill.size,
                        sanitize(&spill.mime)
                    );
                }
            }
        }
        Err(failure) => {
            if let Some(text) = &failure.text {
                print_text(text);
            }
            print_error(&format!("{}: {}", failure.class, failure.message));
        }
    }
}
