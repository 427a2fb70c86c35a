//! The engine's typed results: one serde type per operation. The agents' JSON envelope
//! (`Outcome::to_json`, serve mode's structured content) is serialised from these types, and
//! the console reads the same values directly, so a change to a result's shape fails to compile
//! in every face instead of silently showing an empty list.
//!
//! Adding an operation: add a struct here, a variant to [`OpResult`] (serialised untagged, so
//! the variant name never reaches the wire), and construct it in `engine::ops`. Every string in
//! these types was sanitised by the engine before it was stored.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::mcp::catalog::describe::ToolDescription;
use crate::mcp::catalog::search::MatchRank;
use crate::mcp::catalog::summary::{PromptSummary, ResourceSummary, ToolSummary};
use crate::mcp::results::OutputVerdict;
use crate::mcp::status::StatusReport;

/// What one successful operation returned.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum OpResult {
    /// `status` (`{}`).
    Status(Box<StatusReport>),
    /// `reconnect`.
    Reconnected(Reconnected),
    /// `tools.list`.
    Tools(ToolList),
    /// `tools.search`.
    Search(ToolSearch),
    /// `tools.describe`.
    Describe(Box<ToolDescription>),
    /// `tools.call` (also a tool error's detail).
    Call(ToolCall),
    /// `resources.list`.
    Resources(ResourceList),
    /// `resources.read`.
    Read(ResourceRead),
    /// `prompts.list`.
    Prompts(PromptList),
    /// `prompts.get`.
    Prompt(PromptGet),
    /// `ping` (the operator's, never the agents').
    Ping(PingResult),
    /// `status --live` (the CLI's): what each server answered.
    Live(LiveStatus),
    /// `resources.templates` (the operator's).
    Templates(TemplateList),
    /// `completion.complete` (the operator's).
    Completion(Completion),
    /// `resources.subscribe` / `resources.unsubscribe`, and a finished watch.
    Subscription(Subscription),
    /// `tasks.list`.
    Tasks(TaskList),
    /// `tasks.get` / `tasks.cancel`.
    Task(TaskInfo),
    /// `roots.list` / `roots.set` (the operator's): a server's roots for the session.
    Roots(RootList),
    /// `logging.setLevel` (the operator's).
    LogLevel(LogLevelSet),
    /// `disconnect` (the operator's): one server's connection closed.
    Disconnected(Disconnected),
    /// `tools.cost` (the operator's): the tokens each tool definition costs an agent.
    Costs(crate::mcp::cost::CatalogCost),
    /// `lint` (the operator's): whether the server is well made.
    Lint(Box<crate::mcp::lint::LintReport>),
    /// `bench` (the operator's): a load test of one tool.
    Bench(Box<crate::mcp::bench::BenchReport>),
    /// `scan` (the operator's): the poisoning scan of one server's definitions.
    Scan(ScanReport),
    /// `pins` / `pins check` (the operator's): one server's drift from its pins.
    Pins(PinReport),
    /// `pins export` / `pins check` (the CLI's): several servers against a pin file.
    PinSet(PinSet),
    /// `skills.list` (the operator's): the skills a server serves.
    Skills(crate::mcp::catalog::skills::SkillList),
    /// `skills.get` (the operator's): one skill with the files read, each verified.
    Skill(crate::mcp::catalog::skills::SkillRead),
}

/// `pins export` / `pins check`: several servers and the pin file.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PinSet {
    /// The pin file.
    pub file: String,
    /// No server drifted.
    pub clean: bool,
    /// Each server's drift.
    pub servers: Vec<PinReport>,
}

/// `pins`: how one server's definitions drifted from its pins.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PinReport {
    /// The configured server.
    pub server: String,
    /// Where it is defined, for its pins (`user`, `project:<root>`, `file:<path>`).
    pub scope: String,
    /// Nothing drifted.
    pub clean: bool,
    /// The listing was accepted as the pins (the changes are what was accepted).
    pub accepted: bool,
    /// Every change (sanitised).
    pub changes: Vec<crate::mcp::pins::Change>,
}

