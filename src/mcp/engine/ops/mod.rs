//! The proxy operations against one live connection: bounded discovery,
//! search, describe, calls, resources and prompts, each returning a [`Success`] whose
//! model-visible text is bounded and whose every string is sanitised and redacted.
//!
//! This file holds what every operation shares (the [`OpContext`], failures, bounding); the
//! cached catalogs are in `catalogs`, and the operations by kind in `tools`, `resources` and
//! `prompts`.

mod catalogs;
mod cost;
mod prompts;
mod resources;
mod skills;
mod tools;

use crate::mcp::connection::ErrorClass;
use std::fmt::Write as _;
use std::sync::Arc;

use rmcp::model::{ClientRequest, ServerResult};
use tokio_util::sync::CancellationToken;

use super::live::Live;
use super::outcome::{Failure, Success};
use super::slot::Slot;
use crate::mcp::api::OpResult;
use crate::mcp::catalog::PageError;
use crate::mcp::connection::{Connection, RequestError, max_total_for};
use crate::mcp::results::{BoundedText, ShapeContext, SpillDir};
use crate::mcp::sanitize::sanitize_capped;

pub(super) use catalogs::{declared, prompts, resource_listing, tools};
pub(super) use cost::tool_costs;
pub(super) use prompts::{get_prompt, list_prompts};
pub(super) use resources::{list_resources, list_templates, read_resource, read_uri};
pub(super) use skills::{get_skill, list_skills};
pub(super) use tools::{call_tool, describe_tool, list_tools, ping, search_tools, shape_call};

/// What an operation needs besides the connection.
pub(super) struct OpContext<'a> {
    /// The server's slot.
    pub slot: &'a Slot,
    /// The connection.
    pub live: &'a Arc<Live>,
    /// This process's spills.
    pub spills: &'a SpillDir,
    /// Cancels the operation.
    pub cancel: &'a CancellationToken,
    /// Tells the face what happens (a task's status); serve mode hears nothing.
    pub note: &'a (dyn Fn(&str) + Send + Sync),
    /// Run a tool call as a task (the operator's choice for `optional` task support).
    pub as_task: bool,
    /// The operator's own `_meta` entries for a tool call (checked by `CallOptions::check_meta`).
    pub meta: Option<&'a serde_json::Map<String, serde_json::Value>>,
    /// How long a tool call run as a task is followed before it is cancelled.
    pub task_timeout: std::time::Duration,
    /// Where a tool call's progress reports go (serve mode's forwarding), if anywhere.
    pub progress: Option<&'a tokio::sync::mpsc::Sender<crate::mcp::connection::ProgressUpdate>>,
    /// Results keep the server's characters (see `ShapeContext::keep_data`).
    pub keep_data: bool,
    /// Where pins across restarts are kept, if anywhere.
    pub pins: Option<&'a crate::mcp::pins::PinStore>,
}

impl OpContext<'_> {
    /// What shaping a result of `origin` (`tools.call x`) on this server needs.
    fn shape_context<'s>(&'s self, origin: &'s str) -> ShapeContext<'s> {
        ShapeContext {
            server: &self.slot.name,
            origin,
            spills: self.spills,
            redactor: &self.live.redactor,
            keep_data: self.keep_data,
        }
    }

    pub(super) async fn request(
        &self,
        conn: &Connection,
        request: ClientRequest,
    ) -> Result<ServerResult, Failure> {
        let timeout = conn.request_timeout();
        conn.request_cancellable(request, timeout, max_total_for(timeout), self.cancel)
            .await
            .map_err(|e| self.request_failure(&e))
    }

    pub(super) fn request_failure(&self, e: &RequestError) -> Failure {
        let failure = Failure::from_connect(e);
        if matches!(
            failure.class,
            ErrorClass::Exited { .. } | ErrorClass::Limit { .. }
        ) {
            self.slot.on_exited();
        }
        failure
    }
}

fn unexpected(what: &str) -> Failure {
    Failure::new(
        ErrorClass::Protocol,
        format!("the server answered {what} with an unexpected result type"),
    )
}

