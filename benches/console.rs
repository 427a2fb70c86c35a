//! The console's own bars (issue 5): the first frame with 50 configured servers, and one search
//! keystroke plus redraw over a 10,000-tool catalog.
//!
//! Both run the real pieces with no terminal: configuration loading, the status report, the
//! app state machine (`App::update`) and the drawing function over ratatui's `TestBackend` at
//! 120×40. The search bench replays what the runtime does for one keystroke: `update` emits the
//! engine request, the engine's catalog answers it (the same ranking and typed result as
//! `tools.search`), `update` takes the answer, and the frame is drawn.

#[path = "support/mod.rs"]
mod support;

use std::hint::black_box;
use std::time::Instant;

use criterion::{BatchSize, Criterion};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use mcpdeck::app::{App, Effect, Msg, info};
use mcpdeck::mcp::api::{OpResult, ToolList, ToolMatch, ToolSearch};
use mcpdeck::mcp::catalog::ToolCatalog;
use mcpdeck::mcp::config::{ConfigSet, LoadOptions};
use mcpdeck::mcp::engine::{Outcome, Success};
use mcpdeck::mcp::proxy::ProxyRequest;
use mcpdeck::mcp::status::report;
use mcpdeck::mcp::trust::TrustStore;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;

/// A user config with `n` stdio servers (never started) in a fresh directory.
fn config_dir(n: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let servers: serde_json::Map<String, serde_json::Value> = (0..n)
        .map(|i| {
            (
                format!("server-{i:02}"),
                json!({"command": "npx", "args": ["-y", format!("@example/server-{i}@1.0.0")],
                       "env": {"TOKEN": "${TOKEN}"}}),
            )
        })
        .collect();
    std::fs::create_dir_all(dir.path().join("cfg/mcpdeck")).expect("mkdir");
    std::fs::create_dir_all(dir.path().join("proj")).expect("mkdir");
    std::fs::write(
        dir.path().join("cfg/mcpdeck/mcp.json"),
        json!({ "mcpServers": servers }).to_string(),
    )
    .expect("write");
    dir
}

/// Loads the configuration and builds the app, as the console does before its first frame.
fn app_over(dir: &std::path::Path) -> App {
    let home = dir.join("cfg");
    let config = ConfigSet::load(&LoadOptions {
        project_dir: dir.join("proj"),
        config_home: Some(home.clone()),
        extra_files: Vec::new(),
    })
    .expect("config");
    let store = TrustStore::load(TrustStore::default_path(&home));
    let status = report(&config, &store, &|_| false);
    let mut app = App::new(&status, info::build(&config, &store), Instant::now());
    app.size = (120, 40);
    app
}

fn draw(terminal: &mut Terminal<TestBackend>, app: &App) {
    terminal
        .draw(|f| mcpdeck::ui::render(app, f))
        .expect("draw");
}

fn key(code: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

fn done(id: u64, result: OpResult) -> Msg {
    Msg::Done {
        id,
        outcome: Box::new(Outcome {
            server: Some("server-00".to_owned()),
            operation: "tools.search".to_owned(),
            body: Ok(Success {
                result,
                text: String::new(),
                spills: Vec::new(),
            }),
        }),
    }
}

fn execute_id(effects: &[Effect]) -> Option<(u64, String)> {
    effects.iter().find_map(|e| match e {
        Effect::Engine {
            id,
            request: mcpdeck::mcp::EngineRequest::Agent(ProxyRequest::ToolsSearch { query, .. }),
        } => Some((*id, query.clone())),
        Effect::Engine {
            id,
            request: mcpdeck::mcp::EngineRequest::Agent(_),
            ..
        } => Some((*id, String::new())),
        _ => None,
    })
}

fn bench_first_frame(c: &mut Criterion) {
    let dir = config_dir(50);
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("terminal");
    assert_eq!(app_over(dir.path()).servers.rows.len(), 50);
    let mut group = c.benchmark_group("first_frame_50_servers");
    group.bench_function("load_config_and_draw", |b| {
        b.iter(|| {
            let app = app_over(dir.path());
            draw(&mut terminal, &app);
            black_box(app.servers.rows.len())
        });
    });
    group.finish();
}

/// The engine's answer to `tools.search` (as `search_tools` builds it).
fn search_result(catalog: &ToolCatalog, query: &str) -> OpResult {
    let (hits, total) = catalog.search_counted(query);
    let matches = hits
        .into_iter()
        .map(|(summary, rank)| ToolMatch {
            tool: summary.clone(),
            rank,
        })
        .collect();
    OpResult::Search(ToolSearch {
        query: query.to_owned(),
        matches,
        total,
    })
}

fn bench_search_redraw(c: &mut Criterion) {
    let dir = config_dir(1);
    let catalog = ToolCatalog::new(1, support::catalog::tools());
    let listing = OpResult::Tools(ToolList {
        tools: catalog.summaries().to_vec(),
        count: catalog.len(),
    });
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("terminal");
    // The tools tab with all 10,000 tools listed and the search box open.
    let ready = || {
        let mut app = app_over(dir.path());
        let (id, _) = execute_id(&app.update(key(KeyCode::Enter))).expect("tools.list");
        app.update(done(id, listing.clone()));
        assert_eq!(app.visible_tools().map(<[_]>::len), Some(10_000));
        app.update(key(KeyCode::Char('/')));
        for c in "github_cre".chars() {
            if let Some((id, query)) = execute_id(&app.update(key(KeyCode::Char(c)))) {
                app.update(done(id, search_result(&catalog, &query)));
            }
        }
        app
    };
    c.bench_function("search_keystroke_and_redraw_10k_tools", |b| {
        b.iter_batched(
            ready,
            |mut app| {
                let (id, query) =
                    execute_id(&app.update(key(KeyCode::Char('a')))).expect("a search");
                app.update(done(id, search_result(&catalog, &query)));
                draw(&mut terminal, &app);
                black_box(app.visible_tools().map(<[_]>::len))
            },
            BatchSize::LargeInput,
        );
    });
}

fn main() {
    let mut c = support::criterion();
    bench_first_frame(&mut c);
    bench_search_redraw(&mut c);
    c.final_summary();
}
