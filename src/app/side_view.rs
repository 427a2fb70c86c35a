//! A workspace tool's answer as readable lines: ranked passages with paths and lines, query
//! matches, findings grouped by file with severity, a capsule's claims and hashes. Reads the
//! `mcpdeck.workspace-result/v1` envelope from the call's structured content; every string is
//! sanitised here, where it enters the console's state.

use serde::Deserialize as _;
use serde_json::Value;

use crate::mcp::config::Severity;
use crate::mcp::engine::Outcome;
use crate::mcp::sanitize::sanitize_capped;
use crate::workspace::results::{
    CapsuleResult, CheckResult, FindResult, Finding, QueryResult, Reply, ReplyStatus,
};

/// How a line is drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    /// The answer's summary (status, counts).
    Summary,
    /// An item's heading: a passage's or finding group's path and lines.
    Heading,
    /// Body text.
    Text,
    /// Secondary detail (hashes, snippets' context).
    Dim,
    /// An error finding or a refusal.
    Error,
    /// A warning finding.
    Warning,
}

/// One line of the panel's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideLine {
    /// How it is drawn.
    pub kind: LineKind,
    /// The text, sanitised.
    pub text: String,
}

fn line(kind: LineKind, text: &str) -> SideLine {
    SideLine {
        kind,
        text: sanitize_capped(text, 4096),
    }
}

/// The readable lines of `tool`'s outcome.
pub fn outcome_lines(tool: &str, outcome: &Outcome) -> Vec<SideLine> {
    let envelope = match &outcome.body {
        Ok(success) => match &success.result {
            crate::mcp::api::OpResult::Call(call) => call.structured_content.as_ref(),
            _ => None,
        },
        Err(f) => f.call.as_ref().and_then(|c| c.structured_content.as_ref()),
    }
    .filter(|e| e.get("schema").is_some());
    match (envelope, &outcome.body) {
        (Some(e), _) => envelope_lines(tool, e),
        (None, Err(f)) => vec![line(
            LineKind::Error,
            &format!("{}: {}", f.class.name(), f.message),
        )],
        (None, Ok(success)) => {
            let mut out = vec![line(LineKind::Summary, "answer without an envelope")];
            out.extend(success.text.lines().map(|l| line(LineKind::Text, l)));
            out
        }
    }
}

/// The readable lines of one `mcpdeck.workspace-result/v1` envelope.
pub fn envelope_lines(tool: &str, envelope: &Value) -> Vec<SideLine> {
    let Ok(reply) = Reply::deserialize(envelope) else {
        return vec![line(
            LineKind::Error,
            "the workspace answered with an envelope of another shape",
        )];
    };
    let reason =
        crate::workspace::envelope::reason_words(reply.reason.as_deref().unwrap_or_default());
    let result = &reply.result;
    let status = reply.status;
    let mut out = Vec::new();
    match status {
        ReplyStatus::Refused => {
            out.push(line(LineKind::Error, &format!("refused: {reason}")));
            if !result.is_null() {
                out.extend(
                    serde_json::to_string_pretty(result)
                        .unwrap_or_default()
                        .lines()
                        .map(|l| line(LineKind::Dim, l)),
                );
            }
            return out;
        }
        ReplyStatus::Unknown => out.push(line(LineKind::Summary, &format!("unknown: {reason}"))),
        ReplyStatus::Known => {}
    }
    match tool {
        "workspace_find" => typed(tool, result, &mut out, |r: FindResult, out| {
            find_lines(&r, status, out);
        }),
        "workspace_query" => typed(tool, result, &mut out, |r: QueryResult, out| {
            query_lines(&r, status, out);
        }),
        "workspace_check" => typed(tool, result, &mut out, |r: CheckResult, out| {
            check_lines(&r, out);
        }),
        "workspace_capsule" => typed(tool, result, &mut out, |r: CapsuleResult, out| {
            capsule_lines(&r, out);
        }),
        _ => out.extend(
            serde_json::to_string_pretty(result)
                .unwrap_or_default()
                .lines()
                .map(|l| line(LineKind::Text, l)),
        ),
    }
    out
}

/// Reads `result` as the tool's result type and hands it to `lines`; a result of another
/// shape says so instead of showing an empty list.
fn typed<T: serde::de::DeserializeOwned>(
    tool: &str,
    result: &Value,
    out: &mut Vec<SideLine>,
    lines: impl FnOnce(T, &mut Vec<SideLine>),
) {
    match T::deserialize(result) {
        Ok(typed) => lines(typed, out),
        Err(_) => out.push(line(
            LineKind::Error,
            &format!("the workspace answered {tool} with a result of another shape"),
        )),
    }
}

