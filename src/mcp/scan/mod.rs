//! The poisoning scan: deterministic rules over what a server says about itself — its tools,
//! prompts and resource templates, its `serverInfo` and `instructions` — looking for text
//! addressed to the model rather than the person (instructions to ignore or hide things, to
//! read credentials, to call or shadow other tools, to send data somewhere), characters a
//! person cannot see, and unusual length. Every string of a definition is scanned (schema
//! keys too: a parameter's name is text the model reads), except icons and `_meta`.
//!
//! A finding names its rule, the definition, the field (a JSON pointer into the definition)
//! and the position in that field's text (character offset, line and column). The scan never
//! changes anything; the rules are listed in [`RULES`] and documented in the README.

mod rules;
mod text;

use serde::Serialize;
use serde_json::Value;

pub use rules::{RULES, Rule};

/// What kind of definition a finding is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Kind {
    /// A tool.
    Tool,
    /// A prompt.
    Prompt,
    /// A resource template.
    ResourceTemplate,
    /// The server itself: `serverInfo` and `instructions`.
    Server,
}

impl Kind {
    /// The kind's name, as in `--json`.
    pub fn label(self) -> &'static str {
        match self {
            Self::Tool => "tool",
            Self::Prompt => "prompt",
            Self::ResourceTemplate => "resourceTemplate",
            Self::Server => "server",
        }
    }

    /// The kind named `label` (as [`Kind::label`] writes it).
    pub fn from_label(label: &str) -> Option<Self> {
        [
            Self::Tool,
            Self::Prompt,
            Self::ResourceTemplate,
            Self::Server,
        ]
        .into_iter()
        .find(|k| k.label() == label)
    }
}

/// One definition as the server sent it (raw JSON).
#[derive(Debug, Clone, PartialEq)]
pub struct Definition {
    /// What it is.
    pub kind: Kind,
    /// Its name (raw; `server` for the server itself).
    pub name: String,
    /// The definition as JSON (for the server: `{"serverInfo": ..., "instructions": ...}`).
    pub value: Value,
}

impl Definition {
    /// The definition of `kind` in `value`, named by its `name` member.
    pub fn new(kind: Kind, value: Value) -> Self {
        let name = match kind {
            Kind::Server => "server".to_owned(),
            _ => value
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned(),
        };
        Self { kind, name, value }
    }
}

/// One thing a rule found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// The rule's id (see [`RULES`]).
    pub rule: &'static str,
    /// What kind of definition.
    pub kind: Kind,
    /// The definition's name (sanitised).
    pub name: String,
    /// Where in the definition: a JSON pointer (`/description`,
    /// `/inputSchema/properties/path/description`); a key is marked `(key)`.
    pub field: String,
    /// The character offset in the field's text (0-based).
    pub offset: usize,
    /// The line in the field's text (1-based).
    pub line: usize,
    /// The column on that line, in characters (1-based).
    pub column: usize,
    /// The text around the match, sanitised and cut to about 100 characters.
    pub excerpt: String,
}

impl Finding {
    /// The finding as the console and approvals show it, in one line: the rule, where in the
    /// definition (field, line and column) and the sanitised excerpt.
    pub fn line(&self) -> String {
        format!(
            "[{}] {}:{}:{} {}",
            self.rule, self.field, self.line, self.column, self.excerpt
        )
    }
}

/// Scans one definition with every rule; findings by field, then position.
pub fn scan_definition(definition: &Definition) -> Vec<Finding> {
    let mut findings = Vec::new();
    let name = crate::mcp::sanitize::sanitize_capped(&definition.name, 128);
    text::walk(&definition.value, &mut |field, string, is_key| {
        for hit in rules::check(definition.kind, field, string, is_key) {
            let (line, column) = text::line_column(string, hit.offset);
            findings.push(Finding {
                rule: hit.rule,
                kind: definition.kind,
                name: name.clone(),
                field: if is_key {
                    format!("{field} (key)")
                } else {
                    field.to_owned()
                },
                offset: hit.offset,
                line,
                column,
                excerpt: text::excerpt(string, hit.offset, hit.len),
            });
        }
    });
    findings.sort_by(|a, b| (&a.field, a.offset).cmp(&(&b.field, b.offset)));
    findings
}

/// Scans every definition; findings in definition order, then by field and position.
pub fn scan(definitions: &[Definition]) -> Vec<Finding> {
    definitions.iter().flat_map(scan_definition).collect()
}

#[cfg(test)]
mod tests;
