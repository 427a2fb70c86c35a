//! How another host's project definition is shown in a trust review, shared by `mcpdeck trust`
//! and the console's trust view: trusting the project lets mcpdeck test-connect it, so the
//! operator sees it as written (literal credentials masked) before trusting. Lines are not
//! sanitised here; every face sanitises what it shows.

use super::{HostEntry, HostId};

/// What a review line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ReviewKind {
    /// The server's heading.
    Heading,
    /// A warning (the definition is invalid).
    Warn,
    /// The definition as written.
    Body,
}

/// The review lines of one other-host project definition, without indentation of the heading;
/// body lines are indented by four spaces.
pub(crate) fn host_entry_lines(host: HostId, entry: &HostEntry) -> Vec<(ReviewKind, String)> {
    let line = entry
        .origin
        .line
        .map(|l| format!(":{l}"))
        .unwrap_or_default();
    let mut out = vec![(
        ReviewKind::Heading,
        format!(
            "server {}  ({}, {}{line}; run only by a test-connect: `mcpdeck hosts connect {} {}` or the console's Hosts view)",
            entry.name,
            host.name(),
            entry.origin.file.display(),
            host.id(),
            entry.name
        ),
    )];
    if entry.def.is_none() {
        out.push((
            ReviewKind::Warn,
            format!("  INVALID under {}'s rules; as written:", host.name()),
        ));
    }
    let pretty = serde_json::to_string_pretty(&entry.raw).unwrap_or_default();
    out.extend(
        pretty
            .lines()
            .map(|l| (ReviewKind::Body, format!("    {l}"))),
    );
    if let Some(note) = super::values::hidden_note(&entry.raw) {
        out.push((ReviewKind::Body, format!("    {note}")));
    }
    out
}
