//! Helpers shared by the benches: a short criterion configuration (the benches run on small,
//! shared machines), the release `mcpdeck-fixture` binary next to the bench executable, and a
//! stdio server definition pointing at it. Included with `#[path]`; not a bench itself.
#![allow(dead_code)] // each bench uses a different subset

pub mod catalog;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use criterion::Criterion;
use mcpdeck::mcp::config::{ProtocolChoice, ReconnectPolicy, ServerDef, StdioDef, Transport};

/// One second of warm-up, three of measurement, few samples: figures in minutes, not hours.
pub fn criterion() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .sample_size(20)
        .configure_from_args()
}

/// The `mcpdeck-fixture` binary built with the same profile as this bench
/// (`target/<profile>/mcpdeck-fixture`, the parent of the bench's `deps/`), or
/// `$MCPDECK_FIXTURE`. Benches do not get `CARGO_BIN_EXE_*`, so it is located by hand.
pub fn fixture_path() -> PathBuf {
    if let Some(path) = std::env::var_os("MCPDECK_FIXTURE") {
        return PathBuf::from(path);
    }
    let exe = std::env::current_exe().expect("the bench knows its own path");
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("the bench lives in target/<profile>/deps");
    let fixture = profile_dir.join("mcpdeck-fixture");
    assert!(
        fixture.is_file(),
        "{} is missing: build it first with `cargo build --release -p mcpdeck-fixture` \
         (or set MCPDECK_FIXTURE)",
        fixture.display()
    );
    fixture
}

/// A stdio definition for `mcpdeck-fixture stdio <args>` (legacy lifecycle, 10 s timeout).
pub fn fixture_def(args: &[&str]) -> ServerDef {
    ServerDef {
        name: "fixture".into(),
        transport: Transport::Stdio(StdioDef {
            command: fixture_path().to_string_lossy().into_owned(),
            args: std::iter::once("stdio")
                .chain(args.iter().copied())
                .map(str::to_owned)
                .collect(),
            cwd: None,
            env: BTreeMap::new(),
        }),
        request_timeout_ms: Some(10_000),
        reconnect: ReconnectPolicy::default(),
        disabled: false,
        protocol: ProtocolChoice::Legacy,
        roots: None,
    }
}

/// The multi-threaded tokio runtime the CLI and console use.
pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

/// No configuration variables in the benches.
pub fn no_vars(_: &str) -> Option<String> {
    None
}
