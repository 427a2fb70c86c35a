//! `mcpdeck trust [--yes]` and `mcpdeck trust --revoke`.
//!
//! Before asking, every project definition is printed in full — command and every argument
//! unabridged, the resolved cwd, env keys with their reference text, url, header names — with
//! risky patterns marked. Without a TTY, trust needs `--yes`; nothing else grants it.

use std::fmt::Write as _;
use std::io::IsTerminal as _;
use std::path::Path;

use super::Context;
use super::ask::confirm;
use super::exit::Exit;
use super::output::{fail, print_done, print_text};
use crate::mcp::config::schema::displayable;
use crate::mcp::config::{ServerEntry, Transport};
use crate::mcp::connection::ErrorClass;
use crate::mcp::hosts::review::host_entry_lines;
use crate::mcp::hosts::{HostEntry, HostId, project_entries};
use crate::mcp::trust::risk::risks;
use crate::mcp::trust::{TrustState, definitions, fingerprint};

/// Trusts the project after showing what will be trusted.
pub fn grant(cx: &mut Context, yes: bool, json: bool) -> Exit {
    let root = cx.config.project_root.clone();
    let state = cx.trust.state(&cx.config);
    if state == TrustState::NoProjectConfig {
        let message = format!(
            "{} has no .mcp.json or .mcpdeck/mcp.json and no other host's project file defines a server: nothing to trust",
            root.display()
        );
        return fail(json, "trust", ErrorClass::NothingToTrust, &message);
    }
    if state == TrustState::Trusted {
        // Nothing to confirm: the definitions on disk are the ones trusted.
        let message = format!(
            "{} is already trusted ({})",
            root.display(),
            fingerprint(&cx.config)
        );
        return done(json, "already_trusted", &message);
    }
    let mut text = describe(cx);
    if state == TrustState::Changed
        && let Some(old) = cx.trust.entry(&root)
    {
        text.push_str(&diff(&old.definitions, &definitions(&cx.config)));
    }
    if !json {
        print_text(&text);
    }
    if !yes {
        if !std::io::stdin().is_terminal() {
            let message =
                "not trusting without a terminal to confirm on; pass --yes to trust from a script";
            return fail(json, "trust", ErrorClass::NotConfirmed, message);
        }
        if !confirm(&format!(
            "Trust these definitions for {}? [y/N] ",
            root.display()
        )) {
            return fail(json, "trust", ErrorClass::NotConfirmed, "not trusted");
        }
    }
    match cx.trust.grant(&cx.config) {
        Ok(()) => {
            let message = format!("trusted {} ({})", root.display(), fingerprint(&cx.config));
            done(json, "trusted", &message)
        }
        Err(e) => fail(json, "trust", ErrorClass::TrustStore, &e.to_string()),
    }
}

/// Removes the project's trust entry.
pub fn revoke(cx: &mut Context, json: bool) -> Exit {
    let root = cx.config.project_root.clone();
    match cx.trust.revoke(&root) {
        Ok(true) => done(
            json,
            "revoked",
            &format!("revoked trust for {}", root.display()),
        ),
        Ok(false) => done(
            json,
            "not_trusted",
            &format!("{} was not trusted", root.display()),
        ),
        Err(e) => fail(json, "trust", ErrorClass::TrustStore, &e.to_string()),
    }
}

/// A trust command that did what it was asked: `outcome` names what happened.
fn done(json: bool, outcome: &str, message: &str) -> Exit {
    if json {
        print_done(
            None,
            "trust",
            &serde_json::json!({"outcome": outcome, "message": message}),
        );
    } else {
        print_text(message);
    }
    Exit::Ok
}

/// Every project definition in full, with risks marked `!`.
pub fn describe(cx: &Context) -> String {
    let root = &cx.config.project_root;
    let mut out = String::new();
    let _ = writeln!(out, "project      {}", root.display());
    let _ = writeln!(out, "trust        {}", cx.trust.state(&cx.config).label());
    let _ = writeln!(out, "fingerprint  {}\n", fingerprint(&cx.config));
    let entries: Vec<&ServerEntry> = cx.config.project_entries().collect();
    let theirs = project_entries(root);
    if entries.is_empty() && theirs.is_empty() {
        out.push_str("the project files define no servers\n");
    }
    for entry in entries {
        describe_entry(&mut out, entry, root);
    }
    for (host, entry) in &theirs {
        describe_host_entry(&mut out, *host, entry);
    }
    out
}

/// Another host's project definition, as written (literal credentials masked): trusting the
/// project lets `mcpdeck hosts connect` run it.
fn describe_host_entry(out: &mut String, host: HostId, entry: &HostEntry) {
    for (_, text) in host_entry_lines(host, entry) {
        let _ = writeln!(out, "{text}");
    }
    out.push('\n');
}

fn describe_entry(out: &mut String, entry: &ServerEntry, root: &Path) {
    let file = entry.source.file.display();
    let line = entry
        .source
        .line
        .map(|l| format!(":{l}"))
        .unwrap_or_default();
    let _ = writeln!(out, "server {}  ({file}{line})", entry.name);
    let Some(def) = &entry.def else {
        let _ = writeln!(out, "  INVALID — it will never connect; as written:");
        let pretty = serde_json::to_string_pretty(&displayable(&entry.raw)).unwrap_or_default();
        for l in pretty.lines() {
            let _ = writeln!(out, "    {l}");
        }
        out.push('\n');
        return;
    };
    let file_dir = entry.source.file.parent().unwrap_or(root);
    match &def.transport {
        Transport::Stdio(s) => {
            let _ = writeln!(out, "  command  {}", s.command);
            for (i, arg) in s.args.iter().enumerate() {
                let _ = writeln!(out, "  args[{i}]  {arg}");
            }
            let cwd = def
                .resolved_cwd(file_dir)
                .unwrap_or_else(|| file_dir.to_path_buf());
            let _ = writeln!(out, "  cwd      {}", cwd.display());
            for (key, value) in &s.env {
                let _ = writeln!(out, "  env      {key}={}", value.source());
            }
        }
        Transport::Http(h) => {
            let _ = writeln!(out, "  url      {}", h.url);
            for (name, value) in &h.headers {
                let _ = writeln!(out, "  header   {name}: {}", value.source());
            }
        }
    }
    if def.disabled {
        let _ = writeln!(out, "  disabled");
    }
    if let Some(sandbox) = def.sandbox_line() {
        let _ = writeln!(out, "  sandbox  {sandbox}");
    }
    let roots = crate::mcp::client::roots::offered_for(def, file_dir, root);
    let _ = writeln!(out, "  roots    {}", roots.line(root));
    for risk in risks(def, root, file_dir) {
        let _ = writeln!(out, "  ! {}: {}", risk.field, risk.reason);
    }
    out.push('\n');
}

/// What changed between the trusted and the current definitions, by file and server.
fn diff(old: &serde_json::Value, new: &serde_json::Value) -> String {
    let mut out = String::from("changes since trusted:\n");
    for line in crate::mcp::trust::diff::diff(old, new) {
        let _ = writeln!(out, "{}", line.text);
    }
    out.push('\n');
    out
}
