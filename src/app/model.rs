//! A result's display rows ([`ResultView`], drawn by `ui::viewer` and `ui::main_pane`) built
//! from an outcome, and the cleaning of a tool's description and of JSON. Server text enters
//! the console's state here (and in each list's row builder beside its state), so every string
//! is sanitised once.

use serde_json::Value;

use super::spills_view::{SpillRow, spill_rows};
use crate::mcp::api::OpResult;
use crate::mcp::catalog::describe::ToolDescription;
use crate::mcp::engine::Outcome;
use crate::mcp::sanitize::{sanitize, sanitize_capped};

/// Descriptions are shown capped at this many bytes, with a marker.
pub const DESCRIPTION_CAP: usize = 2048;

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

    /// The viewer, the text it shows ([`Self::body`]) and the fold cursor, to move together.
    pub fn viewer_body(&mut self) -> (&mut super::viewer::Viewer, &[String], &mut usize) {
        let body = if self.show_model {
            &self.model
        } else {
            &self.lines
        };
        (&mut self.viewer, body, &mut self.cursor)
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
                OpResult::Skill(read) => skill_text(&mut head, read),
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

/// A skill read from the Skills tab: each file read (only `SKILL.md` there) under a line that
/// says whether it was verified against the listing.
fn skill_text(out: &mut Vec<String>, read: &crate::mcp::catalog::skills::SkillRead) {
    let checked = if read.verified {
        "verified: size, SHA-256, front matter"
    } else {
        "size and SHA-256 not checked (the server lists it as dynamic); front matter compared"
    };
    for file in &read.files {
        if !out.is_empty() {
            out.push(String::new());
        }
        push_text(out, &format!("── {} · {checked}", file.path));
        push_text(out, &file.text);
    }
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