fn page_failure(e: PageError<Failure>) -> Failure {
    match e {
        PageError::Limit(limit) => Failure::limit(limit.to_string()),
        PageError::Fetch(f) => f,
    }
}

/// The answer to a listing of a capability the server did not declare: empty, and said so.
fn undeclared(ctx: &OpContext<'_>, what: &str, result: OpResult) -> Success {
    Success {
        result,
        text: format!(
            "{} offers no {what} (it did not declare the capability; nothing was asked)\n",
            sanitize_capped(&ctx.slot.name, 128)
        ),
        spills: Vec::new(),
    }
}

/// Bounds a listing's text like any result: past 50 KiB / 2,000 lines the rest is spilled.
/// `room` bytes stay free for the hint the envelope appends
/// ([`Hint::ROOM`](crate::mcp::engine::Hint::ROOM) for a listing
/// that has one, else 0), so the text an agent gets is within the bound as a whole.
fn bounded(
    ctx: &OpContext<'_>,
    origin: &str,
    text: &str,
    room: usize,
) -> Result<(String, Vec<crate::mcp::results::SpillEntry>), Failure> {
    let io =
        |e: std::io::Error| Failure::new(ErrorClass::Spill, format!("writing a spill failed: {e}"));
    let mut out = BoundedText::new(ctx.spills, origin).with_room(room);
    out.push(text).map_err(io)?;
    let bounded = out.finish().map_err(io)?;
    let mut visible = bounded.text.clone();
    if let Some(note) = bounded.note() {
        let _ = write!(visible, "\n{note}");
    }
    let spills = bounded.overflow.map(|o| vec![o.spill]).unwrap_or_default();
    Ok((visible, spills))
}

/// `request` asking for its answer's frame as the server sent it, in `slot` (see
/// `connection::raw`).
fn with_raw(
    mut request: rmcp::model::ClientRequest,
    slot: &crate::mcp::connection::raw::RawSlot,
) -> rmcp::model::ClientRequest {
    rmcp::model::GetExtensions::extensions_mut(&mut request).insert(slot.clone());
    request
}

/// The raw view's copy of `frame`, when it was kept.
fn kept_raw(
    shape_ctx: &crate::mcp::results::ShapeContext<'_>,
    frame: Option<Vec<u8>>,
) -> Result<Option<crate::mcp::results::RawJson>, Failure> {
    frame
        .map(|f| crate::mcp::results::keep_raw(shape_ctx, &f))
        .transpose()
        .map_err(|e| shape_failure(crate::mcp::results::ShapeError::Io(e)))
}

fn shape_failure(e: crate::mcp::results::ShapeError) -> Failure {
    match e {
        crate::mcp::results::ShapeError::Limit(limit) => Failure::limit(limit.to_string()),
        crate::mcp::results::ShapeError::Io(io) => {
            Failure::new(ErrorClass::Spill, format!("writing a spill failed: {io}"))
        }
    }
}

/// The first line of a listing: `3 tools on fx:` before the list, or `0 tools on fx.` when
/// there is nothing after it.
pub(crate) fn heading(n: usize, (one, many): (&str, &str), rest: &str) -> String {
    let end = if n == 0 { '.' } else { ':' };
    format!("{} {rest}{end}\n", counted(n, one, many))
}

/// `n` with its noun in the right number: `1 tool`, `5 tools`, `0 tools`.
fn counted(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {many}")
    }
}

#[cfg(test)]
mod counted_tests {
    use super::{counted, heading};

    #[test]
    fn one_is_singular_and_every_other_count_is_plural() {
        assert_eq!(counted(1, "tool", "tools"), "1 tool");
        assert_eq!(counted(0, "tool", "tools"), "0 tools");
        assert_eq!(counted(5, "match", "matches"), "5 matches");
        assert_eq!(heading(2, ("tool", "tools"), "on fx"), "2 tools on fx:\n");
        assert_eq!(heading(0, ("task", "tasks"), "on fx"), "0 tasks on fx.\n");
    }
}
