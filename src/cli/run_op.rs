//! Running engine operations from the command line: a one-shot engine on a small runtime,
//! Ctrl-C / SIGTERM / SIGHUP cancelling the in-flight request (exit 6), orderly shutdown on
//! every path (connections closed, process groups killed, spills removed), and output as human
//! text or the `--json` envelope.

use std::io::Write as _;

use tokio_util::sync::CancellationToken;

use super::Context;
use super::exit::Exit;
use super::keep::{self, KeptFile};
use super::output::{print_error, print_json, print_text};
use crate::mcp::connection::ErrorClass;
use crate::mcp::engine::{Engine, EngineOptions, EngineRequest, Envelope, Hint, Outcome};
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

/// How a result is printed and kept.
#[derive(Debug, Clone, Default)]
pub struct Printing {
    /// One JSON envelope on stdout.
    pub json: bool,
    /// The whole text, not the bounded preview.
    pub full: bool,
    /// Keep the whole result (text and media) as files in this directory.
    pub output: Option<std::path::PathBuf>,
    /// The resource read by name, for naming its file.
    pub resource: Option<String>,
    /// Ctrl-C is how the command normally ends (`watch`): the outcome is printed as usual.
    pub until_interrupted: bool,
}

impl Printing {
    /// Plain `--json` (or human) printing.
    pub fn json(json: bool) -> Self {
        Self {
            json,
            ..Self::default()
        }
    }

    /// `--json` with `--output DIR` and `--full` (`call`, `read`, `prompt`).
    pub fn kept(json: bool, keep: super::KeepArgs) -> Self {
        Self {
            json,
            full: keep.full,
            output: keep.output,
            ..Self::default()
        }
    }
}

/// Runs one request (an agent's or the operator's) and prints its outcome.
pub fn run_request(cx: Context, request: impl Into<EngineRequest>, json: bool) -> Exit {
    run_request_with(cx, request, Printing::json(json))
}

/// Runs one request and prints (and keeps) its outcome as `printing` says.
pub fn run_request_with(
    cx: Context,
    request: impl Into<EngineRequest>,
    printing: Printing,
) -> Exit {
    let request = request.into();
    run_plan_with(
        cx,
        Box::new(move |engine, cancel| {
            let request = request.clone();
            Box::pin(async move { engine.run(&request, cancel).await })
        }),
        printing,
    )
}

/// Runs a plan on a fresh engine and prints its outcome.
#[allow(dead_code)] // the plain form other commands build on; `call` and `read` use `_with`
pub fn run_plan(cx: Context, plan: Plan, json: bool) -> Exit {
    run_plan_with(cx, plan, Printing::json(json))
}

/// Runs a plan on a fresh engine, keeps what `printing` asks for before the spills are
/// removed, and prints the outcome.
pub fn run_plan_with(cx: Context, plan: Plan, printing: Printing) -> Exit {
    run_plan_observed(cx, plan, printing, None)
}

/// [`run_plan_with`], with the engine's connection events sent to `events` (what `watch`
/// listens to).
pub fn run_plan_observed(
    cx: Context,
    plan: Plan,
    printing: Printing,
    events: Option<tokio::sync::mpsc::Sender<crate::mcp::connection::ServerEvent>>,
) -> Exit {
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
    let policy_path = Policy::default_path(&cx.config_home);
    let policy = match Policy::load(&policy_path) {
        Ok(policy) => policy,
        Err(e) => {
            print_error(&e.to_string());
            return Exit::Usage;
        }
    };
    let sign_in = SignIn {
        config: cx.config.clone(),
        trust: cx.trust.state(&cx.config),
        login: cx.login,
    };
    // A spinner while waiting, on a terminal only (and never under `watch`, which prints the
    // events itself).
    let (events, progress_events) = match events {
        None if super::progress::wanted() => {
            let (tx, rx) = tokio::sync::mpsc::channel(64);
            (Some(tx), Some(rx))
        }
        events => (events, None),
    };
    runtime.block_on(async move {
        let options = engine_options(&cx.client, policy, policy_path, events);
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
        let progress = progress_events.map(super::progress::Progress::start);
        let outcome = run_signing_in(&engine, &plan, &cancel, &sign_in).await;
        // Erased before the first byte of the answer.
        drop(progress);
        // Files are kept and the whole text read before shutdown removes the spills, and the
        // outcome is printed (and flushed) before shutdown too: a server may take its whole
        // grace to exit after end of input, and the answer must not wait for that.
        let interrupted_early = interrupted.is_cancelled() && !printing.until_interrupted;
        let exit = (!interrupted_early).then(|| print_complete(&outcome, &printing));
        engine.shutdown().await;
        exit.unwrap_or_else(|| {
            print_error(
                "interrupted: the request was cancelled, connections closed and spills removed",
            );
            Exit::Timeout
        })
    })
}

