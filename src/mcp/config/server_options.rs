//! A server's options beyond its transport: `roots`, `lifecycle`, `requestTimeoutMs`,
//! `reconnect` and `protocolVersion`. Reads no environment and touches no file.

use super::diagnostic::nearest;
use super::fields::Cx;
use super::json::{Json, Spanned};
use super::model::{ProtocolChoice, ReconnectPolicy};

/// Largest accepted `requestTimeoutMs` (one day).
const MAX_TIMEOUT_MS: i64 = 86_400_000;

/// `roots`: an array of non-empty paths (relative ones resolve against the file's directory).
pub(super) fn check_roots(cx: &mut Cx<'_>, path: &str, value: &Spanned) -> Vec<String> {
    let p = format!("{path}.roots");
    let Json::Array(items) = &value.value else {
        cx.error(
            "type_mismatch",
            &p,
            value.start,
            format!(
                "`roots` must be an array of directory paths, found {}",
                value.value.type_name()
            ),
            Some("write e.g. `\"roots\": [\".\", \"../shared\"]`, or `[]` for none".into()),
        );
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let ip = format!("{p}[{i}]");
        if let Some(root) = cx.non_empty_string(item, &ip) {
            if root.contains('\0') {
                cx.error(
                    "invalid_root",
                    &ip,
                    item.start,
                    "a root path must not contain NUL".into(),
                    None,
                );
                continue;
            }
            if root.contains("://") {
                cx.error(
                    "invalid_root",
                    &ip,
                    item.start,
                    "a root is a directory path, not a URI".into(),
                    Some("write the path; mcpdeck sends it as a `file://` URI".into()),
                );
                continue;
            }
            out.push(root);
        }
    }
    out
}

pub(super) fn check_lifecycle(cx: &mut Cx<'_>, path: &str, lifecycle: Option<&Spanned>) {
    let Some(value) = lifecycle else { return };
    let p = format!("{path}.lifecycle");
    if let Some(text) = cx.string(value, &p)
        && text != "lazy"
    {
        cx.error(
            "invalid_value",
            &p,
            value.start,
            format!("`lifecycle` accepts only `lazy` (connections are always lazy), not `{text}`"),
            Some("remove `lifecycle`".into()),
        );
    }
}

pub(super) fn check_timeout(cx: &mut Cx<'_>, path: &str, timeout: Option<&Spanned>) -> Option<u64> {
    check_millis(cx, path, "requestTimeoutMs", timeout)
}

/// A positive whole number of milliseconds up to one day in `field` (0 or less: the default).
pub(super) fn check_millis(
    cx: &mut Cx<'_>,
    path: &str,
    field: &str,
    timeout: Option<&Spanned>,
) -> Option<u64> {
    let value = timeout?;
    let p = format!("{path}.{field}");
    let Json::Number(n) = &value.value else {
        cx.error(
            "type_mismatch",
            &p,
            value.start,
            format!(
                "`{field}` must be an integer, found {}",
                value.value.type_name()
            ),
            None,
        );
        return None;
    };
    let Some(ms) = n.as_i64() else {
        cx.error(
            "invalid_value",
            &p,
            value.start,
            format!("`{field}` must be a whole number of milliseconds, not `{n}`"),
            None,
        );
        return None;
    };
    if ms > MAX_TIMEOUT_MS {
        cx.error(
            "out_of_range",
            &p,
            value.start,
            format!("`{field}` {ms} is over one day ({MAX_TIMEOUT_MS})"),
            None,
        );
        return None;
    }
    u64::try_from(ms).ok().filter(|ms| *ms > 0)
}

pub(super) fn check_reconnect(cx: &mut Cx<'_>, path: &str, value: &Spanned) -> ReconnectPolicy {
    let p = format!("{path}.reconnect");
    let mut policy = ReconnectPolicy::default();
    let Some(members) = cx.object(value, &p) else {
        return policy;
    };
    cx.duplicates(members, &p);
    for m in members {
        let mp = format!("{p}.{}", m.key);
        match m.key.as_str() {
            "automatic" => {
                if let Some(b) = cx.boolean(&m.value, &mp) {
                    policy.automatic = b;
                }
            }
            "maxAttempts" => {
                if let Some(n) = cx.integer_in(&m.value, &mp, 1, 3) {
                    policy.max_attempts = u8::try_from(n).unwrap_or(1);
                }
            }
            "baseDelayMs" => {
                if let Some(n) = cx.integer_in(&m.value, &mp, 100, 500) {
                    policy.base_delay_ms = u16::try_from(n).unwrap_or(200);
                }
            }
            other => cx.error(
                "unknown_field",
                &mp,
                m.key_start,
                format!("unknown `reconnect` field `{other}`"),
                nearest(other, &["automatic", "maxAttempts", "baseDelayMs"])
                    .map(|n| format!("did you mean `{n}`?")),
            ),
        }
    }
    policy
}

pub(super) fn check_protocol(
    cx: &mut Cx<'_>,
    path: &str,
    protocol: Option<&Spanned>,
) -> ProtocolChoice {
    let Some(value) = protocol else {
        return ProtocolChoice::default();
    };
    let p = format!("{path}.protocolVersion");
    match cx.string(value, &p).as_deref() {
        Some("legacy") => ProtocolChoice::Legacy,
        None => ProtocolChoice::Unset,
        Some("auto") => ProtocolChoice::Auto,
        Some("2026-07-28") => ProtocolChoice::Modern,
        Some(other) => {
            let suggestion = if other.starts_with("202") {
                "use `legacy` (the initialize handshake offering 2025-11-25), `auto`, or `2026-07-28`"
            } else {
                "use `legacy`, `auto` or `2026-07-28`"
            };
            cx.error(
                "invalid_value",
                &p,
                value.start,
                format!("unknown `protocolVersion` `{other}`"),
                Some(suggestion.into()),
            );
            ProtocolChoice::Legacy
        }
    }
}