/// `scan`: what the poisoning scan found in one server's definitions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScanReport {
    /// The configured server.
    pub server: String,
    /// How many tools were scanned.
    pub tools: usize,
    /// How many prompts.
    pub prompts: usize,
    /// How many resource templates.
    pub resource_templates: usize,
    /// No rule found anything.
    pub clean: bool,
    /// Every finding (its excerpt sanitised).
    pub findings: Vec<crate::mcp::scan::Finding>,
}

/// `ping`: the round trip.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PingResult {
    /// Milliseconds from request to answer.
    pub rtt_ms: f64,
}

/// `status --live`: every server, probed in turn.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LiveStatus {
    /// One entry per configured server.
    pub servers: Vec<LiveServer>,
}

/// One server in `status --live`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LiveServer {
    /// The configured name.
    pub name: String,
    /// `connected`, `failed`, or why it was not tried (`disabled`, `inert`, `invalid`).
    pub state: String,
    /// What it answered, when it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probe: Option<crate::mcp::engine::Probe>,
    /// Why it did not: serialised brief, `{"class","message"}` (the details are in the text).
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "crate::mcp::engine::envelope::brief_failure"
    )]
    pub error: Option<crate::mcp::engine::Failure>,
    /// The roots it was offered, in one line (sanitised).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub roots: Option<String>,
}

/// `tools.list`: every tool's summary.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolList {
    /// The tools, in the server's order.
    pub tools: Vec<ToolSummary>,
    /// How many.
    pub count: usize,
}

/// `tools.search`: the matches, best first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSearch {
    /// The query as shown (sanitised, capped).
    pub query: String,
    /// The matches.
    pub matches: Vec<ToolMatch>,
    /// How many tools match in all (the matches are the best of them, at most 20).
    #[serde(default)]
    pub total: usize,
}

/// One search match.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolMatch {
    /// The tool.
    pub tool: ToolSummary,
    /// Why it matched (on the wire as the rank's name, e.g. `ExactName`).
    #[serde(serialize_with = "rank_name", deserialize_with = "rank_from_name")]
    pub rank: MatchRank,
}

// serde's `serialize_with` hands a reference.
#[allow(clippy::trivially_copy_pass_by_ref)]
fn rank_name<S: serde::Serializer>(rank: &MatchRank, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(match rank {
        MatchRank::ExactName => "ExactName",
        MatchRank::NamePrefix => "NamePrefix",
        MatchRank::NameSubstring => "NameSubstring",
        MatchRank::Title => "Title",
        MatchRank::Description => "Description",
    })
}

fn rank_from_name<'de, D: serde::Deserializer<'de>>(d: D) -> Result<MatchRank, D::Error> {
    let name = String::deserialize(d)?;
    Ok(match name.as_str() {
        "ExactName" => MatchRank::ExactName,
        "NamePrefix" => MatchRank::NamePrefix,
        "NameSubstring" => MatchRank::NameSubstring,
        "Title" => MatchRank::Title,
        _ => MatchRank::Description,
    })
}

/// `tools.call`: the shaped result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    /// The tool reported an error.
    pub is_error: bool,
    /// The model-visible text (bounded; a truncation note names the spill).
    pub text: String,
    /// The structured content, sanitised.
    pub structured_content: Option<Value>,
    /// The check against the tool's output schema, when it declares one.
    pub output_schema_verdict: Option<OutputVerdict>,
    /// The spills the call wrote.
    #[serde(default)]
    pub spills: Vec<SpillRef>,
    /// The result's resource links with their URIs, for the operator's console only: never
    /// serialised (an agent's text names each link and its origin, not its URI).
    #[serde(skip)]
    pub links: Vec<crate::mcp::results::links::ResourceLinkRef>,
    /// The annotations the server put on the result's content blocks (which the text also
    /// shows, each as an `[annotations: …]` line before its block).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub annotations: Vec<crate::mcp::results::BlockAnnotations>,
    /// The response frame as the server sent it (secrets redacted), for the console's raw
    /// JSON view; never serialised (`--json` is the typed result).
    #[serde(skip)]
    pub raw: Option<crate::mcp::results::RawJson>,
}

