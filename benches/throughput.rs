//! Sequential `echo` tool calls through the engine's `Connection::request_default` vs a bare
//! rmcp client on the same stdio fixture (the bar: the engine reaches at least 0.9× the bare
//! throughput).
//!
//! Both sides talk to their own `mcpdeck-fixture stdio` process with the same arguments and
//! run on the same multi-threaded tokio runtime. The engine side goes through everything a
//! real call does below the policy layer: the owned child process with its stderr ring and
//! frame limit, the bounded request with a deadline and a total cap. The bare side is
//! `().serve((child stdout, child stdin))` and `peer().call_tool(..)`, nothing else.
//!
//! Before criterion runs, the bench prints an interleaved A/B comparison (several rounds of
//! calls on each side, alternating, medians), which is steadier than comparing two separate
//! criterion figures on a shared machine.

#[path = "support/mod.rs"]
mod support;

use std::process::Stdio;
use std::time::Instant;

use criterion::Throughput;
use mcpdeck::mcp::connection::{Connection, connect};
use rmcp::ServiceExt as _;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequest, ServerResult,
};
use rmcp::service::{RoleClient, RunningService};
use serde_json::json;

const ROUNDS: usize = 7;
const CALLS_PER_ROUND: usize = 300;

fn echo_params() -> CallToolRequestParams {
    let serde_json::Value::Object(args) = json!({"text": "hello from the throughput bench"}) else {
        unreachable!("a JSON object literal")
    };
    CallToolRequestParams::new("echo").with_arguments(args)
}

fn check(result: &CallToolResult) {
    let text = result
        .content
        .first()
        .and_then(|c| c.as_text())
        .map(|t| t.text.as_str())
        .expect("echo answers with text");
    assert_eq!(text, "hello from the throughput bench");
}

async fn engine_call(conn: &Connection) {
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(echo_params()));
    match conn.request_default(request).await {
        Ok(ServerResult::CallToolResult(result)) => check(&result),
        other => panic!("echo failed through the engine: {other:?}"),
    }
}

async fn bare_call(client: &RunningService<RoleClient, ()>) {
    let result = client
        .peer()
        .call_tool(echo_params())
        .await
        .expect("echo through the bare client");
    check(&result);
}

/// A bare rmcp client over the fixture's stdin/stdout.
async fn bare_client() -> RunningService<RoleClient, ()> {
    let mut child = tokio::process::Command::new(support::fixture_path())
        .arg("stdio")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("the fixture starts");
    let stdout = child.stdout.take().expect("stdout is piped");
    let stdin = child.stdin.take().expect("stdin is piped");
    // The child is reaped when its stdin closes at the end of the bench; keep the handle alive
    // (and killed on drop) for as long as the client runs.
    tokio::spawn(async move {
        let _ = child.wait().await;
    });
    ().serve((stdout, stdin))
        .await
        .expect("the bare client initializes")
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Alternating rounds of sequential calls; prints calls per second and the ratio.
fn ab_summary(
    rt: &tokio::runtime::Runtime,
    conn: &Connection,
    bare: &RunningService<RoleClient, ()>,
) {
    let mut engine_rates = Vec::new();
    let mut bare_rates = Vec::new();
    let mut ratios = Vec::new();
    #[allow(clippy::cast_precision_loss)] // call counts for a rate
    let calls = CALLS_PER_ROUND as f64;
    for round in 0..ROUNDS {
        let mut engine_rate = 0.0;
        let mut bare_rate = 0.0;
        // Alternate which side goes first, so neither always gets the warmer cache.
        for side in [round % 2, 1 - round % 2] {
            let start = Instant::now();
            rt.block_on(async {
                for _ in 0..CALLS_PER_ROUND {
                    if side == 0 {
                        engine_call(conn).await;
                    } else {
                        bare_call(bare).await;
                    }
                }
            });
            let rate = calls / start.elapsed().as_secs_f64();
            if side == 0 {
                engine_rate = rate;
            } else {
                bare_rate = rate;
            }
        }
        engine_rates.push(engine_rate);
        bare_rates.push(bare_rate);
        ratios.push(engine_rate / bare_rate);
    }
    println!(
        "echo_calls A/B ({ROUNDS} rounds x {CALLS_PER_ROUND} sequential calls): engine {:.0} calls/s, \
         bare rmcp {:.0} calls/s, median ratio engine/bare {:.3}",
        median(&mut engine_rates),
        median(&mut bare_rates),
        median(&mut ratios)
    );
}

fn main() {
    let rt = support::runtime();
    let mut conn = rt
        .block_on(connect(
            &support::fixture_def(&[]),
            std::path::Path::new("."),
            &support::no_vars,
        ))
        .expect("the engine connects to the fixture");
    let bare = rt.block_on(bare_client());
    // Warm both paths before any figure is taken.
    rt.block_on(async {
        for _ in 0..200 {
            engine_call(&conn).await;
            bare_call(&bare).await;
        }
    });
    ab_summary(&rt, &conn, &bare);

    let mut c = support::criterion();
    let mut group = c.benchmark_group("echo_call");
    group.throughput(Throughput::Elements(1));
    group.bench_function("engine_request_default", |b| {
        b.iter(|| rt.block_on(engine_call(&conn)));
    });
    group.bench_function("bare_rmcp_call_tool", |b| {
        b.iter(|| rt.block_on(bare_call(&bare)));
    });
    group.finish();
    rt.block_on(async {
        let _ = bare.cancel().await;
        conn.close().await;
    });
    c.final_summary();
}
