//! Display rows built from engine data. This is where server text enters the console's state,
//! so every string is sanitised here, once.

use serde_json::Value;

use crate::mcp::api::{OpResult, PromptList, ResourceList, ToolList, ToolSearch};
use crate::mcp::catalog::describe::ToolDescription;
use crate::mcp::catalog::summary::ToolSummary;
use crate::mcp::engine::Outcome;
use crate::mcp::results::SpillEntry;
use crate::mcp::sanitize::{sanitize, sanitize_capped};
use crate::mcp::status::{ServerState, StatusReport};
use crate::mcp::trust::TrustState;

/// Descriptions are shown capped at this many bytes, with a marker.
pub const DESCRIPTION_CAP: usize = 2048;

/// One server in the servers pane.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerRow {
    /// The configured name.
    pub name: String,
    /// The live state.
    pub state: ServerState,
    /// `stdio` / `http` / `?`.
    pub transport: String,
    /// The source layer label.
    pub layer: String,
    /// Badges: shadowed, inert, disabled, invalid, changed.
    pub badges: Vec<&'static str>,
    /// `protocol · server name version`, once connected.
    pub info: Option<String>,
    /// The last error: class and message.
    pub error: Option<(String, String)>,
    /// Catalog sizes (tools, resources, prompts) once listed.
    pub counts: [Option<usize>; 3],
    /// The sandbox's rules in one line (sanitised), when it runs in one.
    pub sandbox: Option<String>,
    /// The roots it is offered, in one line (sanitised), when it has a valid definition.
    pub roots: Option<String>,
}

/// The servers pane rows for a status report.
pub fn server_rows(status: &StatusReport) -> Vec<ServerRow> {
    status
        .servers
        .iter()
        .map(|s| {
            let mut badges = Vec::new();
            if !s.shadowed.is_empty() {
                badges.push("shadowed");
            }
            match s.state {
                ServerState::Inert => badges.push("inert"),
                ServerState::Disabled => badges.push("disabled"),
                ServerState::Invalid => badges.push("invalid"),
                _ => {}
            }
            if s.source.layer.is_project() && status.project.trust == TrustState::Changed {
                badges.push("changed");
            }
            if s.sandbox.is_some() {
                badges.push("sandboxed");
            }
            let r = &s.runtime;
            let info = r.protocol_version.as_ref().map(|p| {
                // The era: 2026-07-28 on is stateless; anything before began with initialize.
                let era = if p.as_str() >= "2026-07-28" {
                    "stateless"
                } else {
                    "legacy"
                };
                sanitize_capped(
                    &format!(
                        "{p} ({era}) · {} {}",
                        r.server_name.as_deref().unwrap_or("?"),
                        r.server_version.as_deref().unwrap_or("")
                    ),
                    200,
                )
            });
            ServerRow {
                name: sanitize_capped(&s.name, 128),
                state: s.state,
                transport: s.transport.unwrap_or("?").to_owned(),
                layer: s.source.layer.label().to_owned(),
                badges,
                info,
                error: r.last_error.as_ref().map(|e| {
                    (
                        sanitize_capped(&e.class, 64),
                        sanitize_capped(&e.message, 2048),
                    )
                }),
                counts: [r.tools, r.resources, r.prompts],
                sandbox: s.sandbox.clone(),
                roots: s.roots.clone(),
            }
        })
        .collect()
}

/// One tool in a list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolRow {
    /// The name (sanitised).
    pub name: String,
    /// The one-line description (sanitised).
    pub description: String,
    /// Required argument names.
    pub required: Vec<String>,
}

fn tool_row(t: &ToolSummary) -> ToolRow {
    ToolRow {
        name: sanitize_capped(&t.name, 256),
        description: sanitize_capped(&t.description, 400).replace('\n', " "),
        required: t.required.iter().map(|s| sanitize_capped(s, 128)).collect(),
    }
}

/// Tools from a `tools.list` result.
pub fn tool_rows(list: &ToolList) -> Vec<ToolRow> {
    list.tools.iter().map(tool_row).collect()
}