/// A spill as a result names it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpillRef {
    /// The file's name in the spill directory.
    pub basename: String,
    /// Its size in bytes.
    pub size: u64,
    /// Its MIME type.
    #[serde(rename = "mimeType")]
    pub mime: String,
}

/// `resources.list`: resources by opaque reference, and templates for reference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ResourceList {
    /// The resources.
    pub resources: Vec<ResourceSummary>,
    /// The resource templates.
    #[serde(default)]
    pub templates: Vec<TemplateSummary>,
    /// Whether the server declared the resources capability (when not, nothing was asked and
    /// the lists are empty). Serialised only when false.
    #[serde(default = "declared", skip_serializing_if = "is_declared")]
    pub declared: bool,
}

fn declared() -> bool {
    true
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's skip_serializing_if passes a reference
fn is_declared(declared: &bool) -> bool {
    *declared
}

/// One resource template.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TemplateSummary {
    /// The name.
    pub name: String,
    /// The RFC 6570 URI template (sanitised). Filled only by the operator's
    /// `resources.templates`: the agents' listing shows no raw URI.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub uri_template: String,
    /// The template's variables, in order of first appearance (operator's listing only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub variables: Vec<String>,
    /// The title.
    pub title: Option<String>,
    /// The first line of the description.
    pub description: Option<String>,
    /// The MIME type.
    pub mime_type: Option<String>,
}

/// `resources.read`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceRead {
    /// The reference that was read.
    pub reference: String,
    /// The body as an agent sees it (wrapped as untrusted data, bounded).
    pub text: String,
    /// The response frame as the server sent it (secrets redacted), for the console's raw
    /// JSON view; never serialised.
    #[serde(skip)]
    pub raw: Option<crate::mcp::results::RawJson>,
}

/// `prompts.list`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptList {
    /// The prompts.
    pub prompts: Vec<PromptSummary>,
    /// Whether the server declared the prompts capability (serialised only when false).
    #[serde(default = "declared", skip_serializing_if = "is_declared")]
    pub declared: bool,
}

/// `prompts.get`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptGet {
    /// The prompt's name.
    pub prompt: String,
    /// The messages as an agent sees them (wrapped as untrusted data, bounded).
    pub text: String,
    /// How many messages the server returned.
    pub messages: usize,
    /// The response frame as the server sent it (secrets redacted), for the console's raw
    /// JSON view; never serialised.
    #[serde(skip)]
    pub raw: Option<crate::mcp::results::RawJson>,
}

/// `reconnect`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Reconnected {
    /// The negotiated protocol version.
    pub protocol_version: String,
    /// The connection's generation (references of older ones are stale).
    pub generation: u64,
    /// The server's own name, sanitised.
    pub server_name: Option<String>,
}

/// `resources.templates`: every resource template with its URI template and variables.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TemplateList {
    /// The templates, in the server's order.
    pub templates: Vec<TemplateSummary>,
}

/// `completion.complete`: the server's suggestions for one argument (sanitised, at most 100).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// The argument (or template variable) completed.
    pub argument: String,
    /// The suggestions, in the server's order.
    pub values: Vec<String>,
    /// How many suggestions there are in all, when the server says.
    pub total: Option<u32>,
    /// Whether there are more than these.
    pub has_more: bool,
}

/// `resources.subscribe` / `resources.unsubscribe`; for a watch, the updates it saw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Subscription {
    /// The resource URI (sanitised).
    pub uri: String,
    /// Subscribed after this operation.
    pub subscribed: bool,
    /// `notifications/resources/updated` received for it (a watch's count; 0 otherwise).
    #[serde(default)]
    pub updates: u64,
}

