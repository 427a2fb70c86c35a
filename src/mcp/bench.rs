//! `mcpdeck bench`: a load test of one tool. `n` calls, `c` in flight on each of the engines
//! given (one engine, one connection; the CLI builds one engine per `--connections`), each call
//! run exactly as an agent's (`tools.call` through policy and shaping). Latencies go into an
//! HDR histogram (microseconds, 3 significant figures); failures are counted by their class.
//! Bounded in count (the caller caps `n` and `c`) and in time: no call starts after the
//! deadline, and cancelling stops the rest.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use hdrhistogram::Histogram;
use serde::Serialize;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use crate::mcp::engine::Engine;
use crate::mcp::proxy::ProxyRequest;

/// What to run.
#[derive(Debug, Clone)]
pub struct BenchPlan {
    /// The configured server.
    pub server: String,
    /// The tool.
    pub tool: String,
    /// Its arguments.
    pub args: Map<String, Value>,
    /// Calls in all.
    pub calls: usize,
    /// Calls in flight on each connection.
    pub concurrency: usize,
    /// No call starts after this long.
    pub max_time: Duration,
}

/// One histogram bucket: calls at most `le_ms` milliseconds (and above the previous bucket).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Bucket {
    /// The bucket's upper bound, in milliseconds.
    pub le_ms: f64,
    /// Calls in it.
    pub count: u64,
}

/// What a bench measured.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BenchReport {
    /// Calls asked for.
    pub planned: usize,
    /// Calls made (fewer when the time bound or a cancel stopped it).
    pub made: usize,
    /// Calls that succeeded.
    pub ok: usize,
    /// Failures by class (`tool_error`, `timeout`, …).
    pub errors: BTreeMap<String, usize>,
    /// Connections used.
    pub connections: usize,
    /// Calls in flight on each.
    pub concurrency: usize,
    /// Wall time, in seconds.
    pub seconds: f64,
    /// Calls per second.
    pub throughput: f64,
    /// Latency percentiles and maximum, in milliseconds.
    pub p50_ms: f64,
    /// 90th percentile.
    pub p90_ms: f64,
    /// 99th percentile.
    pub p99_ms: f64,
    /// The slowest call.
    pub max_ms: f64,
    /// The histogram, in buckets doubling from 0.1 ms.
    pub histogram: Vec<Bucket>,
}

fn ms(micros: u64) -> f64 {
    // Latencies stay far below 2^52 µs, where f64 stops being exact.
    #[allow(clippy::cast_precision_loss)]
    let v = micros as f64 / 1000.0;
    v
}

/// Runs `plan` on `engines` (one connection each).
pub async fn bench(
    engines: &[&Engine],
    plan: &BenchPlan,
    cancel: &CancellationToken,
) -> BenchReport {
    let next = AtomicUsize::new(0);
    let started = Instant::now();
    let deadline = started + plan.max_time;
    let request = crate::mcp::engine::EngineRequest::Agent(ProxyRequest::ToolsCall {
        server: plan.server.clone(),
        tool: plan.tool.clone(),
        args: plan.args.clone(),
    });
    let workers = engines.iter().flat_map(|engine| {
        (0..plan.concurrency).map(|_| worker(engine, &request, &next, plan.calls, deadline, cancel))
    });
    let results: Vec<(Vec<u64>, Vec<String>)> = futures_util::future::join_all(workers).await;
    let seconds = started.elapsed().as_secs_f64();
    let mut hist = Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).ok();
    let mut errors = BTreeMap::new();
    let (mut ok, mut made) = (0, 0);
    for (latencies, failures) in results {
        made += latencies.len();
        ok += latencies.len() - failures.len();
        for micros in latencies {
            if let Some(h) = hist.as_mut() {
                let _ = h.record(micros.max(1));
            }
        }
        for class in failures {
            *errors.entry(class).or_insert(0) += 1;
        }
    }
    let at = |q: f64| hist.as_ref().map_or(0.0, |h| ms(h.value_at_quantile(q)));
    #[allow(clippy::cast_precision_loss)]
    let throughput = if seconds > 0.0 {
        made as f64 / seconds
    } else {
        0.0
    };
    BenchReport {
        planned: plan.calls,
        made,
        ok,
        errors,
        connections: engines.len(),
        concurrency: plan.concurrency,
        seconds,
        throughput,
        p50_ms: at(0.5),
        p90_ms: at(0.9),
        p99_ms: at(0.99),
        max_ms: hist.as_ref().map_or(0.0, |h| ms(h.max())),
        histogram: hist.as_ref().map(buckets).unwrap_or_default(),
    }
}

/// Takes call numbers until all are taken, the deadline passes or the bench is cancelled;
/// returns each call's latency (µs) and each failure's class.
async fn worker(
    engine: &Engine,
    request: &crate::mcp::engine::EngineRequest,
    next: &AtomicUsize,
    calls: usize,
    deadline: Instant,
    cancel: &CancellationToken,
) -> (Vec<u64>, Vec<String>) {
    let (mut latencies, mut failures) = (Vec::new(), Vec::new());
    while next.fetch_add(1, Ordering::SeqCst) < calls
        && Instant::now() < deadline
        && !cancel.is_cancelled()
    {
        let sent = Instant::now();
        let outcome = engine.run(request, cancel).await;
        latencies.push(u64::try_from(sent.elapsed().as_micros()).unwrap_or(u64::MAX));
        if let Err(f) = outcome.body {
            failures.push(f.class.name().to_owned());
        }
    }
    (latencies, failures)
}

/// Buckets doubling from 0.1 ms up to the slowest call.
fn buckets(hist: &Histogram<u64>) -> Vec<Bucket> {
    hist.iter_log(100, 2.0)
        .map(|v| Bucket {
            le_ms: ms(v.value_iterated_to()),
            count: v.count_since_last_iteration(),
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn buckets_double_and_hold_every_value() {
        let mut h = Histogram::<u64>::new_with_bounds(1, 3_600_000_000, 3).unwrap();
        for v in [50, 150, 150, 900, 5_000] {
            h.record(v).unwrap();
        }
        let b = buckets(&h);
        assert_eq!(b.iter().map(|b| b.count).sum::<u64>(), 5);
        assert!((b[0].le_ms - 0.1).abs() < 0.01, "{b:?}");
        assert!((b[1].le_ms - 0.2).abs() < 0.01, "{b:?}");
        assert_eq!((b[0].count, b[1].count), (1, 2));
    }
}
