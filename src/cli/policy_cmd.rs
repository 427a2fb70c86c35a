//! `mcpdeck policy`: the user's policy file — its mode and rules — and adding an allow rule or
//! removing a rule from the command line. Every edit is atomic and backs the previous file up
//! under `$XDG_STATE_HOME/mcpdeck/backups/`; a file the engine would refuse is never edited.

use std::fmt::Write as _;
use std::path::Path;

use super::exit::Exit;
use super::output::print_text;
use crate::mcp::connection::ErrorClass;
use crate::mcp::policy::{Policy, RuleKind, add_allow_rule, remove_rule};

/// `mcpdeck policy allow|remove`.
#[derive(Debug, clap::Subcommand)]
pub enum PolicyCommand {
    /// Add an allow rule (`server-glob:operation-glob`, e.g. `github:tools.call search_*`).
    Allow {
        /// The rule.
        rule: String,
    },
    /// Remove a rule, allow or deny, exactly as listed.
    Remove {
        /// The rule.
        rule: String,
    },
}

/// Runs `mcpdeck policy [allow|remove]`.
pub fn run(path: &Path, command: Option<PolicyCommand>, json: bool) -> Exit {
    match command {
        None => list(path, json),
        Some(PolicyCommand::Allow { rule }) => edit(path, &rule, json, true),
        Some(PolicyCommand::Remove { rule }) => edit(path, &rule, json, false),
    }
}

fn fail(json: bool, class: ErrorClass, message: &str) -> Exit {
    super::output::fail(json, "policy", class, message)
}

fn list(path: &Path, json: bool) -> Exit {
    let policy = match Policy::load(path) {
        Ok(policy) => policy,
        Err(e) => return fail(json, ErrorClass::PolicyFile, &e.to_string()),
    };
    let rules = policy.rules();
    if json {
        let list: Vec<serde_json::Value> = rules
            .iter()
            .map(|(kind, rule)| serde_json::json!({"kind": kind, "rule": rule}))
            .collect();
        super::output::print_done(
            None,
            "policy",
            &serde_json::json!({
                "file": path,
                "exists": policy.source.is_some(),
                "mode": policy.mode.label(),
                "rules": list,
            }),
        );
        return Exit::Ok;
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "policy file  {}{}",
        path.display(),
        if policy.source.is_some() {
            ""
        } else {
            " (absent: audit, no rules)"
        }
    );
    let _ = writeln!(out, "mode         {}", policy.mode.label());
    if rules.is_empty() {
        out.push_str("no rules\n");
    }
    for (kind, rule) in &rules {
        let kind = match kind {
            RuleKind::Allow => "allow",
            RuleKind::Deny => "deny ",
        };
        let _ = writeln!(out, "  {kind}  {rule}");
    }
    print_text(&out);
    Exit::Ok
}

fn edit(path: &Path, rule: &str, json: bool, add: bool) -> Exit {
    let Some(backups) = crate::mcp::backup::backup_dir() else {
        return fail(
            json,
            ErrorClass::NoBackupDir,
            "no place for a backup: set HOME or XDG_STATE_HOME",
        );
    };
    let result = if add {
        add_allow_rule(path, rule, &backups)
    } else {
        remove_rule(path, rule, &backups)
    };
    let changed = match result {
        Ok(changed) => changed,
        Err(e) => return fail(json, ErrorClass::PolicyFile, &e.to_string()),
    };
    if !add && !changed {
        let message = format!("no rule `{rule}` in {}", path.display());
        return fail(json, ErrorClass::NoSuchRule, &message);
    }
    let outcome = match (add, changed) {
        (true, true) => "added",
        (true, false) => "already_present",
        _ => "removed",
    };
    if json {
        super::output::print_done(
            None,
            "policy",
            &serde_json::json!({"outcome": outcome, "rule": rule, "file": path}),
        );
    } else {
        let message = match outcome {
            "added" => format!("added allow rule `{rule}` to {}", path.display()),
            "already_present" => format!("`{rule}` is already an allow rule"),
            _ => format!("removed `{rule}` from {}", path.display()),
        };
        print_text(&message);
    }
    Exit::Ok
}