/// Tools from a `tools.search` result.
pub fn search_rows(search: &ToolSearch) -> Vec<ToolRow> {
    search.matches.iter().map(|m| tool_row(&m.tool)).collect()
}

/// One resource or template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceRow {
    /// The opaque reference (empty for templates, which are listed only).
    pub reference: String,
    /// The name (sanitised).
    pub name: String,
    /// MIME type and size, as shown.
    pub meta: String,
    /// The description (sanitised).
    pub description: String,
    /// Whether it is a template (listed after the resources; opening one asks for its
    /// variables).
    pub template: bool,
}

fn meta(mime: Option<&str>, size: Option<u64>) -> String {
    let mime = mime.map(|m| sanitize_capped(m, 128)).unwrap_or_default();
    let size = size.map(|s| format!(" {s} B")).unwrap_or_default();
    format!("{mime}{size}")
}

/// A resource's MIME type and size, then its annotations (`· audience user · priority 0.5`).
fn resource_meta(r: &crate::mcp::catalog::ResourceSummary) -> String {
    let mut shown = meta(r.mime_type.as_deref(), r.size);
    if let Some(annotations) = &r.annotations {
        if !shown.is_empty() {
            shown.push_str(" · ");
        }
        shown.push_str(&sanitize_capped(&annotations.to_string(), 256));
    }
    shown
}

/// Resources, then templates, from a `resources.list` result.
pub fn resource_rows(list: &ResourceList) -> Vec<ResourceRow> {
    let resources = list.resources.iter().map(|r| ResourceRow {
        reference: sanitize_capped(&r.reference, 512),
        name: sanitize_capped(&r.name, 256),
        meta: resource_meta(r),
        description: sanitize_capped(&r.description, 400).replace('\n', " "),
        template: false,
    });
    let templates = list.templates.iter().map(|t| ResourceRow {
        reference: String::new(),
        name: sanitize_capped(&t.name, 256),
        meta: meta(t.mime_type.as_deref(), None),
        description: t
            .description
            .as_deref()
            .map(|d| sanitize_capped(d, 400).replace('\n', " "))
            .unwrap_or_default(),
        template: true,
    });
    resources.chain(templates).collect()
}

/// One prompt.
#[derive(Debug, Clone, PartialEq)]
pub struct PromptRow {
    /// The name (sanitised).
    pub name: String,
    /// The description (sanitised).
    pub description: String,
    /// The arguments as a JSON Schema of strings (for the form).
    pub schema: Value,
}

/// Prompts from a `prompts.list` result.
pub fn prompt_rows(list: &PromptList) -> Vec<PromptRow> {
    list.prompts
        .iter()
        .map(|p| {
            let mut props = serde_json::Map::new();
            let mut required = Vec::new();
            for arg in &p.arguments {
                let mut prop = serde_json::json!({"type": "string"});
                if !arg.description.is_empty() {
                    prop["description"] = Value::String(sanitize(&arg.description).into_owned());
                }
                let name = sanitize_capped(&arg.name, 128);
                props.insert(name.clone(), prop);
                if arg.required {
                    required.push(Value::String(name));
                }
            }
            PromptRow {
                name: sanitize_capped(&p.name, 256),
                description: sanitize_capped(&p.description, 400).replace('\n', " "),
                schema: serde_json::json!({"type": "object", "properties": props, "required": required}),
            }
        })
        .collect()
}

/// One log line of a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLine {
    /// What kind of event.
    pub kind: &'static str,
    /// The text, sanitised.
    pub text: String,
    /// The message body for traffic lines (sanitised JSON, secrets redacted, capped).
    pub body: Option<String>,
    /// A server log message's logger (sanitised; its text starts with it).
    pub logger: Option<String>,
}

/// One spill of the session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpillRow {
    /// The file's name (the engine's key for it).
    pub basename: String,
    /// Full path (operator only).
    pub path: std::path::PathBuf,
    /// The path as shown, sanitised.
    pub shown: String,
    /// Size in bytes.
    pub size: u64,
    /// MIME type (sanitised).
    pub mime: String,
    /// The origin operation (sanitised).
    pub origin: String,
}

