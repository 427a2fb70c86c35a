//! Configuration diagnostics: what is wrong, where, and what to write instead.
//!
//! A diagnostic carries file, JSON path, line and column, a one-line message and an optional
//! suggestion. Messages may quote configuration text, so every printer sanitises them.

use std::fmt;
use std::path::PathBuf;

use crate::mcp::sanitize::sanitize;

/// How bad a diagnostic is.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing; the definition still works.
    Warning,
    /// The file or entry cannot be used as written.
    Error,
}

/// One problem found in a configuration file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// A stable machine-readable kind, e.g. `unknown_field`, `literal_secret`.
    pub code: &'static str,
    /// The file the problem is in.
    pub file: PathBuf,
    /// The JSON path, e.g. `mcpServers.github.headers.Authorization` (empty for the whole file).
    pub path: String,
    /// 1-based line, where known.
    pub line: Option<u32>,
    /// 1-based column (characters), where known.
    pub column: Option<u32>,
    /// One line saying what is wrong.
    pub message: String,
    /// What to write instead, where there is an answer.
    pub suggestion: Option<String>,
}

impl Diagnostic {
    /// Whether this is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// Renders `file:line:col: error[code] at path: message` plus a `help:` line, sanitised.
impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = self.file.display().to_string();
        write!(f, "{}", sanitize(&file))?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
            if let Some(column) = self.column {
                write!(f, ":{column}")?;
            }
        }
        let severity = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        write!(f, ": {severity}[{}]", self.code)?;
        if !self.path.is_empty() {
            write!(f, " at {}", sanitize(&self.path))?;
        }
        write!(f, ": {}", sanitize(&self.message))?;
        if let Some(suggestion) = &self.suggestion {
            write!(f, "\n    help: {}", sanitize(suggestion))?;
        }
        Ok(())
    }
}

/// The nearest candidate to `word` by edit distance, when it is close enough to be a typo.
pub(crate) fn nearest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    // A word much longer than every candidate is no typo of one; the edit distance would cost
    // time and memory in proportion to its length.
    let longest = candidates.iter().map(|c| c.len()).max().unwrap_or(0);
    if word.len() > 2 * longest + 2 {
        return None;
    }
    let lower = word.to_ascii_lowercase();
    candidates
        .iter()
        .map(|c| {
            (
                strsim::damerau_levenshtein(&lower, &c.to_ascii_lowercase()),
                *c,
            )
        })
        .filter(|(distance, c)| *distance <= (c.len() / 3).max(2))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, c)| c)
}

/// Counts of errors and warnings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct Counts {
    /// Number of errors.
    pub errors: usize,
    /// Number of warnings.
    pub warnings: usize,
}

impl Counts {
    /// Counts a list of diagnostics.
    pub fn of<'a>(diagnostics: impl IntoIterator<Item = &'a Diagnostic>) -> Self {
        diagnostics.into_iter().fold(Self::default(), |mut c, d| {
            match d.severity {
                Severity::Error => c.errors += 1,
                Severity::Warning => c.warnings += 1,
            }
            c
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_finds_typos_only() {
        let fields = ["command", "args", "url", "headers", "env"];
        assert_eq!(nearest("comand", &fields), Some("command"));
        assert_eq!(nearest("Headers", &fields), Some("headers"));
        assert_eq!(nearest("banana", &fields), None);
    }

    #[test]
    fn display_is_sanitised() {
        let d = Diagnostic {
            severity: Severity::Error,
            code: "unknown_field",
            file: PathBuf::from("/x/.mcp.json"),
            path: "mcpServers.a\u{1b}[2J".into(),
            line: Some(3),
            column: Some(5),
            message: "bad \u{202e}".into(),
            suggestion: Some("fix".into()),
        };
        let text = d.to_string();
        assert_eq!(
            text,
            "/x/.mcp.json:3:5: error[unknown_field] at mcpServers.a␛[2J: bad ⟨U+202E⟩\n    help: fix"
        );
    }
}
