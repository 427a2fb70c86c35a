//! An operation's outcome as the faces hand it on: one type, [`Envelope`], and its two
//! serialisations, the CLI's `--json` ([`Envelope::cli`]) and serve's `structuredContent`
//! ([`Envelope::structured`]). What to do next is data here too ([`Hint`]): each face words it
//! in its own language, so no face rewrites another's text.

use std::borrow::Cow;

use serde::Serialize;

use super::outcome::{Failure, Outcome};
use crate::mcp::api::{OpResult, ToolCall};
use crate::mcp::connection::ErrorClass;

/// What to do after a result, as data. The agents' words are [`Hint::for_agents`]; the CLI
/// names its own commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hint {
    /// After a tools listing: describe a tool for its full schema.
    Describe,
    /// After a resources listing: read one by its reference.
    Read,
    /// After the status: list a server's tools.
    List,
}

impl Hint {
    /// The bytes a listing's text leaves free below the 50 KiB bound for its hint, so the
    /// text an agent gets, hint included, stays within the bound (at least the longest
    /// [`Hint::for_agents`]).
    pub const ROOM: usize = 256;

    /// The hint in the agents' request shape (the closing line of the model-visible text).
    pub fn for_agents(self) -> &'static str {
        match self {
            Self::Describe => {
                "Use {\"server\":…,\"describe\":\"<tool>\"} for a tool's full schema."
            }
            Self::Read => {
                "Read one with {\"server\":…,\"operation\":\"resources.read\",\"resource\":\"<reference>\"}."
            }
            Self::List => "Next: {\"server\":\"<name>\"} lists a server's tools.",
        }
    }

    /// The hint that follows `result`, if any: a tools listing, a resources listing of a
    /// server that declares resources, the status.
    pub fn after(result: &OpResult) -> Option<Self> {
        match result {
            OpResult::Tools(_) => Some(Self::Describe),
            OpResult::Resources(list) if list.declared => Some(Self::Read),
            OpResult::Status(_) => Some(Self::List),
            _ => None,
        }
    }
}

/// One file a result was kept in (the CLI's `--output DIR`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct KeptFile {
    /// Where it was written.
    pub path: std::path::PathBuf,
    /// Its size in bytes.
    pub size: u64,
    /// The content's MIME type.
    pub mime_type: String,
    /// The spill it was copied from (named in the result's text), if any.
    #[serde(skip)]
    pub spill: Option<String>,
}

/// What an envelope's `result` is: the engine's [`OpResult`], or the result of a CLI command
/// that runs outside the engine (trust, policy, hosts, ...), which it builds as JSON.
pub trait EnvelopeResult: Serialize + Clone {
    /// The result with its text replaced by `full` (`--full`), when it carries text.
    fn with_whole_text(&self, full: &str) -> Option<Self>;
}

impl EnvelopeResult for OpResult {
    fn with_whole_text(&self, full: &str) -> Option<Self> {
        let mut owned = self.clone();
        match &mut owned {
            OpResult::Call(call) => full.clone_into(&mut call.text),
            OpResult::Read(read) => full.clone_into(&mut read.text),
            OpResult::Prompt(prompt) => full.clone_into(&mut prompt.text),
            _ => return None,
        }
        Some(owned)
    }
}

impl EnvelopeResult for serde_json::Value {
    fn with_whole_text(&self, _full: &str) -> Option<Self> {
        None
    }
}

/// One operation's outcome, borrowed from an [`Outcome`] (or a CLI command's own result), as
/// both faces serialise it.
#[derive(Debug)]
pub struct Envelope<'a, R = OpResult> {
    /// The server it concerned (None for status).
    pub server: Option<&'a str>,
    /// The normalized operation, e.g. `tools.call echo`.
    pub operation: &'a str,
    /// The typed result, or the failure.
    pub body: Result<&'a R, &'a Failure>,
    /// What to do next.
    pub hint: Option<Hint>,
    /// The whole text, in the result's place of the bounded one (the CLI's `--full`).
    pub full_text: Option<&'a str>,
    /// The files the result was kept in (the CLI's `--output`): `files` beside `result`.
    pub files: Option<&'a [KeptFile]>,
}