/// Keeps what `printing` asks for, prints the outcome, flushes stdout; returns the exit status.
fn print_complete(outcome: &Outcome, printing: &Printing) -> Exit {
    let exit = match gather(outcome, printing) {
        Ok(extras) => {
            print_outcome_with(outcome, printing, &extras);
            exit_for(outcome)
        }
        Err(message) => {
            print_outcome(outcome, printing.json);
            print_error(&message);
            Exit::Usage
        }
    };
    let _ = std::io::Write::flush(&mut std::io::stdout());
    exit
}

/// What an inline sign-in (`--login`) needs.
struct SignIn {
    config: crate::mcp::config::ConfigSet,
    trust: crate::mcp::trust::TrustState,
    login: bool,
}

/// The one-shot engine's options: the terminal's client side (roots, elicitation, sampling,
/// log level) and, in enforce mode, the terminal approver.
fn engine_options(
    flags: &super::client_tty::ClientFlags,
    policy: Policy,
    policy_path: std::path::PathBuf,
    events: Option<tokio::sync::mpsc::Sender<crate::mcp::connection::ServerEvent>>,
) -> EngineOptions {
    let client: std::sync::Arc<dyn crate::mcp::client::ClientRequests> =
        std::sync::Arc::new(super::client_tty::TtyClient::new(flags));
    let approver = (policy.mode == Mode::Enforce)
        .then(|| super::approve_tty::TtyApprover::open(policy_path))
        .flatten()
        .map(|a| std::sync::Arc::new(a) as std::sync::Arc<dyn crate::mcp::policy::Approver>);
    EngineOptions {
        client: Some(client),
        roots: (!flags.roots.is_empty()).then(|| flags.roots.clone()),
        log_level: flags
            .log_level
            .as_deref()
            .and_then(crate::mcp::client::parse_level),
        approver,
        policy,
        keep_data: true,
        events,
        task_timeout: flags.task_timeout.map(std::time::Duration::from_millis),
        pins: crate::mcp::pins::PinStore::user(),
        ..EngineOptions::default()
    }
}

/// Runs `plan`, and again after each inline sign-in that a refusal asks for.
async fn run_signing_in(
    engine: &Engine,
    plan: &Plan,
    cancel: &CancellationToken,
    sign_in: &SignIn,
) -> Outcome {
    let mut outcome = plan(engine, cancel).await;
    let mut retries = Retries::default();
    loop {
        let moved = match (&retries.issuer, refused_server(&outcome)) {
            // A token this command just got is refused: sign in again only when the server
            // now names another authorization server (a migration).
            (Some(issuer), Some(server)) if !retries.migrated => {
                super::auth_cmd::authorization_server_moved(
                    &sign_in.config,
                    sign_in.trust,
                    server,
                    issuer,
                )
                .await
            }
            _ => false,
        };
        let may = |server: &str| {
            super::auth_cmd::headless(&sign_in.config, sign_in.trust, server)
                || super::auth_cmd::may_sign_in(sign_in.login, server)
        };
        let Some((server, trigger)) = auth_retry(&outcome, &may, &mut retries, moved) else {
            break;
        };
        match super::auth_cmd::sign_in_inline(
            &sign_in.config,
            sign_in.trust,
            &server,
            trigger,
            false,
        )
        .await
        {
            Ok(signed) => retries.issuer = signed.issuer,
            Err(message) => {
                print_error(&message);
                break;
            }
        }
        // A fresh connection carries the new tokens. The refused request did not run (a
        // 401 at connect, or a 403 before the operation), so sending it again is not a
        // replay.
        let reconnect = ProxyRequest::Reconnect {
            server: server.clone(),
        };
        let reconnected = engine.run(&reconnect.into(), cancel).await;
        if reconnected.body.is_err() {
            return reconnected;
        }
        outcome = plan(engine, cancel).await;
    }
    outcome
}

