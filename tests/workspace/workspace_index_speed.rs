//! A 10,000-file workspace: every call on it answers `known`, and the
//! measured times are printed (`cargo test --release --test workspace workspace_index_speed:: -- --nocapture`
//! reproduces the README's figures). The 2 s / 100 ms targets are not asserted here: timing
//! bars belong in benchmarks, not in tests that a loaded CI machine would make flaky.

#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use mcpdeck::workspace::{Limits, Observability, Observer, WorkspaceServer, bind_all};
use serde_json::json;
use tokio_util::sync::CancellationToken;

const FILES: usize = 10_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_files_answer_and_report_their_times() {
    let ws = tempfile::tempdir().unwrap();
    for i in 0..FILES {
        let dir = ws.path().join(format!("d{:03}", i / 100));
        std::fs::create_dir_all(&dir).unwrap();
        let body = format!(
            "# Note {i}\n\nThis note describes topic {i} and the module number {m}. Configuration \
             for component {m} lives beside it.\n\n## Details\n\nEach component has settings, \
             defaults and a short history of changes number {i}.\n\nSee [next](n{n}.md).\n",
            m = i % 97,
            n = (i + 1) % 100,
        );
        std::fs::write(dir.join(format!("n{}.md", i % 100)), body).unwrap();
    }
    // An editor's tree is not brand new: date everything an hour back, as a settled checkout
    // would be (stamps within 100 ms of a walk are never trusted, so a just-written tree is
    // re-walked on every call).
    let old = std::time::SystemTime::now() - Duration::from_secs(3600);
    for d in std::fs::read_dir(ws.path()).unwrap() {
        let d = d.unwrap().path();
        for f in std::fs::read_dir(&d).unwrap() {
            let f = f.unwrap().path();
            std::fs::File::options()
                .write(true)
                .open(&f)
                .unwrap()
                .set_modified(old)
                .unwrap();
        }
        std::fs::File::open(&d).unwrap().set_modified(old).unwrap();
    }
    std::fs::File::open(ws.path())
        .unwrap()
        .set_modified(old)
        .unwrap();
    let bindings = bind_all(&[("big".into(), ws.path().to_path_buf())]).unwrap();
    let server = WorkspaceServer::new(
        bindings,
        Observer::new(Observability::Off),
        Limits::default(),
    )
    .unwrap();
    let ct = CancellationToken::new();
    let args = json!({"workspace": "big", "question": "configuration for component 42"});

    let t = Instant::now();
    let (_, first) = server
        .answer("workspace_find", args.clone(), &ct)
        .await
        .unwrap();
    let first_time = t.elapsed();
    assert_eq!(first.status, mcpdeck::workspace::Status::Known);

    let mut later = Duration::ZERO;
    for tool in ["workspace_find", "workspace_capsule", "workspace_find"] {
        let t = Instant::now();
        let (_, e) = server.answer(tool, args.clone(), &ct).await.unwrap();
        later = later.max(t.elapsed());
        assert_eq!(e.status, mcpdeck::workspace::Status::Known);
    }
    let query = json!({"workspace": "big", "text": "component 42", "limit": 20});
    let t = Instant::now();
    server.answer("workspace_query", query, &ct).await.unwrap();
    let query_time = t.elapsed();
    later = later.max(query_time);
    eprintln!(
        "workspace index, {FILES} files: first find {first_time:?}, later calls max {later:?}, query {query_time:?}"
    );
}
