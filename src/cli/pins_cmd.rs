//! `mcpdeck pins`: a server's definitions against its pins across restarts (`pins SERVER`,
//! `--accept` to make the listing the pins), a pin file to commit (`pins export`) and a check
//! of the live catalogs against it (`pins check`, exit 1 on drift) for a CI runner with no
//! state of its own.

use crate::mcp::connection::ErrorClass;
use std::fmt::Write as _;
use std::path::PathBuf;

use super::Context;
use super::exit::Exit;
use super::run_op::{Plan, Printing, run_plan_with};
use crate::mcp::api::{OpResult, PinReport, PinSet};
use crate::mcp::engine::{Engine, Failure, OperatorOp, Outcome, Success};
use crate::mcp::pins::{PinFile, PinFileServer, PinStore, ServerKey};
use crate::mcp::status::ServerState;

/// `mcpdeck pins ...`.
#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct PinsArgs {
    /// `export` or `check`; without one, SERVER's drift.
    #[command(subcommand)]
    pub command: Option<PinsCommand>,
    /// The configured server.
    pub server: Option<String>,
    /// Accept what the server lists now as its pins.
    #[arg(long)]
    pub accept: bool,
    /// One JSON object on stdout.
    #[arg(long, global = true)]
    pub json: bool,
}