/// Spill rows.
pub fn spill_rows(spills: &[SpillEntry]) -> Vec<SpillRow> {
    spills
        .iter()
        .map(|s| SpillRow {
            basename: s.basename.clone(),
            path: s.path.clone(),
            shown: sanitize(&s.path.display().to_string()).into_owned(),
            size: s.size,
            mime: sanitize_capped(&s.mime, 128),
            origin: sanitize_capped(&s.origin, 256),
        })
        .collect()
}

/// What a result header row is, for its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeaderKind {
    /// The title of a success.
    Ok,
    /// The title or message of a failure.
    Error,
    /// A spill the result produced.
    Spill,
}

/// A finished call, read or get, ready to show.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultView {
    /// `tools.call echo` etc.
    pub title: String,
    /// `None` on success, else (class, message).
    pub error: Option<(String, String)>,
    /// The human view: text, pretty structured content, verdict (sanitised lines).
    pub lines: Vec<String>,
    /// Exactly what an agent would receive (sanitised lines).
    pub model: Vec<String>,
    /// Spills it produced.
    pub spills: Vec<SpillRow>,
    /// Show `model` instead of `lines`.
    pub show_model: bool,
    /// The fold cursor: a line of `lines`, shown and moved only while foldable JSON is shown.
    pub cursor: usize,
    /// Scroll position and search.
    pub viewer: super::viewer::Viewer,
    /// The foldable JSON shown inside `lines`, if any.
    pub fold: Option<super::fold::JsonFold>,
    /// Where the JSON's lines start in `lines`.
    pub fold_at: usize,
    /// Per line of `lines`: the JSON pointer of the container it opens, if it opens one.
    pub pointers: Vec<Option<String>>,
    /// `lines` with every fold open (what copying takes).
    pub plain: Vec<String>,
    /// The result's resource links, which Enter opens on the server that returned them.
    pub links: Vec<super::result_links::LinkRow>,
    /// The highlighted link while the list of links is open.
    pub link_pick: Option<usize>,
    /// The response frame as the server sent it, for the raw JSON view (`app::raw_json`).
    pub raw: Option<crate::mcp::results::RawJson>,
    /// Set on the raw JSON view: the text view it returns to.
    pub text_view: Option<Box<ResultView>>,
}

impl ResultView {
    /// A view of `head` lines, then `json` (foldable), then `tail` lines.
    pub fn new(title: String, head: Vec<String>, json: Option<Value>, tail: Vec<String>) -> Self {
        let fold = json.map(|v| super::fold::JsonFold::new(clean_strings(&v)));
        let mut view = Self {
            title,
            error: None,
            lines: head,
            model: Vec::new(),
            spills: Vec::new(),
            links: Vec::new(),
            link_pick: None,
            show_model: false,
            cursor: 0,
            viewer: super::viewer::Viewer::default(),
            fold_at: 0,
            fold,
            pointers: Vec::new(),
            plain: Vec::new(),
            raw: None,
            text_view: None,
        };
        view.fold_at = view.lines.len();
        let printed = view
            .fold
            .as_ref()
            .map(super::fold::JsonFold::lines)
            .unwrap_or_default();
        view.lines.extend(printed.iter().map(|(l, _)| l.clone()));
        view.pointers = vec![None; view.fold_at];
        view.pointers.extend(printed.into_iter().map(|(_, p)| p));
        view.lines.extend(tail);
        view.pointers.resize(view.lines.len(), None);
        // The open markers (at the start of a container's line) are not part of the JSON.
        view.plain = view
            .lines
            .iter()
            .zip(&view.pointers)
            .map(|(l, p)| {
                if p.is_some() {
                    l.replacen('▾', " ", 1)
                } else {
                    l.clone()
                }
            })
            .collect();
        // The cursor starts where `z` does something: the first foldable line.
        view.cursor = view.pointers.iter().position(Option::is_some).unwrap_or(0);
        view
    }

    /// The text shown: the model-visible text or the human view.
    pub fn body(&self) -> &[String] {
        if self.show_model {
            &self.model
        } else {
            &self.lines
        }
    }

    /// Whether the fold cursor is shown (foldable JSON in the human view).
    pub fn has_cursor(&self) -> bool {
        !self.show_model && self.fold.is_some()
    }