fn find_lines(found: &FindResult, status: ReplyStatus, out: &mut Vec<SideLine>) {
    if status == ReplyStatus::Known {
        out.push(line(
            LineKind::Summary,
            &format!(
                "{} passage(s) of {} matching · {}/{} words",
                found.passages.len(),
                found.matching_passages,
                found.words_used,
                found.budget,
            ),
        ));
    }
    for (i, p) in found.passages.iter().enumerate() {
        let section = match p.section.as_deref() {
            None | Some("") => String::new(),
            Some(sec) => format!(" § {sec}"),
        };
        out.push(line(
            LineKind::Heading,
            &format!(
                "{}. {}:{}-{}{section}",
                i + 1,
                p.path,
                p.lines.start,
                p.lines.end
            ),
        ));
        out.extend(p.text.lines().map(|l| line(LineKind::Text, l)));
        out.push(line(LineKind::Text, ""));
    }
}

fn query_lines(result: &QueryResult, status: ReplyStatus, out: &mut Vec<SideLine>) {
    if status == ReplyStatus::Known {
        out.push(line(
            LineKind::Summary,
            &format!(
                "{} of {} match(es)",
                result.matches.len(),
                result.total_matches
            ),
        ));
    }
    for m in &result.matches {
        out.push(line(
            LineKind::Heading,
            &format!("{}:{} [{}]", m.path, m.line, m.kind),
        ));
        if !m.snippet.is_empty() {
            out.push(line(LineKind::Text, &format!("  {}", m.snippet)));
        }
        if let Some(explain) = &m.explain {
            out.push(line(
                LineKind::Dim,
                &format!(
                    "  why: {}",
                    serde_json::to_string(&explain.why).unwrap_or_default()
                ),
            ));
        }
    }
}

fn check_lines(result: &CheckResult, out: &mut Vec<SideLine>) {
    out.push(line(
        LineKind::Summary,
        &format!(
            "{} error(s), {} warning(s) in {} file(s) checked{}",
            result.counts.errors,
            result.counts.warnings,
            result.files_checked,
            if result.strict { " (strict)" } else { "" },
        ),
    ));
    // Grouped by file, in the order files first appear.
    let mut paths: Vec<&str> = Vec::new();
    for f in &result.findings {
        if !paths.contains(&f.path.as_str()) {
            paths.push(&f.path);
        }
    }
    for path in paths {
        out.push(line(LineKind::Heading, path));
        for f in result.findings.iter().filter(|f| f.path == path) {
            finding_lines(f, out);
        }
    }
    if result.paths_not_checked > 0 {
        out.push(line(
            LineKind::Dim,
            &format!("{} path(s) not checked", result.paths_not_checked),
        ));
    }
}

fn finding_lines(f: &Finding, out: &mut Vec<SideLine>) {
    let (kind, severity) = match f.severity {
        Severity::Error => (LineKind::Error, "error"),
        Severity::Warning => (LineKind::Warning, "warning"),
    };
    let at = match (f.line, f.column) {
        (Some(l), Some(c)) => format!("{l}:{c} "),
        (Some(l), None) => format!("{l} "),
        _ => String::new(),
    };
    out.push(line(
        kind,
        &format!("  {severity} {at}{} {}", f.code, f.message),
    ));
    if let Some(fix) = &f.suggestion {
        out.push(line(LineKind::Dim, &format!("    → {fix}")));
    }
}