/// The sign-ins one command has made so far.
#[derive(Debug, Default)]
struct Retries {
    /// The issuer of this command's sign-in (`None` before it, or when unknown).
    issuer: Option<String>,
    /// Whether a sign-in was made for a 401.
    signed_in: bool,
    /// Whether a second one was made because the authorization server changed.
    migrated: bool,
    /// Step-ups (403 `insufficient_scope`) so far.
    step_ups: u8,
}

/// The server that refused the operation with a 401, when it did.
fn refused_server(outcome: &Outcome) -> Option<&str> {
    let Err(failure) = &outcome.body else {
        return None;
    };
    failure
        .class
        .needs_sign_in()
        .then_some(outcome.server.as_deref())
        .flatten()
}

/// After a refusal for authorization: which server to sign in to, and why. One sign-in per
/// command for a 401 (a second only when `moved`: the server names a new authorization server
/// since), and at most two step-ups (403 `insufficient_scope`) per operation. `may` says
/// whether a server may sign in (`--login`, a yes from the operator, or a headless grant).
fn auth_retry(
    outcome: &Outcome,
    may: &dyn Fn(&str) -> bool,
    retries: &mut Retries,
    moved: bool,
) -> Option<(String, crate::mcp::auth::Trigger)> {
    let Err(failure) = &outcome.body else {
        return None;
    };
    let ErrorClass::AuthRequired { code, scope } = &failure.class else {
        return None;
    };
    let server = outcome.server.clone()?;
    let scope = scope
        .as_deref()
        .map(|s| s.split_whitespace().map(str::to_owned).collect::<Vec<_>>());
    if *code == 403 {
        let scope = scope?;
        if retries.step_ups >= 2 || !may(&server) {
            return None;
        }
        retries.step_ups += 1;
        // The refusal is the challenge: a probe of a server that guards only some operations
        // would find none.
        let challenge = format!(
            "Bearer scope=\"{}\", error=\"insufficient_scope\"",
            scope.join(" ")
        );
        return Some((
            server,
            crate::mcp::auth::Trigger {
                challenge: Some(challenge),
                step_up: Some(scope),
            },
        ));
    }
    if retries.signed_in {
        if !moved || retries.migrated {
            return None;
        }
        retries.migrated = true;
    } else if !may(&server) {
        return None;
    }
    retries.signed_in = true;
    // The refusal's scope, as the challenge it came in: a server that guards only some
    // operations answers an unauthenticated probe without one.
    let challenge = scope.map(|s| format!("Bearer scope=\"{}\"", s.join(" ")));
    Some((
        server,
        crate::mcp::auth::Trigger {
            challenge,
            step_up: None,
        },
    ))
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

/// The exit code of an outcome.
pub fn exit_for(outcome: &Outcome) -> Exit {
    outcome.exit()
}

/// The engine's hint, for a person at the command line: the command to type.
fn cli_hint(hint: Hint, server: Option<&str>) -> String {
    let server = server.unwrap_or("SERVER");
    match hint {
        Hint::Describe => format!("Use `mcpdeck describe {server} TOOL` for a tool's full schema."),
        Hint::Read => {
            format!("Read one with `mcpdeck read {server} NAME` (a name or a reference).")
        }
        Hint::List => "Next: `mcpdeck tools SERVER` lists a server's tools.".to_owned(),
    }
}

/// What `--full` and `--output` add to a success: the whole text and the kept files.
#[derive(Debug, Default)]
pub struct Extras {
    /// The whole text (`--full`).
    pub full_text: Option<String>,
    /// The files written (`--output`).
    pub kept: Vec<KeptFile>,
}

fn gather(outcome: &Outcome, printing: &Printing) -> Result<Extras, String> {
    let Ok(success) = &outcome.body else {
        return Ok(Extras::default());
    };
    let mut extras = Extras::default();
    // Plain `--full` streams the spill when printing; the envelope and `--output`'s renaming
    // need the text whole.
    let streamed = printing.full && !printing.json && printing.output.is_none();
    if let Some(spill) = keep::overflow_spill(success).filter(|_| streamed) {
        std::fs::File::open(&spill.path)
            .map_err(|e| format!("cannot read the whole result back: {e}"))?;
    }
    if printing.full && !streamed {
        extras.full_text = Some(
            keep::full_text(success)
                .map_err(|e| format!("cannot read the whole result back: {e}"))?,
        );
    }
    if let Some(dir) = &printing.output {
        extras.kept = keep::keep(dir, success, printing.resource.as_deref())
            .map_err(|e| format!("cannot keep the result in {}: {e}", dir.display()))?;
    }
    Ok(extras)
}

/// Prints the whole text of `success` (`--full`) streamed from its spill, then `hint`, ending
/// with a newline as [`print_text`] does.
fn print_streamed(success: &crate::mcp::engine::Success, hint: Option<&str>) {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, stdout.lock());
    let last = match keep::stream_full_text(success, &mut out) {
        Ok(last) => last,
        Err(e) => {
            drop(out);
            print_error(&format!("cannot read the whole result back: {e}"));
            return;
        }
    };
    let last = match hint.filter(|h| !h.is_empty()) {
        Some(hint) => {
            let _ = out.write_all(sanitize(hint).as_bytes());
            hint.as_bytes().last().copied()
        }
        None => last,
    };
    if last != Some(b'\n') {
        let _ = writeln!(out);
    }
    let _ = out.flush();
}

