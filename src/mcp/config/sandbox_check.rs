//! The `sandbox` block of a stdio definition: a preset name, or an object of `preset`, `read`,
//! `write`, `exec`, `net`, `limits` and `bestEffort`. Reads no environment and touches no file.

use super::diagnostic::nearest;
use super::fields::Cx;
use super::json::{Json, Spanned};
use super::refs::Template;
use crate::mcp::sandbox::{Limits, NetRule, Preset, SandboxDef};

/// The fields of a `sandbox` object (also how `hosts check` tells mcpdeck's block from another
/// host's field of the same name).
pub(crate) const SANDBOX_FIELDS: &[&str] = &[
    "preset",
    "read",
    "write",
    "exec",
    "net",
    "limits",
    "bestEffort",
];

/// Checks `sandbox` of the server at `path` (`mcpServers.x`); errors are reported to `cx`.
pub(super) fn check_sandbox(cx: &mut Cx<'_>, path: &str, value: &Spanned) -> SandboxDef {
    check_block(cx, &format!("{path}.sandbox"), value)
}

/// Checks the user file's top-level `projectSandbox`, the default for project definitions
/// without a `sandbox`. With an error (reported to `cx`) it fails closed: the tightest block.
pub(super) fn check_project_sandbox(cx: &mut Cx<'_>, value: &Spanned) -> SandboxDef {
    let mut own = cx.scratch();
    let def = check_block(&mut own, "projectSandbox", value);
    let failed = own.has_errors();
    for d in own.take() {
        cx.record(d);
    }
    if failed { SandboxDef::default() } else { def }
}

/// What mcpdeck would make of `value` as a server's `sandbox`, in one line; `None` when it
/// would refuse it. Nothing is reported (another host's file is being read).
pub(crate) fn sandbox_summary(cx: &Cx<'_>, value: &Spanned) -> Option<String> {
    let mut own = cx.scratch();
    let def = check_block(&mut own, "sandbox", value);
    (!own.has_errors()).then(|| def.summary())
}

/// Checks a `sandbox` block at `p`, its full path.
fn check_block(cx: &mut Cx<'_>, p: &str, value: &Spanned) -> SandboxDef {
    let p = p.to_owned();
    let mut def = SandboxDef::default();
    if let Json::String(name) = &value.value {
        def.preset = check_preset(cx, &p, value, name);
        return def;
    }
    let Some(members) = cx.object(value, &p) else {
        return def;
    };
    cx.duplicates(members, &p);
    for m in members {
        let mp = format!("{p}.{}", m.key);
        match m.key.as_str() {
            "preset" => {
                if let Some(name) = cx.string(&m.value, &mp) {
                    def.preset = check_preset(cx, &mp, &m.value, &name);
                }
            }
            "read" => def.read = check_paths(cx, &mp, &m.value),
            "write" => def.write = check_paths(cx, &mp, &m.value),
            "exec" => def.exec = check_paths(cx, &mp, &m.value),
            "net" => def.net = check_net(cx, &mp, &m.value),
            "limits" => def.limits = check_limits(cx, &mp, &m.value),
            "bestEffort" => def.best_effort = cx.boolean(&m.value, &mp).unwrap_or(false),
            other => cx.error(
                "unknown_field",
                &mp,
                m.key_start,
                format!("unknown `sandbox` field `{other}`"),
                nearest(other, SANDBOX_FIELDS).map(|n| format!("did you mean `{n}`?")),
            ),
        }
    }
    def
}

fn check_preset(cx: &mut Cx<'_>, path: &str, value: &Spanned, name: &str) -> Option<Preset> {
    let found = Preset::from_name(name);
    if found.is_none() {
        let names: Vec<&str> = Preset::ALL.iter().map(|p| p.name()).collect();
        cx.error(
            "invalid_value",
            path,
            value.start,
            format!("unknown sandbox preset `{name}`"),
            Some(nearest(name, &names).map_or_else(
                || format!("use one of `{}`", names.join("`, `")),
                |n| format!("did you mean `{n}`?"),
            )),
        );
    }
    found
}

/// A list of paths: relative ones resolve against the file's directory, `~/` is the home
/// directory, `${NAME}` references expand when the server starts.
fn check_paths(cx: &mut Cx<'_>, path: &str, value: &Spanned) -> Vec<String> {
    let mut out = Vec::new();
    for (text, ip, at) in cx.strings(value, path) {
        if text.trim().is_empty() || text.contains('\0') {
            cx.error(
                "invalid_path",
                &ip,
                at,
                "a sandbox path must be a non-empty path without NUL".into(),
                None,
            );
            continue;
        }
        if let Err(e) = Template::parse(&text) {
            cx.error("bad_reference", &ip, at, e.to_string(), None);
            continue;
        }
        out.push(text);
    }
    out
}

fn check_net(cx: &mut Cx<'_>, path: &str, value: &Spanned) -> Option<NetRule> {
    match &value.value {
        Json::String(s) if s == "none" => Some(NetRule::None),
        Json::String(s) if s == "any" => Some(NetRule::Any),
        Json::Object(members) => {
            cx.duplicates(members, path);
            let mut connect = Vec::new();
            let mut bind = Vec::new();
            for m in members {
                let mp = format!("{path}.{}", m.key);
                match m.key.as_str() {
                    "connect" => connect = check_ports(cx, &mp, &m.value),
                    "bind" => bind = check_ports(cx, &mp, &m.value),
                    other => cx.error(
                        "unknown_field",
                        &mp,
                        m.key_start,
                        format!("unknown `net` field `{other}` (Landlock confines TCP by port, not by host)"),
                        nearest(other, &["connect", "bind"]).map(|n| format!("did you mean `{n}`?")),
                    ),
                }
            }
            Some(NetRule::Ports { connect, bind })
        }
        _ => {
            cx.error(
                "invalid_value",
                path,
                value.start,
                "`net` must be `\"none\"`, `\"any\"` or `{\"connect\": [PORT, …], \"bind\": [PORT, …]}`".into(),
                Some("Landlock confines TCP by port, not by host".into()),
            );
            None
        }
    }
}

fn check_ports(cx: &mut Cx<'_>, path: &str, value: &Spanned) -> Vec<u16> {
    let Some(items) = cx.array(value, path, "an array of TCP ports") else {
        return Vec::new();
    };
    items
        .iter()
        .enumerate()
        .filter_map(|(i, item)| {
            let ip = format!("{path}[{i}]");
            cx.integer_in(item, &ip, 1, 65_535)
                .and_then(|n| u16::try_from(n).ok())
        })
        .collect()
}

fn check_limits(cx: &mut Cx<'_>, path: &str, value: &Spanned) -> Limits {
    let mut limits = Limits::default();
    let Some(members) = cx.object(value, path) else {
        return limits;
    };
    cx.duplicates(members, path);
    for m in members {
        let mp = format!("{path}.{}", m.key);
        match m.key.as_str() {
            "memoryMb" => {
                limits.memory_mb = cx
                    .integer_in(&m.value, &mp, 16, 1 << 30)
                    .and_then(|n| u64::try_from(n).ok());
            }
            "processes" => {
                limits.processes = cx
                    .integer_in(&m.value, &mp, 1, 1 << 20)
                    .and_then(|n| u64::try_from(n).ok());
            }
            other => cx.error(
                "unknown_field",
                &mp,
                m.key_start,
                format!("unknown `limits` field `{other}`"),
                nearest(other, &["memoryMb", "processes"]).map(|n| format!("did you mean `{n}`?")),
            ),
        }
    }
    limits
}