/// `mcpdeck pins export|check`.
#[derive(Debug, clap::Subcommand)]
pub enum PinsCommand {
    /// Write the accepted pins of these servers (default: every server that can connect)
    /// to a file to commit.
    Export {
        /// The servers.
        servers: Vec<String>,
        /// The file (default: `<project>/.mcpdeck/pins.json`).
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Compare the live catalogs with a pin file; exit 1 on drift.
    Check {
        /// Only these servers of the file.
        servers: Vec<String>,
        /// The file (default: `<project>/.mcpdeck/pins.json`).
        #[arg(long, value_name = "FILE")]
        file: Option<PathBuf>,
    },
}

/// Runs `mcpdeck pins ...`.
pub fn run(cx: Context, args: PinsArgs) -> Exit {
    let default_file = cx.config.project_root.join(".mcpdeck").join("pins.json");
    match args.command {
        Some(PinsCommand::Export { servers, out }) => {
            let file = out.unwrap_or(default_file);
            run_plan_with(cx, export_plan(servers, file), Printing::json(args.json))
        }
        Some(PinsCommand::Check { servers, file }) => {
            let file = file.unwrap_or(default_file);
            let pins = match PinFile::read(&file) {
                Ok(pins) => pins,
                Err(message) => return usage(args.json, "pins.check", &message),
            };
            run_plan_with(
                cx,
                check_plan(servers, file, pins),
                Printing::json(args.json),
            )
        }
        None => {
            let Some(server) = args.server else {
                return usage(
                    args.json,
                    "pins",
                    "name a server (`mcpdeck pins SERVER`), or `pins export` / `pins check`",
                );
            };
            let op = OperatorOp::Pins {
                accept: args.accept,
            };
            let plan: Plan = Box::new(move |engine, cancel| {
                let (server, op) = (server.clone(), op.clone());
                Box::pin(async move {
                    engine
                        .run(
                            &crate::mcp::engine::EngineRequest::operator(&server, op.clone()),
                            cancel,
                        )
                        .await
                })
            });
            run_plan_with(cx, plan, Printing::json(args.json))
        }
    }
}

fn usage(json: bool, operation: &str, message: &str) -> Exit {
    super::output::fail(
        json,
        operation,
        crate::mcp::connection::ErrorClass::InvalidRequest,
        message,
    )
}

/// The servers to export: those named, else every one that can connect.
fn export_targets(engine: &Engine, named: &[String]) -> Vec<String> {
    if !named.is_empty() {
        return named.to_vec();
    }
    engine
        .status()
        .servers
        .into_iter()
        .filter(|s| s.state == ServerState::Disconnected)
        .map(|s| s.name)
        .collect()
}

fn key_of(engine: &Engine, server: &str) -> Option<ServerKey> {
    let config = engine.config();
    config
        .servers
        .iter()
        .find(|s| s.entry.name == server)
        .map(|s| ServerKey::of(&s.entry, &config.project_root))
}

fn export_plan(named: Vec<String>, file: PathBuf) -> Plan {
    Box::new(move |engine, cancel| {
        let (named, file) = (named.clone(), file.clone());
        Box::pin(async move {
            let mut out = PinFile {
                version: 1,
                servers: std::collections::BTreeMap::new(),
            };
            let mut reports = Vec::new();
            for server in export_targets(engine, &named) {
                let outcome = engine
                    .run(
                        &crate::mcp::engine::EngineRequest::operator(
                            &server,
                            OperatorOp::Pins { accept: false },
                        ),
                        cancel,
                    )
                    .await;
                let report = match outcome.body {
                    Ok(Success {
                        result: OpResult::Pins(report),
                        ..
                    }) => report,
                    Ok(_) => continue,
                    Err(failure) => return failed("pins.export", failure),
                };
                let store = PinStore::user();
                let pins = match (store, key_of(engine, &server)) {
                    (Some(store), Some(key)) => store.accepted(&key),
                    _ => Ok(std::collections::BTreeMap::new()),
                };
                match pins {
                    Ok(pins) => out.servers.insert(server, PinFileServer { pins }),
                    Err(e) => {
                        return failed(
                            "pins.export",
                            Failure::new(ErrorClass::Pins, e.to_string()),
                        );
                    }
                };
                reports.push(report);
            }
            write_export(&file, &out, reports)
        })
    })
}

fn write_export(file: &std::path::Path, out: &PinFile, reports: Vec<PinReport>) -> Outcome {
    let saved = crate::mcp::backup::backup_dir()
        .ok_or_else(|| std::io::Error::other("no place for a backup: set HOME or XDG_STATE_HOME"))
        .and_then(|backups| crate::mcp::backup::save(file, &out.to_text(), &backups, 0o644));
    if let Err(e) = saved {
        let message = format!("cannot write {}: {e}", file.display());
        return failed("pins.export", Failure::new(ErrorClass::Pins, message));
    }
    let mut text = format!(
        "wrote the accepted pins of {} servers to {}\n",
        reports.len(),
        file.display()
    );
    for r in reports.iter().filter(|r| !r.clean) {
        let _ = writeln!(
            text,
            "note: {} has {} changes not accepted (`mcpdeck pins {}` shows them); the file has its accepted pins",
            r.server,
            r.changes.len(),
            r.server
        );
    }
    succeeded(
        "pins.export",
        text,
        PinSet {
            file: file.display().to_string(),
            clean: reports.iter().all(|r| r.clean),
            servers: reports,
        },
    )
}

fn check_plan(named: Vec<String>, file: PathBuf, pins: PinFile) -> Plan {
    Box::new(move |engine, cancel| {
        let (named, file, pins) = (named.clone(), file.clone(), pins.clone());
        Box::pin(async move {
            let mut reports = Vec::new();
            let mut text = String::new();
            for (server, entry) in &pins.servers {
                if !named.is_empty() && !named.contains(server) {
                    continue;
                }
                let op = OperatorOp::CheckPins {
                    pins: entry.pins.clone(),
                };
                match engine
                    .run(
                        &crate::mcp::engine::EngineRequest::operator(server, op.clone()),
                        cancel,
                    )
                    .await
                    .body
                {
                    Ok(Success {
                        result: OpResult::Pins(report),
                        text: t,
                        ..
                    }) => {
                        text.push_str(&t);
                        reports.push(report);
                    }
                    Ok(_) => {}
                    Err(failure) => return failed("pins.check", failure),
                }
            }
            let clean = reports.iter().all(|r| r.clean);
            if !clean {
                text.push_str("drift: the live catalogs differ from the pin file\n");
            }
            succeeded(
                "pins.check",
                text,
                PinSet {
                    file: file.display().to_string(),
                    clean,
                    servers: reports,
                },
            )
        })
    })
}

fn failed(operation: &str, failure: Failure) -> Outcome {
    Outcome {
        server: None,
        operation: operation.to_owned(),
        body: Err(failure),
    }
}

fn succeeded(operation: &str, text: String, set: PinSet) -> Outcome {
    Outcome {
        server: None,
        operation: operation.to_owned(),
        body: Ok(Success {
            text,
            result: OpResult::PinSet(set),
            spills: Vec::new(),
        }),
    }
}