/// Says on stderr which spills hold the result and that they go when mcpdeck exits.
fn print_spills(success: &crate::mcp::engine::Success) {
    let mut err = std::io::stderr().lock();
    for spill in &success.spills {
        let _ = writeln!(
            err,
            "spill {} ({} bytes, {}) — removed when mcpdeck exits; --output DIR keeps it",
            sanitize(&spill.basename),
            spill.size,
            sanitize(&spill.mime)
        );
    }
}

/// Prints an outcome: the envelope with `--json`, else the model-visible text (errors to
/// stderr).
pub fn print_outcome(outcome: &Outcome, json: bool) {
    print_outcome_with(outcome, &Printing::json(json), &Extras::default());
}

/// Prints an outcome with what `--full` and `--output` added.
pub fn print_outcome_with(outcome: &Outcome, printing: &Printing, extras: &Extras) {
    if printing.json {
        let mut envelope = Envelope::of(outcome).with_full_text(extras.full_text.as_deref());
        if printing.output.is_some() {
            envelope = envelope.with_files(&extras.kept);
        }
        // Through a `Value`, so the keys are sorted as in every other `--json` line.
        print_json(&serde_json::to_value(envelope.cli()).unwrap_or_default());
        return;
    }
    match &outcome.body {
        Ok(success) => {
            let hint = outcome
                .hint()
                .map(|h| cli_hint(h, outcome.server.as_deref()));
            if printing.full && extras.full_text.is_none() {
                print_streamed(success, hint.as_deref());
                print_spills(success);
                return;
            }
            let text = extras.full_text.as_deref().unwrap_or(&success.text);
            let text = format!("{text}{}", hint.unwrap_or_default());
            print_text(&keep::name_files(&text, &extras.kept));
            let mut err = std::io::stderr().lock();
            if printing.output.is_some() {
                for file in &extras.kept {
                    let _ = writeln!(
                        err,
                        "kept {} ({} bytes, {})",
                        sanitize(&file.path.display().to_string()),
                        file.size,
                        sanitize(&file.mime_type)
                    );
                }
                return;
            }
            drop(err);
            print_spills(success);
        }
        Err(failure) => {
            if let Some(text) = &failure.text {
                print_text(text);
            }
            print_error(&format!("{}: {}", failure.class.name(), failure.message));
            if failure.class == ErrorClass::UnknownServer
                && outcome.server.as_deref() == Some("demo")
            {
                print_error(
                    "the built-in `demo` server is there by itself only while no configuration \
                     file defines a server; `--demo` adds it",
                );
            }
        }
    }
}
