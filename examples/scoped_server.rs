//! A runnable scoped-key MCP server to try mcpdeck against: stateless Streamable
//! HTTP answering plain JSON (no session id), a Bearer API key whose scopes decide which tools a
//! caller sees (a key with no scopes sees an empty `tools/list`), and rich tool entries — output
//! schemas, standard annotations, and `_meta` with capability identity, owner, risk policy,
//! deprecated aliases and invocation-control fields (confirmation, target, idempotency key).
//!
//! ```sh
//! cargo run --example scoped_server            # http://127.0.0.1:8787/mcp, loopback only
//! # keys: reader (bookings:read), agent (bookings:read, bookings:write), empty (no scopes)
//! ```

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, MetaObject, PaginatedRequestParams, ServerCapabilities,
    ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, ServerHandler};
use serde_json::{Value, json};

/// API keys and their scopes.
fn keys() -> BTreeMap<&'static str, Vec<&'static str>> {
    BTreeMap::from([
        ("reader", vec!["bookings:read"]),
        ("agent", vec!["bookings:read", "bookings:write"]),
        ("empty", vec![]),
    ])
}

fn object(v: Value) -> Arc<JsonObject> {
    match v {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

/// Every tool with the scope it needs.
fn catalog() -> Vec<(Tool, &'static str)> {
    let mut search = Tool::new(
        "search_bookings",
        "Search bookings by guest name or date range.",
        object(json!({
            "type": "object",
            "properties": {
                "guest": {"type": "string", "description": "Guest name (substring)"},
                "from": {"type": "string", "format": "date"},
                "to": {"type": "string", "format": "date"}
            },
            "additionalProperties": false
        })),
    )
    .with_annotations(ToolAnnotations::new().read_only(true).open_world(false));
    search.output_schema = Some(object(json!({
        "type": "object",
        "properties": {"bookings": {"type": "array", "items": {"type": "object",
            "properties": {"id": {"type": "string"}, "guest": {"type": "string"}, "date": {"type": "string"}},
            "required": ["id", "guest", "date"]}}},
        "required": ["bookings"]
    })));
    search.meta = Some(meta(json!({
        "capability": {"id": "bookings.search", "version": "1.2.0"},
        "owner": "reservations-team",
        "risk": {"policy": "read", "level": "low"},
        "deprecatedAliases": ["find_bookings"]
    })));
    let mut cancel = Tool::new(
        "cancel_booking",
        "Cancel one booking. Requires confirmation; repeat calls with the same idempotency key are safe.",
        object(json!({
            "type": "object",
            "properties": {
                "id": {"type": "string"},
                "confirmation": {"type": "string", "enum": ["confirm"], "description": "Type `confirm`"},
                "target": {"type": "string", "description": "Environment: staging or production"},
                "idempotencyKey": {"type": "string", "minLength": 8}
            },
            "required": ["id", "confirmation", "idempotencyKey"],
            "additionalProperties": false
        })),
    )
    .with_annotations(
        ToolAnnotations::new()
            .read_only(false)
            .destructive(true)
            .idempotent(true)
            .open_world(false),
    );
    cancel.output_schema = Some(object(json!({
        "type": "object",
        "properties": {"id": {"type": "string"}, "status": {"type": "string", "enum": ["cancelled"]}},
        "required": ["id", "status"]
    })));
    cancel.meta = Some(meta(json!({
        "capability": {"id": "bookings.cancel", "version": "2.0.0"},
        "owner": "reservations-team",
        "risk": {"policy": "confirm", "level": "high"},
        "deprecatedAliases": ["delete_booking"],
        "invocationControl": {"confirmation": "confirmation", "target": "target", "idempotencyKey": "idempotencyKey"}
    })));
    vec![(search, "bookings:read"), (cancel, "bookings:write")]
}

fn meta(v: Value) -> MetaObject {
    match v {
        Value::Object(map) => MetaObject(map),
        _ => MetaObject(JsonObject::new()),
    }
}

fn scopes_of(ctx: &RequestContext<RoleServer>) -> Vec<&'static str> {
    let key = ctx
        .extensions
        .get::<axum::http::request::Parts>()
        .and_then(|p| p.headers.get(header::AUTHORIZATION))
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("");
    keys().get(key).cloned().unwrap_or_default()
}

#[derive(Clone)]
struct Bookings;

impl ServerHandler for Bookings {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("scoped-bookings", "1.0.0"))
            .with_instructions("Bookings API. Tools are filtered by your key's scopes.")
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        ctx: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let scopes = scopes_of(&ctx);
        let tools = catalog()
            .into_iter()
            .filter(|(_, scope)| scopes.contains(scope))
            .map(|(tool, _)| tool)
            .collect();
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        ctx: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let scopes = scopes_of(&ctx);
        let Some((_, scope)) = catalog().into_iter().find(|(t, _)| t.name == request.name) else {
            return Err(ErrorData::invalid_params("no such tool", None));
        };
        if !scopes.contains(&scope) {
            return Ok(CallToolResult::error(vec![ContentBlock::text(format!(
                "forbidden: needs scope `{scope}`"
            ))])
            .into());
        }
        let args = request.arguments.unwrap_or_default();
        let result = if request.name == "search_bookings" {
            json!({"bookings": [
                {"id": "b-1001", "guest": "Ada Lovelace", "date": "2026-12-01"},
                {"id": "b-1002", "guest": "Grace Hopper", "date": "2026-12-03"}
            ]})
        } else {
            if args.get("confirmation").and_then(Value::as_str) != Some("confirm") {
                return Ok(CallToolResult::error(vec![ContentBlock::text(
                    "confirmation required: pass confirmation=confirm",
                )])
                .into());
            }
            json!({"id": args.get("id").cloned().unwrap_or(Value::Null), "status": "cancelled"})
        };
        Ok(CallToolResult::structured(result).into())
    }
}

async fn require_key(request: Request, next: Next) -> Response {
    let known = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .is_some_and(|k| keys().contains_key(k));
    if known {
        return next.run(request).await;
    }
    (
        StatusCode::UNAUTHORIZED,
        [(header::WWW_AUTHENTICATE, "Bearer realm=\"bookings\"")],
        "unknown API key",
    )
        .into_response()
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let port: u16 = std::env::args()
        .skip_while(|a| a != "--port")
        .nth(1)
        .map_or(Ok(8787), |p| p.parse())?;
    let service = StreamableHttpService::new(
        || Ok(Bookings),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default()
            .with_legacy_session_mode(false)
            .with_json_response(true),
    );
    let app = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn(require_key));
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await?;
    eprintln!(
        "scoped-bookings on http://{}/mcp — keys: reader, agent, empty",
        listener.local_addr()?
    );
    axum::serve(listener, app).await?;
    Ok(())
}
