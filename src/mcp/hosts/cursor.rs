//! Cursor: `~/.cursor/mcp.json` and `<project>/.cursor/mcp.json` (`mcpServers`, `${env:NAME}`,
//! `${workspaceFolder}`, `${userHome}`, `envFile`); the project file wins a name.

use super::reader::{Rules, TypeRule, read_json};
use super::{HostEnv, HostFile, HostId, Scope, Trap};

const RULES: Rules = Rules {
    host: HostId::Cursor,
    servers_key: "mcpServers",
    jsonc: false,
    extra_fields: &["envFile", "auth"],
    url_keys: &["url"],
    sse_url_key: None,
    type_rule: TypeRule::Optional,
    sse_note: None,
    cwd: false,
    disabled_key: None,
    invalid_disables_file: false,
};

/// Reads the global and the project file.
pub(super) fn read(env: &HostEnv) -> (Vec<HostFile>, Vec<Trap>) {
    let mut files = Vec::new();
    if let Some(home) = &env.home {
        files.push(read_json(
            &RULES,
            Scope::User,
            home.join(".cursor").join("mcp.json"),
            &[],
            &env.project,
        ));
    }
    files.push(read_json(
        &RULES,
        Scope::Project,
        env.project.join(".cursor").join("mcp.json"),
        &[],
        &env.project,
    ));
    (files, Vec::new())
}