    /// The fixed rows above the text at `width`: the title, the error (wrapped, at most
    /// `max_rows` rows in all) and one row per spill.
    pub fn header(&self, width: usize, max_rows: usize) -> Vec<(HeaderKind, String)> {
        let which = if self.show_model {
            "model-visible text"
        } else {
            "result"
        };
        let mut rows = Vec::new();
        match &self.error {
            None => rows.push((HeaderKind::Ok, format!("✓ {} — {which}", self.title))),
            Some((class, message)) => {
                rows.push((HeaderKind::Error, format!("✗ {} — {class}", self.title)));
                for line in message.lines() {
                    rows.extend(
                        super::viewer::wrap(line, width)
                            .into_iter()
                            .map(|r| (HeaderKind::Error, r)),
                    );
                }
            }
        }
        for s in &self.spills {
            rows.push((
                HeaderKind::Spill,
                format!("spill {} · {} B · {}", s.basename, s.size, s.mime),
            ));
        }
        let mut cut: Vec<_> = rows
            .into_iter()
            .flat_map(|(k, r)| {
                super::viewer::wrap(&r, width)
                    .into_iter()
                    .map(move |r| (k, r))
            })
            .collect();
        if cut.len() > max_rows.max(1) {
            cut.truncate(max_rows.max(1));
            if let Some((_, last)) = cut.last_mut() {
                last.push('…');
            }
        }
        cut
    }

    /// The spill the operator most likely means: the one named in the line at the cursor, else
    /// in a visible line, else the first.
    pub fn spill_in_view(&self) -> Option<&SpillRow> {
        let body = self.body();
        let named = |line: &str| self.spills.iter().find(|s| line.contains(&s.basename));
        if self.has_cursor()
            && let Some(s) = body.get(self.cursor).and_then(|l| named(l))
        {
            return Some(s);
        }
        let (first, last) = self.viewer.visible_lines(body);
        body.get(first..=last.min(body.len().saturating_sub(1)))
            .into_iter()
            .flatten()
            .find_map(|l| named(l))
            .or_else(|| self.spills.first())
    }

    /// The line of the container that holds the cursor line: the line itself when it opens
    /// one, else the nearest opener above it that is indented less.
    fn enclosing_opener(&self) -> Option<usize> {
        let indent = |l: &str| l.len() - l.trim_start().len();
        let at = self.cursor;
        if self.pointers.get(at)?.is_some() {
            return Some(at);
        }
        if at < self.fold_at {
            return None;
        }
        let own = indent(self.lines.get(at)?);
        (self.fold_at..at)
            .rev()
            .find(|&i| self.pointers[i].is_some() && indent(&self.lines[i]) < own)
    }

    /// Folds or opens the container the cursor is in (`all`: every container at once); the
    /// cursor moves to the container's line.
    pub fn toggle_fold(&mut self, all: bool) {
        let opener = if all { None } else { self.enclosing_opener() };
        let Some(fold) = &mut self.fold else {
            return;
        };
        let before = fold.lines().len();
        if all {
            fold.toggle_all();
        } else if let Some(at) = opener
            && let Some(Some(pointer)) = self.pointers.get(at)
        {
            fold.toggle(pointer);
            self.cursor = at;
        } else {
            return;
        }
        let printed = fold.lines();
        let end = self.fold_at + before;
        self.lines
            .splice(self.fold_at..end, printed.iter().map(|(l, _)| l.clone()));
        self.pointers
            .splice(self.fold_at..end, printed.into_iter().map(|(_, p)| p));
        self.cursor = self.cursor.min(self.lines.len().saturating_sub(1));
    }
}