impl<R> Clone for Envelope<'_, R> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<R> Copy for Envelope<'_, R> {}

impl<'a> Envelope<'a> {
    /// The envelope of `outcome`.
    pub fn of(outcome: &'a Outcome) -> Self {
        let body = match &outcome.body {
            Ok(success) => Ok(&success.result),
            Err(failure) => Err(failure),
        };
        Self {
            server: outcome.server.as_deref(),
            operation: &outcome.operation,
            hint: body.ok().and_then(Hint::after),
            body,
            full_text: None,
            files: None,
        }
    }
}

impl<'a, R: EnvelopeResult> Envelope<'a, R> {
    /// The envelope of a CLI command that ran outside the engine (trust, hosts, policy, ...)
    /// and did what it was asked.
    pub fn done(operation: &'a str, result: &'a R) -> Self {
        Self::local(operation, Ok(result))
    }

    /// The envelope of a CLI command that ran outside the engine and failed.
    pub fn failed(operation: &'a str, failure: &'a Failure) -> Self {
        Self::local(operation, Err(failure))
    }

    fn local(operation: &'a str, body: Result<&'a R, &'a Failure>) -> Self {
        Self {
            server: None,
            operation,
            body,
            hint: None,
            full_text: None,
            files: None,
        }
    }

    /// The same envelope carrying the whole text in its result (`--full`): a call's, a
    /// read's or a prompt's `text` is `full` instead of the bounded preview.
    #[must_use]
    pub fn with_full_text(mut self, full: Option<&'a str>) -> Self {
        self.full_text = full;
        self
    }

    /// The same envelope listing the files its result was kept in (`--output`).
    #[must_use]
    pub fn with_files(mut self, files: &'a [KeptFile]) -> Self {
        self.files = Some(files);
        self
    }

    /// The CLI's `--json` form:
    /// `{"ok","server","operation","result","error":{"class","message",...details},"text"}`.
    pub fn cli(&self) -> impl Serialize + 'a {
        let (result, error, text) = match self.body {
            Ok(result) => (Some(whole(result, self.full_text)), None, None),
            Err(failure) => (
                None,
                Some(DetailedError {
                    class: &failure.class,
                    message: &failure.message,
                    call: failure.call.as_deref(),
                }),
                failure.text.as_deref(),
            ),
        };
        CliForm {
            ok: self.body.is_ok(),
            server: self.server,
            operation: self.operation,
            result,
            error,
            text,
            files: self.files,
        }
    }

    /// serve's `structuredContent` form:
    /// `{"server","operation","status":"ok"|"error","result"|"error":{"class","message"}}`.
    pub fn structured(&self) -> impl Serialize + 'a {
        let (result, error) = match self.body {
            Ok(result) => (Some(result), None),
            Err(failure) => (
                None,
                Some(BriefError {
                    class: failure.class.name(),
                    message: &failure.message,
                }),
            ),
        };
        StructuredForm {
            server: self.server,
            operation: self.operation,
            status: if self.body.is_ok() { "ok" } else { "error" },
            result,
            error,
        }
    }
}

/// `result` with its text replaced by `full`, when there is a whole text and the result
/// carries text (a call, a read, a prompt).
fn whole<'a, R: EnvelopeResult>(result: &'a R, full: Option<&str>) -> Cow<'a, R> {
    full.and_then(|full| result.with_whole_text(full))
        .map_or(Cow::Borrowed(result), Cow::Owned)
}

