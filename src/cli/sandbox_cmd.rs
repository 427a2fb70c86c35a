//! `mcpdeck sandbox suggest SERVER`: prints a `sandbox` block derived from a stdio definition,
//! with what it rests on and what it cannot know.

use std::path::PathBuf;

use super::context::Context;
use super::output::{fail, print_text};
use crate::exit::Exit;
use crate::mcp::config::Transport;
use crate::mcp::connection::ErrorClass;
use crate::mcp::sanitize::sanitize_capped;

/// Runs `sandbox suggest`.
pub fn suggest(cx: &Context, server: &str, json: bool) -> Exit {
    let fail = |class: ErrorClass, message: String| fail(json, "sandbox.suggest", class, &message);
    let Some(found) = cx.config.servers.iter().find(|s| s.entry.name == server) else {
        return fail(
            ErrorClass::UnknownServer,
            format!("no server named `{}`", sanitize_capped(server, 128)),
        );
    };
    let Some(def) = &found.entry.def else {
        return fail(
            ErrorClass::InvalidDefinition,
            "the definition has errors: run `mcpdeck config check`".into(),
        );
    };
    let Transport::Stdio(stdio) = &def.transport else {
        return fail(
            ErrorClass::NotStdio,
            "only stdio servers run in a sandbox (an HTTP server runs elsewhere)".into(),
        );
    };
    let file_dir = found
        .entry
        .source
        .file
        .parent()
        .map_or_else(|| cx.config.project_root.clone(), PathBuf::from);
    let roots: Vec<PathBuf> = match &def.roots {
        Some(roots) => roots.iter().map(|r| file_dir.join(r)).collect(),
        None => vec![cx.config.project_root.clone()],
    };
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let path_var = std::env::var("PATH").ok();
    let s = crate::mcp::sandbox::suggest(
        stdio,
        &file_dir,
        &roots,
        home.as_deref(),
        path_var.as_deref(),
    );
    if json {
        super::output::print_done(
            Some(&sanitize_capped(server, 128)),
            "sandbox.suggest",
            &serde_json::to_value(&s).unwrap_or_default(),
        );
    } else {
        let block = serde_json::to_string_pretty(&serde_json::json!({"sandbox": s.sandbox}))
            .unwrap_or_default();
        let mut text = sanitize_capped(&block, 64 * 1024);
        for note in &s.notes {
            text.push_str("\n// ");
            text.push_str(note);
        }
        print_text(&text);
    }
    Exit::Ok
}
