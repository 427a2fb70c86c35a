//! What the lint asks the server: every page of each listing (twice, for stability), listings
//! of capabilities it did not declare, requests the specification says must fail with a given
//! code, and with `--call` each read-only tool with sample arguments. Bounded: at most
//! [`MAX_PAGES`] pages and [`MAX_ITEMS`] items per listing, [`MAX_CALLS`] calls, each request
//! within the server's own timeout.

use std::collections::HashSet;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, ClientRequest, CustomRequest, ListPromptsRequest,
    ListResourcesRequest, ListToolsRequest, PaginatedRequestParams, ReadResourceRequest,
    ReadResourceRequestParams, ServerResult, Tool,
};
use tokio_util::sync::CancellationToken;

use super::rules::{check_tools, duplicates};
use super::{Checked, Finding, Level, LintReport};
use crate::mcp::connection::{Connection, ErrorClass, RequestError, max_total_for};

/// Pages read from one listing at most.
pub(crate) const MAX_PAGES: usize = 200;
/// Items read from one listing at most.
pub(crate) const MAX_ITEMS: usize = 10_000;
/// Tools called by `--call` at most.
pub(crate) const MAX_CALLS: usize = 50;

/// What the lint does besides listing.
#[derive(Debug, Clone, Copy, Default)]
pub struct LintOptions {
    /// Call every tool marked read-only with sample arguments and check what it returns.
    pub call: bool,
    /// How long a call the server runs as a task is followed (`None`: the default task
    /// timeout).
    pub task_timeout: Option<std::time::Duration>,
}

/// The connection being linted and the findings so far.
pub(super) struct Probe<'a> {
    pub(super) conn: &'a Connection,
    pub(super) cancel: &'a CancellationToken,
    pub(super) findings: Vec<Finding>,
    /// How long a tool call answered with a task is followed.
    pub(super) task_timeout: std::time::Duration,
}

impl Probe<'_> {
    pub(super) async fn request(
        &self,
        request: ClientRequest,
    ) -> Result<ServerResult, RequestError> {
        let timeout = self.conn.request_timeout();
        self.conn
            .request_cancellable(request, timeout, max_total_for(timeout), self.cancel)
            .await
    }

    pub(super) fn find(
        &mut self,
        rule: &'static str,
        level: Level,
        subject: &str,
        message: String,
    ) {
        self.findings
            .push(Finding::new(rule, level, subject, message));
    }
}

/// Lints the server on `conn`, configured as `server`.
pub async fn lint(
    server: &str,
    conn: &Connection,
    cancel: &CancellationToken,
    options: LintOptions,
) -> LintReport {
    let mut probe = Probe {
        conn,
        cancel,
        findings: Vec::new(),
        task_timeout: options
            .task_timeout
            .unwrap_or(crate::mcp::config::ServerDef::DEFAULT_TASK_TIMEOUT),
    };
    let caps = conn.identity().capabilities.clone();
    let mut checked = Checked::default();
    let tools = listing(&mut probe, Kind::Tools, caps.tools.is_some()).await;
    let tools: Vec<Tool> = tools.into_iter().filter_map(Item::tool).collect();
    checked.tools = tools.len();
    probe.findings.extend(check_tools(&tools));
    let resources = listing(&mut probe, Kind::Resources, caps.resources.is_some()).await;
    checked.resources = resources.len();
    let uris: Vec<String> = resources.iter().map(Item::key).collect();
    probe
        .findings
        .extend(duplicates("resource", uris.iter().map(String::as_str)));
    let prompts = listing(&mut probe, Kind::Prompts, caps.prompts.is_some()).await;
    checked.prompts = prompts.len();
    let names: Vec<String> = prompts.iter().map(Item::key).collect();
    probe
        .findings
        .extend(duplicates("prompt", names.iter().map(String::as_str)));
    error_codes(&mut probe, caps.resources.is_some()).await;
    if options.call {
        checked.called = probe.call_read_only(&tools).await;
    }
    // Listing twice (and duplicate tools) find the same fault twice: it is said once.
    let mut said = HashSet::new();
    let mut findings: Vec<Finding> = probe
        .findings
        .into_iter()
        .filter(|f| said.insert((f.rule, f.subject.clone(), f.message.clone())))
        .collect();
    findings.sort_by_key(|f| f.level);
    LintReport {
        server: crate::mcp::sanitize::sanitize_capped(server, 128),
        protocol_version: conn.identity().protocol_version.clone(),
        checked,
        findings,
    }
}

