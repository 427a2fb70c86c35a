//! A `sandbox` field in another host's file. Only mcpdeck reads its `sandbox` block: a host
//! without the field ignores it and starts the server unconfined, and VS Code's own `sandbox`
//! field has another shape. `hosts check` reports both, with what mcpdeck would make of it, and
//! an import keeps mcpdeck's block.

use super::HostId;
use crate::mcp::config::fields::Cx;
use crate::mcp::config::json::{Json, Member};
use crate::mcp::config::{SANDBOX_FIELDS, sandbox_summary};

/// Whether the `sandbox` member `m` has mcpdeck's shape (a preset name, or an object with one
/// of mcpdeck's sandbox fields).
fn mcpdeck_shaped(m: &Member) -> bool {
    match &m.value.value {
        Json::String(_) => true,
        Json::Object(members) => members
            .iter()
            .any(|f| SANDBOX_FIELDS.contains(&f.key.as_str())),
        _ => false,
    }
}

/// The `sandbox` block an import carries into mcpdeck's file: any `sandbox` of a host without
/// one of its own (it can only be mcpdeck's), and one of mcpdeck's shape otherwise. mcpdeck's
/// loader checks it when the converted definition is validated, so a malformed block refuses
/// the import with its reason instead of being dropped.
pub(super) fn carried(own_field: bool, m: &Member) -> Option<serde_json::Value> {
    (!own_field || mcpdeck_shaped(m)).then(|| m.value.value.to_value())
}

/// Warns about the `sandbox` member `m` of the server at `path` in `host`'s file; `own_field`
/// says whether the host has a `sandbox` field of its own.
pub(super) fn report(cx: &mut Cx<'_>, host: HostId, own_field: bool, path: &str, m: &Member) {
    let name = host.name();
    if own_field && !mcpdeck_shaped(m) {
        return;
    }
    let mcpdeck = match sandbox_summary(cx, &m.value) {
        Some(rules) => format!(
            "mcpdeck would confine it to: {}",
            crate::mcp::sanitize::sanitize_capped(&rules, 300)
        ),
        None => "mcpdeck would refuse this block as written".to_owned(),
    };
    let message = if own_field {
        format!(
            "this `sandbox` is mcpdeck's; {name}'s own `sandbox` field has another shape, so \
             {name} does not confine the server by it ({mcpdeck})"
        )
    } else {
        format!(
            "`sandbox` is read by mcpdeck only; {name} ignores it and starts this server \
             unconfined ({mcpdeck})"
        )
    };
    cx.warning(
        "mcpdeck_sandbox",
        &format!("{path}.sandbox"),
        m.key_start,
        message,
        Some(
            "a sandbox protects only the servers mcpdeck starts; keep sandboxed definitions in \
             mcpdeck's own files ($XDG_CONFIG_HOME/mcpdeck/mcp.json, .mcpdeck/mcp.json)"
                .into(),
        ),
    );
}
