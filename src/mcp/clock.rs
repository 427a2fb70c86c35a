//! Wall-clock timestamps for records shown to the operator (trust entries, last errors).

/// Now, as RFC 3339 in UTC.
pub(crate) fn now_rfc3339() -> String {
    time::OffsetDateTime::now_utc()
        .format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_else(|_| "unknown".to_owned())
}