/// A listing's kind.
#[derive(Clone, Copy)]
enum Kind {
    Tools,
    Resources,
    Prompts,
}

impl Kind {
    fn method(self) -> &'static str {
        match self {
            Self::Tools => "tools/list",
            Self::Resources => "resources/list",
            Self::Prompts => "prompts/list",
        }
    }

    fn capability(self) -> &'static str {
        match self {
            Self::Tools => "tools",
            Self::Resources => "resources",
            Self::Prompts => "prompts",
        }
    }

    fn request(self, cursor: Option<String>) -> ClientRequest {
        let params = cursor.map(|c| PaginatedRequestParams::default().with_cursor(Some(c)));
        match self {
            Self::Tools => ClientRequest::ListToolsRequest(ListToolsRequest {
                params,
                ..Default::default()
            }),
            Self::Resources => ClientRequest::ListResourcesRequest(ListResourcesRequest {
                params,
                ..Default::default()
            }),
            Self::Prompts => ClientRequest::ListPromptsRequest(ListPromptsRequest {
                params,
                ..Default::default()
            }),
        }
    }

    fn page(result: ServerResult) -> Option<(Vec<Item>, Option<String>)> {
        match result {
            ServerResult::ListToolsResult(r) => {
                Some((r.tools.into_iter().map(Item::Tool).collect(), r.next_cursor))
            }
            ServerResult::ListResourcesResult(r) => Some((
                r.resources.into_iter().map(|x| Item::Key(x.uri)).collect(),
                r.next_cursor,
            )),
            ServerResult::ListPromptsResult(r) => Some((
                r.prompts.into_iter().map(|x| Item::Key(x.name)).collect(),
                r.next_cursor,
            )),
            _ => None,
        }
    }
}

/// One listed item: a tool, or a resource's URI or a prompt's name.
enum Item {
    Tool(Tool),
    Key(String),
}

impl Item {
    fn tool(self) -> Option<Tool> {
        match self {
            Self::Tool(tool) => Some(tool),
            Self::Key(_) => None,
        }
    }

    fn key(&self) -> String {
        match self {
            Self::Tool(tool) => tool.name.to_string(),
            Self::Key(key) => key.clone(),
        }
    }
}

/// Whether `e` is the server's JSON-RPC error `code`.
fn is_code(e: &RequestError, code: i32) -> bool {
    matches!(e.class, ErrorClass::ServerError { code: c } if c == code)
}

/// Lists `kind` (when `declared`, or to see that an undeclared listing is refused), twice, and
/// reports what the capability and pagination rules say.
async fn listing(probe: &mut Probe<'_>, kind: Kind, declared: bool) -> Vec<Item> {
    let method = kind.method();
    let first = match walk(probe, kind).await {
        Ok(items) => items,
        Err(e) if declared && is_code(&e, -32601) => {
            let message = format!(
                "the server declares `{}` but answers {method} with -32601 (method not found)",
                kind.capability()
            );
            probe.find("capability-refused", Level::Error, method, message);
            return Vec::new();
        }
        Err(e) if declared => {
            probe.find(
                "capability-refused",
                Level::Error,
                method,
                format!("{method} failed: {e}"),
            );
            return Vec::new();
        }
        // Undeclared and refused: as it should be (the code is checked with the others).
        Err(_) => return Vec::new(),
    };
    if !declared {
        let message = format!(
            "{method} answers ({} listed) but the server does not declare `{}`: clients never ask",
            first.len(),
            kind.capability()
        );
        probe.find("capability-undeclared", Level::Warning, method, message);
    }
    if let Ok(second) = walk(probe, kind).await {
        let (a, b): (Vec<String>, Vec<String>) = (
            first.iter().map(Item::key).collect(),
            second.iter().map(Item::key).collect(),
        );
        if a != b {
            let message = format!(
                "listing twice gave different items ({} then {}, or another order)",
                a.len(),
                b.len()
            );
            probe.find("pagination-stable", Level::Warning, method, message);
        }
    }
    first
}

