//! `mcpdeck bench SERVER TOOL [k=v …] -n N -c C [--connections K]`: the engine's load test
//! (`mcp::bench`) of one tool, refused for a tool not marked read-only unless `--yes`; text with
//! an ASCII histogram, or the `--json` envelope.

use crate::mcp::connection::ErrorClass;
use std::fmt::Write as _;
use std::time::Duration;

use super::exit::Exit;
use super::run_op::{Printing, run_plan_with};
use super::{BenchArgs, Context};
use crate::mcp::api::OpResult;
use crate::mcp::arguments::ToolArguments;
use crate::mcp::bench::{BenchPlan, BenchReport, bench as run_bench};
use crate::mcp::config::ConfigSet;
use crate::mcp::engine::{Engine, EngineOptions, Failure, Outcome, Success};
use crate::mcp::policy::Policy;
use crate::mcp::proxy::ProxyRequest;
use crate::mcp::trust::TrustStore;

/// `mcpdeck bench`.
pub fn bench(cx: Context, args: BenchArgs) -> Exit {
    let (config, home) = (cx.config.clone(), cx.config_home.clone());
    let json = args.json;
    run_plan_with(
        cx,
        Box::new(move |engine, cancel| {
            let (args, config, home) = (args.clone(), config.clone(), home.clone());
            Box::pin(async move {
                let body = match plan(engine, &args, cancel).await {
                    Ok(plan) => run(engine, &plan, &args, &config, &home, cancel).await,
                    Err(failure) => Err(failure),
                };
                Outcome {
                    server: Some(args.server.clone()),
                    operation: format!("bench {}", args.tool),
                    body,
                }
            })
        }),
        Printing::json(json),
    )
}

/// Reads the tool's description: refuses a tool not marked read-only (unless `--yes`) and
/// types the arguments by its input schema, checking them against it.
async fn plan(
    engine: &Engine,
    args: &BenchArgs,
    cancel: &tokio_util::sync::CancellationToken,
) -> Result<BenchPlan, Failure> {
    let describe = ProxyRequest::ToolsDescribe {
        server: args.server.clone(),
        tool: args.tool.clone(),
    };
    let described = engine.run(&describe.clone().into(), cancel).await.body?;
    let OpResult::Describe(tool) = described.result else {
        return Err(Failure::new(
            ErrorClass::Protocol,
            "no tool description".to_owned(),
        ));
    };
    let read_only = tool
        .server_claimed_annotations
        .as_ref()
        .and_then(|a| a.get("readOnlyHint"))
        .and_then(serde_json::Value::as_bool)
        == Some(true);
    if !read_only && !args.yes {
        return Err(Failure::new(
            ErrorClass::NotReadOnly,
            format!(
                "`{}` is not marked read-only (readOnlyHint), and bench would call it {} times; \
                 --yes runs it anyway",
                tool.name, args.calls
            ),
        ));
    }
    let compiled = ToolArguments::compile(&tool.input_schema);
    let arguments = compiled
        .words(&args.args, true)
        .map_err(|m| Failure::new(ErrorClass::InvalidRequest, m))?;
    let problems = compiled.problems(&arguments);
    if !problems.is_empty() {
        return Err(Failure::new(
            ErrorClass::InvalidRequest,
            crate::mcp::arguments::mismatch(&problems),
        ));
    }
    Ok(BenchPlan {
        server: args.server.clone(),
        tool: args.tool.clone(),
        args: arguments,
        calls: usize::try_from(args.calls).unwrap_or(usize::MAX),
        concurrency: usize::try_from(args.concurrency).unwrap_or(1),
        max_time: Duration::from_secs(u64::from(args.max_seconds)),
    })
}

/// Runs the bench on `engine` and `--connections` − 1 more engines of the same configuration
/// (each its own connection, for stdio its own process), closed afterwards.
async fn run(
    engine: &Engine,
    plan: &BenchPlan,
    args: &BenchArgs,
    config: &ConfigSet,
    home: &std::path::Path,
    cancel: &tokio_util::sync::CancellationToken,
) -> Result<Success, Failure> {
    let mut extra = Vec::new();
    for _ in 1..args.connections {
        let options = EngineOptions {
            policy: Policy::load(&Policy::default_path(home)).unwrap_or_default(),
            keep_data: true,
            ..EngineOptions::default()
        };
        let trust = TrustStore::load(TrustStore::default_path(home));
        let made = Engine::new(config.clone(), trust, options)
            .map_err(|e| Failure::new(ErrorClass::Spill, format!("cannot start an engine: {e}")))?;
        // Connected before the clock starts: a process start is not a call's latency.
        let listing = ProxyRequest::ToolsList {
            server: plan.server.clone(),
        };
        made.run(&listing.clone().into(), cancel).await.body?;
        extra.push(made);
    }
    let engines: Vec<&Engine> = std::iter::once(engine).chain(extra.iter()).collect();
    let report = run_bench(&engines, plan, cancel).await;
    for made in &extra {
        made.shutdown().await;
    }
    Ok(Success {
        text: text_report(plan, &report),
        result: OpResult::Bench(Box::new(report)),
        spills: Vec::new(),
    })
}

/// The measurements and a histogram of bars, one per bucket that holds calls.
fn text_report(plan: &BenchPlan, r: &BenchReport) -> String {
    let mut text = format!(
        "bench {} {}: {} calls made of {} ({} ok), {} in flight on each of {} connection(s), \
         {:.2} s, {:.1} calls/s\nlatency ms: p50 {:.2}  p90 {:.2}  p99 {:.2}  max {:.2}\n",
        plan.server,
        plan.tool,
        r.made,
        r.planned,
        r.ok,
        r.concurrency,
        r.connections,
        r.seconds,
        r.throughput,
        r.p50_ms,
        r.p90_ms,
        r.p99_ms,
        r.max_ms
    );
    let most = r
        .histogram
        .iter()
        .map(|b| b.count)
        .max()
        .unwrap_or(0)
        .max(1);
    text.push_str("    ≤ ms  calls\n");
    for b in r.histogram.iter().filter(|b| b.count > 0) {
        let width = usize::try_from(b.count * 40 / most).unwrap_or(40).max(1);
        let _ = writeln!(
            text,
            "{:>8.1}  {:<40} {}",
            b.le_ms,
            "█".repeat(width),
            b.count
        );
    }
    if r.errors.is_empty() {
        text.push_str("errors: none\n");
    } else {
        let errors: Vec<String> = r.errors.iter().map(|(c, n)| format!("{c} {n}")).collect();
        let _ = writeln!(text, "errors: {}", errors.join(", "));
    }
    text
}
