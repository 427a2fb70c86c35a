//! `mcpdeck lint SERVER [--call] [--json | --sarif]`: the engine's lint (`mcp::lint`) on the
//! server's connection, printed as text, the `--json` envelope or SARIF; exit 1 when any
//! finding is an error.

use std::fmt::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use super::Context;
use super::exit::Exit;
use super::run_op::{Printing, run_plan_with};
use crate::mcp::api::OpResult;
use crate::mcp::engine::{Outcome, Success};
use crate::mcp::lint::{Level, LintOptions, LintReport, lint as run_lint, to_sarif};

/// `mcpdeck lint`; `json` is `None` for `--sarif`.
pub fn lint(cx: Context, server: String, call: bool, json: Option<bool>) -> Exit {
    let errors = Arc::new(AtomicUsize::new(0));
    let counted = errors.clone();
    let sarif = json.is_none();
    let exit = run_plan_with(
        cx,
        Box::new(move |engine, cancel| {
            let (server, counted) = (server.clone(), counted.clone());
            Box::pin(async move {
                let options = LintOptions {
                    call,
                    task_timeout: Some(engine.task_timeout(&server)),
                };
                let linted = engine
                    .with_connection(&server, cancel, async |conn, cancel| {
                        run_lint(&server, conn, cancel, options).await
                    })
                    .await;
                let body = linted.map(|report| {
                    counted.store(report.count(Level::Error), Ordering::SeqCst);
                    let text = if sarif {
                        serde_json::to_string_pretty(&to_sarif(&report)).unwrap_or_default()
                    } else {
                        text_report(&report)
                    };
                    Success {
                        result: OpResult::Lint(Box::new(report)),
                        text,
                        spills: Vec::new(),
                    }
                });
                Outcome {
                    server: Some(server),
                    operation: "lint".to_owned(),
                    body,
                }
            })
        }),
        Printing::json(json.unwrap_or(false)),
    );
    if exit == Exit::Ok && errors.load(Ordering::SeqCst) > 0 {
        Exit::Usage
    } else {
        exit
    }
}

/// The findings as lines: level, rule, subject and message; then the counts.
fn text_report(report: &LintReport) -> String {
    let c = &report.checked;
    let mut text = format!(
        "lint {} (protocol {}): {}, {}, {} listed; {} called\n",
        report.server,
        report.protocol_version,
        counted(c.tools, "tool"),
        counted(c.resources, "resource"),
        counted(c.prompts, "prompt"),
        counted(c.called, "tool"),
    );
    for f in &report.findings {
        let _ = writeln!(
            text,
            "{:<8}{:<23}{}: {}",
            f.level.name(),
            f.rule,
            f.subject,
            f.message
        );
    }
    let _ = writeln!(
        text,
        "{}, {}, {}",
        counted(report.count(Level::Error), "error"),
        counted(report.count(Level::Warning), "warning"),
        counted(report.count(Level::Note), "note")
    );
    text
}

/// `1 tool`, `2 tools`, `0 tools`.
fn counted(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