/// Every page of `kind`, stopping at a cursor handed out before (a finding) or the bounds.
async fn walk(probe: &mut Probe<'_>, kind: Kind) -> Result<Vec<Item>, RequestError> {
    let mut items = Vec::new();
    let mut seen = HashSet::new();
    let mut cursor = None;
    for _ in 0..MAX_PAGES {
        let result = probe.request(kind.request(cursor.clone())).await?;
        let Some((page, next)) = Kind::page(result) else {
            probe.find(
                "error-code",
                Level::Error,
                kind.method(),
                "the server answered with another result type".to_owned(),
            );
            return Ok(items);
        };
        let Some(next) = next else {
            items.extend(page);
            return Ok(items);
        };
        // A page whose cursor was handed out before is a page a client reads forever: its
        // items are not taken again.
        if seen.is_empty() || !seen.contains(&next) {
            items.extend(page);
        }
        if !seen.insert(next.clone()) {
            let message = format!(
                "the cursor `{}` was handed out before: a client following it loops forever",
                crate::mcp::sanitize::sanitize_capped(&next, 80)
            );
            probe.find("pagination-cursor", Level::Error, kind.method(), message);
            return Ok(items);
        }
        if items.len() >= MAX_ITEMS {
            break;
        }
        cursor = Some(next);
    }
    Ok(items)
}

/// The JSON-RPC codes the specification gives the errors a client meets.
const DEFINED: [i32; 5] = [-32700, -32600, -32601, -32602, -32603];

/// `error-code` for an answer of `code` where the specification says `expected`.
fn code_finding(subject: &str, code: i32, expected: i32) -> Option<Finding> {
    if code == expected {
        return None;
    }
    let reserved = (-32768..=-32000).contains(&code);
    let (level, why) = if reserved && !DEFINED.contains(&code) && !(-32099..=-32000).contains(&code)
    {
        (
            Level::Error,
            "a code JSON-RPC reserves and defines for nothing",
        )
    } else {
        (Level::Warning, "another code than the specification's")
    };
    Some(Finding::new(
        "error-code",
        level,
        subject,
        format!("answered {code} ({why}); the specification says {expected}"),
    ))
}

/// Requests that must fail, and with which codes: an unknown method (-32601), an unknown tool
/// (-32602) and, when resources are declared, an unknown resource (-32002).
async fn error_codes(probe: &mut Probe<'_>, resources: bool) {
    let unknown_method = ClientRequest::CustomRequest(CustomRequest::new(
        "mcpdeck/lint-no-such-method",
        Some(serde_json::json!({})),
    ));
    let tool = CallToolRequestParams::new("mcpdeck-lint-no-such-tool");
    let unknown_tool = ClientRequest::CallToolRequest(CallToolRequest::new(tool));
    let mut probes = vec![
        ("unknown method", unknown_method, -32601),
        ("tools/call of an unknown tool", unknown_tool, -32602),
    ];
    if resources {
        let params = ReadResourceRequestParams::new("mcpdeck-lint:///no-such-resource");
        let read = ClientRequest::ReadResourceRequest(ReadResourceRequest::new(params));
        probes.push(("resources/read of an unknown URI", read, -32002));
    }
    for (subject, request, expected) in probes {
        match probe.request(request).await {
            Err(RequestError {
                class: ErrorClass::ServerError { code },
                ..
            }) => {
                if let Some(f) = code_finding(subject, code, expected) {
                    probe.findings.push(f);
                }
            }
            Err(_) => {}
            Ok(ServerResult::CallToolResult(r)) if r.is_error == Some(true) => {
                let message = format!(
                    "answers with a tool error (isError) instead of JSON-RPC error {expected}"
                );
                probe.find("error-code", Level::Note, subject, message);
            }
            Ok(_) => {
                let message = format!("succeeded; the specification says error {expected}");
                probe.find("error-code", Level::Error, subject, message);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_judged_against_the_specification() {
        assert!(code_finding("x", -32602, -32602).is_none());
        assert_eq!(
            code_finding("x", -32500, -32602).map(|f| f.level),
            Some(Level::Error)
        );
        assert_eq!(
            code_finding("x", -32603, -32602).map(|f| f.level),
            Some(Level::Warning)
        );
        assert_eq!(
            code_finding("x", -32001, -32002).map(|f| f.level),
            Some(Level::Warning)
        );
        assert_eq!(
            code_finding("x", 42, -32601).map(|f| f.level),
            Some(Level::Warning)
        );
    }
}
