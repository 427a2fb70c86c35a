//! Loading a configuration file near the 4 MiB cap: 100,000 servers, or one server with
//! 100,000 env keys, each written on one line (the shape that made column counting and
//! duplicate detection quadratic). Bar: ≤ 1 s per load.
//!
//! Each file is also timed through what `status` does after loading: the overview, whose trust
//! fingerprint writes the canonical text of every definition.
//!
//! Peak memory is not measured here; the README gives the `/usr/bin/time -v` figures of
//! `mcpdeck status` and `mcpdeck config check` on the same files
//! (`cargo test --release --test hostile config_hostile:: -- --ignored --nocapture`).

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Duration;

use criterion::Criterion;
use mcpdeck::mcp::config::{ConfigSet, LoadOptions};
use mcpdeck::mcp::trust::TrustStore;

fn servers() -> String {
    let mut text = String::from("{\"mcpServers\": {");
    for i in 0..100_000 {
        let _ = write!(text, "\"s{i}\": {{\"command\": \"x\"}},");
    }
    text.push_str("\"last\": {\"command\": \"x\"}}}");
    text
}

fn env_keys() -> String {
    let mut text = String::from("{\"mcpServers\": {\"one\": {\"command\": \"x\", \"env\": {");
    for i in 0..100_000 {
        let _ = write!(text, "\"K{i}\": \"v\", ");
    }
    text.push_str("\"LAST\": \"v\"}}}}");
    text
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("config_load");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(10));
    for (name, text) in [("servers_100k", servers()), ("env_keys_100k", env_keys())] {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join(".mcp.json"), &text).expect("write");
        let options = LoadOptions {
            project_dir: dir.path().to_path_buf(),
            config_home: None,
            extra_files: Vec::new(),
        };
        group.bench_function(name, |b| {
            b.iter(|| black_box(ConfigSet::load(&options).expect("loads")));
        });
        let config = ConfigSet::load(&options).expect("loads");
        let trust = TrustStore::load(dir.path().join("trust.json"));
        group.bench_function(format!("{name}_status_overview"), |b| {
            b.iter(|| black_box(mcpdeck::mcp::status::overview(&config, &trust)));
        });
    }
    group.finish();
}

criterion::criterion_group!(benches, bench);
criterion::criterion_main!(benches);
