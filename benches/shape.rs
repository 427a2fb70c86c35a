//! Shaping an 8 MiB text tool result into preview + spill (the bars: at most 40 ms, peak extra
//! memory at most 2× the result).
//!
//! The result is one text block of log-like lines (about 100,000 lines). Each iteration shapes
//! it through `shape_tool_result`, which writes the spill file (in a temp dir, as the engine
//! does under `$XDG_RUNTIME_DIR`) and builds the bounded preview; the spill is deleted after
//! each iteration, outside the timed section, so the disk does not fill.
//!
//! Before criterion runs, the bench measures the peak extra resident memory of one shaping:
//! it resets the kernel's high-water mark (`/proc/self/clear_refs`, value 5), shapes once, and
//! reports `VmHWM` minus the resident size before the call.

#[path = "support/mod.rs"]
mod support;

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use criterion::Throughput;
use mcpdeck::mcp::results::{Redactor, ShapeContext, SpillDir, shape_tool_result};
use rmcp::model::{CallToolResult, ContentBlock};

const RESULT_BYTES: usize = 8 * 1024 * 1024;

/// About 8 MiB of log lines, exactly [`RESULT_BYTES`] long.
fn big_text() -> String {
    let mut text = String::with_capacity(RESULT_BYTES + 128);
    let mut n = 0u64;
    while text.len() < RESULT_BYTES {
        let _ = writeln!(
            text,
            "2026-11-29T20:{:02}:{:02}Z INFO request id={n:08} path=/api/items/{} status=200 took={}ms",
            (n / 60) % 60,
            n % 60,
            n % 997,
            n % 89
        );
        n += 1;
    }
    text.truncate(RESULT_BYTES);
    text
}

struct Bench {
    _base: tempfile::TempDir,
    spills: SpillDir,
    redactor: Redactor,
    result: CallToolResult,
}

impl Bench {
    fn new() -> Self {
        let base = tempfile::tempdir().expect("a temp dir for spills");
        let spills = SpillDir::create(base.path()).expect("a spill dir");
        Self {
            _base: base,
            spills,
            redactor: Redactor::new(["sk-live-bench-secret-0001"]),
            result: CallToolResult::success(vec![ContentBlock::text(big_text())]),
        }
    }

    /// Shapes once; returns the time it took and removes the spill afterwards.
    fn shape_once(&self) -> Duration {
        let ctx = ShapeContext {
            server: "bench",
            origin: "tools.call big",
            spills: &self.spills,
            redactor: &self.redactor,
            keep_data: false,
        };
        let start = Instant::now();
        let shaped = shape_tool_result(&ctx, &self.result, None).expect("shaping succeeds");
        let took = start.elapsed();
        let overflow = shaped
            .overflow
            .as_ref()
            .expect("8 MiB overflows into a spill");
        assert_eq!(
            overflow.spill.size, RESULT_BYTES as u64,
            "the whole text is spilled"
        );
        self.spills.remove_all().expect("spills removed");
        took
    }
}

/// A `/proc/self/status` field in KiB.
fn status_kib(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix(field))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
}

/// Peak extra resident memory of the process's first shaping, in bytes (None where Linux
/// cannot tell). It must be the first: later ones reuse heap pages the allocator kept, and
/// would report (nearly) nothing.
fn peak_extra_bytes(bench: &Bench) -> Option<u64> {
    let before = status_kib("VmRSS:")?;
    std::fs::write("/proc/self/clear_refs", "5").ok()?;
    bench.shape_once();
    let peak = status_kib("VmHWM:")?;
    Some(peak.saturating_sub(before) * 1024)
}

fn main() {
    let bench = Bench::new();
    #[allow(clippy::cast_precision_loss)] // MiB figures for display
    match peak_extra_bytes(&bench) {
        Some(extra) => println!(
            "shape_8mib_text: peak extra resident memory {:.2} MiB ({:.2}x the {} MiB result)",
            extra as f64 / 1_048_576.0,
            extra as f64 / RESULT_BYTES as f64,
            RESULT_BYTES / 1_048_576
        ),
        None => println!("shape_8mib_text: peak extra memory not measured (no /proc clear_refs)"),
    }
    let mut c = support::criterion();
    let mut group = c.benchmark_group("shape");
    group.throughput(Throughput::Bytes(RESULT_BYTES as u64));
    group.bench_function("8mib_text_preview_and_spill", |b| {
        b.iter_custom(|iters| (0..iters).map(|_| bench.shape_once()).sum());
    });
    group.finish();
    c.final_summary();
}
