//! The demo server's resources, resource template and prompt.
//!
//! Resources: `demo://readme` (plain text) and `demo://status.json` (JSON: the server's name,
//! version and the outcome of the last `long_task`). Template: `demo://notes/{id}` with three
//! fixed notes. Prompt: `review` with a required `topic` and an optional `tone`.

use rmcp::handler::server::router::prompt::PromptRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    ErrorData, PromptMessage, ReadResourceResult, Resource, ResourceContents, ResourceTemplate,
    Role,
};
use rmcp::{prompt, prompt_router};

use super::server::DemoServer;

/// The plain-text resource.
pub const README_URI: &str = "demo://readme";
/// The JSON resource.
pub const STATUS_URI: &str = "demo://status.json";
/// The notes resource template.
pub const NOTE_TEMPLATE: &str = "demo://notes/{id}";
/// The prompt's name.
pub const PROMPT_NAME: &str = "review";

/// An 8×8 RGB PNG (a colour gradient), base64.
pub const DEMO_PNG_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAbElEQVR42g3JQQEAMAgDMaRUClIqpVKQwvNkIGXLN1WFii5cpJhiiyuqhEQLi4gRK04/GjXduEkzzTbXP4xMG5uYMWvOP4JCB4eECRsuPwYNPXjIMMMONz8WLb14yTLLLrc/Dh19+Mgxxx53PLzkagGPUuSAAAAAAElFTkSuQmCC";

const NOTES_PREFIX: &str = "demo://notes/";

const README_TEXT: &str = "mcpdeck demo server\n\
\n\
A small MCP server compiled into mcpdeck (`mcpdeck demo-server`), for trying the console,\n\
the CLI and the agent proxy without configuring anything.\n\
\n\
Tools: echo, add, long_task (progress + cancellation), weather (structured output), image.\n\
Resources: demo://readme, demo://status.json; template demo://notes/{id} (ids 1, 2, 3).\n\
Prompt: review (topic required, tone optional).\n";

/// The fixed notes behind `demo://notes/{id}`.
const NOTES: &[(&str, &str)] = &[
    (
        "1",
        "Servers connect lazily: nothing starts until an operation names it.",
    ),
    (
        "2",
        "Project servers stay inert until you trust the project (`mcpdeck trust`).",
    ),
    (
        "3",
        "Large results are shaped into a preview plus a spill file.",
    ),
];

/// The static resources.
pub fn resources() -> Vec<Resource> {
    vec![
        Resource::new(README_URI, "readme")
            .with_title("About the demo server")
            .with_description("What this server offers, as plain text.")
            .with_mime_type("text/plain"),
        Resource::new(STATUS_URI, "status")
            .with_title("Demo server status")
            .with_description("Name, version and the outcome of the last long_task, as JSON.")
            .with_mime_type("application/json"),
    ]
}

/// The resource templates.
pub fn templates() -> Vec<ResourceTemplate> {
    vec![
        ResourceTemplate::new(NOTE_TEMPLATE, "note")
            .with_title("A numbered note")
            .with_description("Short notes about mcpdeck; ids 1, 2 and 3 exist.")
            .with_mime_type("text/plain"),
    ]
}

/// Reads `uri`; `status` is the current JSON status document.
pub fn read(uri: &str, status: &serde_json::Value) -> Result<ReadResourceResult, ErrorData> {
    let contents = if uri == README_URI {
        ResourceContents::text(README_TEXT, uri).with_mime_type("text/plain")
    } else if uri == STATUS_URI {
        let text = serde_json::to_string_pretty(status)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        ResourceContents::text(text, uri).with_mime_type("application/json")
    } else if let Some(id) = uri.strip_prefix(NOTES_PREFIX)
        && let Some((_, note)) = NOTES.iter().find(|(n, _)| *n == id)
    {
        ResourceContents::text(*note, uri).with_mime_type("text/plain")
    } else {
        return Err(ErrorData::resource_not_found(
            format!("no such resource: {uri}"),
            Some(serde_json::json!({ "uri": uri })),
        ));
    };
    Ok(ReadResourceResult::new(vec![contents]))
}

/// `review` prompt arguments.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
pub struct ReviewArgs {
    /// What to review, e.g. a file name or a design question.
    pub topic: String,
    /// How the review should sound, e.g. "terse" or "friendly" (default: "constructive").
    #[serde(default)]
    pub tone: Option<String>,
}

#[prompt_router(vis = "pub(super)")]
impl DemoServer {
    /// Asks for a review of a topic in a given tone.
    #[prompt(
        name = "review",
        description = "Ask for a review of a topic; `topic` is required, `tone` is optional."
    )]
    async fn review(&self, Parameters(args): Parameters<ReviewArgs>) -> Vec<PromptMessage> {
        let tone = args
            .tone
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .unwrap_or("constructive");
        vec![
            PromptMessage::new_text(
                Role::User,
                format!("Please give a {tone} review of: {}", args.topic),
            ),
            PromptMessage::new_text(
                Role::Assistant,
                format!("Here is a {tone} review of {}:", args.topic),
            ),
        ]
    }
}

/// The prompts' router (used by [`DemoServer::new`]).
pub(super) fn router() -> PromptRouter<DemoServer> {
    DemoServer::prompt_router()
}

#[cfg(test)]
mod tests {
    use base64::Engine as _;

    use super::*;

    #[test]
    fn the_demo_png_is_an_8_by_8_png() {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(DEMO_PNG_BASE64)
            .unwrap_or_default();
        assert_eq!(bytes.get(..8), Some(&b"\x89PNG\r\n\x1a\n"[..]));
        assert_eq!(bytes.get(12..16), Some(&b"IHDR"[..]));
        assert_eq!(bytes.get(16..24), Some(&[0, 0, 0, 8, 0, 0, 0, 8][..]));
    }

    #[test]
    fn only_known_uris_read() {
        let status = serde_json::json!({});
        assert!(read(README_URI, &status).is_ok());
        assert!(read("demo://notes/1", &status).is_ok());
        for uri in [
            "demo://notes/0",
            "demo://notes/",
            "demo://notes/1/..",
            "file:///etc/passwd",
            "",
        ] {
            let err = read(uri, &status).err().map(|e| e.code);
            assert_eq!(
                err,
                Some(rmcp::model::ErrorCode::RESOURCE_NOT_FOUND),
                "{uri}"
            );
        }
    }
}