/// Sanitises every string (keys too) inside a JSON value, uncapped.
fn clean_strings(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(sanitize(s).into_owned()),
        Value::Array(a) => Value::Array(a.iter().map(clean_strings).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (sanitize(k).into_owned(), clean_strings(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// `text` without the lines that open or close an untrusted-data wrapper (the data inside
/// had its own markers escaped, so only the wrapper's lines match).
fn unwrapped(text: &str) -> String {
    use crate::mcp::results::untrusted::MARKER;
    let open = format!("<{MARKER} ");
    let close = format!("</{MARKER}>");
    text.lines()
        .filter(|l| !(l.starts_with(&open) && l.ends_with('>')) && *l != close)
        .collect::<Vec<_>>()
        .join("\n")
}

fn push_text(out: &mut Vec<String>, text: &str) {
    out.extend(sanitize(text).lines().map(str::to_owned));
}

/// The result view of an outcome: text first, then the structured content (or, for results
/// without text, the whole result; for failures, their detail) as foldable JSON, then the
/// output-schema verdict.
pub fn result_view(outcome: &Outcome) -> ResultView {
    let mut head = Vec::new();
    let mut tail = Vec::new();
    let mut json = None;
    let mut spills = Vec::new();
    let error = match &outcome.body {
        Ok(success) => {
            match &success.result {
                OpResult::Call(call) => {
                    let structured = call.structured_content.as_ref().filter(|s| !s.is_null());
                    // Structured content is shown once: a text that is only the same JSON (as
                    // servers send for older clients) gives way to the foldable tree; the model
                    // view (`m`) keeps it.
                    let same = structured.is_some_and(|s| {
                        serde_json::from_str::<Value>(&call.text).is_ok_and(|t| t == *s)
                    });
                    if !same {
                        push_text(&mut head, &call.text);
                    }
                    if let Some(s) = structured {
                        if !head.is_empty() {
                            head.push(String::new());
                        }
                        head.push("── structured content (z folds, Z folds all)".to_owned());
                        json = Some(s.clone());
                    }
                    if let Some(v) = &call.output_schema_verdict {
                        tail.push(String::new());
                        push_text(&mut tail, &format!("── output schema: {v}"));
                    }
                }
                // The human view shows the body alone; the model view (`m`) keeps the
                // untrusted-data wrapper an agent sees.
                OpResult::Read(read) => push_text(&mut head, &unwrapped(&read.text)),
                OpResult::Prompt(prompt) => push_text(&mut head, &unwrapped(&prompt.text)),
                other => json = Some(other.to_value()),
            }
            spills = spill_rows(&success.spills);
            None
        }
        Err(f) => {
            if let Some(text) = &f.text {
                push_text(&mut head, text);
            }
            json = match &f.call {
                Some(call) => call.structured_content.clone().filter(|s| !s.is_null()),
                None => f.details(),
            };
            Some((
                sanitize_capped(f.class.name(), 64),
                sanitize_capped(&f.message, 2048),
            ))
        }
    };
    let mut view = ResultView::new(sanitize_capped(&outcome.operation, 256), head, json, tail);
    push_text(&mut view.model, &outcome.model_text());
    view.error = error;
    view.spills = spills;
    view.links = super::result_links::link_rows(outcome);
    view.raw = super::raw_json::raw_of(outcome);
    view
}

/// A tool description ready to show: every string sanitised, the description capped at
/// [`DESCRIPTION_CAP`] (the whole one is kept apart for `f`).
pub fn clean_description(d: &ToolDescription) -> ToolDescription {
    ToolDescription {
        name: sanitize_capped(&d.name, 256),
        title: d.title.as_deref().map(|t| sanitize_capped(t, 256)),
        description: d
            .description
            .as_deref()
            .map(|t| sanitize_capped(t, DESCRIPTION_CAP)),
        input_schema: clean_json(&d.input_schema),
        output_schema: d.output_schema.as_ref().map(clean_json),
        server_claimed_annotations: d.server_claimed_annotations.as_ref().map(clean_json),
        meta: d.meta.as_ref().map(clean_json),
        flags: d.flags.clone(),
        arguments: d.arguments.clone(),
    }
}

/// Sanitises every string inside a JSON value (for detail views), capping descriptions.
pub fn clean_json(v: &Value) -> Value {
    match v {
        Value::String(s) => Value::String(sanitize_capped(s, DESCRIPTION_CAP)),
        Value::Array(a) => Value::Array(a.iter().map(clean_json).collect()),
        Value::Object(o) => Value::Object(
            o.iter()
                .map(|(k, v)| (sanitize_capped(k, 256), clean_json(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}
