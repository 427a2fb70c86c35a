//! Claude Code: user scope (`~/.claude.json` top-level `mcpServers`), local scope (the same
//! file's `projects[<absolute project path>].mcpServers`) and project scope (`.mcp.json`), with
//! `${VAR}` / `${VAR:-default}` expansion; precedence local > project > user.

use super::reader::{Rules, TypeRule, read_json};
use super::{HostEnv, HostFile, HostId, Scope, Trap};

const RULES: Rules = Rules {
    host: HostId::ClaudeCode,
    servers_key: "mcpServers",
    jsonc: false,
    extra_fields: &["oauth", "headersHelper"],
    url_keys: &["url"],
    sse_url_key: None,
    type_rule: TypeRule::ForUrl,
    sse_note: Some("has deprecated the SSE transport"),
    cwd: false,
    disabled_key: None,
    invalid_disables_file: true,
};

/// Reads the three scopes, lowest precedence first.
pub(super) fn read(env: &HostEnv) -> (Vec<HostFile>, Vec<Trap>) {
    let config = env
        .overrides
        .get("CLAUDE_CONFIG_DIR")
        .map(|d| d.join(".claude.json"))
        .or_else(|| env.home.as_ref().map(|h| h.join(".claude.json")));
    let project_key = env.project.to_string_lossy().into_owned();
    let mut files = Vec::new();
    if let Some(config) = &config {
        files.push(read_json(
            &RULES,
            Scope::User,
            config.clone(),
            &[],
            &env.project,
        ));
    }
    let project = read_json(
        &RULES,
        Scope::Project,
        env.project.join(".mcp.json"),
        &[],
        &env.project,
    );
    let mut traps = Vec::new();
    if !project.entries.is_empty() {
        traps.push(Trap {
            code: "project_approval",
            message: "Claude Code asks each user to approve the servers of .mcp.json before their first use; a server once declined stays off until `claude mcp reset-project-choices`".into(),
        });
    }
    files.push(project);
    if let Some(config) = config {
        files.push(read_json(
            &RULES,
            Scope::Local,
            config,
            &["projects", &project_key],
            &env.project,
        ));
    }
    (files, traps)
}