/// The CLI's serialisation.
#[derive(Serialize)]
struct CliForm<'a, R: EnvelopeResult> {
    ok: bool,
    server: Option<&'a str>,
    operation: &'a str,
    /// `null` on failure.
    result: Option<Cow<'a, R>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<DetailedError<'a>>,
    /// Model-visible text that came with the failure (a tool's own error output).
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'a str>,
    /// The files kept (`--output`).
    #[serde(skip_serializing_if = "Option::is_none")]
    files: Option<&'a [KeptFile]>,
}

/// A failure with its class's details (or a tool error's shaped result) beside the message.
#[derive(Serialize)]
struct DetailedError<'a> {
    #[serde(flatten)]
    class: &'a ErrorClass,
    message: &'a str,
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    call: Option<&'a ToolCall>,
}

/// serve's serialisation.
#[derive(Serialize)]
struct StructuredForm<'a, R> {
    server: Option<&'a str>,
    operation: &'a str,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<&'a R>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<BriefError<'a>>,
}

/// A failure as an agent's structured content carries it: the class and the message (the
/// details are in the text).
#[derive(Serialize)]
struct BriefError<'a> {
    class: &'static str,
    message: &'a str,
}

/// Serialises an optional failure brief, as serve's structured content carries one (`status
/// --live`'s rows use it for each server's failure).
#[allow(clippy::ref_option)] // the signature `serialize_with` calls
pub(crate) fn brief_failure<S: serde::Serializer>(
    failure: &Option<Failure>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    failure
        .as_ref()
        .map(|f| BriefError {
            class: f.class.name(),
            message: &f.message,
        })
        .serialize(serializer)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn cli<R: EnvelopeResult>(envelope: Envelope<'_, R>) -> serde_json::Value {
        serde_json::to_value(envelope.cli()).unwrap_or_default()
    }

    #[test]
    fn a_local_command_fails_and_succeeds_in_the_engine_s_shape() {
        let failure = Failure::new(ErrorClass::NoSuchRule, "no rule `x`".to_owned());
        assert_eq!(
            cli(Envelope::<OpResult>::failed("policy", &failure)),
            json!({"ok": false, "server": null, "operation": "policy", "result": null,
                "error": {"class": "no_such_rule", "message": "no rule `x`"}})
        );
        let result = json!({"outcome": "trusted"});
        assert_eq!(
            cli(Envelope::done("trust", &result)),
            json!({"ok": true, "server": null, "operation": "trust", "result": {"outcome": "trusted"}})
        );
    }

    #[test]
    fn the_whole_text_and_the_kept_files_are_options_of_the_envelope() {
        let call = OpResult::Call(ToolCall {
            is_error: false,
            text: "preview".to_owned(),
            structured_content: None,
            output_schema_verdict: None,
            spills: Vec::new(),
            links: Vec::new(),
            annotations: Vec::new(),
            raw: None,
        });
        let outcome = Outcome {
            server: Some("fx".to_owned()),
            operation: "tools.call big".to_owned(),
            body: Ok(super::super::Success {
                result: call,
                text: "preview".to_owned(),
                spills: Vec::new(),
            }),
        };
        let files = [KeptFile {
            path: "out/result.txt".into(),
            size: 5,
            mime_type: "text/plain".to_owned(),
            spill: None,
        }];
        let plain = cli(Envelope::of(&outcome));
        assert_eq!(plain["result"]["text"], "preview");
        assert!(plain.get("files").is_none());
        let kept = cli(Envelope::of(&outcome)
            .with_full_text(Some("whole"))
            .with_files(&files));
        assert_eq!(kept["result"]["text"], "whole");
        assert_eq!(
            kept["files"],
            json!([{"path": "out/result.txt", "size": 5, "mimeType": "text/plain"}])
        );
    }

    #[test]
    fn every_hint_fits_the_room_kept_for_it() {
        for hint in [Hint::Describe, Hint::Read, Hint::List] {
            assert!(hint.for_agents().len() <= Hint::ROOM, "{hint:?}");
        }
    }
}