fn capsule_lines(result: &CapsuleResult, out: &mut Vec<SideLine>) {
    let capsule = &result.capsule;
    out.push(line(
        LineKind::Summary,
        &format!(
            "{} claim(s) over {} admitted file(s)",
            capsule.claims.len(),
            capsule.admitted_files
        ),
    ));
    out.push(line(
        LineKind::Dim,
        &format!("workspace {}", capsule.workspace_fingerprint),
    ));
    out.push(line(
        LineKind::Dim,
        &format!(
            "integrity {} {}",
            result.integrity.algorithm, result.integrity.hash
        ),
    ));
    for (i, c) in capsule.claims.iter().enumerate() {
        out.push(line(
            LineKind::Heading,
            &format!("{}. {}:{}-{}", i + 1, c.path, c.lines.start, c.lines.end),
        ));
        out.push(line(LineKind::Text, &format!("  {}", c.statement)));
        out.push(line(
            LineKind::Dim,
            &format!("  sha256 {}", c.passage_sha256),
        ));
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use serde_json::json;

    use super::*;

    fn texts(lines: &[SideLine]) -> Vec<&str> {
        lines.iter().map(|l| l.text.as_str()).collect()
    }

    #[test]
    fn passages_show_path_lines_section_and_text() {
        let e = json!({"schema": "mcpdeck.workspace-result/v1", "status": "known", "workspace": "p",
            "result": {"passages": [{"path": "README.md", "lines": {"start": 3, "end": 5},
                "section": "Config", "text": "first\nsecond", "score": 1.0, "words": 2, "kind": "markdown"}],
                "words_used": 2, "budget": 800, "matching_passages": 4}});
        let lines = envelope_lines("workspace_find", &e);
        assert_eq!(
            texts(&lines),
            [
                "1 passage(s) of 4 matching · 2/800 words",
                "1. README.md:3-5 § Config",
                "first",
                "second",
                ""
            ]
        );
        assert_eq!(lines[1].kind, LineKind::Heading);
    }

    #[test]
    fn a_find_result_of_another_shape_says_so_instead_of_an_empty_list() {
        let e = json!({"schema": "mcpdeck.workspace-result/v1", "status": "known", "workspace": "p",
            "result": {"passage": [], "words_used": 0, "budget": 800, "matching_passages": 0}});
        let lines = envelope_lines("workspace_find", &e);
        assert_eq!(
            texts(&lines),
            ["the workspace answered workspace_find with a result of another shape"]
        );
        assert_eq!(lines[0].kind, LineKind::Error);
    }

    #[test]
    fn findings_are_grouped_by_file_with_severity() {
        let e = json!({"schema": "x", "status": "known", "result": {
            "findings": [
                {"path": "a/.mcp.json", "severity": "error", "code": "syntax", "line": 2, "column": 5, "message": "bad"},
                {"path": "b.md", "severity": "warning", "code": "broken_link", "line": 7, "message": "gone"},
                {"path": "a/.mcp.json", "severity": "warning", "code": "unpinned_npx", "line": 3, "column": 1, "message": "pin", "suggestion": "x@1"}
            ],
            "files_checked": 9, "counts": {"errors": 1, "warnings": 2}, "strict": true, "paths_not_checked": 2}});
        let lines = envelope_lines("workspace_check", &e);
        assert_eq!(
            texts(&lines),
            [
                "1 error(s), 2 warning(s) in 9 file(s) checked (strict)",
                "a/.mcp.json",
                "  error 2:5 syntax bad",
                "  warning 3:1 unpinned_npx pin",
                "    → x@1",
                "b.md",
                "  warning 7 broken_link gone",
                "2 path(s) not checked",
            ]
        );
        assert_eq!(lines[2].kind, LineKind::Error);
        assert_eq!(lines[3].kind, LineKind::Warning);
    }

    #[test]
    fn refusals_and_hostile_text_are_shown_safely() {
        let e = json!({"schema": "x", "status": "refused", "reason": "server_busy"});
        assert_eq!(
            texts(&envelope_lines("workspace_find", &e)),
            ["refused: another workspace call is still running; try again when it ends"]
        );
        let e = json!({"schema": "x", "status": "known", "result": {"matches": [
            {"path": "evil\u{1b}[2J.md", "line": 1, "kind": "markdown", "snippet": "a\u{202e}b",
                "snippet_complete": true}], "total_matches": 1}});
        let lines = envelope_lines("workspace_query", &e);
        assert_eq!(lines.len(), 3, "{lines:?}");
        for l in lines {
            assert!(
                !l.text
                    .chars()
                    .any(|c| c.is_control() || ('\u{202a}'..='\u{202e}').contains(&c)),
                "{:?}",
                l.text
            );
        }
    }

    #[test]
    fn capsule_shows_claims_and_hashes() {
        let e = json!({"schema": "x", "status": "known", "result": {
            "capsule": {"schema": "mcpdeck.workspace-capsule/v1", "workspace": "p", "question_sha256": "q",
                "claims": [{"statement": "S", "path": "a.md", "lines": {"start": 1, "end": 2}, "passage_sha256": "ab"}],
                "workspace_fingerprint": "fp", "admitted_files": 3},
            "integrity": {"algorithm": "sha256", "canonicalization": "c", "hash": "hh"}}});
        assert_eq!(
            texts(&envelope_lines("workspace_capsule", &e)),
            [
                "1 claim(s) over 3 admitted file(s)",
                "workspace fp",
                "integrity sha256 hh",
                "1. a.md:1-2",
                "  S",
                "  sha256 ab"
            ]
        );
    }
}
