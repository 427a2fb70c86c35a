//! Discovery of 10,000 tools over 100 pages through `Connection` + `collect_pages` (the bar:
//! at most 200 ms client-side).
//!
//! Two servers, both over stdio on the same machine, each listing exactly 10,000 tools in
//! 100 pages of 100:
//!
//! - `fixture`: the test fixture, `mcpdeck-fixture stdio --tools 9984 --page-size 100` (its 16
//!   core tools plus 9,984 `dummy_NNNNN` tools; 10,000 is also the SPEC's tool bound, so
//!   `--tools 10000` would rightly be refused). The fixture rebuilds its whole tool list for
//!   every page, so its figure includes that server-side work.
//! - `lean_server`: this bench executable re-run as a minimal rmcp server that serves 100
//!   precomputed pages (`MCPDECK_BENCH_LEAN_SERVER=1`). Server work per page is a clone and a
//!   serialisation, so this figure is close to the client-side cost the SPEC bar is about.
//!
//! Each iteration lists every page on an already connected session (connecting is not
//! discovery), exactly as the engine does: bounded `collect_pages` over `request_default`.

#[path = "support/mod.rs"]
mod support;

use std::sync::Arc;

use criterion::Criterion;
use mcpdeck::mcp::catalog::{CatalogKind, PageLimits, collect_pages};
use mcpdeck::mcp::config::{Template, Transport};
use mcpdeck::mcp::connection::{Connection, connect};
use rmcp::model::{
    ClientRequest, Implementation, JsonObject, ListToolsRequest, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, ServerResult, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler, ServiceExt as _};
use serde_json::json;

const LEAN_SERVER_ENV: &str = "MCPDECK_BENCH_LEAN_SERVER";
const TOOLS: usize = 10_000;
const PAGE: usize = 100;

/// Every tool listed, with the same per-tool shape as the fixture's `dummy_NNNNN` tools.
#[derive(Clone)]
struct LeanServer {
    pages: Arc<Vec<ListToolsResult>>,
}

impl LeanServer {
    fn new() -> Self {
        let serde_json::Value::Object(schema) = json!({"type": "object", "properties": {}}) else {
            unreachable!("a JSON object literal")
        };
        let schema: Arc<JsonObject> = Arc::new(schema);
        let tools: Vec<Tool> = (0..TOOLS)
            .map(|i| {
                Tool::new(
                    format!("dummy_{i:05}"),
                    format!("Dummy tool number {i}"),
                    schema.clone(),
                )
            })
            .collect();
        let pages = tools
            .chunks(PAGE)
            .enumerate()
            .map(|(n, chunk)| {
                let end = (n + 1) * PAGE;
                ListToolsResult {
                    next_cursor: (end < TOOLS).then(|| end.to_string()),
                    ..ListToolsResult::with_all_items(chunk.to_vec())
                }
            })
            .collect();
        Self {
            pages: Arc::new(pages),
        }
    }
}

impl ServerHandler for LeanServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("mcpdeck-bench-lean", "0.1.0"))
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let start: usize = match request.and_then(|r| r.cursor) {
            None => 0,
            Some(c) => c
                .parse()
                .map_err(|_| ErrorData::invalid_params("bad cursor", None))?,
        };
        self.pages
            .get(start / PAGE)
            .cloned()
            .ok_or_else(|| ErrorData::invalid_params("cursor out of range", None))
    }
}

/// The lean server's main: serve stdio until the client goes away.
fn run_lean_server() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a tokio runtime");
    rt.block_on(async {
        let running = LeanServer::new()
            .serve(rmcp::transport::stdio())
            .await
            .expect("the client initializes");
        let _ = running.waiting().await;
    });
}

/// Lists every tool page through the connection, bounded as the engine bounds it.
async fn discover(conn: &Connection) -> usize {
    let tools = collect_pages(CatalogKind::Tools, PageLimits::TOOLS, |cursor| async move {
        let params = PaginatedRequestParams::default().with_cursor(cursor);
        let request = ClientRequest::ListToolsRequest(ListToolsRequest::with_param(params));
        match conn.request_default(request).await {
            Ok(ServerResult::ListToolsResult(page)) => Ok((page.tools, page.next_cursor)),
            Ok(_) => Err("tools/list answered with another result".to_owned()),
            Err(e) => Err(e.to_string()),
        }
    })
    .await
    .expect("discovery succeeds within the bounds");
    assert_eq!(tools.len(), TOOLS);
    tools.len()
}

fn bench_discovery(c: &mut Criterion) {
    let rt = support::runtime();
    let fixture = support::fixture_def(&["--tools", "9984", "--page-size", "100"]);
    let mut lean = support::fixture_def(&[]);
    if let Transport::Stdio(stdio) = &mut lean.transport {
        stdio.command = std::env::current_exe()
            .expect("the bench knows its own path")
            .to_string_lossy()
            .into_owned();
        stdio.args.clear();
        stdio.env.insert(
            LEAN_SERVER_ENV.to_owned(),
            Template::parse("1").expect("a literal template"),
        );
    }
    let mut group = c.benchmark_group("discovery_10k_tools_100_pages");
    for (label, def) in [("lean_server", &lean), ("fixture", &fixture)] {
        let mut conn = rt
            .block_on(connect(def, std::path::Path::new("."), &support::no_vars))
            .expect("the server connects");
        group.bench_function(label, |b| b.iter(|| rt.block_on(discover(&conn))));
        rt.block_on(conn.close());
    }
    group.finish();
}

fn main() {
    if std::env::var_os(LEAN_SERVER_ENV).is_some() {
        run_lean_server();
        return;
    }
    let mut c = support::criterion().sample_size(10);
    bench_discovery(&mut c);
    c.final_summary();
}
