//! Gemini CLI: `~/.gemini/settings.json` and `<project>/.gemini/settings.json` (`mcpServers` with
//! `command`/`args`/`env`/`cwd`/`url` (SSE)/`httpUrl`/`headers`/`timeout`/`trust`/
//! `includeTools`/`excludeTools`; `$VAR` and `${VAR}` expansion); the project file wins a name.

use super::reader::{Rules, TypeRule, read_json};
use super::{HostEnv, HostFile, HostId, Scope, Trap};
use crate::mcp::config::{Diagnostic, Severity};

const RULES: Rules = Rules {
    host: HostId::Gemini,
    servers_key: "mcpServers",
    jsonc: true,
    extra_fields: &[
        "timeout",
        "trust",
        "includeTools",
        "excludeTools",
        "description",
        "oauth",
        "authProviderType",
        "targetAudience",
        "targetServiceAccount",
    ],
    url_keys: &["httpUrl", "url"],
    sse_url_key: Some("url"),
    type_rule: TypeRule::Optional,
    sse_note: None,
    cwd: true,
    disabled_key: None,
    invalid_disables_file: false,
};

/// Reads the user and the project settings.
pub(super) fn read(env: &HostEnv) -> (Vec<HostFile>, Vec<Trap>) {
    let mut files = Vec::new();
    if let Some(home) = &env.home {
        files.push(read_json(
            &RULES,
            Scope::User,
            home.join(".gemini").join("settings.json"),
            &[],
            &env.project,
        ));
    }
    files.push(read_json(
        &RULES,
        Scope::Project,
        env.project.join(".gemini").join("settings.json"),
        &[],
        &env.project,
    ));
    for file in &mut files {
        for entry in &mut file.entries {
            if entry.raw.get("trust") == Some(&serde_json::Value::Bool(true)) {
                entry.diagnostics.push(Diagnostic {
                    severity: Severity::Warning,
                    code: "trust_bypass",
                    file: entry.origin.file.clone(),
                    path: format!("mcpServers.{}.trust", entry.name),
                    line: entry.origin.line,
                    column: None,
                    message: "`trust: true` makes Gemini CLI run every tool of this server without asking".into(),
                    suggestion: Some("remove it, or limit the tools with `includeTools`".into()),
                });
            }
        }
    }
    let mut traps = Vec::new();
    if files.iter().any(|f| f.scope == Scope::Project && f.present) {
        traps.push(Trap {
            code: "folder_trust",
            message: "Gemini CLI applies a project's .gemini/settings.json only when the folder is trusted in Gemini CLI".into(),
        });
    }
    (files, traps)
}