/// `tasks.list`: the server's tasks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TaskList {
    /// The tasks, in the server's order.
    pub tasks: Vec<TaskInfo>,
}

/// One task as the server describes it (text sanitised).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskInfo {
    /// The task id (sanitised; ids with control characters cannot be sent back).
    pub task_id: String,
    /// `working`, `input_required`, `completed`, `failed` or `cancelled`.
    pub status: String,
    /// The server's status message.
    pub status_message: Option<String>,
    /// When it was created, as the server wrote it.
    pub created_at: Option<String>,
    /// Time to live in milliseconds (`None`: unlimited or not said).
    pub ttl_ms: Option<u64>,
    /// The suggested poll interval in milliseconds.
    pub poll_interval_ms: Option<u64>,
    /// When it last changed, as the server wrote it (protocol 2026-07-28's tasks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_updated_at: Option<String>,
}

impl OpResult {
    /// The result as JSON (what the agents' envelope carries).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_envelope_keeps_its_keys() {
        let call = OpResult::Call(ToolCall {
            is_error: false,
            text: "hi".to_owned(),
            structured_content: Some(json!({"echo": "hi"})),
            output_schema_verdict: None,
            spills: vec![SpillRef {
                basename: "a.txt".to_owned(),
                size: 3,
                mime: "text/plain".to_owned(),
            }],
            // The operator's console keeps a link's URI; the envelope never carries it.
            links: vec![crate::mcp::results::links::ResourceLinkRef {
                name: "Report".to_owned(),
                uri: "demo://private/report".to_owned(),
            }],
            annotations: vec![crate::mcp::results::BlockAnnotations {
                block: 0,
                annotations: crate::mcp::results::ContentAnnotations {
                    audience: vec!["user".to_owned()],
                    priority: serde_json::Number::from_f64(0.5),
                    last_modified: None,
                },
            }],
            // Nor the frame as the server sent it.
            raw: Some(crate::mcp::results::RawJson::Inline(
                "{\"id\":1}".to_owned(),
            )),
        });
        assert_eq!(
            call.to_value(),
            json!({"isError": false, "text": "hi", "structuredContent": {"echo": "hi"},
                   "outputSchemaVerdict": null,
                   "spills": [{"basename": "a.txt", "size": 3, "mimeType": "text/plain"}],
                   "annotations": [{"block": 0, "audience": ["user"], "priority": 0.5}]})
        );
        let read = OpResult::Read(ResourceRead {
            reference: "mcp-resource-x".to_owned(),
            text: "body".to_owned(),
            raw: Some(crate::mcp::results::RawJson::Inline("{}".to_owned())),
        });
        assert_eq!(
            read.to_value(),
            json!({"reference": "mcp-resource-x", "text": "body"})
        );
    }

    #[test]
    fn search_ranks_travel_by_name_and_come_back() {
        let found: ToolMatch = serde_json::from_value(json!({
            "tool": {"name": "echo", "description": "", "required": []},
            "rank": "NamePrefix",
        }))
        .expect("a match");
        assert_eq!(found.rank, MatchRank::NamePrefix);
        assert_eq!(
            serde_json::to_value(&found).expect("json")["rank"],
            "NamePrefix"
        );
    }
}

/// `roots.list` / `roots.set`: the roots a server is shown this session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RootList {
    /// The roots, in the order they are sent.
    pub roots: Vec<RootItem>,
    /// Whether the server was told of the change (it was connected and the list changed).
    pub notified: bool,
}

/// One root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RootItem {
    /// The `file://` URI.
    pub uri: String,
    /// Its short name.
    pub name: String,
}

/// `logging.setLevel`: the level the server now sends from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogLevelSet {
    /// `debug` … `emergency`.
    pub level: String,
}

/// `disconnect`: one server's connection closed, the others untouched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Disconnected {
    /// Whether there was a connection to close.
    pub was_connected: bool,
}
